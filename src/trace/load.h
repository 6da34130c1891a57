// One way for every verb (and the MCP server) to read its input: read a file or run directory
// (read_path), decide whether a damaged read kept enough to analyse, and hand back the Timeline
// with the damage named. Correlation indexes are built by the Timeline on first use.
//
// Partial input: a reader that fails midway keeps what it read. The input is usable when it kept
// at least one row of some kind the analysis needs (TraceNeeds); the verb then reports its
// results and the damage (exit code of the damage's kind), otherwise only the error.
#pragma once
#include <optional>
#include <string>

#include "core/status.h"
#include "model/timeline.h"
#include "trace/readers.h"

namespace goblin::trace {

// What an analysis can work with, as a set: usable when any named kind has a row.
enum TraceNeeds : unsigned {
  kNeedGpuOps = 1u << 0,        // kernels, memcpys or memsets
  kNeedKernels = 1u << 1,       // kernels alone
  kNeedSamples = 1u << 2,       // telemetry samples
  kNeedCounters = 1u << 3,      // hardware counters (ncu, rocprofv3 counter collection)
  kNeedMemoryEvents = 1u << 4,  // allocator events (Kineto profile_memory)
};

struct LoadedTrace {
  Timeline timeline;
  std::optional<Error> damage;  // the read's error when partial input was kept
};

// The read error when nothing usable was kept; else the timeline and any damage.
Result<LoadedTrace> load_trace(const std::string& path, unsigned needs = kNeedGpuOps, const ReadOptions& opt = {});

// True when `tl` holds a row of a kind in `needs`.
bool has_needed_rows(const Timeline& tl, unsigned needs);

// Exit code 9, "no GPU activity" (docs/metrics.md, `goblin --help`).
inline constexpr ErrorKind kNoGpuActivity = ErrorKind::NoGpuActivity;

// The verbs that measure GPU time (metrics, breakdown, triage, diff) refuse a trace that was read
// but holds no kernel, memcpy or memset: "no GPU activity" is the result
// (kNoGpuActivity, exit 9, docs/metrics.md § No GPU activity), never an MFU, findings or a waste budget computed
// from nothing. The message says what the trace is where the reader could tell: a CUPTI
// range-profiler trace (counter ranges, no timeline), another accelerator's trace (MTIA), a
// CPU-only profile. Ok when `tl` has a GPU op.
Status require_gpu_activity(const Timeline& tl, const std::string& path);

}  // namespace goblin::trace
