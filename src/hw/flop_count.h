// FLOPs executed by a trace's GEMM / attention / convolution CPU ops, per time window: the entry
// point run metrics' MFU uses. Each op's FLOPs come from op_cost (roofline.h) on its recorded
// shapes — this file only chooses which op instances to count and sums them.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "hw/roofline.h"
#include "model/timeline.h"

namespace goblin::hw {

// Which CPU ops carry FLOPs: the FLOP-family ops (is_flop_op) per thread, sorted by start (ties:
// the longer, i.e. enclosing, op first), and the composites among them: an op that contains the
// next FLOP op of its thread (aten::linear → aten::matmul → aten::mm; sdpa → its backend op). Only
// leaf ops are priced, so nothing is counted twice. The one selection behind both the roofline
// (roofline_from_trace) and MFU (count_flops), so their FLOPs agree on a trace.
struct FlopOps {
  std::unordered_map<int64_t, std::vector<size_t>> by_tid;  // tid → CpuOpTable rows
  std::unordered_set<size_t> composite;
  size_t count = 0;  // FLOP-family op instances
  // Leaf ops whose record lacks a shape the trace shows elsewhere (infer_shape_hints): a
  // convolution's output dims, a cuDNN backward half's input / weight size.
  std::unordered_map<size_t, OpCostHints> hints;
};
FlopOps select_flop_ops(const Timeline& tl);
// Fills sel.hints (hw/op_cost_hints.cpp): for a forward convolution without Concrete Inputs, the
// grad_output of the backward with the same input and weight dims (when those backwards agree),
// else the first argument of one of the next ops on its thread shaped [N, Cout, ...]; for a
// cudnn/miopen_convolution_backward_input/_weight, argument 0 from the enclosing backward op.
void infer_shape_hints(const Timeline& tl, FlopOps& sel);

struct FlopCount {
  double flops = 0;                              // Σ op_cost(op).flops over the counted ops
  std::map<std::string, double> flops_by_dtype;  // normalised dtype (fp32, bf16, ...) → FLOPs
  std::map<std::string, double> flops_by_kind;   // gemm | attention | conv → FLOPs
  std::map<std::string, double> flops_by_op;     // op name (aten::mm, aten::bmm, ...) → FLOPs
  int64_t ops_counted = 0;                       // leaf FLOP ops with a cost
  int64_t ops_composite = 0;                  // wrappers (linear/matmul/sdpa) whose FLOPs are counted on the inner op
  int64_t ops_unmodelled = 0;                 // leaf FLOP ops op_cost could not price
  std::map<std::string, int64_t> unmodelled;  // "op: why" → count
  // The dtype with the most FLOPs ("" when nothing was counted).
  std::string dominant_dtype() const;
};

// For each window [start, end) (trace ns): the FLOP-family CPU ops (is_flop_op) whose *start*
// lies in the window, forward and backward alike (backward aten::mm/bmm and attention-backward
// ops are recorded as ops of their own and counted). An op that contains another FLOP op of the
// same thread (aten::linear → aten::matmul → aten::mm; sdpa → its backend op) is a composite:
// only the innermost op is priced, so nothing is counted twice. These are the FLOPs the hardware
// executed (causal attention kernels are credited half, as op_cost models them); with activation
// recomputation they exceed the model's FLOPs.
std::vector<FlopCount> count_flops(const Timeline& tl, const std::vector<std::pair<int64_t, int64_t>>& windows);

}  // namespace goblin::hw
