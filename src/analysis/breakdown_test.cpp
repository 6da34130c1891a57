#include "analysis/breakdown.h"

#include <gtest/gtest.h>

#include "analysis/run_metrics.h"
#include "analysis/taxonomy_test_support.h"
#include "analysis/test_timelines.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

using testing::TlBuilder;

const Taxonomy& tax() { return testing::taxonomy(); }

void expect_additive(const WasteBudget& w, double step) {
  EXPECT_NEAR(w.total(), step, 1e-3 * step);
  EXPECT_NEAR(w.step_time_s, step, 1e-12);
  for (double v :
       {w.useful_gpu, w.data_wait, w.host_gap, w.comm_excess, w.precision_path, w.kernel_shape, w.unattributed})
    EXPECT_GE(v, 0.0);
  EXPECT_EQ(w.memory_headroom, 0.0);
}

// Hand-built step [0, 1000) ns:
//   gemm nvjet on stream 7     [100, 300)   launched [50, 60)
//   allreduce (nccl) stream 9  [250, 450)   launched [60, 70)   → exposed comm [300, 450) = 150
//   sgemm (SIMT fp32) stream 7 [500, 600)   launched [460, 470) → gap [450,500) host-bound
//   memcpy HtoD stream 7       [700, 750)   launched [550, 560) → gap [600,700) sync/other; E_mem htod 50
//   dataloader annotation      [760, 900)
//   elementwise stream 7       [950, 1000)  launched [900, 910) → gap [750,950): host-bound, 140 of it in loader
TEST(Breakdown, HandBuiltStepPartitionsExactly) {
  TlBuilder b;
  b.launch("nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NTT", 50, 60, 100, 300, 7);
  b.launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 60, 70, 250, 450, 9);
  b.launch("ampere_sgemm_32x32_sliced1x4_tn", 460, 470, 500, 600, 7);
  b.memcpy(550, 560, 700, 750);
  b.annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 760, 900);
  b.launch("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>", 900, 910, 950, 1000,
           7);
  PreparedTrace p = prepare_trace(b.done(), tax());
  // No device metadata: s falls back to taxonomy.yaml's ratio.
  EXPECT_EQ(p.tensor_core_speedup, tax().tensor_core_speedup());
  WindowBreakdown w = analyse_window(p, "s", {0, 1000});
  EXPECT_EQ(w.wall_ns, 1000);
  EXPECT_EQ(w.busy_ns, 200 + 150 + 100 + 50 + 50);  // [100,450) [500,600) [700,750) [950,1000)
  EXPECT_EQ(w.idle_ns, 1000 - w.busy_ns);
  EXPECT_EQ(w.comm_ns, 200);
  EXPECT_EQ(w.exposed_comm_ns, 150);
  EXPECT_EQ(w.memcpy_ns, 50);
  EXPECT_EQ(w.exposed_memcpy_ns, 50);
  EXPECT_EQ(w.gemm_union_ns, 300);
  // Gaps: [0,100) ends at the nvjet kernel launched at 50 < 0? no: 50 >= 0 → host-bound.
  // [450,500): launch 460 >= 450 → host-bound. [600,700): memcpy launched 550..560 <= 600 → sync/other.
  // [750,950): launch 900 >= 750 → host-bound.
  EXPECT_EQ(w.idle.host_bound_ns, 100 + 50 + 200);
  EXPECT_EQ(w.idle.sync_other_ns, 100);
  EXPECT_EQ(w.idle.launch_latency_ns, 0);
  EXPECT_EQ(w.launches.kernels, 4);
  EXPECT_EQ(w.launches.short_kernels, 4);
  EXPECT_NEAR(w.launches.delay_max_us, 0.180, 1e-12);  // nccl kernel: start 250 - launch end 70
  const WasteBudget& wb = w.waste;
  const double s = tax().tensor_core_speedup();
  EXPECT_NEAR(wb.comm_excess, 150e-9, 1e-15);
  EXPECT_NEAR(wb.precision_path, 100e-9 * (1 - 1 / s), 1e-15);
  EXPECT_NEAR(wb.data_wait, (140 + 50) * 1e-9, 1e-15);  // loader idle + exposed HtoD copy
  EXPECT_NEAR(wb.host_gap, (100 + 50 + 60) * 1e-9, 1e-15);
  EXPECT_NEAR(wb.unattributed, 100e-9, 1e-15);
  EXPECT_NEAR(wb.useful_gpu, (200 + 50) * 1e-9 + 100e-9 / s, 1e-15);
  expect_additive(wb, 1000e-9);
}

// An fp32 model's step [0, 1000): the GEMMs are SIMT (sgemm), so fp32 memory-bound kernels count
// half in precision_path; the eager attention's softmax counts in kernel_shape; the optimizer's
// foreach kernel and the loss's log_softmax stay useful. Kernels back to back on one stream.
TEST(Breakdown, Fp32ModelElementwiseAndEagerSoftmax) {
  auto build = [](bool with_flash) {
    TlBuilder b;
    b.launch_from("aten::mm", "ampere_sgemm_128x64_tn", 0, 10, 0, 400);
    b.launch_from("aten::mul",
                  "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, "
                  "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >",
                  10, 20, 400, 500);
    b.launch_from("aten::_softmax",
                  "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>", 20, 30,
                  500, 560);
    b.launch_from("aten::_log_softmax",
                  "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>", 30, 40, 560,
                  600);
    b.launch_from("aten::_foreach_mul_",
                  "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                  "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, "
                  "1, 1, 0>, std::multiplies<float>, float>",
                  40, 50, 600, 700);
    b.launch_from("aten::add",
                  "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
                  "std::array<char*, 3ul> >",
                  50, 60, 700, 800);
    if (with_flash)
      b.launch_from("aten::_flash_attention_forward",
                    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 64, 4, false, false, "
                    "cutlass::bfloat16_t>, false, true, false, false, true, true, false, false>(Flash_fwd_params)",
                    60, 70, 800, 1000);
    else
      b.launch("ampere_sgemm_32x32_sliced1x4_tn", 60, 70, 800, 1000);
    return b;
  };
  const double s = tax().tensor_core_speedup();
  {
    TlBuilder b = build(false);
    WindowBreakdown w = analyse_window(prepare_trace(b.done(), tax()), "s", {0, 1000});
    // SIMT 400 + 200 of 600 GEMM → fp32 model. M = the float mul (100); the BFloat16 add, the
    // foreach (optimizer) and log_softmax are not in M; the _softmax (60) is eager attention.
    EXPECT_NEAR(w.waste.precision_path, 600e-9 * (1 - 1 / s) + 100e-9 * 0.5, 1e-15);
    EXPECT_NEAR(w.waste.kernel_shape, 60e-9, 1e-15);
    EXPECT_NEAR(w.waste.useful_gpu, 600e-9 / s + 100e-9 * 0.5 + (40 + 100 + 100) * 1e-9, 1e-15);
    expect_additive(w.waste, 1000e-9);
  }
  {
    // A fused attention kernel ran: the softmax is not eager attention's, and the GEMM time is
    // now mostly SIMT still (400 of 400): M stays, EA goes.
    TlBuilder b = build(true);
    WindowBreakdown w = analyse_window(prepare_trace(b.done(), tax()), "s", {0, 1000});
    EXPECT_NEAR(w.waste.kernel_shape, 0.0, 1e-15);
    EXPECT_NEAR(w.waste.precision_path, 400e-9 * (1 - 1 / s) + 100e-9 * 0.5, 1e-15);
    expect_additive(w.waste, 1000e-9);
  }
}

TEST(Breakdown, LaunchLatencyGap) {
  TlBuilder b;
  b.launch("k1", 0, 5, 10, 20);
  b.launch("k2", 15, 40, 45, 50);  // launch call in flight when the GPU went idle at 20
  PreparedTrace p = prepare_trace(b.done(), tax());
  WindowBreakdown w = analyse_window(p, "s", {10, 50});
  EXPECT_EQ(w.idle.launch_latency_ns, 25);
  EXPECT_NEAR(w.waste.host_gap, 25e-9, 1e-15);
}

TEST(Breakdown, NoCpuSideMarksUnobserved) {
  Timeline tl;
  GpuOpRow k;
  k.start_ns = 0;
  k.dur_ns = 10;
  k.name = tl.strings.intern("nvjet_x");
  tl.gpu_ops.push(k);
  k.start_ns = 30;
  tl.gpu_ops.push(k);
  PreparedTrace p = prepare_trace(tl, tax());
  WindowBreakdown w = analyse_window(p, "s", {0, 40});
  EXPECT_NEAR(w.waste.unattributed, 20e-9, 1e-15);
  auto& u = w.waste.unobserved;
  EXPECT_NE(std::find(u.begin(), u.end(), "data_wait"), u.end());
  EXPECT_NE(std::find(u.begin(), u.end(), "host_gap"), u.end());
  expect_additive(w.waste, 40e-9);
}

TEST(RunMetrics, H100FixturesGoldenAndJsonRoundTrip) {
  for (const char* f : {"/kineto/h100_llama_fp32_eager_w0.json.gz", "/kineto/h100_llama_bf16_sdpa_w4.json.gz"}) {
    Timeline tl;
    Status st = trace::read_path(std::string(GOBLIN_FIXTURES) + f, tl);
    ASSERT_TRUE(st.ok()) << st.error().describe();
    auto m = compute_run_metrics(tl);
    ASSERT_TRUE(m.ok());
    ASSERT_EQ(m->steps.size(), 4u) << f;
    ASSERT_TRUE(m->tokens_per_sec.has_value());
    EXPECT_FALSE(m->hbm_peak_gb.has_value());  // trace alone: unobserved, not 0
    expect_additive(m->waste_budget, m->waste_budget.step_time_s);
    EXPECT_GT(m->gpu_util_pct, 0);
    EXPECT_FALSE(m->top_kernels.empty());
    Json j = run_metrics_to_json(*m);
    auto back = run_metrics_from_json(j);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(run_metrics_to_json(*back).dump(), j.dump());  // JSON -> struct -> the same JSON
    EXPECT_EQ(back->steps.size(), m->steps.size());
    EXPECT_NEAR(back->waste_budget.useful_gpu, m->waste_budget.useful_gpu, 1e-9);
    EXPECT_EQ(back->attention_kernel_loaded, m->attention_kernel_loaded);
    EXPECT_EQ(back->top_kernels.front().category, m->top_kernels.front().category);
    if (std::string(f).find("bf16") != std::string::npos) {
      EXPECT_EQ(m->attention_kernel_loaded, "sdpa_cudnn");
      // bf16 with fused attention: no fp32 model, no eager softmax.
      EXPECT_EQ(m->waste_budget.kernel_shape, 0.0);
      EXPECT_NEAR(*m->tokens_per_sec, 189094.269, 0.01);
    } else {
      EXPECT_EQ(m->attention_kernel_loaded, "eager");
      // fp32 eager: the dominant GEMMs are SIMT FFMA kernels, so precision_path is the largest waste;
      // the eager attention's softmax gives kernel_shape.
      EXPECT_GT(m->waste_budget.precision_path, m->waste_budget.host_gap);
      EXPECT_GT(m->waste_budget.kernel_shape, 0.0);
      // s comes from the trace's GPU (H100 SXM dense bf16 / fp32), and the metrics say so.
      bool named = false;
      for (const auto& w : m->warnings)
        named |= w.id == W::waste_budget_note &&
                 w.message.find("s = H100-SXM dense bf16 989.4 / fp32 66.9 TFLOPS = 14.79") != std::string::npos;
      EXPECT_TRUE(named);
    }
  }
  EXPECT_FALSE(run_metrics_from_json(Json::array()).ok());
}

}  // namespace
}  // namespace goblin::analysis
