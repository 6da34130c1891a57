// Serving stage split (formulas: stages.h, docs/metrics.md § Serving stages).
#include "analysis/stages.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>
#include <set>
#include <unordered_map>

#include "analysis/intervals.h"
#include "analysis/knowledge.h"
#include "analysis/thread_sweep.h"
#include "core/data.h"
#include "core/text.h"

namespace goblin::analysis {

namespace {

struct AnnotationPattern {
  std::string id;
  std::regex re;
  int mode_group = -1, context_group = -1, generation_group = -1;
  std::map<std::string, std::string> modes;
};
struct OpNamePattern {
  std::string stage;
  std::regex re;
};
}  // namespace

struct StagePatterns {
  std::vector<AnnotationPattern> annotations;
  std::vector<OpNamePattern> op_names;
};

namespace {

Result<StagePatterns> load_patterns() {
  const char* rel = "serving_stages.yaml";
  ASSIGN_OR_RETURN(auto text, load_data_file(rel));
  StagePatterns p;
  try {
    YAML::Node y = YAML::Load(text);
    for (const auto& n : y["annotations"]) {
      AnnotationPattern a;
      a.id = n["id"].as<std::string>();
      a.re = std::regex(n["regex"].as<std::string>(), std::regex::ECMAScript);
      if (n["mode_group"]) a.mode_group = n["mode_group"].as<int>();
      if (n["context_group"]) a.context_group = n["context_group"].as<int>();
      if (n["generation_group"]) a.generation_group = n["generation_group"].as<int>();
      if (n["modes"]) a.modes = n["modes"].as<std::map<std::string, std::string>>();
      if (a.mode_group < 0 && (a.context_group < 0 || a.generation_group < 0))
        return make_error(ErrorKind::Malformed,
                          "serving_stages: pattern " + a.id + " needs mode_group or context_group + generation_group",
                          data_file_origin(rel), -1, n.Mark().line + 1);
      p.annotations.push_back(std::move(a));
    }
    for (const auto& n : y["attention_op_names"])
      p.op_names.push_back(
          {n["stage"].as<std::string>(), std::regex(n["regex"].as<std::string>(), std::regex::ECMAScript)});
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("serving_stages: ") + e.what(), data_file_origin(rel), -1,
                      e.mark.line + 1);
  } catch (const std::regex_error& e) {
    return make_error(ErrorKind::Malformed, std::string("serving_stages: bad regex: ") + e.what(),
                      data_file_origin(rel));
  }
  return p;
}

// The stage an annotation names, "" when it is not a stage annotation.
std::string stage_of(const StagePatterns& p, const std::string& name) {
  std::smatch m;
  for (const auto& a : p.annotations) {
    if (!std::regex_search(name, m, a.re)) continue;
    if (a.mode_group >= 0) {
      if (static_cast<size_t>(a.mode_group) >= m.size()) continue;
      auto it = a.modes.find(m[static_cast<size_t>(a.mode_group)].str());
      if (it != a.modes.end()) return it->second;
      continue;
    }
    auto num = [&](int g) -> int64_t {
      if (static_cast<size_t>(g) >= m.size()) return -1;
      try {
        return std::stoll(m[static_cast<size_t>(g)].str());
      } catch (...) {
        return -1;
      }
    };
    int64_t c = num(a.context_group), g = num(a.generation_group);
    if (c < 0 || g < 0) continue;
    return c > 0 && g > 0 ? "mixed" : c > 0 ? "prefill" : g > 0 ? "decode" : "idle";
  }
  return "";
}

int stage_order(const std::string& s) {
  static const char* order[] = {"prefill", "decode", "mixed", "verify", "draft_extend", "idle"};
  for (int i = 0; i < 6; ++i)
    if (s == order[i]) return i;
  return s == "unstaged" ? 100 : 50;
}

// prefill | decode | mixed from the stages that ran ("" when none of them says).
std::string profile_stage_of(const std::set<std::string>& seen) {
  bool prefill = false, decode = false;
  for (const auto& s : seen) {
    if (s == "prefill") prefill = true;
    if (s == "decode" || s == "verify" || s == "draft_extend") decode = true;
    if (s == "mixed") prefill = decode = true;
  }
  return prefill && decode ? "mixed" : prefill ? "prefill" : decode ? "decode" : "";
}

}  // namespace

Result<std::shared_ptr<const StagePatterns>> load_stage_patterns() {
  ASSIGN_OR_RETURN(auto p, load_patterns());
  return std::make_shared<const StagePatterns>(std::move(p));
}

Result<StageSplit> split_stages(const Timeline& tl, const LaunchAttribution& la, const KernelTableResult& kt) {
  ASSIGN_OR_RETURN(auto k, analysis_knowledge());
  return split_stages(tl, la, kt, *k->stages);
}

StageSplit split_stages(const Timeline& tl, const LaunchAttribution& la, const KernelTableResult& kt,
                        const StagePatterns& pats) {
  StageSplit out;
  const GpuOpTable& ops = tl.gpu_ops;
  out.op_stage.assign(ops.size(), -1);
  const AnnotationTable& an = tl.annotations;
  std::vector<std::string> ann_stage(an.size());
  std::unordered_map<ThreadKey, std::vector<uint32_t>, ThreadKeyHash> rows;
  std::unordered_map<StrId, std::string> cache;
  for (size_t i = 0; i < an.size(); ++i) {
    if (an.on_gpu[i]) continue;
    auto it = cache.find(an.name[i]);
    if (it == cache.end()) it = cache.emplace(an.name[i], stage_of(pats, std::string(tl.str(an.name[i])))).first;
    if (it->second.empty()) continue;
    ann_stage[i] = it->second;
    rows[{an.pid[i], an.tid[i]}].push_back(static_cast<uint32_t>(i));
  }

  if (rows.empty()) {
    // No stage annotations: the attention ops' names give the trace-level stage only.
    std::set<std::string> seen;
    auto look = [&](std::string_view name) {
      std::string n = ascii_lower(name);
      for (const auto& p : pats.op_names)
        if (std::regex_search(n, p.re)) seen.insert(p.stage);
    };
    std::set<StrId> names;
    for (size_t i = 0; i < tl.cpu_ops.size(); ++i)
      if (tl.cpu_ops.kind[i] == CpuOpKind::Op) names.insert(tl.cpu_ops.name[i]);
    for (size_t i = 0; i < tl.gpu_ops.size(); ++i)
      if (tl.gpu_ops.kind[i] == GpuOpKind::Kernel) names.insert(tl.gpu_ops.name[i]);
    for (StrId s : names) look(tl.str(s).substr(0, 300));
    out.profile_stage = profile_stage_of(seen);
    out.method =
        out.profile_stage.empty()
            ? "no stage annotations and no prefill/decode attention op names: stage unknown"
            : "no stage annotations (data/serving_stages.yaml § annotations): profile_stage from the attention "
              "op names (§ attention_op_names); no per-op split without batch boundaries";
    return out;
  }
  out.from_annotations = true;

  // Batches: stage annotations not nested in another one on the same thread.
  std::map<std::string, StageRow> by_stage;
  for (auto& [thread, rs] : rows) {
    std::vector<uint32_t> sorted = rs;
    std::sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) {
      return an.start_ns[a] != an.start_ns[b] ? an.start_ns[a] < an.start_ns[b] : an.end_ns(a) > an.end_ns(b);
    });
    int64_t open_end = INT64_MIN;
    for (uint32_t r : sorted) {
      if (an.start_ns[r] < open_end && an.end_ns(r) <= open_end) continue;  // nested
      open_end = an.end_ns(r);
      StageRow& row = by_stage[ann_stage[r]];
      row.stage = ann_stage[r];
      ++row.batches;
      if (row.examples.size() < 3) row.examples.emplace_back(tl.str(an.name[r]));
    }
  }

  // Each op → the innermost stage annotation open at its launch on its thread.
  std::vector<std::string> op_stage_name(ops.size(), "unstaged");
  std::unordered_map<ThreadKey, std::vector<SweepQuery>, ThreadKeyHash> queries;
  for (size_t i = 0; i < ops.size() && i < la.launch_ns.size(); ++i)
    if (la.launch_ns[i] != kNone && rows.count(la.thread[i]))
      queries[la.thread[i]].push_back({la.launch_ns[i], static_cast<uint32_t>(i)});
  for (auto& [thread, qs] : queries)
    sweep_intervals(
        rows[thread], qs, [&](uint32_t r) { return an.start_ns[r]; }, [&](uint32_t r) { return an.end_ns(r); },
        [&](const SweepQuery& q, const std::vector<uint32_t>& st) {
          for (size_t s = st.size(); s-- > 0;)
            if (an.start_ns[st[s]] <= q.t && q.t <= an.end_ns(st[s])) {
              op_stage_name[q.op] = ann_stage[st[s]];
              return;
            }
        });

  std::map<std::string, std::vector<Interval>> spans;
  std::map<std::string, std::map<int32_t, int64_t>> kernels;
  for (size_t i = 0; i < ops.size() && i < kt.op_row.size(); ++i) {
    const int32_t kr = kt.op_row[i];
    if (kr < 0) continue;
    StageRow& row = by_stage[op_stage_name[i]];
    row.stage = op_stage_name[i];
    const int64_t s = ops.start_ns[i], e = ops.end_ns(i);
    if (row.ops == 0 || s < row.window_start_ns) row.window_start_ns = s;
    if (row.ops == 0 || e > row.window_end_ns) row.window_end_ns = e;
    ++row.ops;
    row.op_time_ns += e - s;
    row.category_ns[kt.rows[static_cast<size_t>(kr)].category] += e - s;
    kernels[row.stage][kr] += e - s;
    spans[row.stage].push_back({s, e});
  }
  std::set<std::string> seen;
  for (auto& [name, row] : by_stage) {
    row.busy_ns = total_length(union_of(std::move(spans[name])));
    std::vector<std::pair<int64_t, int32_t>> v;
    for (const auto& [k, ns] : kernels[name]) v.emplace_back(ns, k);
    std::sort(v.rbegin(), v.rend());
    for (size_t k = 0; k < v.size() && k < 5; ++k)
      row.top_kernels.emplace_back(kt.rows[static_cast<size_t>(v[k].second)].name, v[k].first);
    if (name != "unstaged" && row.ops > 0) seen.insert(name);
    out.stages.push_back(std::move(row));
  }
  std::sort(out.stages.begin(), out.stages.end(), [](const StageRow& a, const StageRow& b) {
    return stage_order(a.stage) != stage_order(b.stage) ? stage_order(a.stage) < stage_order(b.stage)
                                                        : a.stage < b.stage;
  });
  std::map<std::string, int16_t> index;
  for (size_t s = 0; s < out.stages.size(); ++s) index[out.stages[s].stage] = static_cast<int16_t>(s);
  for (size_t i = 0; i < ops.size(); ++i)
    if (op_stage_name[i] != "unstaged") out.op_stage[i] = index[op_stage_name[i]];
  out.profile_stage = profile_stage_of(seen);
  out.method =
      "stage annotations (data/serving_stages.yaml: SGLang step[MODE ...], vLLM execute_..context_N..generation_M, "
      "ATOM prefill[/decode[); each GPU op in the innermost one open on its launching thread at its launch (graph "
      "replays at the graph launch); ops launched outside them, or with no launch record, are unstaged";
  return out;
}

Json stage_split_to_json(const StageSplit& s) {
  Json j;
  j["profile_stage"] = s.profile_stage.empty() ? Json(nullptr) : Json(s.profile_stage);
  j["method"] = s.method;
  Json a = Json::array();
  for (const auto& r : s.stages) {
    Json cats = Json::array();
    std::vector<std::pair<int64_t, std::string>> v;
    for (const auto& [c, ns] : r.category_ns) v.emplace_back(ns, c);
    std::sort(v.rbegin(), v.rend());
    for (const auto& [ns, c] : v)
      cats.push_back(
          {{"category", c},
           {"time_us", round_to(ns / 1e3, 3)},
           {"pct_of_stage", r.op_time_ns ? round_to(100.0 * ns / static_cast<double>(r.op_time_ns), 3) : 0.0}});
    Json top = Json::array();
    for (const auto& [k, ns] : r.top_kernels) top.push_back({{"kernel", k}, {"time_us", round_to(ns / 1e3, 3)}});
    const int64_t w = r.window_end_ns - r.window_start_ns;
    a.push_back({{"stage", r.stage},
                 {"batches", r.batches},
                 {"annotations", r.examples},
                 {"gpu_ops", r.ops},
                 {"op_time_us", round_to(r.op_time_ns / 1e3, 3)},
                 {"busy_us", round_to(r.busy_ns / 1e3, 3)},
                 {"window_us", round_to(w / 1e3, 3)},
                 {"busy_pct_of_window", w > 0 ? round_to(100.0 * r.busy_ns / static_cast<double>(w), 3) : 0.0},
                 {"categories", cats},
                 {"top_kernels", top}});
  }
  j["stages"] = a;
  return j;
}

std::string stage_split_markdown(const StageSplit& s, int top) {
  std::string out =
      "Stage: " + (s.profile_stage.empty() ? std::string("unknown") : s.profile_stage) + " (" + s.method + ")\n";
  for (const auto& r : s.stages) {
    fmt::format_to(std::back_inserter(out),
                   "\n### {}: {} batch(es), {} GPU ops, {:.3f} ms op time, busy {:.3f} ms of a {:.3f} ms window\n",
                   r.stage, r.batches, r.ops, r.op_time_ns / 1e6, r.busy_ns / 1e6,
                   (r.window_end_ns - r.window_start_ns) / 1e6);
    if (!r.examples.empty())
      out += "\nannotations: `" + r.examples.front() + "`" + (r.examples.size() > 1 ? ", ..." : "") + "\n";
    out += "\n| category | time ms | % of stage |\n|---|---|---|\n";
    std::vector<std::pair<int64_t, std::string>> v;
    for (const auto& [c, ns] : r.category_ns) v.emplace_back(ns, c);
    std::sort(v.rbegin(), v.rend());
    for (size_t k = 0; k < v.size() && static_cast<int>(k) < top; ++k)
      fmt::format_to(std::back_inserter(out), "| {} | {:.3f} | {:.2f} |\n", v[k].second, v[k].first / 1e6,
                     r.op_time_ns ? 100.0 * v[k].first / r.op_time_ns : 0.0);
  }
  return out;
}

}  // namespace goblin::analysis
