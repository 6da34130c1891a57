// Legacy rocprof (v1, and the rocprofv2 file plugin) writes several shapes; read_rocprof_v1
// (rocprof_v1_reader.cpp) picks one from the content and calls the matching part below.
#pragma once
#include <string>

#include "core/status.h"
#include "model/timeline.h"
#include "trace/readers.h"

namespace goblin::trace::rocprof {

// results.csv (Index,KernelName,gpu-id,...), rocprofv2/rocprofiler-compute CSVs
// (Dispatch_ID,GPU_ID,... or Dispatch_ID,Kernel_Name,...) and the 5-column stats files.
Status read_v1_csv(const std::string& path, Timeline& tl, const ReadOptions& opt);
// results.json: chrome trace with quoted numbers and BeginNs/EndNs args.
Status read_v1_json(const std::string& path, Timeline& tl, const ReadOptions& opt);
// results.db: SQLite with tables HIP, OPS, COPY, KERN.
Status read_v1_db(const std::string& path, Timeline& tl);

// Warns once per file (folded) that kernel names lost their code-object suffix.
void note_kd_suffix_stripped(Timeline& tl, const std::string& path);

}  // namespace goblin::trace::rocprof
