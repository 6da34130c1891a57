#include "trace/load.h"

#include <fmt/format.h>

namespace goblin::trace {

bool has_needed_rows(const Timeline& tl, unsigned needs) {
  return ((needs & kNeedGpuOps) && tl.gpu_op_count() > 0) ||
         ((needs & kNeedKernels) && tl.gpu_ops.count(GpuOpKind::Kernel) > 0) ||
         ((needs & kNeedSamples) && tl.samples.size() > 0) || ((needs & kNeedCounters) && tl.counters.size() > 0) ||
         ((needs & kNeedMemoryEvents) && tl.memory_events.size() > 0);
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

}  // namespace goblin::trace

namespace goblin::trace {

namespace {

// Events of a category the Kineto reader skipped (its kineto_unmodelled_category warnings), summed.
int64_t skipped_events(const Timeline& tl, std::string_view category_prefix) {
  int64_t n = 0;
  const std::string quoted = fmt::format("category \"{}", category_prefix);
  for (const auto& w : tl.warnings)
    if (w.id == W::kineto_unmodelled_category && w.message.find(quoted) != std::string::npos) n += w.count;
  return n;
}

}  // namespace

Status require_gpu_activity(const Timeline& tl, const std::string& path) {
  if (tl.gpu_op_count() > 0) return {};
  std::string what;
  if (const int64_t n = skipped_events(tl, "cuda_profiler_range"); n > 0) {
    what = fmt::format(
        "a CUPTI range-profiler trace: {} cuda_profiler_range events hold per-kernel hardware counters, not a GPU "
        "timeline (kernel start/end), so there is no GPU time to measure; profile with "
        "ProfilerActivity.CUDA for a timeline, or read the counters with Nsight Compute (goblin diagnose)",
        n);
  } else if (const int64_t m = skipped_events(tl, "mtia_"); m > 0) {
    what = fmt::format(
        "an MTIA accelerator trace: its {} device events (mtia_*) are not modelled by goblin, which measures "
        "NVIDIA and AMD GPU timelines; busy/idle, kernels and the waste budget are not supported for MTIA",
        m);
  } else if (tl.cpu_ops.size() > 0 || tl.runtime.size() > 0) {
    what =
        "a CPU-only profile (or one recorded with GPU tracing off): it holds CPU ops but no kernel, memcpy or memset";
  } else {
    what = "the input holds no kernel, memcpy or memset";
  }
  return make_error(kNoGpuActivity, "no GPU activity: " + what, path);
}

}  // namespace goblin::trace
