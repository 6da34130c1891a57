// The classic AMD run folder: a PyTorch profiler (Kineto) trace beside a rocprofv3 (or legacy
// rocprof, rocpd) recording of the same process, e.g. torch_profile.json + trace.csv +
// amd_smi.csv. Both record the same GPU kernels, each on its own clock (rocprofv3: the boot clock
// or, converted, the wall clock; Kineto: its own clock with an epoch base). Merged as they are,
// every kernel would count twice on two clocks. Here the Kineto kernels are the run's (they carry
// the CPU side, the steps and the launch links); the rocprof kernels are matched to them by name
// and order to find the clock offset, and only cross-check them: a pair that does not record the
// same kernels is refused, naming the files.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "model/timeline.h"

namespace goblin::trace {

// True for the formats that record a process's kernels beside Kineto on AMD.
bool is_rocprof_format(Format f);

// What the cross-check found (for tests and the warning text).
struct RocprofPairCheck {
  size_t kineto_kernels = 0, rocprof_kernels = 0, matched = 0;
  int64_t offset_ns = 0;        // add to a rocprof time to get the Kineto trace's time
  std::string rocprof_clock;    // "boot clock" | "wall clock"
  double wall_clock_gap_s = 0;  // wall-clock rocprof only: how far its times are from Kineto's epoch times
};

// `tl` holds the Kineto trace (read, not finished); `side` the rocprof files of the folder.
// Reads them into a timeline of their own, matches kernels and returns the check, or an error
// naming `kineto_file` and the rocprof files when they are not one run. Adds an info warning
// (rocprof_cross_checked) to `tl` on success; nothing of the rocprof read enters `tl`.
Result<RocprofPairCheck> cross_check_rocprof(Timeline& tl, const std::string& kineto_file,
                                             const std::vector<std::pair<std::string, Format>>& side,
                                             const std::string& dir);

}  // namespace goblin::trace
