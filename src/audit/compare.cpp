#include "audit/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <regex>
#include <sstream>

#include "audit/metrics_io.h"
#include "core/io.h"
#include "core/text.h"

namespace goblin::audit {

namespace {

constexpr uint64_t kSeed = 0x60B11;  // same seed as src/run/stats.h

double median_of(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  size_t n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

double pct_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  double pos = q * static_cast<double>(s.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (pos - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

Result<Json> parse_json_file(const std::string& path) {
  auto text = read_all(path);
  if (!text) return text.error();
  return parse_json_text(*text, path, "not valid JSON");
}

Json num_or_null(std::optional<double> v, int digits) { return v ? Json(round_to(*v, digits)) : Json(nullptr); }

std::string fmt_thousands(double v) {
  std::string s = format_fixed(v, 0);
  std::string out;
  int n = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (n && n % 3 == 0 && *it != '-') out.push_back(',');
    out.push_back(*it);
    ++n;
  }
  return {out.rbegin(), out.rend()};
}

// CUDA encodes versions as 1000 * major + 10 * minor (cudaRuntimeGetVersion /
// cudaDriverGetVersion, the integers Kineto writes as cuda_runtime_version / cuda_driver_version):
// 13000 → "13.0", 12040 → "12.4". Anything else is returned as written.
std::string readable_cuda_version(const std::string& v) {
  if (v.size() < 4 || v.size() > 6 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return v;
  const long n = std::stol(v);
  return std::to_string(n / 1000) + "." + std::to_string((n % 1000) / 10);
}

// The first non-empty version among `keys`; the CUDA-integer keys made readable and, for the
// CUDA driver API version standing in for the driver, labelled as such.
std::string version_of(const RunMetrics& m, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = m.versions.find(k);
    if (it == m.versions.end() || it->second.empty()) continue;
    const std::string key = k;
    if (key == "cuda" || key == "cuda_runtime") return readable_cuda_version(it->second);
    if (key == "cuda_driver") return "CUDA driver API " + readable_cuda_version(it->second);
    return it->second;
  }
  return "";
}

// Metrics computed from a profiler trace: the timings carry the profiler's overhead.
bool profiled(const RunMetrics& m) {
  if (m.runner_kind == "trace" || m.runner_kind == "replay") return true;
  for (const char* k : {"cupti", "kineto_schema", "rocprofiler", "rocprofiler_sdk", "roctracer"})
    if (m.versions.count(k)) return true;
  return false;
}

Json budget_json(const WasteBudget& w) {
  Json j;
  for (const auto& b : WasteBudget::kBuckets) j[b.name] = w.observed(b.name) ? Json(round_to(w.*b.field, 9)) : Json();
  j["step_time_s"] = round_to(w.step_time_s > 0 ? w.step_time_s : w.total(), 9);
  j["unit"] = "seconds per step";
  j["unobserved"] = w.unobserved;
  return j;
}

bool has_budget(const RunMetrics& m) { return m.waste_budget.unobserved.size() < bucket_names().size(); }

Json delta_row(const std::string& metric, const std::string& unit, const std::string& better, std::optional<double> b,
               std::optional<double> a, int digits) {
  Json r;
  r["metric"] = metric;
  r["unit"] = unit;
  r["better"] = better;
  r["before"] = num_or_null(b, digits);
  r["after"] = num_or_null(a, digits);
  if (a && b) {
    r["delta"] = round_to(*a - *b, digits);
    r["pct"] = *b != 0 ? Json(round_to(100.0 * (*a - *b) / std::fabs(*b), 2)) : Json(nullptr);
  } else {
    r["delta"] = nullptr;
    r["pct"] = nullptr;
  }
  return r;
}

void add_finding(Json& findings, const std::string& id, const std::string& severity, const std::string& title,
                 const std::string& detail, const std::string& citation) {
  for (const auto& f : findings)
    if (f["id"] == id) return;
  findings.push_back(
      {{"id", id}, {"severity", severity}, {"title", title}, {"detail", detail}, {"citation", citation}});
}

std::string rule_citation(const RuleBase* kb, const std::string& id, const std::string& fallback) {
  if (kb)
    if (const Rule* r = kb->find(id)) return r->citation;
  return fallback;
}

// "0.50.1" >= "0.50"?  Numeric dotted compare; false when unparsable.
std::optional<bool> version_at_least(const std::string& v, int major, int minor) {
  int a = 0, b = 0;
  if (std::sscanf(v.c_str(), "%d.%d", &a, &b) < 2) return std::nullopt;
  return a > major || (a == major && b >= minor);
}

}  // namespace

RatioInterval bootstrap_ratio_of_medians(const std::vector<double>& num, const std::vector<double>& den, int resamples,
                                         double level) {
  RatioInterval out;
  double dn = median_of(den);
  out.point = dn != 0 ? median_of(num) / dn : 0;
  out.low = out.high = out.point;
  if (num.empty() || den.empty()) return out;
  std::mt19937_64 rng(kSeed);
  auto resample = [&](const std::vector<double>& xs) {
    std::uniform_int_distribution<size_t> pick(0, xs.size() - 1);
    std::vector<double> r(xs.size());
    for (auto& x : r) x = xs[pick(rng)];
    return r;
  };
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    double d = median_of(resample(den));
    double n = median_of(resample(num));
    if (d > 0) ratios.push_back(n / d);
  }
  std::sort(ratios.begin(), ratios.end());
  double a = (1 - level) / 2;
  out.low = pct_sorted(ratios, a);
  out.high = pct_sorted(ratios, 1 - a);
  return out;
}

Result<RunInput> run_input_from_json(const Json& j0, const std::string& file) {
  const Json* j = &j0;
  if (j->is_object() && j->contains("ok") && j->contains("result")) {
    if (!(*j)["ok"].is_boolean() || !(*j)["ok"].get<bool>())
      return make_error(ErrorKind::Malformed,
                        "the file holds a failed result (ok=false); expected goblin metrics/bench --json output", file);
    j = &(*j)["result"];
  }
  if (!j->is_object())
    return make_error(ErrorKind::Malformed, "expected a JSON object (goblin metrics --json or goblin bench --json)",
                      file);
  RunInput in;
  in.source = file;
  bool bench_shape = j->contains("a") && (*j)["a"].is_object() && (*j)["a"].contains("runs");
  in.shape = bench_shape ? "bench" : "metrics";
  auto m = metrics_from_json(*j, file);
  if (!m) return m.error();
  in.metrics = *m;
  if (bench_shape && !j->contains("runner_kind")) in.metrics.runner_kind = "live";
  try {
    if (bench_shape) {
      for (const auto& r : (*j)["a"]["runs"]) {
        if (!r.is_object() || r.contains("error")) continue;
        if (r.contains("step_time_s") && r["step_time_s"].is_number())
          in.bench.step_time_s.push_back(r["step_time_s"].get<double>());
        if (r.contains("tokens_per_sec") && r["tokens_per_sec"].is_number() && r["tokens_per_sec"].get<double>() > 0)
          in.bench.tokens_per_sec.push_back(r["tokens_per_sec"].get<double>());
      }
      const Json& st = (*j)["a"].contains("step_time_s") ? (*j)["a"]["step_time_s"] : Json();
      if (st.is_object() && st.contains("low") && st.contains("high")) {
        in.bench.ci_metric = "step_time_s";
        in.bench.median = st.value("point", 0.0);
        in.bench.ci_low = st["low"].get<double>();
        in.bench.ci_high = st["high"].get<double>();
      }
    }
    if (j->contains("bench") && (*j)["bench"].is_object()) {
      const Json& b = (*j)["bench"];
      std::string metric = b.value("metric", "step_time_s");
      if (metric != "step_time_s" && metric != "tokens_per_sec")
        return make_error(ErrorKind::Malformed, "bench.metric must be step_time_s or tokens_per_sec, got " + metric,
                          file);
      auto& dst = metric == "step_time_s" ? in.bench.step_time_s : in.bench.tokens_per_sec;
      if (b.contains("samples")) {
        if (!b["samples"].is_array())
          return make_error(ErrorKind::Malformed, "bench.samples must be an array of numbers", file);
        for (const auto& s : b["samples"]) {
          if (!s.is_number())
            return make_error(ErrorKind::Malformed, "bench.samples must be an array of numbers, found " + s.dump(),
                              file);
          dst.push_back(s.get<double>());
        }
      }
      if (b.contains("ci_low") && b.contains("ci_high") && b["ci_low"].is_number() && b["ci_high"].is_number()) {
        in.bench.ci_metric = metric;
        in.bench.ci_low = b["ci_low"].get<double>();
        in.bench.ci_high = b["ci_high"].get<double>();
        if (b.contains("median") && b["median"].is_number()) in.bench.median = b["median"].get<double>();
        if (*in.bench.ci_low > *in.bench.ci_high)
          return make_error(ErrorKind::Malformed, "bench.ci_low is above bench.ci_high", file);
      }
    }
  } catch (const Json::exception& e) {
    return make_error(ErrorKind::Malformed, std::string("bench samples: ") + e.what(), file);
  }
  return in;
}

Result<RunInput> load_run_input(const std::string& path) {
  auto j = parse_json_file(path);
  if (!j) return j.error();
  return run_input_from_json(*j, path);
}

Result<Json> load_patch_file(const std::string& path) {
  auto j = parse_json_file(path);
  if (!j) return j.error();
  Json p = *j;
  if (p.is_object() && p.contains("ok") && p.contains("result")) {
    if (!p["ok"].is_boolean() || !p["ok"].get<bool>())
      return make_error(ErrorKind::Malformed, "the patch file holds a failed result (ok=false)", path);
    p = p["result"];
  }
  if (!p.is_object() || !p.contains("new_config") || !p.contains("rationale"))
    return make_error(ErrorKind::Malformed,
                      "expected a patch (goblin patch --json): an object with new_config, rationale, diff", path);
  return p;
}

Result<Json> compare_runs(const RunInput& before, const RunInput& after, const Json& patch, const CompareOptions& opt) {
  // BEFORE as measured, plus the waste budget of its profiled run when the bench had none: the
  // buckets are per-step shares of the profiled window, the step times stay the bench's.
  RunMetrics before_metrics = before.metrics;
  bool before_budget_from_profile = false;
  if (opt.profiled_before && !has_budget(before_metrics) && has_budget(*opt.profiled_before)) {
    before_metrics.waste_budget = opt.profiled_before->waste_budget;
    before_budget_from_profile = true;
  }
  const RunMetrics& B = before_metrics;
  const RunMetrics& A = after.metrics;
  std::optional<RuleBase> own_kb;
  const RuleBase* kb = opt.kb;
  if (!kb) {
    auto k = load_rule_base();
    if (k) own_kb = std::move(*k), kb = &*own_kb;
  }
  if (!patch.is_object() || !patch.contains("new_config"))
    return make_error(ErrorKind::Malformed, "patch: expected goblin patch --json output with new_config");
  auto nc = config_from_json(patch["new_config"]);
  if (!nc) return nc.error();
  const WorkloadConfig& cfg = *nc;

  Json rep;
  std::string workload = opt.workload_name;
  if (workload.empty() && cfg.get("model_name").is_string()) workload = cfg.get("model_name").get<std::string>();
  if (workload.empty()) workload = "(unnamed workload)";
  rep["workload_name"] = workload;
  rep["schema"] = "goblin.report/1";

  // ---- metric deltas ----
  Json deltas = Json::array();
  deltas.push_back(delta_row("tokens_per_sec", "tokens/s", "higher", B.tokens_per_sec, A.tokens_per_sec, 1));
  auto step = [](const RunMetrics& m) {
    return m.step_time_s > 0 ? std::optional<double>(m.step_time_s) : std::nullopt;
  };
  deltas.push_back(delta_row("step_time_s", "s", "lower", step(B), step(A), 6));
  auto util = [](const RunMetrics& m) {
    return (m.gpu_util_pct > 0 || !m.steps.empty()) ? std::optional<double>(m.gpu_util_pct) : std::nullopt;
  };
  deltas.push_back(delta_row("gpu_util_pct", "%", "higher", util(B), util(A), 2));
  if (B.mfu_pct || A.mfu_pct) deltas.push_back(delta_row("mfu_pct", "%", "higher", B.mfu_pct, A.mfu_pct, 2));
  if (B.hbm_peak_gb || A.hbm_peak_gb)
    deltas.push_back(delta_row("hbm_peak_gb", "GB", "lower", B.hbm_peak_gb, A.hbm_peak_gb, 3));
  for (const auto& b : bucket_names())
    deltas.push_back(delta_row("waste." + b, "s/step", b == "useful_gpu" ? "neutral" : "lower",
                               B.waste_budget.value_of(b), A.waste_budget.value_of(b), 6));
  rep["metric_deltas"] = deltas;
  rep["waste_budget_before"] = has_budget(B) ? budget_json(B.waste_budget) : Json(nullptr);
  rep["waste_budget_before_source"] = !has_budget(B)               ? Json(nullptr)
                                      : before_budget_from_profile ? Json("profile_run")
                                                                   : Json("before");
  rep["waste_budget_after"] = has_budget(A) ? budget_json(A.waste_budget) : Json(nullptr);

  // ---- speedup actual ----
  Json sd;
  std::optional<double> actual;
  bool use_tps = B.tokens_per_sec && A.tokens_per_sec && *B.tokens_per_sec > 0 && *A.tokens_per_sec > 0;
  if (use_tps) {
    actual = *A.tokens_per_sec / *B.tokens_per_sec;
    sd["metric"] = "tokens_per_sec";
    sd["basis"] = "tokens/s after / tokens/s before";
  } else if (B.step_time_s > 0 && A.step_time_s > 0) {
    actual = B.step_time_s / A.step_time_s;
    sd["metric"] = "step_time_s";
    sd["basis"] = "step time before / step time after (tokens/s not observed on both sides)";
  } else {
    sd["metric"] = nullptr;
    sd["basis"] = "neither tokens/s nor step time observed on both sides";
  }
  sd["ci_low"] = nullptr;
  sd["ci_high"] = nullptr;
  sd["ci_method"] = nullptr;
  {
    const BenchSamples &bb = before.bench, &ab = after.bench;
    bool tps_s = bb.tokens_per_sec.size() >= 2 && ab.tokens_per_sec.size() >= 2;
    bool st_s = bb.step_time_s.size() >= 2 && ab.step_time_s.size() >= 2;
    if ((use_tps && tps_s) || (st_s && !(use_tps && tps_s))) {
      bool t = use_tps && tps_s;
      RatioInterval ri = t ? bootstrap_ratio_of_medians(ab.tokens_per_sec, bb.tokens_per_sec)
                           : bootstrap_ratio_of_medians(bb.step_time_s, ab.step_time_s);
      sd["ci_low"] = round_to(ri.low, 4);
      sd["ci_high"] = round_to(ri.high, 4);
      sd["ci_median_ratio"] = round_to(ri.point, 4);
      size_t nb = t ? bb.tokens_per_sec.size() : bb.step_time_s.size();
      size_t na = t ? ab.tokens_per_sec.size() : ab.step_time_s.size();
      sd["ci_method"] = std::string("percentile bootstrap of the ratio of medians of ") +
                        (t ? "tokens/s (after/before)" : "step time (before/after)") + ", " + std::to_string(nb) +
                        " vs " + std::to_string(na) + " repeats, 2000 resamples, 95 %, seed 0x60B11";
    } else if (bb.ci_low && ab.ci_low && bb.ci_metric == ab.ci_metric && *bb.ci_low > 0 && *ab.ci_low > 0) {
      double lo, hi;
      if (bb.ci_metric == "tokens_per_sec")
        lo = *ab.ci_low / *bb.ci_high, hi = *ab.ci_high / *bb.ci_low;
      else
        lo = *bb.ci_low / *ab.ci_high, hi = *bb.ci_high / *ab.ci_low;
      sd["ci_low"] = round_to(lo, 4);
      sd["ci_high"] = round_to(hi, 4);
      sd["ci_method"] = "ratio of the interval ends of " + bb.ci_metric +
                        " (conservative: worst end over best end; no samples to bootstrap)";
    } else {
      sd["ci_note"] =
          "no repeat samples on both sides (goblin bench --json or a bench object): a single measurement per side, "
          "no interval";
    }
  }
  sd["interleaved"] = opt.interleaved ? Json(*opt.interleaved) : Json(nullptr);
  sd["run_order"] = opt.run_order.empty() ? Json(nullptr) : Json(opt.run_order);
  if (!opt.interleaved)
    sd["run_order_note"] = "run order not known to compare (inputs read from files)";
  else if (*opt.interleaved)
    sd["run_order_note"] = "before and after runs interleaved (A B A B ...): drift hits both sides";
  else
    sd["run_order_note"] =
        "before and after benchmarked in blocks (all before runs, then all after runs): drift "
        "between the blocks is not cancelled";
  if (opt.interleaved && sd["ci_method"].is_string())
    sd["ci_method"] = sd["ci_method"].get<std::string>() +
                      (*opt.interleaved ? ", runs interleaved" + (opt.run_order.empty() ? "" : " " + opt.run_order)
                                        : std::string(", runs in blocks"));
  // Significant when the 95 % interval excludes 1.0; null when there is no interval.
  std::optional<bool> significant;
  if (sd["ci_low"].is_number() && sd["ci_high"].is_number())
    significant = sd["ci_low"].get<double>() > 1.0 || sd["ci_high"].get<double>() < 1.0;
  sd["significant"] = significant ? Json(*significant) : Json(nullptr);
  sd["value"] = actual ? Json(round_to(*actual, 3)) : Json(nullptr);
  rep["speedup_actual"] = actual ? Json(round_to(*actual, 3)) : Json(nullptr);
  rep["speedup_actual_detail"] = sd;

  // ---- prediction ----
  auto pj = [&](const char* k) -> std::optional<double> {
    if (patch.contains(k) && patch[k].is_number()) return patch[k].get<double>();
    return std::nullopt;
  };
  auto plo = pj("expected_speedup_low"), phi = pj("expected_speedup_high");
  rep["speedup_predicted_low"] = num_or_null(plo, 3);
  rep["speedup_predicted_high"] = num_or_null(phi, 3);
  std::string held, held_note;
  if (!plo || !phi) {
    held = "not_predicted";
    held_note =
        "the patch made no speedup prediction" + (patch.contains("speedup_note") && patch["speedup_note"].is_string()
                                                      ? " (" + patch["speedup_note"].get<std::string>() + ")"
                                                      : std::string());
  } else if (!actual) {
    held = "not_measured";
    held_note = "the actual speedup could not be measured";
  } else if (*actual < *plo) {
    held = "missed";
    held_note = "actual " + format_fixed(*actual, 2) + "x is below the predicted " + format_fixed(*plo, 2) + "-" +
                format_fixed(*phi, 2) + "x";
  } else if (*actual > *phi) {
    held = "exceeded";
    held_note = "actual " + format_fixed(*actual, 2) + "x is above the predicted " + format_fixed(*plo, 2) + "-" +
                format_fixed(*phi, 2) + "x (exceeded)";
  } else {
    held = "held";
    held_note = "actual " + format_fixed(*actual, 2) + "x is within the predicted " + format_fixed(*plo, 2) + "-" +
                format_fixed(*phi, 2) + "x";
  }
  if (plo && phi && sd["ci_low"].is_number()) {
    double cl = sd["ci_low"].get<double>(), ch = sd["ci_high"].get<double>();
    bool overlaps = cl <= *phi && ch >= *plo;
    held_note += "; the actual's 95 % interval [" + format_fixed(cl, 2) + ", " + format_fixed(ch, 2) + "] " +
                 (overlaps ? "overlaps" : "does not overlap") + " the predicted range";
  }
  rep["prediction_held"] = held;
  rep["prediction_note"] = held_note;

  // ---- confidence (from the patch) ----
  auto conf = pj("confidence");
  rep["confidence"] = num_or_null(conf, 3);
  Json cd;
  cd["evidence_coverage"] = num_or_null(pj("evidence_coverage"), 3);
  cd["rule_consistency"] = num_or_null(pj("rule_consistency"), 3);
  cd["meaning"] =
      "confidence = evidence_coverage x rule_consistency of the patch; no historical calibration data exists";
  rep["confidence_detail"] = cd;

  // ---- rules and diff ----
  Json rules = Json::array();
  if (patch.contains("rationale") && patch["rationale"].is_array())
    for (const auto& r : patch["rationale"])
      rules.push_back({{"rule_id", r.value("rule_id", "")},
                       {"title", r.value("title", "")},
                       {"citation", r.value("citation", "")},
                       {"targets_bucket", r.value("targets_bucket", "")},
                       {"estimated_recovery_seconds",
                        r.contains("estimated_recovery_seconds") ? r["estimated_recovery_seconds"] : Json(nullptr)},
                       {"transform", r.contains("transform") ? r["transform"] : Json::object()}});
  rep["rules"] = rules;
  rep["diff"] = patch.value("diff", "");

  // ---- measurement scope: what the AFTER run really ran vs the patch ----
  Json scope;
  scope["after_run_is_patched_config"] = true;
  Json not_measured = Json::array(), extra = Json::array();
  if (opt.after_run_config) {
    const WorkloadConfig& ar = *opt.after_run_config;
    Json edits = patch.contains("edits") && patch["edits"].is_object() ? patch["edits"] : Json::object();
    std::vector<std::string> fields;
    for (const auto& f : config_fields()) fields.push_back(f.name);
    for (const auto& [k, v] : cfg.env_vars) fields.push_back("env." + k);
    for (const auto& [k, v] : ar.env_vars)
      if (!cfg.env_vars.count(k)) fields.push_back("env." + k);
    for (const auto& f : fields) {
      if (f == "model_name" || f == "source_file") continue;
      Json pv = cfg.get(f), rv = ar.get(f);
      if (pv == rv) continue;
      if (edits.contains(f)) {
        std::string rule = edits[f].value("rule_id", "");
        not_measured.push_back({{"field", f}, {"patch_sets", pv}, {"after_run_has", rv}, {"rule_id", rule}});
      } else {
        extra.push_back({{"field", f}, {"patched_config", pv}, {"after_run_has", rv}});
      }
    }
    scope["after_run_is_patched_config"] = not_measured.empty() && extra.empty();
  }
  scope["patch_edits_not_in_after_run"] = not_measured;
  scope["after_run_changes_outside_patch"] = extra;
  std::vector<std::string> scope_notes;
  for (const auto& x : not_measured)
    scope_notes.push_back("the patch sets " + x["field"].get<std::string>() + " = " + x["patch_sets"].dump() +
                          " (rule " + x["rule_id"].get<std::string>() + ") but the measured after-run has " +
                          x["after_run_has"].dump() + ": that rule's effect is NOT in the measured speedup");
  for (const auto& x : extra)
    scope_notes.push_back("the measured after-run also has " + x["field"].get<std::string>() + " = " +
                          x["after_run_has"].dump() + " where the patched config has " + x["patched_config"].dump() +
                          ": part of the measured speedup may come from this change, which the patch did not make");
  scope["notes"] = scope_notes;
  rep["measurement_scope"] = scope;

  // ---- findings ----
  Json findings = Json::array();
  std::vector<std::string> rocprofsys;
  for (const auto& [k, v] : cfg.env_vars)
    if (k.rfind("ROCPROFSYS_", 0) == 0) rocprofsys.push_back(k);
  if (!rocprofsys.empty()) {
    std::string names;
    for (const auto& n : rocprofsys) names += (names.empty() ? "" : ", ") + n;
    add_finding(findings, "footgun.rocprofsys_env_as_tuning", "warning",
                "ROCPROFSYS_* variables set as if they tuned the workload",
                names +
                    ": these configure the profiler, not the workload - they will not change throughput. They were "
                    "not treated as tuning knobs.",
                rule_citation(kb, "footgun.rocprofsys_env_as_tuning",
                              "https://rocm.docs.amd.com/projects/rocprofiler-systems/en/latest/how-to/"
                              "configuring-runtime-options.html"));
  }
  {
    std::string optim = cfg.get("optimizer").is_string() ? cfg.get("optimizer").get<std::string>() : "";
    static const std::regex bnb("(bnb|8bit|paged_)", std::regex::icase);
    std::string vendor = vendor_of(B).empty() ? vendor_of(A) : vendor_of(B);
    if (!optim.empty() && std::regex_search(optim, bnb) && vendor != "nvidia") {
      std::string v = version_of(B, {"bitsandbytes", "bnb"});
      auto ok = v.empty() ? std::nullopt : version_at_least(v, 0, 50);
      std::string cite = rule_citation(kb, "optim.bitsandbytes_on_rocm",
                                       "https://huggingface.co/docs/bitsandbytes/v0.50.0/installation");
      if (ok && *ok) {
        add_finding(findings, "optim.bitsandbytes_on_rocm", "info", "bitsandbytes optimizer on ROCm",
                    "optimizer " + optim + " with bitsandbytes " + v +
                        ": bitsandbytes >= 0.50 documents official ROCm support (ROCm wheels).",
                    cite);
      } else {
        add_finding(
            findings, "optim.bitsandbytes_on_rocm", vendor == "amd" ? "warning" : "info",
            "bitsandbytes optimizer" + std::string(vendor == "amd" ? " on ROCm" : " (ROCm support is version-gated)"),
            "optimizer " + optim + " uses bitsandbytes; bitsandbytes " + (v.empty() ? "(version not recorded)" : v) +
                ": before 0.50 ROCm support was experimental, not official. Use bitsandbytes >= 0.50 (ROCm "
                "wheels) or an Optimum-AMD-validated optimizer such as adamw_torch_fused.",
            cite);
      }
    }
  }
  bool bp = profiled(B), ap = profiled(A);
  std::string prof_cite =
      rule_citation(kb, "footgun.profiler_left_on", "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html");
  if (ap && !bp)
    add_finding(findings, "measurement.profiler_on_in_after_run", "warning", "A profiler was on in the AFTER run only",
                "the AFTER metrics come from a profiler trace (" + A.runner_kind +
                    ") while the BEFORE run was not profiled: the AFTER timings carry profiler overhead and the "
                    "speedup is understated. Benchmark both sides unprofiled (goblin bench).",
                prof_cite);
  else if (bp && !ap)
    add_finding(findings, "measurement.profiler_on_in_before_run", "warning",
                "A profiler was on in the BEFORE run only",
                "the BEFORE metrics come from a profiler trace while the AFTER run was not profiled: the speedup is "
                "overstated by the profiler's overhead. Benchmark both sides unprofiled (goblin bench).",
                prof_cite);
  else if (ap && bp)
    add_finding(findings, "measurement.both_runs_profiled", "info", "Both runs were measured from profiler traces",
                "step times, utilisation and the waste budgets come from profiled steps (overhead on both sides); "
                "tokens/s is used for the speedup when the workload recorded it.",
                prof_cite);
  for (const char* f : {"profiler_enabled", "anomaly_detection"})
    if (cfg.get(f) == Json(true))
      add_finding(findings, "footgun.profiler_left_on", "warning", "Profiler or anomaly detection left on",
                  std::string("the patched config still has ") + f +
                      " = true: every measured step pays for it. Disable it for regular training.",
                  prof_cite);
  if (before_budget_from_profile)
    add_finding(findings, "evidence.before_budget_from_profile", "info",
                "BEFORE's waste budget comes from its profiled run",
                "the BEFORE bench is unprofiled, so its waste buckets are those of the audit's profile_run (per "
                "step, profiled window); step time and tokens/s come from the bench",
                "");
  for (const auto* side : {&B, &A}) {
    const auto& un = side->waste_budget.unobserved;
    if (un.empty()) continue;
    std::string names;
    for (const auto& n : un) names += (names.empty() ? "" : ", ") + n;
    bool all = un.size() >= bucket_names().size();
    std::string which = side == &B ? "BEFORE" : "AFTER";
    add_finding(
        findings, "evidence.unobserved_buckets_" + std::string(side == &B ? "before" : "after"),
        all ? "warning" : "info", "Waste buckets unobserved in the " + which + " run",
        all ? "no waste budget in the " + which + " metrics (e.g. an unprofiled bench): bucket deltas are unavailable"
            : names +
                  " could not be observed (e.g. no memory telemetry): those buckets count as 0 and the "
                  "predicted range ignores them",
        "");
  }
  if (auto c = pj("evidence_coverage"); c && *c < 0.5)
    add_finding(findings, "evidence.low_coverage", "warning", "Low evidence coverage",
                "evidence_coverage " + format_fixed(*c, 2) +
                    ": most evidence the applied rules rely on was not measured, so confidence is low" +
                    (*c == 0 ? " (0: no metrics were given to the patch)" : ""),
                "");
  if (!B.gpu_name.empty() && !A.gpu_name.empty() && B.gpu_name != A.gpu_name)
    add_finding(findings, "validity.gpu_mismatch", "warning", "BEFORE and AFTER ran on different GPUs",
                B.gpu_name + " vs " + A.gpu_name + ": the speedup mixes hardware and config changes", "");
  if (!scope_notes.empty())
    add_finding(findings, "measurement.after_run_differs_from_patch", "warning",
                "The measured AFTER run is not exactly the patched config",
                std::to_string(not_measured.size()) + " patch edit(s) not in the measured run, " +
                    std::to_string(extra.size()) + " change(s) outside the patch (see measurement_scope)",
                "");
  if (patch.contains("findings") && patch["findings"].is_array())
    for (const auto& f : patch["findings"])
      add_finding(findings, f.value("rule_id", ""), "info", f.value("title", ""), f.value("advice", ""),
                  f.value("citation", ""));
  // ---- profiler perturbation: profiled step time vs the unprofiled BEFORE bench ----
  rep["profiler_perturbation"] = nullptr;
  // Only against an unprofiled bench (repeat samples): a profiled BEFORE would be compared with itself.
  if (opt.profiled_before && opt.profiled_before->step_time_s > 0 && B.step_time_s > 0 && !before.bench.empty()) {
    const double prof = opt.profiled_before->step_time_s, plain = B.step_time_s;
    const double pct = (prof / plain - 1.0) * 100.0;
    const bool within = std::fabs(pct) <= 10.0;
    rep["profiler_perturbation"] = {{"profiled_step_s", round_to(prof, 6)},
                                    {"unprofiled_step_s", round_to(plain, 6)},
                                    {"pct", round_to(pct, 1)},
                                    {"within_10pct", within}};
    if (!within)
      add_finding(findings, "measurement.profiler_perturbation", "warning", "The profiler perturbs this workload",
                  "the profiled step took " + format_fixed(prof * 1e3, 1) + " ms against " +
                      format_fixed(plain * 1e3, 1) + " ms unprofiled (" + (pct > 0 ? "+" : "") + format_fixed(pct, 1) +
                      " %): the profile's waste budget describes a slowed-down run, so treat its bucket sizes as "
                      "relative; the speedup comes from the unprofiled benches",
                  prof_cite);
  }
  rep["findings"] = findings;

  // ---- validity footer ----
  Json vf;
  const RunMetrics& V = A.gpu_name.empty() && !B.gpu_name.empty() ? B : A;
  vf["gpu"] = V.gpu_name.empty() ? Json(nullptr) : Json(V.gpu_name);
  auto vv = [&](std::initializer_list<const char*> keys) {
    std::string s = version_of(V, keys);
    if (s.empty()) s = version_of(B, keys);
    return s.empty() ? Json(nullptr) : Json(s);
  };
  vf["driver"] = vv({"driver", "cuda_driver", "rocm_driver", "amdgpu_driver"});
  vf["cuda"] = vv({"cuda", "cuda_runtime"});
  vf["rocm"] = vv({"rocm", "hip", "hip_runtime"});
  vf["pytorch"] = vv({"pytorch", "torch"});
  auto cfgs = [&](const char* f) { return cfg.get(f); };
  vf["workload"] = workload;
  vf["model"] = cfgs("model_name");
  vf["mode"] = cfgs("mode");
  vf["batch_size"] = cfgs("batch_size");
  vf["seq_len"] = cfgs("seq_len");
  vf["grad_accum_steps"] = cfgs("grad_accum_steps");
  std::string rk = opt.runner_kind.empty() ? A.runner_kind : opt.runner_kind;
  vf["measured_by"] = rk;
  auto s = [](const Json& j) {
    return j.is_null() ? std::string("not recorded") : j.is_string() ? j.get<std::string>() : j.dump();
  };
  std::ostringstream t;
  t << "Valid only for the observed workload (" << workload << ", model " << s(vf["model"]) << ", " << s(vf["mode"])
    << ", batch " << s(vf["batch_size"]) << " x seq " << s(vf["seq_len"]) << ", grad accum "
    << s(vf["grad_accum_steps"]) << ") on GPU " << s(vf["gpu"]) << ", driver " << s(vf["driver"]);
  if (!vf["cuda"].is_null()) t << ", CUDA " << s(vf["cuda"]);
  if (!vf["rocm"].is_null()) t << ", ROCm " << s(vf["rocm"]);
  if (vf["cuda"].is_null() && vf["rocm"].is_null()) t << ", CUDA/ROCm version not recorded";
  t << ", PyTorch " << s(vf["pytorch"]) << "; measured by " << rk
    << ". Re-run the audit if the model, hardware, framework version or batch/seq pattern changes.";
  vf["text"] = t.str();
  rep["validity_footer"] = vf;

  // ---- notes and summary ----
  Json notes = Json::array();
  for (const auto& n : opt.notes) notes.push_back(n);
  for (const auto& n : scope_notes) notes.push_back(n);
  rep["notes"] = notes;
  std::ostringstream sl;
  sl << workload;
  if (!V.gpu_name.empty()) sl << " on " << V.gpu_name;
  sl << ": ";
  if (actual) {
    if (significant && !*significant)
      sl << "no significant change, " << format_fixed(*actual, 2) << "x";
    else if (*actual < 1.0)
      sl << format_fixed(*actual, 2) << "x (slower)";
    else
      sl << format_fixed(*actual, 2) << "x faster";
    if (use_tps)
      sl << " (" << fmt_thousands(*B.tokens_per_sec) << " -> " << fmt_thousands(*A.tokens_per_sec) << " tokens/s)";
    else
      sl << " (step " << format_fixed(B.step_time_s * 1e3, 1) << " -> " << format_fixed(A.step_time_s * 1e3, 1)
         << " ms)";
    if (sd["ci_low"].is_number())
      sl << " [95% CI " << format_fixed(sd["ci_low"].get<double>(), 2) << "-"
         << format_fixed(sd["ci_high"].get<double>(), 2) << (significant && !*significant ? ", includes 1.0]" : "]");
  } else {
    sl << "speedup not measured";
  }
  if (plo && phi)
    sl << "; predicted " << format_fixed(*plo, 2) << "-" << format_fixed(*phi, 2) << "x, prediction " << held;
  else
    sl << "; no prediction";
  if (conf) sl << "; confidence " << format_fixed(*conf, 2);
  if (!not_measured.empty() || !extra.empty()) sl << " (measured run differs from the patch: see notes)";
  rep["summary_line"] = sl.str();
  rep["inputs"] = {
      {"before", before.source}, {"after", after.source}, {"before_shape", before.shape}, {"after_shape", after.shape}};
  return rep;
}

}  // namespace goblin::audit
