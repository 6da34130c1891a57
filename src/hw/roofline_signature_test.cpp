// The signature / capture tiers' building blocks: names that meet across tracers, and the cost
// variant a launch takes (examples from examples/h100_llama's fp32 trace and the CUPTI tracer).
#include "hw/roofline_signature.h"

#include <gtest/gtest.h>

namespace goblin::hw {
namespace {

TEST(RooflineSignature, MangledNamesMeetKinetosDemangledOnes) {
  // The CUPTI tracer writes the symbol; Kineto writes what __cxa_demangle makes of it.
  const char* mangled = "_ZN7cutlass7Kernel2I41cutlass_80_simt_sgemm_64x64_8x5_tn_align1EEvNT_6ParamsE";
  const char* kineto =
      "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>(cutlass_80_simt_sgemm_64x64_8x5_tn_align1::"
      "Params)";
  EXPECT_EQ(demangle_kernel_name(mangled), kineto);
  EXPECT_EQ(demangle_kernel_name("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"),
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_EQ(demangle_kernel_name("_Znot a symbol"), "_Znot a symbol");
  const Dim3 g{4, 1, 6}, b{256, 1, 1};
  EXPECT_EQ(signature_text(mangled, g, b), signature_text(kineto, g, b));
  EXPECT_NE(signature_text(kineto, g, b), signature_text(kineto, Dim3{8, 1, 4}, b));
}

// The fp32 Llama trace: one xmma GEMM kernel, grid [32, 8, 1], runs M=8192 N=1024 for K=2816
// (64 launches, ~936 us) and K=32000 (4 launches, ~10.47 ms): the grid fixes M and N, not K.
SignatureCost llama_xmma(bool grid_known) {
  SignatureCost s;
  s.grid_known = grid_known;
  for (int i = 0; i < 64; ++i) s.add(2.0 * 8192 * 1024 * 2816, 1e8, 934000 + i * 50, "K=2816");
  for (int i = 0; i < 4; ++i) s.add(2.0 * 8192 * 1024 * 32000, 1e9, 10458000 + i * 4000, "K=32000");
  return s;
}

TEST(RooflineSignature, ALaunchTakesTheVariantItsDurationFits) {
  const SignatureCost s = llama_xmma(true);
  ASSERT_EQ(s.variants.size(), 2u);
  const auto* a = s.pick(936000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->formula, "K=2816");
  EXPECT_DOUBLE_EQ(a->mean_flops(), 2.0 * 8192 * 1024 * 2816);
  EXPECT_EQ(a->count, 64);
  const auto* b = s.pick(10470000);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->formula, "K=32000");
  // A third of the time of the short variant is another problem (K=1024 runs ~340 us): none.
  EXPECT_EQ(s.pick(340000), nullptr);
  EXPECT_EQ(s.pick(4000000), nullptr);
}

TEST(RooflineSignature, WithoutAGridOnlyOneVariantIsTrusted) {
  EXPECT_EQ(llama_xmma(false).pick(936000), nullptr);  // the name alone: ambiguous
  SignatureCost one;
  one.add(1e9, 1e6, 50000, "one problem");
  one.add(1e9 * 1.005, 1e6, 52000, "one problem");  // within 1 %: the same variant
  ASSERT_EQ(one.variants.size(), 1u);
  EXPECT_NE(one.pick(51000), nullptr);
  EXPECT_EQ(one.pick(200000), nullptr);  // 4x the time: not the same launch
}

TEST(RooflineSignature, VariantsAreBoundedAndMergeAcrossNames) {
  SignatureCost s;
  s.grid_known = true;
  for (int i = 0; i < 100; ++i) s.add(1e9 * (1 + i), 1e6, 1000000, "f");
  EXPECT_EQ(s.variants.size(), SignatureCost::kMaxVariants);
  int64_t n = 0;
  for (const auto& v : s.variants) n += v.count;
  EXPECT_EQ(n, 100);
  SignatureCost t = llama_xmma(true);
  t.merge(llama_xmma(true));
  ASSERT_EQ(t.variants.size(), 2u);
  EXPECT_EQ(t.variants[0].count + t.variants[1].count, 136);
}

}  // namespace
}  // namespace goblin::hw
