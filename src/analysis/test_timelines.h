// Small hand-built timelines for analysis unit tests (header-only; tests only).
#pragma once
#include <string>

#include "model/timeline.h"

namespace goblin::testing {

struct TlBuilder {
  Timeline tl;
  int64_t next_corr = 1;

  // A runtime launch call [rs, re) and the kernel it launched [ks, ke) on `stream`.
  int64_t launch(const std::string& kernel, int64_t rs, int64_t re, int64_t ks, int64_t ke, int64_t stream = 7,
                 std::array<uint32_t, 3> grid = {0, 0, 0}) {
    int64_t c = next_corr++;
    RuntimeRow r;
    r.start_ns = rs;
    r.dur_ns = re - rs;
    r.name = tl.strings.intern("cudaLaunchKernel");
    r.correlation = c;
    r.pid = 1;
    r.tid = 1;
    tl.runtime.push(r);
    GpuOpRow k;
    k.start_ns = ks;
    k.dur_ns = ke - ks;
    k.name = tl.strings.intern(kernel);
    k.device = 0;
    k.stream = stream;
    k.correlation = c;
    k.grid = grid;
    tl.gpu_ops.push(k);
    return c;
  }
  // launch() from inside CPU op `cpu_op` (spanning the launch call), linked by External id as
  // Kineto links them.
  int64_t launch_from(const std::string& cpu_op, const std::string& kernel, int64_t rs, int64_t re, int64_t ks,
                      int64_t ke, int64_t stream = 7) {
    int64_t c = launch(kernel, rs, re, ks, ke, stream);
    CpuOpRow op;
    op.start_ns = rs - 1;
    op.dur_ns = re - rs + 2;
    op.name = tl.strings.intern(cpu_op);
    op.pid = 1;
    op.tid = 1;
    op.external_id = 1000 + c;
    tl.cpu_ops.push(op);
    tl.gpu_ops.external_id.back() = op.external_id;
    return c;
  }
  void memcpy(int64_t rs, int64_t re, int64_t s, int64_t e, CopyKind kind = CopyKind::HtoD, int64_t stream = 7) {
    int64_t c = next_corr++;
    RuntimeRow r;
    r.start_ns = rs;
    r.dur_ns = re - rs;
    r.name = tl.strings.intern("cudaMemcpyAsync");
    r.correlation = c;
    tl.runtime.push(r);
    GpuOpRow m;
    m.kind = GpuOpKind::Memcpy;
    m.start_ns = s;
    m.dur_ns = e - s;
    m.name = tl.strings.intern("Memcpy HtoD (Pageable -> Device)");
    m.device = 0;
    m.stream = stream;
    m.correlation = c;
    m.copy_kind = kind;
    tl.gpu_ops.push(m);
  }
  void annotation(const std::string& name, int64_t s, int64_t e, bool on_gpu = false) {
    AnnotationRow a;
    a.start_ns = s;
    a.dur_ns = e - s;
    a.name = tl.strings.intern(name);
    a.on_gpu = on_gpu;
    a.pid = 1;
    a.tid = 1;
    if (on_gpu) {
      a.device = 0;
      a.stream = 7;
    }
    tl.annotations.push(a);
  }
  // The timeline as a read leaves it (Timeline::finish: sorted, tracks derived, validated).
  Timeline& done() {
    tl.finish();
    return tl;
  }
  void runtime_only(const std::string& name, int64_t s, int64_t e, bool sync = false) {
    RuntimeRow r;
    r.start_ns = s;
    r.dur_ns = e - s;
    r.name = tl.strings.intern(name);
    r.correlation = next_corr++;
    r.is_sync = sync;
    tl.runtime.push(r);
  }
};

}  // namespace goblin::testing
