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
#include <functional>
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

struct Trace;
struct OpThread;

// For each observer thread, the id CUPTI's API records give that thread: gettid() (the tracer
// sets CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), or the low 32 bits of pthread_self() (CUPTI's
// default, what Kineto assumes) when only that one appears among the API records.
std::vector<uint32_t> resolve_op_threads(const std::vector<OpThread>& threads, const std::vector<uint32_t>& api_tids);

// One op's Input Dims and Input type as the JSON arrays Kineto writes ("[[8, 16], [], [4]]",
// "[\"c10::BFloat16\", \"Scalar\", \"float\"]"), from the observer's encoding at dims[off]
// (goblin_ops_abi.h: the input count N, then per input its rank R (-1: not a tensor), its type's
// index T into `names` and R sizes). Both empty when off is out of range or the encoding is cut
// short; a type index out of range is written "".
struct InputsJson {
  std::string dims, types;
};
InputsJson inputs_json(const int64_t* dims, uint64_t n_dims, uint64_t off, const char* const* names, uint64_t n_names);

// Copies a batch of goblin's operator observer (goblin_ops_abi.h, passed as void* so this
// header needs no C ABI include) into `t`: names, Input Dims and Input type interned into t.strings (through
// `intern`), threads appended to t.op_threads, times converted by `to_cupti` (observer clock ns →
// CUPTI ns). Records never closed are kept with end 0 (the writer counts and skips them).
// Returns the records appended, or -1 when the batch's ABI version is not this one's.
int64_t append_observer_batch(Trace& t, const void* batch, const std::function<uint32_t(const std::string&)>& intern,
                              const std::function<uint64_t(uint64_t)>& to_cupti);

}  // namespace goblin::tracer
