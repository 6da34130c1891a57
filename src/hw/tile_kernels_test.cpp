// data/tile_kernels.yaml evaluated on kernel names of the fixtures (the MI210 TraceLens trace's
// MIOpen convolutions and hipBLASLt GEMMs, cuBLAS's legacy sgemm of the HTA traces).
#include "hw/tile_kernels.h"

#include <gtest/gtest.h>

#include "hw/knowledge.h"

namespace goblin::hw {
namespace {

const TileKernels& tiles() {
  auto t = tile_kernels();
  EXPECT_TRUE(t.ok()) << t.error().describe();
  static const std::shared_ptr<const TileKernels> keep = t.ok() ? *t : std::make_shared<const TileKernels>();
  return *keep;
}
const OpModels& models() { return *hw_knowledge()->op_models; }

TEST(TileKernels, EveryFamilyHasAClassTileAndCitedSource) {
  ASSERT_GE(tiles().families.size(), 6u);
  for (const auto& f : tiles().families) {
    EXPECT_FALSE(f.cls.empty()) << f.name;
    EXPECT_FALSE(f.tile.empty()) << f.name;
    EXPECT_FALSE(f.formula.empty()) << f.name;
    EXPECT_TRUE(f.engine == "matrix" || f.engine == "vector") << f.name;
    EXPECT_NE(tiles().cite(f.source).find("<http"), std::string::npos) << f.name << ": " << f.source;
  }
}

TEST(TileKernels, TileFromTheName) {
  auto t = parse_tile("igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt64x64x64_wt16x16x16_ws1x1_wr2x2", "_bt");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->m, 64);
  EXPECT_EQ(t->n, 64);
  EXPECT_EQ(t->k, 64);
  auto g = parse_tile("volta_sgemm_128x32_nt", "gemm_");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->m, 128);
  EXPECT_EQ(g->n, 32);
  EXPECT_EQ(g->k, 1);  // cuBLAS names no k-step
  EXPECT_FALSE(parse_tile("gemmSN_NN_kernel", "gemm_"));
  EXPECT_FALSE(parse_tile("igemm_fwd_bt_x64", "_bt"));
}

// MIOpen's forward convolution of a ResNet layer-1 3x3 conv at batch 5 (the MI210 fixture): 245
// workgroups (15680 x 64 outputs in 64 x 64 tiles), one 64-deep k-step each at least, bf16.
TEST(TileKernels, MiopenConvolutionIsALowerBoundFromTileAndGrid) {
  auto c = model_tile_kernel(
      tiles(), models(),
      "igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt64x64x64_wt16x16x16_ws1x1_wr2x2_ta1x8x2x1_1x8x1x32_tb1x8x2x1_1x8x1x32",
      Dim3{245, 1, 1});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cls, "convolution");
  EXPECT_EQ(c->dtype, "bf16");
  EXPECT_EQ(c->engine, "matrix");
  EXPECT_EQ(c->estimate, "lower_bound");
  EXPECT_DOUBLE_EQ(c->flops, 2.0 * 245 * 64 * 64 * 64);
  EXPECT_DOUBLE_EQ(c->bytes, 245.0 * (64 + 64) * 64 * 2);
  EXPECT_NE(c->source.find("MIOpen"), std::string::npos);
  // A split weight-gradient kernel's grid has its splits in z: every workgroup counts.
  auto w = model_tile_kernel(
      tiles(), models(), "igemm_wrw_gtcx2_nhwc_bf16_bx0_ex1_bt256x128x16_wt32x32x8_ws2x1_wr2x2_gkgs", Dim3{18, 1, 11});
  ASSERT_TRUE(w);
  EXPECT_DOUBLE_EQ(w->flops, 2.0 * 18 * 11 * 256 * 128 * 16);
}

TEST(TileKernels, TensileDtypeFromItsTypeCode) {
  auto c = model_tile_kernel(
      tiles(), models(), "Cijk_Ailk_Bjlk_BBS_BH_Bias_HAS_SAV_UserArgs_MT128x64x32_MI32x32x1_SN_LDSB0", Dim3{64, 1, 1});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cls, "gemm");
  EXPECT_EQ(c->dtype, "bf16");
  EXPECT_DOUBLE_EQ(c->flops, 2.0 * 64 * 128 * 64 * 32);
  auto s = model_tile_kernel(tiles(), models(), "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1",
                             Dim3{4, 1, 1});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->dtype, "fp32");
  // cuBLAS: the dtype from op_models' tokens (_sgemm), k = 1.
  auto b = model_tile_kernel(tiles(), models(), "volta_sgemm_128x32_nt", Dim3{1, 1, 1});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->dtype, "fp32");
  EXPECT_DOUBLE_EQ(b->flops, 2.0 * 128 * 32);
  // cuDNN: the legacy scudnn tile on the vector engine, the xmma tile (with its k-step) on tensor cores.
  auto d = model_tile_kernel(tiles(), models(), "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", Dim3{10, 2, 1});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cls, "convolution");
  EXPECT_EQ(d->engine, "vector");
  EXPECT_DOUBLE_EQ(d->flops, 2.0 * 20 * 128 * 64);
  auto x =
      model_tile_kernel(tiles(), models(),
                        "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
                        "stage4_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel",
                        Dim3{3, 169, 1});
  ASSERT_TRUE(x);
  EXPECT_EQ(x->engine, "matrix");
  EXPECT_EQ(x->dtype, "tf32");
  EXPECT_DOUBLE_EQ(x->flops, 2.0 * 3 * 169 * 128 * 128 * 16);
  // nvjet: tile and k-step (<m>x<n>_<k>x<stages>), no dtype in the name.
  auto j = model_tile_kernel(tiles(), models(), "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", Dim3{66, 1, 1});
  ASSERT_TRUE(j);
  EXPECT_EQ(j->dtype, "");
  EXPECT_DOUBLE_EQ(j->flops, 2.0 * 66 * 256 * 128 * 64);
  // A tensor-core cuBLAS GEMM whose name gives no k-step; cuDNN and CUTLASS attention tiles.
  auto a = model_tile_kernel(tiles(), models(), "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", Dim3{8, 4, 1});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->engine, "matrix");
  EXPECT_EQ(a->dtype, "bf16");
  EXPECT_DOUBLE_EQ(a->flops, 2.0 * 32 * 128 * 128);
  auto f = model_tile_kernel(
      tiles(), models(),
      "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_cga1x1x1_kernel0_0",
      Dim3{4, 16, 2});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->cls, "attention");
  EXPECT_EQ(f->dtype, "fp16");
  EXPECT_DOUBLE_EQ(f->flops, 2.0 * 128 * 64 * 64 * 64);
  auto e = model_tile_kernel(tiles(), models(), "fmha_cutlassB_f32_aligned_64x64_k64_sm80(Params)", Dim3{2, 8, 1});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->dtype, "fp32");
  EXPECT_DOUBLE_EQ(e->flops, 2.0 * 16 * 64 * 64 * 64);
  // No grid, or a name of no family: nothing to price.
  EXPECT_FALSE(model_tile_kernel(tiles(), models(), "volta_sgemm_128x32_nt", Dim3{0, 0, 0}));
  EXPECT_FALSE(
      model_tile_kernel(tiles(), models(), "void at::native::vectorized_elementwise_kernel<4>", Dim3{8, 1, 1}));
}

TEST(TileKernels, MalformedDataIsAnError) {
  auto t = parse_tile_kernels("families:\n  - {name: x, class: gemm}\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("needs class, tile and engine"), std::string::npos);
  EXPECT_FALSE(parse_tile_kernels("families: [").ok());
}

}  // namespace
}  // namespace goblin::hw
