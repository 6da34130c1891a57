// Kernel names and operator attribution for goblin's CUPTI tracer, without CUPTI (unit-tested
// everywhere, tracer/op_attribution_test.cpp):
//  - kernel names demangled exactly as Kineto does, so a cupti trace and a torch.profiler trace
//    of one run name (and so categorise) their kernels alike;
//  - the ATen operators PyTorch announces as NVTX ranges (its RecordFunction → NVTX observer,
//    torch.autograd.profiler.emit_nvtx, which goblin's hook switches on for the recorded window)
//    parsed back into name, sequence number, op id and input shapes;
//  - each launching API call matched to the innermost operator range open on its thread, which
//    is how Kineto's "External id" ties a kernel to the op that launched it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace goblin::tracer {

// Kineto's demangle() (libkineto/src/Demangle.cpp): abi::__cxa_demangle; the name unchanged
// when it does not demangle (C kernels, Triton's triton_poi_...) or is longer than 1024 bytes.
std::string demangle_kernel_name(const std::string& mangled);

// One NVTX range text of PyTorch's NVTX observer (torch/csrc/profiler/util.cpp getNvtxStr):
//   NAME[, seq = N][, op_id = M][, sizes = [[2, 3], []]][, input_op_ids = [...]]
// is_op: the text has the observer's shape (", seq = ", ", op_id = " or ", sizes = "), or names
// an ATen op ("aten::..."); plain user ranges (ProfilerStep#3, a model's own NVTX) are not ops.
struct NvtxOp {
  bool is_op = false;
  std::string_view name;   // the operator ("aten::mm", "autograd::engine::evaluate_function: ...")
  int64_t seq = -1;        // autograd sequence number (forward/backward pairing), -1 when absent
  int64_t op_id = -1;      // RecordFunction handle, -1 when absent
  std::string_view sizes;  // "[[2, 3], [3, 4]]" (a JSON array), empty when not recorded
};
NvtxOp parse_nvtx_op(std::string_view text);

// An operator range on one thread (CUPTI times, ns).
struct OpRange {
  uint64_t start = 0, end = 0;
  uint32_t tid = 0;
};
// For each (tid, ts) query, the index into `ranges` of the innermost range on that thread with
// start <= ts < end, or -1. Ranges on one thread nest (push/pop); O((R + Q) log).
std::vector<int32_t> innermost_ranges(const std::vector<OpRange>& ranges,
                                      const std::vector<std::pair<uint32_t, uint64_t>>& queries);

}  // namespace goblin::tracer
