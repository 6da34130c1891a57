// goblin's own CUPTI tracer (tracer/, docs/tracer.md) as the runners use it: where the
// injection library is, the environment that puts a process under it, the traces it wrote, and
// `goblin trace -- CMD` (run any program under the tracer and summarise what was captured).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "core/verb_result.h"
#include "run/live.h"

namespace goblin::run {

// libgoblin_cupti.so: $GOBLIN_CUPTI_LIB, then beside the goblin executable (its build tree), its
// lib/, and ../lib (an installed PREFIX/bin/goblin). "" when none exists; `searched` lists where it looked.
std::string find_cupti_library(std::vector<std::string>* searched = nullptr);

// The tracer a live run uses when none is asked for: "cupti" on an NVIDIA GPU when the library
// is found, else "torch" (torch.profiler through the Python hook). `why` says which and why.
std::string default_tracer(const GpuInfo& gpu, std::string* why = nullptr);

// Variables that load the tracer into every CUDA process started with them (both injection
// variables name the library: it forwards NVTX to CUPTI) and make it write into `dir`.
std::map<std::string, std::string> cupti_env(const std::string& lib, const std::string& dir, bool all_apis = false);

// The traces the tracer wrote into `dir` (goblin_cupti_<pid>.json.gz), largest first.
std::vector<std::string> cupti_traces(const std::string& dir);

struct TraceRequest {
  std::vector<std::string> command;
  std::string out_dir;
  double timeout_s = 0;  // 0: none
  bool all_apis = false;
};
// goblin.trace/1 (command, exit, traces[] (path, kernels, ..., steps), main_trace), and the error.
using TraceOutcome = Partial<Json>;
// Runs `command` under the tracer (stdout/stderr to OUT/stdout.log, stderr.log) and reads every
// trace it wrote back through goblin's reader. No trace at all is "no CUDA activity" (the
// program never initialised CUDA), not an error unless the program itself failed.
TraceOutcome trace_command(const TraceRequest& req);

// One trace (any format goblin reads) in those figures: kernels, memcpys, API calls, steps with
// kernels and GPU busy time each (medians over complete steps), graph kernels and how many
// resolve to a graph launch, and the tracer's metadata (dropped records, overhead).
Json summarize_trace(const std::string& path);

}  // namespace goblin::run
