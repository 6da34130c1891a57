// The live AMD profile runs the workload under rocprofv3 (--kernel-trace) beside torch.profiler:
// this reads what rocprofv3 wrote and checks it against the Kineto trace of the same run. The two
// see the same dispatches through different layers (rocprofv3 in the HSA runtime, the whole
// process; Kineto through roctracer, the profiled window only), so every kernel of the Kineto
// window must be among rocprofv3's, with about the same duration. When they are not, one of the
// two lost records (a full buffer, another process, a tool that never attached) and run.json says
// which figures to doubt.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"

namespace goblin::run {

// run.json "rocprofv3" (its field list in rocprof_check.cpp).
struct RocprofFigures {
  bool wrapped = true;
  std::vector<std::string> kernel_trace;  // the files read (<pid>_results.db or <pid>_kernel_trace.csv), relative to the run directory
  std::optional<bool> read;               // unset: nothing was looked for
  std::optional<int64_t> kernels, kineto_kernels, expected_kernels, expected_kernels_found;
  std::optional<double> kernel_time_s, kineto_kernel_time_s, steps_ratio, coverage_pct, time_ratio;
  std::optional<std::string> meaning;
  std::optional<bool> agrees;
  std::optional<std::string> note;
};

struct RocprofCheck {
  RocprofFigures figures;
  std::optional<std::string> disagreement;  // set when the two disagree (a warning's message)
  Json json() const;
};

// `rocprof_dir`: the folder given to rocprofv3 -d (its <hostname>/<pid>_results.db or _kernel_trace.csv files
// are found below it); `kineto_trace`: the run's trace.json.gz. Paths in the JSON are relative to
// `run_dir`.
RocprofCheck check_rocprof_kernels(const std::string& run_dir, const std::string& rocprof_dir,
                                   const std::string& kineto_trace);

}  // namespace goblin::run
