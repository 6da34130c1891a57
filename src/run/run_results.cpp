#include "run/run_results.h"

#include <fmt/format.h>

#include <vector>

#include "model/warning_json.h"
#include "run/runners.h"

namespace goblin::run {

// Fields of RunMetrics this runner measured itself (used when `goblin metrics` cannot read the
// run directory): the same keys as run_metrics_to_json, analysis fields left empty.
Json minimal_run_metrics(const Json& run) {
  Json m;
  m["steps"] = Json::array();
  m["step_time_s"] = run["profiled"].contains("step_time_s") ? run["profiled"]["step_time_s"] : Json(nullptr);
  m["tokens_per_sec"] = run["profiled"].contains("tokens_per_sec") ? run["profiled"]["tokens_per_sec"] : Json(nullptr);
  m["mfu_pct"] = nullptr;
  const Json& t = run["telemetry"];
  // telemetry summaries are GiB; RunMetrics' GB are 1e9 bytes
  m["hbm_peak_gb"] =
      t.contains("mem_used_gb_max") ? Json(round_to(t["mem_used_gb_max"].get<double>() * 1.073741824, 3)) : Json();
  m["hbm_avg_gb"] = nullptr;
  m["gpu_util_pct"] = t.value("gpu_util_pct_mean", 0.0);
  m["top_kernels"] = Json::array();
  m["attention_kernel_loaded"] = "";
  m["waste_budget"] = nullptr;
  m["warnings"] = warnings_to_json({make_warning(W::metrics_analysis_unavailable,
                                                 "analysis unavailable: step time, tokens/s and telemetry only "
                                                 "(goblin metrics could not read this run directory)")});
  m["versions"] = run.value("versions", Json::object());
  m["gpu_name"] = run["gpu"].value("name", "");
  m["runner_kind"] = "live";
  m["window"] = run["profiled"].value("window", "");
  return m;
}

// GPU utilisation of one bench side from its runs' telemetry: the mean over runs of each run's
// mean nvidia-smi utilization.gpu (busy samples, util > 0: the idle samples before the workload
// touched the GPU and after it ended are left out). Unobserved (null + note) without telemetry.
void fill_gpu_util(Json& side, const Json& runs) {
  std::vector<double> util;
  int samples = 0;
  std::string source, why;
  for (const auto& r : runs) {
    const Json& t = r["telemetry"];
    if (!t.is_object()) continue;
    if (!t.value("observed", false) || !t.contains("gpu_util_pct_mean")) {
      if (why.empty() && t.contains("note")) why = t.value("note", "");
      continue;
    }
    util.push_back(t["gpu_util_pct_mean"].get<double>());
    samples += t.value("samples", 0);
    source = t.value("source", "");
  }
  if (util.empty()) {
    side["gpu_util_pct"] = nullptr;
    side["gpu_util_note"] =
        "unobserved: no GPU telemetry in these runs" + (why.empty() ? std::string() : " (" + why + ")");
    return;
  }
  double sum = 0;
  for (double u : util) sum += u;
  side["gpu_util_pct"] = round_to(sum / static_cast<double>(util.size()), 1);
  side["gpu_util_basis"] = fmt::format(
      "telemetry-based: mean over {} run(s) of each run's mean {} GPU utilisation ({} samples at ~200 ms, idle "
      "samples with util 0 left out; whole process incl. start-up and warm-up), not the trace-based busy fraction of "
      "the step window",
      util.size(), source.empty() ? std::string("telemetry") : source, samples);
}

Json bench_side_result(const Json& bench, const std::string& side) {
  Json one = bench;
  if (!bench.contains(side) || !bench[side].is_object()) return one;
  one.erase("b");
  one.erase("comparison");
  one["a"] = bench[side];
  const Json& s = bench[side];
  if (s.contains("step_time_s") && s["step_time_s"].is_object()) one["step_time_s"] = s["step_time_s"]["point"];
  if (s.contains("tokens_per_sec_median")) one["tokens_per_sec"] = s["tokens_per_sec_median"];
  // The side's throughput in its own unit (docs/metrics.md § Throughput unit), not side a's.
  if (s.contains("throughput_median"))
    one.update(Json{{"throughput", s["throughput_median"]}, {"throughput_unit", s.value("throughput_unit", "tokens")}});
  one.erase("gpu_util_pct");
  one.erase("gpu_util_basis");
  one.erase("gpu_util_note");
  if (s.contains("gpu_util_pct") && s["gpu_util_pct"].is_number()) one["gpu_util_pct"] = s["gpu_util_pct"];
  for (const char* k : {"gpu_util_basis", "gpu_util_note"})
    if (s.contains(k)) one[k] = s[k];
  if (bench.contains("b")) {
    const std::string other = side == "a" ? "b" : "a";
    one["interleaved_with"] = bench[other].value("config", Json(nullptr));
  }
  return one;
}

}  // namespace goblin::run
