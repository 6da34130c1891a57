// Process facts for the trace's metadata (process_info.cpp).
#pragma once
#include <string>

#include "trace_format.h"

namespace goblin::tracer {

// "cuLaunchKernel_v2" -> "cuLaunchKernel": CUPTI's versioned API names as Kineto shows them.
std::string strip_version(const char* name);
// Up to 4 KiB of a small file ("" when unreadable).
std::string read_small(const char* path);
// Devices (name, memory, compute capability, SMs, warp size) and the CUDA driver API version.
void query_devices(Trace& t);
// The display driver's version string ("580.159.04") from NVML, "" when absent.
std::string nvml_driver_version();
// Lines "key<TAB>json" that goblin's Python hook wrote for process t.pid into `dir`
// (goblin_meta_<pid>.tsv): top-level metadata entries of the trace.
void splice_workload_metadata(Trace& t, const std::string& dir);

}  // namespace goblin::tracer
