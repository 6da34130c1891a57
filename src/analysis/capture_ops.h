// CUDA/HIP graph replays carry no launching op: their kernels hold the graph launch's correlation
// and nothing else. A trace recorded while the graph was captured (torch.cuda.graph,
// torch.compile mode="reduce-overhead") holds, between cudaStreamBeginCapture and
// cudaStreamEndCapture, one launch call per graph node, each under the ATen op (with its shapes)
// that issued it, but no kernels (nothing runs during capture). attach_capture_ops joins the two
// (docs/critical_path.md § Graph capture): the n-th launch call of a capture window is the n-th
// GPU op of a replay of that graph, checked by node count and by each node's kind (kernel,
// memcpy, memset), and gives the replayed op a copy of the captured CPU op, so the roofline, the
// kernel table and every other analysis find an op for it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/timeline.h"

namespace goblin::analysis {

struct CaptureJoin {
  int64_t capture_windows = 0;  // BeginCapture..EndCapture windows in the capture trace
  int64_t graph_launches = 0;   // graph launch calls in the replay trace with GPU ops
  int64_t launches_matched = 0;
  int64_t ops_joined = 0;  // replayed GPU ops given the op recorded at capture
  int64_t ops_added = 0;   // CPU op rows added to the replay timeline (one per replay and captured op)
  std::vector<std::string> notes;
};

// Adds to `replay` the CPU ops that launched its graph-replayed GPU ops at capture and points
// those ops' external ids at them. Ops that already have a launching op are left alone.
CaptureJoin attach_capture_ops(Timeline& replay, const Timeline& capture);

}  // namespace goblin::analysis
