// Per-window GPU time breakdown, idle attribution, launch statistics and the additive waste
// budget. Every figure is over one window W = [start, end) (a step from steps.h, or the whole
// step range) and is defined with interval algebra (intervals.h) on these sets, built once per
// trace (sort once per set, O(n log n)); per-window queries are O(log n + k):
//
//   ALL     = ∪ every kernel, memcpy and memset (all streams and devices)
//   COMM    = ∪ kernels whose taxonomy category is communication
//   MEMCPY  = ∪ memcpy rows ∪ kernels classified memcpy;  HTOD = the host-to-device part
//   COMPUTE = ∪ other kernels ∪ memsets (memset counts as compute, as in TraceLens)
//   GEMM    = ∪ kernels classified gemm
//   SIMT    = ∪ GEMM kernels on the fp32 SIMT path (taxonomy.yaml simt_fp32_gemm)
//   SHAPE   = ∪ GEMM kernels with generic/fallback names or grids < f·SMs (shape_suspect_gemm)
//   LOADER  = ∪ CPU annotations / cpu ops named like the input pipeline (dataloader_spans)
//
// Breakdown over W:  wall = |W|; busy = |ALL∩W|; idle = wall − busy; compute/comm/memcpy =
//   |X∩W|; exposed_comm = |(COMM \ COMPUTE)∩W|; exposed_memcpy = |(MEMCPY \ COMPUTE \ COMM)∩W|
//   (TraceLens' definitions); per stream: |∪ ops of the stream ∩ W| / wall.
// Idle attribution: each gap g = [a, b) of W \ ALL is classified by the GPU op that ends it (the
//   first op starting at or after b) and its launching runtime call r (by correlation):
//   host_bound      r.start >= a   (the CPU had not begun the launch when the GPU went idle)
//   launch_latency  r.start < a < r.end (the launch call was in flight when the GPU went idle)
//   sync_other      r.end <= a      (work was submitted before the gap: dependency/sync/queue)
//   unknown         no following op, or no correlated runtime call.
// Launch statistics over kernels starting in W: launch delay = kernel start − runtime call end
//   (correlation); short kernels = dur < 10 µs (count and time share); kernels per window.
// Waste budget over W (a partition of W, so the buckets sum to |W| exactly):
//   E_comm = (COMM \ COMPUTE)∩W      → comm_excess
//   E_mem  = (MEMCPY \ COMPUTE \ COMM)∩W; its HTOD part → data_wait, the rest → useful_gpu
//   S = SIMT∩COMPUTE∩W               → precision_path = |S|·(1 − 1/s), |S|/s → useful_gpu
//                                       (s = the GPU's dense bf16 / fp32 peak, else
//                                        taxonomy.yaml tensor_core_speedup)
//   K = (SHAPE∩COMPUTE∩W) \ S        → kernel_shape (whole time: an upper bound)
//   R = COMPUTE∩W \ S \ K            → useful_gpu
//   I = W \ ALL (idle):  I∩LOADER    → data_wait
//                        (host_bound ∪ launch_latency gaps) \ LOADER → host_gap
//                        the rest (sync_other, unknown) → unattributed
//   memory_headroom is capacity, not time: always 0 s and listed in `unobserved`.
//   data_wait is unobserved when the trace has no CPU-side events; host_gap when it has no
//   correlated runtime calls (their idle time then stays in unattributed).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/intervals.h"
#include "analysis/run_metrics.h"
#include "analysis/taxonomy.h"
#include "hw/gpu_specs.h"
#include "model/timeline.h"

namespace goblin::analysis {

// The input pipeline's CPU time: the union of CPU annotations and CPU ops the taxonomy names as
// data loading (taxonomy.yaml § dataloader_spans); the waste budget's LOADER set and the critical
// path's data-loading attribution read the same spans.
IntervalSet dataloader_spans(const Timeline& tl, const Taxonomy& tax);

// Sets and per-op classes built once per trace.
struct PreparedTrace {
  const Timeline* tl = nullptr;
  IntervalSet all, comm, memcpy, htod, compute, gemm, simt, shape, loader;
  // Waste-budget refinements (taxonomy.yaml § fp32_memory_bound, eager_attention_softmax).
  IntervalSet fp32_memory_bound, eager_softmax;
  bool has_fused_attention = false;  // any kernel in category attention (then eager_softmax is not waste)
  double fp32_bytes_ratio = 1.0, fp32_min_simt_share = 1.0;
  std::map<std::pair<int32_t, int64_t>, IntervalSet> per_stream;  // (device, stream)
  std::map<std::string, IntervalSet> per_category;                // category → union of its kernels
  // Kernel rows: class per kernel row.
  std::vector<uint16_t> kernel_class;  // index into `classes`
  std::vector<KernelClass> classes;
  // Per class: bit 0 fp32 memory-bound, bit 1 eager attention softmax, bit 2 launched by the
  // optimizer, bit 3 eager attention GEMM (taxonomy sections; the cost profile's classes).
  std::vector<uint8_t> class_flags;
  // CPU annotation spans of the optimizer step ("Optimizer.step#AdamW.step", taxonomy
  // optimizer_ops): kernels launched inside are optimizer work whatever their implementation
  // (for-loop, foreach, fused).
  IntervalSet optimizer_spans;
  // GPU ops sorted by start: (start, correlation) for gap attribution.
  std::vector<std::pair<int64_t, int64_t>> op_starts;
  std::unordered_map<int64_t, size_t> runtime_by_corr;
  bool has_cpu_side = false;  // any cpu op or CPU annotation
  bool has_correlated_runtime = false;
  // The trace's GPU in the spec database (gpu_for_timeline), or why there is none; looked up once
  // here for precision_path's s and reused by MFU.
  Result<hw::GpuSpec> gpu = make_error(ErrorKind::NotFound, "GPU not looked up");
  double tensor_core_speedup = 1.0;
  std::string tensor_core_speedup_basis;  // where s came from (GPU spec or the taxonomy default)
  std::vector<std::string> notes;
};

PreparedTrace prepare_trace(const Timeline& tl, const Taxonomy& tax);

struct StreamUse {
  int32_t device = kNone;
  int64_t stream = kNone;
  int64_t busy_ns = 0;
  double util_pct = 0;  // busy / wall of the window
};

struct IdleAttribution {
  int64_t host_bound_ns = 0, launch_latency_ns = 0, sync_other_ns = 0, unknown_ns = 0;
  int64_t gaps = 0;
  IntervalSet host_bound, launch_latency, sync_other, unknown;
};

struct LaunchStats {
  int64_t kernels = 0;
  int64_t correlated = 0;  // kernels whose launch call was found
  double delay_mean_us = 0, delay_p50_us = 0, delay_p90_us = 0, delay_max_us = 0;
  int64_t short_kernels = 0;   // dur < 10 µs
  double short_count_pct = 0;  // of kernels
  double short_time_pct = 0;   // of summed kernel time
  int64_t kernel_time_ns = 0;  // Σ dur of kernels starting in the window
};

struct WindowBreakdown {
  std::string name;
  Interval window;
  bool partial = false;
  int64_t wall_ns = 0, busy_ns = 0, idle_ns = 0;
  int64_t compute_ns = 0, comm_ns = 0, memcpy_ns = 0, exposed_comm_ns = 0, exposed_memcpy_ns = 0;
  int64_t gemm_union_ns = 0;
  std::vector<StreamUse> streams;
  IdleAttribution idle;
  LaunchStats launches;
  WasteBudget waste;  // seconds
};

WindowBreakdown analyse_window(const PreparedTrace& p, const std::string& name, Interval w, bool partial = false);

Json window_breakdown_to_json(const WindowBreakdown& b);

}  // namespace goblin::analysis
