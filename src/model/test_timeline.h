// Hand-built timelines for tests: the one way a test writes CPU ops, launches and kernels into a
// Timeline, so a test states the figures it checks (shapes, times, correlation ids) and nothing
// else. The rows are what a Kineto trace records: an operator (cpu_op) with its shapes, the
// runtime call that launched the kernel on the operator's thread, and the kernel, tied to the
// launch by correlation id and to the operator by external id.
#pragma once
#include <cstdint>
#include <string_view>

#include "model/timeline.h"

namespace goblin::testing {

class TimelineBuilder {
 public:
  explicit TimelineBuilder(Timeline& tl) : tl_(tl) {}

  // A PyTorch operator on `tid` with record_shapes' input_dims / input_types (raw JSON text).
  TimelineBuilder& cpu_op(std::string_view name, int64_t start_ns, int64_t dur_ns, int64_t external_id,
                          std::string_view input_dims, std::string_view input_types, int64_t tid = 7) {
    CpuOpRow r;
    r.start_ns = start_ns;
    r.dur_ns = dur_ns;
    r.tid = tid;
    r.name = tl_.strings.intern(name);
    r.external_id = external_id;
    r.input_dims = tl_.strings.intern(input_dims);
    r.input_types = tl_.strings.intern(input_types);
    tl_.cpu_ops.push(r);
    return *this;
  }

  // A user annotation (record_function) on `tid`, with the tensors it was given (raw JSON text;
  // empty: none), as PyTorch's "nccl:<collective>" ranges hold them.
  TimelineBuilder& annotation(std::string_view name, int64_t start_ns, int64_t dur_ns, std::string_view input_dims,
                              std::string_view input_types, int64_t tid = 7) {
    AnnotationRow r;
    r.start_ns = start_ns;
    r.dur_ns = dur_ns;
    r.tid = tid;
    r.name = tl_.strings.intern(name);
    if (!input_dims.empty()) r.input_dims = tl_.strings.intern(input_dims);
    if (!input_types.empty()) r.input_types = tl_.strings.intern(input_types);
    tl_.annotations.push(r);
    return *this;
  }

  // A cudaLaunchKernel call (10 ns) on `tid` with `correlation`.
  TimelineBuilder& launch(int64_t start_ns, int64_t correlation, int64_t tid = 7) {
    RuntimeRow r;
    r.start_ns = start_ns;
    r.dur_ns = 10;
    r.tid = tid;
    r.correlation = correlation;
    r.name = tl_.strings.intern("cudaLaunchKernel");
    tl_.runtime.push(r);
    return *this;
  }

  // A kernel launched by the call with `correlation`, inside the operator with `external_id`.
  TimelineBuilder& kernel(std::string_view name, int64_t start_ns, int64_t dur_ns, int64_t correlation,
                          int64_t external_id) {
    GpuOpRow r;
    r.start_ns = start_ns;
    r.dur_ns = dur_ns;
    r.correlation = correlation;
    r.external_id = external_id;
    r.name = tl_.strings.intern(name);
    tl_.gpu_ops.push(r);
    return *this;
  }

 private:
  Timeline& tl_;
};

}  // namespace goblin::testing
