// The live AMD profile runs the workload under rocprofv3 (--kernel-trace) beside torch.profiler:
// this reads what rocprofv3 wrote and checks it against the Kineto trace of the same run. The two
// see the same dispatches through different layers (rocprofv3 in the HSA runtime, the whole
// process; Kineto through roctracer, the profiled window only), so every kernel of the Kineto
// window must be among rocprofv3's, with about the same duration. When they are not, one of the
// two lost records (a full buffer, another process, a tool that never attached) and run.json says
// which figures to doubt.
#pragma once
#include <optional>
#include <string>

#include "core/json.h"

namespace goblin::run {

struct RocprofCheck {
  Json json;                                // run.json "rocprofv3"
  std::optional<std::string> disagreement;  // set when the two disagree (a warning's message)
};

// `rocprof_dir`: the folder given to rocprofv3 -d (its <hostname>/<pid>_kernel_trace.csv files
// are found below it); `kineto_trace`: the run's trace.json.gz. Paths in the JSON are relative to
// `run_dir`.
RocprofCheck check_rocprof_kernels(const std::string& run_dir, const std::string& rocprof_dir,
                                   const std::string& kineto_trace);

}  // namespace goblin::run
