#include "trace/load.h"

namespace goblin {

bool has_needed_rows(const Timeline& tl, unsigned needs) {
  return ((needs & kNeedGpuOps) && tl.gpu_op_count() > 0) ||
         ((needs & kNeedKernels) && tl.gpu_ops.count(GpuOpKind::Kernel) > 0) ||
         ((needs & kNeedSamples) && tl.samples.size() > 0) || ((needs & kNeedCounters) && tl.counters.size() > 0);
}

Result<LoadedTrace> load_trace(const std::string& path, unsigned needs, const ReadOptions& opt) {
  LoadedTrace out;
  Status st = read_path(path, out.timeline, opt);
  if (!st.ok()) {
    if (!has_needed_rows(out.timeline, needs)) return st.error();
    out.damage = st.error();
  }
  return out;
}

}  // namespace goblin
