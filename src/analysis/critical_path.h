// The critical path of every step (docs/critical_path.md): a dependency graph over the trace's
// runtime calls (per CPU thread, in order), GPU ops (per stream, in order), launch edges
// (correlation), cross-stream waits, synchronisations and graph replays, and per step the chain of
// dependent work that sets the step's length, with the step's time attributed along it. A what-if
// ("these kernels k× faster") is recomputed on the graph, not subtracted.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/steps.h"
#include "model/timeline.h"

namespace goblin::analysis {

class Taxonomy;

// GPU ops made `speedup`× faster: those of a taxonomy category (gemm, attention, communication,
// memcpy, memset, ...) or whose name contains `kernel`. Several terms: an op takes the first that
// matches it.
struct WhatIfTerm {
  std::string category;
  std::string kernel;
  double speedup = 1.0;
};
struct WhatIf {
  std::vector<WhatIfTerm> terms;
  bool active() const { return !terms.empty(); }
};

// Where a step's time goes along its path; the JSON names are path_bucket_name().
enum class PathBucket : uint8_t {
  CpuLaunch,          // kernel/memcpy launch calls and the launch latency of a kernel that waited on its launch
  CpuRuntime,         // other runtime/driver calls on the path (malloc, free, queries)
  CpuPython,          // CPU work between runtime calls: Python and the framework
  CpuDataLoading,     // of that, inside input-pipeline spans (taxonomy dataloader_spans)
  GpuCompute,         // GPU ops other than communication (split by category in gpu_by_category_ns)
  Communication,      // collective kernels (taxonomy category communication): the transfer
  CommunicationWait,  // with several ranks: the part of a collective kernel spent waiting for the other ranks
  Synchronization,    // host waits returning after the GPU finished, sync calls, cross-stream waits
  Idle,               // gaps no edge explains: GPU stream gaps, time before the path's first event
  kCount
};
inline constexpr size_t kPathBuckets = static_cast<size_t>(PathBucket::kCount);
const char* path_bucket_name(PathBucket b);  // "cpu_launch", "gpu_compute", ...

struct PathSegment {
  int64_t start_ns = 0, end_ns = 0;
  PathBucket bucket = PathBucket::Idle;
  std::string what;  // kernel or call name, or the edge ("launch latency", "stream gap")
};

struct StepPath {
  Step step;
  int64_t step_ns = 0;    // the step window's length
  int64_t length_ns = 0;  // the path's length (sum of its segments)
  std::array<int64_t, kPathBuckets> bucket_ns{};
  std::map<std::string, int64_t> gpu_by_category_ns;  // GPU-op time on the path by taxonomy category
  int64_t events = 0;                                 // GPU ops and runtime calls on the path
  std::vector<PathSegment> top;                       // the longest segments, longest first
  // With a what-if: the step recomputed on the graph, and what plain subtraction along the path
  // would say (the path's matching GPU time × (1 - 1/k) removed).
  int64_t what_if_ns = kNone, subtract_ns = kNone;
};

struct CriticalPathResult {
  StepDetection steps;
  std::vector<StepPath> paths;  // one per step (steps.steps order)
  WhatIf what_if;
  int64_t what_if_ops = 0;  // GPU ops the what-if speeds up
  // The graph.
  int64_t nodes = 0, launch_edges = 0, stream_edges = 0, thread_edges = 0, cross_stream_edges = 0, sync_edges = 0;
  int64_t thread_waits = 0;            // a thread's gap taken as waiting for another thread's call
  int64_t blocked_launches = 0;        // launch calls taken as blocked on a full launch queue (sync edges)
  int64_t cross_stream_from_args = 0;  // of cross_stream_edges, read from Stream Wait Event arguments
  int64_t graph_replay_kernels = 0;    // kernels with a graph id (their launch: the graph launch call)
  int64_t launch_latency_ns = 0;       // median start - launch of kernels that waited on their launch
  std::vector<std::string> notes;
};

struct CriticalPathOptions {
  WhatIf what_if;
  size_t top = 5;  // longest segments kept per step
  // Windows: the steps of find_steps (default), or every CPU annotation of this exact name.
  std::string annotation;
  // With several ranks: per collective kernel (n-th kernel of category communication, in start
  // order) its shortest duration over the ranks (collective_floors). A kernel's time beyond it
  // was spent waiting for the other ranks (CommunicationWait). Empty: not split.
  std::vector<int64_t> comm_floor_ns;
};

// The durations of a trace's collective kernels (category communication), in start order.
std::vector<int64_t> collective_durations(const Timeline& tl, const Taxonomy& tax);
// Their element-wise minimum over ranks; empty (with `why`) when the ranks' counts differ.
std::vector<int64_t> collective_floors(const std::vector<std::vector<int64_t>>& per_rank, std::string* why);

CriticalPathResult critical_path(const Timeline& tl, const Taxonomy& tax, const CriticalPathOptions& opt = {});

// Several what-ifs on one graph (the audit's fast and slow ends): one result per scenario, each the
// same as critical_path with opt.what_if set to it (opt.what_if itself is not used). The graph, the
// steps and each step's walk are built once; only the recomputation runs per scenario.
std::vector<CriticalPathResult> critical_path_what_ifs(const Timeline& tl, const Taxonomy& tax,
                                                       const CriticalPathOptions& opt,
                                                       const std::vector<WhatIf>& scenarios);

}  // namespace goblin::analysis
