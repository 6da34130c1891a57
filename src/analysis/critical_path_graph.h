// The dependency graph of critical_path (analysis/critical_path.h), internal to it. Nodes are
// GPU ops (node i = gpu_ops row i) and runtime calls (node ng + r = runtime row r). Every node
// keeps at most three predecessors and which one set its start (the binding edge): the latest
// ready of them, so walking binding edges back from a step's last event gives its critical path,
// and recomputing starts with changed durations gives a what-if (docs/critical_path.md).
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/intervals.h"
#include "model/timeline.h"

namespace goblin::analysis {
class Taxonomy;
}

namespace goblin::analysis::critical_path_detail {

enum Edge : uint8_t {
  kNoEdge,
  kSame,    // previous op on the same GPU stream / previous call on the same CPU thread (ready: its end)
  kNested,  // runtime call nested in another on its thread (driver in runtime): ready at the outer's start
  kLaunch,  // GPU op ← its launch call (correlation; graph replays: the graph launch) (ready: its start)
  kCross,   // GPU op ← the op of another stream it waited for (event wait); runtime call ← the call
            // of another thread its thread waited for (ready: its end)
};

enum RtKind : uint8_t { kRtOther, kRtLaunch, kRtSync, kRtGpuSide };

struct Graph {
  const Timeline* tl = nullptr;
  int32_t ng = 0, nr = 0;
  std::vector<int32_t> same, link, cross;  // predecessors (-1: none); link: launch (GPU) or awaited op (sync)
  std::vector<uint8_t> bind;               // the Edge that set the node's start
  std::vector<uint8_t> rt_kind;            // per runtime row
  std::vector<uint16_t> cls;               // per GPU op: index into categories
  std::vector<std::string> categories;     // taxonomy category names ("memcpy", "memset" for those ops)
  IntervalSet loader;                      // input-pipeline CPU spans
  int64_t launch_latency_ns = 0;
  int64_t launch_edges = 0, stream_edges = 0, thread_edges = 0, cross_edges = 0, sync_edges = 0, replays = 0;
  // Of cross_edges, those read from Stream Wait Event arguments (exact), not inferred by timing;
  // devices_with_wait_args: devices whose waits came with arguments (no timing inference there).
  int64_t cross_edges_from_args = 0, devices_with_wait_args = 0;
  int64_t thread_waits = 0, blocked_launches = 0;

  int32_t size() const { return ng + nr; }
  bool gpu(int32_t v) const { return v < ng; }
  int64_t start(int32_t v) const { return gpu(v) ? tl->gpu_ops.start_ns[v] : tl->runtime.start_ns[v - ng]; }
  int64_t end(int32_t v) const { return gpu(v) ? tl->gpu_ops.end_ns(v) : tl->runtime.end_ns(v - ng); }
  // When predecessor p lets its successor go, by the edge's kind.
  int64_t ready(int32_t p, uint8_t edge) const { return edge == kLaunch || edge == kNested ? start(p) : end(p); }
};

// Builds the graph; GPU ops are classified by `tax` (kernels; "memcpy"/"memset" for those ops).
// use_wait_args: read cross-stream waits from Stream Wait Event arguments where the trace has
// them (false: infer every wait by timing, as for traces without them; tests compare the two).
Graph build_graph(const Timeline& tl, const Taxonomy& tax, bool use_wait_args = true);

// Start and end of every node recomputed with GPU op i's duration divided by `factor[i]`
// (1: unchanged); with every factor 1 they equal the trace's times.
void recompute(const Graph& g, const std::vector<float>& factor, std::vector<int64_t>& s2, std::vector<int64_t>& e2);

}  // namespace goblin::analysis::critical_path_detail
