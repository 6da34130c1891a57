// goblin roofline's whole job as one library call (the verb and the MCP `roofline` tool share it):
// achieved TFLOPS and bandwidth per op/kernel against the GPU's peaks, optionally an SVG plot.
#pragma once
#include <string>

#include "core/verb_result.h"

namespace goblin::analysis {
struct AnalysisKnowledge;  // analysis/knowledge.h
}  // namespace goblin::analysis

namespace goblin::app {

struct RooflineRequest {
  std::string path, gpu, svg;
  // Another trace of the same workload that names what launched the kernels: one recorded during
  // CUDA-graph capture (replayed kernels get the op recorded at capture, analysis/capture_ops.h)
  // or a graph-off / torch.profiler trace (kernels of `path` without an op are priced like their
  // identical launches there, hw/roofline_signature.h). Both joins run; each takes what it can.
  std::string capture;
  bool json = false;
  size_t top = 25;
};

// The taxonomy names each kernel's engine (matrix / vector) in trace mode; the GPU database and
// NCU rules come from the same knowledge context.
VerbResult run_roofline(const RooflineRequest& a, const analysis::AnalysisKnowledge& k);

}  // namespace goblin::app
