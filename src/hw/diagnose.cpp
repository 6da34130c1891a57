#include "hw/diagnose.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "core/limits.h"
#include "core/text.h"
#include "hw/knowledge.h"

namespace goblin::hw {

namespace {
// Spec values are printed as stored (no rounding: 1978.9 must not become 1979).
std::string spec_num(double v) { return fmt::format("{:.10g}", v); }
}  // namespace

KernelDiagnosis diagnose_kernel(const CounterKernel& k, const NcuRules& R, int sm_count, const std::string& vendor) {
  KernelDiagnosis d;
  // A fix in the vendor's words (data/ncu_rules.yaml § remedies); none when the data lacks it.
  auto fix = [&](std::vector<Fix>& out, const char* id) {
    if (const RemedyText* t = R.remedy(id, vendor)) out.push_back({t->fix, t->rationale});
  };
  d.cls = classify_ncu_kernel(k, R);
  const auto& c = d.cls;
  auto ev = [&](const std::string& metric, const std::string& interp, std::vector<Evidence>& out) {
    if (auto* v = k.get(metric)) {
      auto u = k.unit.find(metric);
      auto s = k.source.find(metric);
      out.push_back({metric, *v, u == k.unit.end() ? "" : u->second,
                     s == k.source.end() ? interp : interp + " (from " + s->second + ")"});
    }
  };
  std::vector<Bottleneck> cands;
  double sm = c.compute_pct.value_or(-1), mem = c.memory_pct.value_or(-1);
  // Out of 0..100 % (a damaged CSV, classify_ncu_kernel says so): no evidence either way.
  if (!(sm <= 105.0)) sm = -1;
  if (!(mem <= 105.0)) mem = -1;
  double headroom = (sm >= 0 && mem >= 0) ? 100 - std::max(sm, mem) : 100;

  if (mem >= 0) {
    Bottleneck b;
    b.category = "memory";
    b.severity = mem;
    b.cause = "the memory system runs at " + format_sig(mem, 4) + "% of its peak" +
              (c.dram_pct ? " (DRAM " + format_sig(*c.dram_pct, 4) + "%)" : "");
    b.summary = "Memory throughput at " + format_sig(mem, 4) + "% of peak";
    b.reasoning = mem >= R.high_pct ? "at or above the " + format_sig(R.high_pct, 4) +
                                          "% speed-of-light threshold: time is set by bytes moved, so cut bytes"
                                    : "below the " + format_sig(R.high_pct, 4) + "% threshold; a secondary limiter";
    ev(R.memory_metrics.front(), "memory throughput, % of peak", b.evidence);
    for (auto& m : R.dram_metrics) ev(m, "DRAM throughput, % of peak", b.evidence);
    ev("dram__bytes_read.sum", "bytes read from DRAM", b.evidence);
    ev("dram__bytes_write.sum", "bytes written to DRAM", b.evidence);
    ev("lts__t_sector_hit_rate.pct", "L2 hit rate", b.evidence);
    ev("l1tex__t_sector_hit_rate.pct", "L1 hit rate", b.evidence);
    fix(b.fixes, "memory_fuse");
    fix(b.fixes, "memory_vectorize");
    cands.push_back(b);
  }
  if (sm >= 0) {
    Bottleneck b;
    b.category = "compute";
    b.severity = sm;
    b.cause = "the SM pipelines run at " + format_sig(sm, 4) + "% of peak";
    b.summary = "Compute (SM) throughput at " + format_sig(sm, 4) + "% of peak";
    b.reasoning = sm >= R.high_pct ? "at or above the " + format_sig(R.high_pct, 4) +
                                         "% speed-of-light threshold: time is set by instructions issued"
                                   : "below the " + format_sig(R.high_pct, 4) + "% threshold; a secondary limiter";
    ev(R.compute_metrics.front(), "SM throughput, % of peak", b.evidence);
    ev("sm__inst_executed_pipe_tensor.sum", "tensor-pipe instructions", b.evidence);
    ev("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "tensor pipe active, % of peak", b.evidence);
    ev("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "FP32 FMA thread instructions (SIMT)", b.evidence);
    ev("sm__inst_executed.avg.pct_of_peak_sustained_elapsed", "instructions issued, % of peak", b.evidence);
    bool simt = k.get("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") &&
                *k.get("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") > 0 &&
                (!k.get("sm__inst_executed_pipe_tensor.sum") || *k.get("sm__inst_executed_pipe_tensor.sum") == 0);
    if (simt) fix(b.fixes, "compute_fp32_to_matrix");
    bool tensor = k.get("sm__inst_executed_pipe_tensor.sum") && *k.get("sm__inst_executed_pipe_tensor.sum") > 0;
    fix(b.fixes, tensor ? "compute_matrix_bound" : "compute_instructions");
    cands.push_back(b);
  }
  // Underutilisation: small grid, low occupancy, latency.
  {
    Bottleneck b;
    b.category = "underutilized";
    double grid = k.get("launch__grid_size")             ? *k.get("launch__grid_size")
                  : k.get("Launch Statistics/Grid Size") ? *k.get("Launch Statistics/Grid Size")
                                                         : -1;
    int sms = sm_count > 0 ? sm_count : (k.get("launch__sm_count") ? static_cast<int>(*k.get("launch__sm_count")) : -1);
    if (c.waves) ev("launch__waves_per_multiprocessor", "waves per SM", b.evidence);
    if (grid > 0 && sms > 0 && grid < sms) {
      b.severity = 100.0 * (sms - grid) / sms;  // NCU LaunchConfiguration estimate
      b.cause = "the grid has " + format_sig(grid, 4) + fmt::format(" blocks for {} SMs", sms);
      b.summary = "Grid too small: " + format_sig(b.severity, 4) + "% of SMs idle";
      ev("launch__grid_size", "blocks launched", b.evidence);
      b.fixes.clear();
      fix(b.fixes, "grid_small");
    }
    // Theoretical occupancy from the launch__occupancy_limit_* block limits.
    double lim = 1e9;
    for (const char* m : {"launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
                          "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps"})
      if (auto* v = k.get(m)) lim = std::min(lim, *v);
    auto* bs = k.get("launch__block_size");
    auto* maxthr = k.get("device__attribute_max_threads_per_multiprocessor");
    if (lim < 1e9 && bs && maxthr && *maxthr > 0) {
      double theo = 100.0 * lim * std::ceil(*bs / 32.0) / (*maxthr / 32.0);
      theo = std::min(theo, 100.0);
      if (theo < R.occ_min_pct) {
        double s = std::min(100.0 - theo, headroom);  // child capped by parent (SOL headroom)
        if (s > b.severity) {
          std::string limiter;
          double best = 1e9;
          for (const char* m : {"launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
                                "launch__occupancy_limit_blocks", "launch__occupancy_limit_warps"})
            if (auto* v = k.get(m); v && *v < best) best = *v, limiter = m;
          b.severity = s;
          b.cause = "theoretical occupancy " + format_sig(theo, 4) + "% (< " + format_sig(R.occ_min_pct, 4) +
                    "%), limited by " + limiter;
          b.summary = "Low occupancy: " + format_sig(theo, 4) + "% theoretical";
          ev(limiter, "blocks per SM allowed by this resource", b.evidence);
          ev("launch__registers_per_thread", "registers per thread", b.evidence);
          ev("launch__shared_mem_per_block_allocated", "shared memory per block", b.evidence);
          ev("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy (warps active)", b.evidence);
          b.fixes.clear();
          fix(b.fixes, "occupancy");
        }
      }
    }
    if (sm >= 0 && mem >= 0 && sm < R.latency_pct && mem < R.latency_pct && headroom > b.severity) {
      b.severity = headroom;
      b.cause = "neither compute (" + format_sig(sm, 4) + "%) nor memory (" + format_sig(mem, 4) + "%) reaches " +
                format_sig(R.latency_pct, 4) + "%";
      b.summary = "Latency-bound: the GPU is mostly waiting";
      ev("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy (warps active)", b.evidence);
      ev("smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", "stalls on global memory", b.evidence);
      b.fixes.clear();
      fix(b.fixes, "latency_parallelism");
      fix(b.fixes, "latency_tiny");
    }
    if (b.severity > 0) {
      b.reasoning = "estimated share of the GPU left idle (NCU-style estimate, capped by the speed-of-light headroom)";
      cands.push_back(b);
    }
  }
  std::sort(cands.begin(), cands.end(),
            [](const Bottleneck& a, const Bottleneck& b) { return a.severity > b.severity; });
  for (auto& b : cands) {
    if (d.bottlenecks.size() == 2) break;
    bool dup = false;
    for (auto& x : d.bottlenecks) dup |= x.category == b.category;
    if (!dup) d.bottlenecks.push_back(b);
  }
  return d;
}

Json diagnosis_to_json(const KernelDiagnosis& d) {
  Json arr = Json::array();
  for (auto& b : d.bottlenecks) {
    Json evs = Json::array(), fixes = Json::array();
    for (auto& e : b.evidence)
      evs.push_back({{"metric", e.metric}, {"value", e.value}, {"interpretation", e.interpretation}});
    for (auto& f : b.fixes) fixes.push_back({{"fix", f.fix}, {"rationale", f.rationale}});
    arr.push_back({{"category", b.category},
                   {"summary", b.summary},
                   {"reasoning", b.reasoning},
                   {"severity", round_to(b.severity, 2)},
                   {"root_causes", Json::array({{{"cause", b.cause}, {"evidence", evs}, {"fixes", fixes}}})}});
  }
  return arr;
}

Result<std::vector<MetricSchemaSection>> load_metric_schema() { return hw::hw_knowledge()->ncu_metric_schema; }

Result<std::vector<MetricSchemaSection>> parse_metric_schema(const std::string& text) {
  std::vector<MetricSchemaSection> out;
  try {
    YAML::Node n = YAML::Load(text);
    for (auto s : n["sections"]) {
      MetricSchemaSection sec;
      sec.name = s["name"].as<std::string>();
      for (auto m : s["metrics"])
        sec.metrics.push_back({m["label"].as<std::string>(), m["key"].as<std::string>(), m["unit"].as<std::string>()});
      out.push_back(std::move(sec));
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("cannot parse ncu_metric_schema.yaml: ") + e.what(),
                      "data/ncu_metric_schema.yaml");
  }
  return out;
}

JudgePrompt build_judge_prompt(const CounterKernel& k, const std::vector<MetricSchemaSection>& schema,
                               const GpuSpec* gpu, const std::string& kernel_source, const std::string& problem) {
  JudgePrompt p;
  p.system =
      "You are a senior GPU performance engineer. Read the target GPU's specifications, the kernel source and its "
      "Nsight Compute (NCU) metrics, then name EXACTLY TWO DISTINCT bottlenecks that the profiling data shows and "
      "the optimisations that address each. Be surgical and metrics-driven.\n\n"
      "## Bottleneck categories\n"
      "- memory: DRAM/L2/L1 throughput near peak, poor hit rates or coalescing, long-scoreboard stalls.\n"
      "- compute: SM or pipe (FP32, tensor) throughput near peak while memory throughput is lower.\n"
      "- underutilized: neither compute nor memory near peak: small grid (fewer blocks than SMs), low occupancy "
      "(register / shared-memory limits), latency stalls, tail effects.\n\n"
      "## Rules\n"
      "- Return exactly two bottlenecks; each category at most once.\n"
      "- Cite the metrics (name and value exactly as given) that support each root cause.\n"
      "- Every hardware number you use must come from the GPU specifications below; do not invent specs.\n"
      "- Give concrete fixes with the reason each would help.\n\n"
      "## Output format (JSON only)\n"
      "```json\n"
      "[\n"
      "  {\n"
      "    \"category\": \"memory | compute | underutilized\",\n"
      "    \"summary\": \"one sentence\",\n"
      "    \"reasoning\": \"why the metrics point here\",\n"
      "    \"root_causes\": [\n"
      "      {\n"
      "        \"cause\": \"...\",\n"
      "        \"evidence\": [{\"metric\": \"<ncu metric>\", \"value\": <number>, \"interpretation\": \"...\"}],\n"
      "        \"fixes\": [{\"fix\": \"...\", \"rationale\": \"...\"}]\n"
      "      }\n"
      "    ]\n"
      "  }\n"
      "]\n"
      "```\n"
      "The first element is the primary (highest-impact) bottleneck.\n";
  std::string u;
  auto out = std::back_inserter(u);
  fmt::format_to(out, "## Problem Description\n\n{}\n\n", problem.empty() ? "(not given)" : problem);
  u += "## Current Kernel Code\n\n";
  if (kernel_source.empty())
    u += "(kernel source not given)\n\n";
  else
    fmt::format_to(out, "```\n{}{}```\n\n", kernel_source, kernel_source.back() == '\n' ? "" : "\n");
  fmt::format_to(out, "## Profiled Kernel\n\n- **Name:** {}\n- **NCU ID:** {}\n\n", k.name, k.key);
  u += "## GPU Hardware Specifications\n\n";
  if (!gpu) {
    u += "(GPU not identified: no specifications given; do not assume any)\n";
  } else {
    fmt::format_to(out, "- **Name:** {} [{}]\n- **Architecture:** {} ({})\n", gpu->name, gpu->id, gpu->architecture,
                   gpu->arch_id);
    auto line = [&](const std::string& label, const SpecValue* v) {
      if (!v) return;
      fmt::format_to(out, "- **{}:** ", label);
      if (v->value)
        u += spec_num(*v->value) + (v->unit.empty() ? "" : " " + v->unit);
      else if (!v->text.empty())
        u += v->text;
      else
        u += "UNKNOWN";
      fmt::format_to(out, " <- {}\n", v->citation());
    };
    line("Peak Memory Bandwidth", gpu->spec("memory_bandwidth"));
    for (auto& [key, pk] : gpu->peaks) line("Peak " + key + " (dense, " + pk.engine + ")", &pk);
    line("SM/CU Count", gpu->spec("sm_count"));
    line("Shared Memory / LDS per SM", gpu->spec("shared_mem_per_sm"));
    line("Registers per SM", gpu->spec("registers_per_sm"));
    line("L2 Cache (Total)", gpu->spec("l2_cache"));
    line("Memory Size", gpu->spec("memory_size"));
    line("Memory Type", gpu->spec("memory_type"));
  }
  u += "\n## NCU Profiling Metrics\n";
  for (auto& sec : schema) {
    fmt::format_to(out, "\n### {}\n", sec.name);
    for (auto& m : sec.metrics) {
      fmt::format_to(out, "- **{}** (`{}`): ", m.label, m.key);
      if (auto* v = k.get(m.key))
        fmt::format_to(out, "{:.2f}{}\n", *v, m.unit);
      else
        u += "N/A\n";
    }
  }
  u += "\n## Your Task\n\nIdentify exactly TWO distinct bottlenecks from the NCU metrics above (the first is the "
       "primary one), cite the metrics that reveal each, and recommend concrete fixes. Return JSON in the format "
       "given in the system prompt.\n";
  p.user = std::move(u);
  return p;
}

// ---- response parsing ----------------------------------------------------------------------

namespace {
// A parse that never throws; nullopt for invalid JSON or nesting past the judge limit (a judge
// answer nests 4 levels; deeper text is not an answer and would cost recursion later).
std::optional<Json> try_parse(std::string_view s) {
  if (json_depth_exceeded(s, limits::kMaxJudgeDepth) >= 0) return std::nullopt;
  Json j = Json::parse(s.begin(), s.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}
bool usable(const Json& j) { return j.is_array() || j.is_object(); }
Json normalise(const Json& j) {
  if (j.is_object() && j.contains("bottlenecks") && j["bottlenecks"].is_array()) return j["bottlenecks"];
  if (j.is_object()) return Json::array({j});
  return j;
}

// Every balanced [...] / {...} of `s` (JSON strings honoured inside brackets) whose nesting stays
// within `max_depth`, ordered by where it starts. One pass with a stack: a closing bracket that
// does not match closes nothing and unbalances every bracket still open, as a scan from each of
// them would find. Nested spans deeper than `max_depth` are dropped, so parsing every kept span
// costs at most max_depth passes over the text: linear in its size.
struct Span {
  size_t begin, end;
};
std::vector<Span> balanced_spans(std::string_view s, int max_depth) {
  struct Open {
    size_t at;
    char c;
    int depth;  // levels inside this bracket, itself included
  };
  std::vector<Open> st;
  std::vector<Span> out;
  bool in_str = false, escp = false;
  for (size_t j = 0; j < s.size(); ++j) {
    const char c = s[j];
    if (in_str) {
      if (c == '\n') {  // JSON strings hold no raw newline: the brackets around this one are not JSON
        st.clear();
        in_str = escp = false;
      } else if (escp) {
        escp = false;
      } else if (c == '\\') {
        escp = true;
      } else if (c == '"') {
        in_str = false;
      }
      continue;
    }
    if (c == '"') {
      if (!st.empty()) in_str = true;  // prose quotes outside any bracket are not JSON strings
    } else if (c == '[' || c == '{') {
      st.push_back({j, c, 1});
    } else if (c == ']' || c == '}') {
      if (st.empty() || (c == ']') != (st.back().c == '[')) {
        st.clear();
        continue;
      }
      const Open o = st.back();
      st.pop_back();
      if (!st.empty()) st.back().depth = std::max(st.back().depth, o.depth + 1);
      if (o.depth <= max_depth) out.push_back({o.at, j + 1});
    }
  }
  std::sort(out.begin(), out.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  return out;
}
}  // namespace

std::optional<ExtractedJson> extract_judge_json(const std::string& text) {
  const std::string_view all(text);
  if (auto j = try_parse(all); j && usable(*j)) return ExtractedJson{normalise(*j), "whole text"};
  // fenced blocks
  size_t pos = 0;
  while ((pos = text.find("```", pos)) != std::string::npos) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;
    size_t end = text.find("```", nl);
    if (end == std::string::npos) break;
    if (auto j = try_parse(all.substr(nl + 1, end - nl - 1)); j && usable(*j))
      return ExtractedJson{normalise(*j), "fenced block"};
    pos = end + 3;
  }
  // embedded: every balanced '[' or '{' in order
  for (const Span& sp : balanced_spans(all, limits::kMaxJudgeDepth)) {
    if (auto j = try_parse(all.substr(sp.begin, sp.end - sp.begin)); j && usable(*j)) {
      // Skip trivial arrays like "[1]" in prose: need objects inside
      if (j->is_array() && (j->empty() || !(*j)[0].is_object())) continue;
      return ExtractedJson{normalise(*j), text[sp.begin] == '[' ? "embedded array" : "embedded object"};
    }
  }
  return std::nullopt;
}

std::vector<std::string> validate_judge_json(const Json& v, size_t expected) {
  std::vector<std::string> errs;
  if (!v.is_array()) {
    errs.push_back("$: expected an array of bottlenecks");
    return errs;
  }
  if (expected && v.size() != expected)
    errs.push_back(fmt::format("$: expected {} bottlenecks, got {}", expected, v.size()));
  auto need_str = [&](const Json& o, const std::string& path, const char* key) {
    if (!o.contains(key))
      errs.push_back(path + "." + key + ": missing");
    else if (!o[key].is_string())
      errs.push_back(path + "." + key + ": expected a string");
    else if (o[key].get<std::string>().empty())
      errs.push_back(path + "." + key + ": empty");
  };
  auto need_arr = [&](const Json& o, const std::string& path, const char* key) -> bool {
    if (!o.contains(key)) {
      errs.push_back(path + "." + key + ": missing");
      return false;
    }
    if (!o[key].is_array()) {
      errs.push_back(path + "." + key + ": expected an array");
      return false;
    }
    if (o[key].empty()) {
      errs.push_back(path + "." + key + ": empty");
      return false;
    }
    return true;
  };
  std::vector<std::string> cats;
  for (size_t i = 0; i < v.size(); ++i) {
    std::string p = fmt::format("[{}]", i);
    const Json& it = v[i];
    if (!it.is_object()) {
      errs.push_back(p + ": expected an object");
      continue;
    }
    if (!it.contains("category"))
      errs.push_back(p + ".category: missing");
    else if (!it["category"].is_string())
      errs.push_back(p + ".category: expected a string");
    else {
      std::string c = it["category"].get<std::string>();
      if (c != "memory" && c != "compute" && c != "underutilized")
        errs.push_back(p + ".category: '" + c + "' is not one of memory|compute|underutilized");
      else if (std::find(cats.begin(), cats.end(), c) != cats.end())
        errs.push_back(p + ".category: '" + c + "' repeats an earlier bottleneck's category");
      cats.push_back(c);
    }
    need_str(it, p, "summary");
    need_str(it, p, "reasoning");
    if (!need_arr(it, p, "root_causes")) continue;
    for (size_t r = 0; r < it["root_causes"].size(); ++r) {
      std::string rp = fmt::format("{}.root_causes[{}]", p, r);
      const Json& rc = it["root_causes"][r];
      if (!rc.is_object()) {
        errs.push_back(rp + ": expected an object");
        continue;
      }
      need_str(rc, rp, "cause");
      if (need_arr(rc, rp, "evidence"))
        for (size_t e = 0; e < rc["evidence"].size(); ++e) {
          std::string ep = fmt::format("{}.evidence[{}]", rp, e);
          const Json& x = rc["evidence"][e];
          if (!x.is_object()) {
            errs.push_back(ep + ": expected an object");
            continue;
          }
          need_str(x, ep, "metric");
          if (!x.contains("value"))
            errs.push_back(ep + ".value: missing");
          else if (!x["value"].is_number() && !x["value"].is_string())
            errs.push_back(ep + ".value: expected a number or string");
          need_str(x, ep, "interpretation");
        }
      if (need_arr(rc, rp, "fixes"))
        for (size_t f = 0; f < rc["fixes"].size(); ++f) {
          std::string fp = fmt::format("{}.fixes[{}]", rp, f);
          const Json& x = rc["fixes"][f];
          if (!x.is_object()) {
            errs.push_back(fp + ": expected an object");
            continue;
          }
          need_str(x, fp, "fix");
          need_str(x, fp, "rationale");
        }
    }
  }
  return errs;
}

}  // namespace goblin::hw
