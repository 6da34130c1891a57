// Where a step's GPU time goes, split by what a patch can change: the inputs of the audit's
// speedup models (src/audit/speedup_model.h, docs/metrics.md § Cost profile). Per complete step
// (means); kernel times are sums of durations of kernels starting in the step window, each kernel
// in exactly one class, so the classes are disjoint and compose without double counting.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/timeline.h"

namespace goblin::analysis {

struct PreparedTrace;
struct WindowBreakdown;

struct CostProfile {
  int steps = 0;
  double step_s = 0;  // mean wall of the steps (= the waste budget's step_time_s)
  // GPU kernel seconds per step, disjoint classes (first match in this order):
  double attn_fused_s = 0;    // fused attention kernels (taxonomy category attention)
  double attn_bmm_s = 0;      // eager attention's GEMMs: launched by aten::bmm/baddbmm, no fused attention ran
  double attn_softmax_s = 0;  // eager attention's softmax (taxonomy eager_attention_softmax)
  // Eager attention's other kernels on the L x L score matrix (scale, mask, dropout and their
  // backward): memory-bound kernels whose launching op has a 4-D input [B, H, L, L] (recorded
  // shapes), when no fused attention ran. A fused kernel never materialises that matrix.
  double attn_score_s = 0;
  double optimizer_s = 0;      // launched by the optimizer (taxonomy optimizer, _foreach_*, _fused_adam*)
  double gemm_simt_s = 0;      // other GEMMs on the fp32 SIMT path (taxonomy simt_fp32_gemm)
  double gemm_tensor_s = 0;    // other GEMMs (tensor cores)
  double fp32_membound_s = 0;  // fp32 elementwise/reduction (taxonomy fp32_memory_bound)
  double membound_s = 0;       // other elementwise, reduction, norm, softmax, Triton: fusible work
  double other_gpu_s = 0;      // the rest: communication, memcpy/memset, convolution, other
  double optimizer_kernels = 0, kernels = 0;  // launches per step
  // Idle per step, from the waste budget's partition of the same windows.
  double data_wait_s = 0, host_gap_s = 0, unattributed_s = 0;
  double loader_cpu_s = 0;  // CPU time in input-pipeline spans (taxonomy dataloader_spans)
  // FLOPs per step of the CPU ops (hw/flop_count.h): GEMMs outside attention, eager attention's
  // bmm, fused attention ops; the dominant dtype. 0 when the trace has no shapes.
  double gemm_flops = 0, attn_bmm_flops = 0, attn_fused_flops = 0;
  std::string dtype;
  double gpu_s() const {
    return attn_fused_s + attn_bmm_s + attn_softmax_s + attn_score_s + optimizer_s + gemm_simt_s + gemm_tensor_s +
           fp32_membound_s + membound_s + other_gpu_s;
  }
};

// Over the complete step windows `use` (from analyse_window). nullopt without windows.
std::optional<CostProfile> compute_cost_profile(const Timeline& tl, const PreparedTrace& p,
                                                const std::vector<const WindowBreakdown*>& use);

Json cost_profile_to_json(const CostProfile& c);
std::optional<CostProfile> cost_profile_from_json(const Json& j);

}  // namespace goblin::analysis
