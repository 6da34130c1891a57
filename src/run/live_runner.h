// The live runner behind `goblin audit CONFIG` on a machine with a GPU: audit::Runner
// (src/audit/runner.h) over `goblin profile` and `goblin bench`. A config the audit changed (the
// patched WorkloadConfig) is written back into the user's own file format with the audit's
// edit_config_text and run from the audit's output directory.
#pragma once
#include <string>
#include <vector>

#include "audit/runner.h"
#include "core/json.h"
#include "run/live.h"
#include "run/runners.h"

namespace goblin::run {

struct LiveRunnerOptions {
  std::string out_dir;        // runs land in OUT/live/{profile,bench-N,...}
  std::string workload_flag;  // --workload (default workloads/train.py)
  int profile_steps = 5, profile_warmup = 5;
  std::string tracer;  // ProfileRequest::tracer ("" = default)
  int bench_steps = 20, bench_warmup = 5, repeats = 5;
  double timeout_s = 900;
  bool use_cache = false;
  bool require_gpu = true;  // false: stand-in workloads on a machine without a GPU (CPU tests)
  // --script: the user's unmodified script and its arguments (live.h script_workload).
  std::string script;
  std::vector<std::string> script_args;
};

class LiveRunner : public audit::Runner {
 public:
  explicit LiveRunner(LiveRunnerOptions opt) : opt_(std::move(opt)) {}
  Result<analysis::RunMetrics> profile(const config::WorkloadConfig& config) override;
  Result<analysis::RunMetrics> bench(const config::WorkloadConfig& config) override;
  // Before and after in one `bench --against` (runners.h): runs interleave A B A B ..., repeats
  // runs per side, per-run step times and tokens/s returned as samples.
  Result<audit::PairBench> bench_pair(const config::WorkloadConfig& before,
                                      const config::WorkloadConfig& after) override;
  std::string kind() const override { return "live"; }
  // The run directory of the last profile() (its trace, for the report's kernel diff: `goblin
  // diff` of the two profiles); "" after a bench, whose runs are unprofiled.
  std::string last_trace() const override { return last_trace_; }

  // What each call ran and measured (run.json / bench JSON), for the report.
  const Json& log() const { return log_; }
  // The config files actually run (original or materialised patch), in call order.
  const std::vector<std::string>& config_files() const { return files_; }

 private:
  Result<std::string> materialise(const config::WorkloadConfig& config, const std::string& tag);
  // A config ready to run: materialised as OUT/live/<tag>.<ext> (recorded in files_) and resolved
  // to the workload that runs it.
  struct Prepared {
    std::string file;
    WorkloadSpec workload;
  };
  Result<Prepared> prepare(const config::WorkloadConfig& config, const std::string& tag);
  // The bench settings every bench call shares (steps, warm-up, timeout per side; repeats, cache).
  void apply_bench_options(WorkloadSpec& side) const;
  BenchRequest bench_request(const std::string& work_dir) const;
  LiveRunnerOptions opt_;
  Json log_ = Json::array();
  std::vector<std::string> files_;
  std::string last_trace_;
  std::string given_config_;  // the first config's path as the user gave it (for --script arguments)
  int n_ = 0;
};

// RunMetrics of a bench JSON's side "a" (median step time, tokens/s, versions, runner_kind live;
// gpu_util_pct from telemetry with a "gpu_util_pct: telemetry-based ..." warning, or 0 with a
// "gpu_util_pct: unobserved ..." warning). For side "b" pass bench_side_result(bench, "b").
analysis::RunMetrics bench_to_run_metrics(const Json& bench);
// Per-run samples of a bench JSON's side ("a" | "b"): runs without an error, in run order.
audit::SideSamples bench_side_samples(const Json& bench, const std::string& side);

}  // namespace goblin::run
