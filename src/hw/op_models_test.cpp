// data/op_models.yaml evaluated on shapes as Kineto records them (examples from the fixtures).
#include "hw/op_models.h"

#include <gtest/gtest.h>

#include "hw/knowledge.h"

namespace goblin::hw {
namespace {

const OpModels& models() {
  const auto& m = hw_knowledge()->op_models;
  EXPECT_TRUE(m.ok()) << m.error().describe();
  return *m;
}

ModelCost price(const char* op, const char* dims, const char* types, const char* conc = "[]", int fallback = 0) {
  const OpClassRule* r = models().rule(op);
  EXPECT_NE(r, nullptr) << op;
  if (!r) return {};
  std::string why;
  auto c = model_op(models(), *r, dims, types, conc, fallback, &why);
  EXPECT_TRUE(c.has_value()) << op << ": " << why;
  return c.value_or(ModelCost{});
}

TEST(OpModels, EveryRuleHasAClassModelAndCitedSource) {
  const OpModels& m = models();
  EXPECT_GT(m.rules.size(), 15u);
  for (const auto& r : m.rules) {
    EXPECT_FALSE(r.formula.empty()) << r.cls;
    EXPECT_NE(m.cite(r.source).find("http"), std::string::npos) << r.cls << " cites " << r.source;
  }
}

TEST(OpModels, ElementwiseBroadcastAndInPlace) {
  // aten::mul [8,1024,1024] fp32 by a scalar: read 8M x 4 B, write the same; the scalar, recorded
  // as [] of type double like a 0-dim tensor, counts as one 8-byte element
  auto c = price("aten::mul", "[[8, 1024, 1024], []]", "[\"float\", \"double\"]");
  EXPECT_DOUBLE_EQ(c.bytes, 2.0 * 8 * 1024 * 1024 * 4 + 8);
  EXPECT_DOUBLE_EQ(c.flops, 8.0 * 1024 * 1024);
  // add_ in place: both read, self written
  auto a = price("aten::add_", "[[8, 1024, 1024], [8, 1024, 1024], []]", "[\"float\", \"float\", \"Scalar\"]");
  EXPECT_DOUBLE_EQ(a.bytes, 3.0 * 8 * 1024 * 1024 * 4);
}

TEST(OpModels, CopyCastsInEachDtype) {
  // copy_(self bf16, src fp32): read 4 B, write 2 B per element
  auto c = price("aten::copy_", "[[1024, 1024], [1024, 1024], []]", "[\"c10::BFloat16\", \"float\", \"Scalar\"]");
  EXPECT_DOUBLE_EQ(c.bytes, 1024.0 * 1024 * 6);
  EXPECT_EQ(c.flops, 0);
  // cat of a TensorList: dtype from the kernel name (fallback), the list read, the sum written
  auto t = price("aten::cat", "[[[1, 1024, 32], [1, 1024, 32]], []]", "[\"TensorList\", \"Scalar\"]", "[]", 2);
  EXPECT_DOUBLE_EQ(t.bytes, 2.0 * 2 * 1024 * 32 * 2);
}

TEST(OpModels, CrossEntropyGathersOneLogitPerTarget) {
  auto c = price("aten::nll_loss_forward", "[[8192, 32000], [8192], [], [], []]",
                 "[\"float\", \"long int\", \"\", \"Scalar\", \"Scalar\"]");
  EXPECT_DOUBLE_EQ(c.bytes, 8192.0 * 8 + 8192.0 * 4);
}

TEST(OpModels, EmbeddingRowsAndBackward) {
  auto f = price("aten::embedding", "[[32000, 1024], [8, 1024], [], [], []]",
                 "[\"c10::BFloat16\", \"long int\", \"Scalar\", \"Scalar\", \"Scalar\"]");
  EXPECT_DOUBLE_EQ(f.bytes, 8192.0 * 8 + 2 * 8192.0 * 1024 * 2);
  auto b = price("aten::embedding_dense_backward", "[[8, 1024, 1024], [8, 1024], [], [], []]",
                 "[\"c10::BFloat16\", \"long int\", \"Scalar\", \"Scalar\", \"Scalar\"]",
                 "[\"\", \"\", \"32000\", \"-1\", \"False\"]");
  EXPECT_DOUBLE_EQ(b.bytes, 8192.0 * 1024 * 2 + 8192.0 * 8 + 32000.0 * 1024 * 2);
}

TEST(OpModels, ScaledAndGroupedGemms) {
  auto s = price("aten::_scaled_mm", "[[4096, 8192], [8192, 2048], [], []]",
                 "[\"c10::Float8_e4m3fn\", \"c10::Float8_e4m3fn\", \"float\", \"float\"]");
  EXPECT_DOUBLE_EQ(s.flops, 2.0 * 4096 * 2048 * 8192);
  EXPECT_EQ(s.dtype, "fp8");
  EXPECT_EQ(s.engine, "matrix");
  // FP4 packs two values per byte: the recorded K is half the GEMM's
  auto f4 = price("aten::_scaled_mm", "[[4096, 4096], [4096, 2048], [], []]",
                  "[\"c10::Float4_e2m1fn_x2\", \"c10::Float4_e2m1fn_x2\", \"c10::Float8_e8m0fnu\", "
                  "\"c10::Float8_e8m0fnu\"]",
                  "[]", 1);
  EXPECT_DOUBLE_EQ(f4.flops, 2.0 * 4096 * 2048 * 8192);
  auto g = price("aten::_grouped_mm", "[[8192, 4096], [8, 4096, 1024], [8]]",
                 "[\"c10::BFloat16\", \"c10::BFloat16\", \"int\"]");
  EXPECT_DOUBLE_EQ(g.flops, 2.0 * 8192 * 1024 * 4096);
}

TEST(OpModels, VarlenAttentionIsAnUpperBound) {
  auto c =
      price("aiter::mha_batch_prefill", "[[15360, 32, 128], [835874, 8, 128], [835874, 8, 128], [16], [16], [15616]]",
            "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"int\", \"int\", \"int\"]",
            "[\"\", \"\", \"\", \"\", \"\", \"\", \"1024\", \"1024\", \"0.\", \"0.088\", \"0.\", \"False\", "
            "\"True\"]");
  EXPECT_DOUBLE_EQ(c.flops, 4.0 * 32 * 128 * 15360 * 1024 * 0.5);
  EXPECT_EQ(c.estimate, "upper_bound");
}

TEST(OpModels, OptimizerKernelsByTheirGrid) {
  auto c = model_multi_tensor_kernel(
      models(), "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor<float, 4>>",
      Dim3{100, 1, 1});
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->bytes, 100.0 * 65536 * 7 * 4);
  EXPECT_EQ(c->estimate, "upper_bound");
  EXPECT_EQ(c->cls, "optimizer");
  EXPECT_FALSE(model_multi_tensor_kernel(models(), "ampere_sgemm_128x64_nn", Dim3{100, 1, 1}));
}

TEST(OpModels, GridLowerBoundForElementwiseKernels) {
  auto c = model_grid_kernel(models(), "elementwise", "vectorized_elementwise_kernel<4, c10::BFloat16>", Dim3{10, 1, 1},
                             Dim3{128, 1, 1});
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->bytes, 1280.0 * 2 * 2);
  EXPECT_EQ(c->estimate, "lower_bound");
  EXPECT_FALSE(model_grid_kernel(models(), "gemm", "sm90_xmma_gemm", Dim3{10, 1, 1}, Dim3{128, 1, 1}));
}

TEST(OpModels, CollectiveBusBandwidthFactors) {
  auto ar = model_collective(models(), "allreduce", 1e9, 1e9, 8);
  ASSERT_TRUE(ar);
  EXPECT_DOUBLE_EQ(ar->busbw_factor, 2.0 * 7 / 8);
  auto ag = model_collective(models(), "_allgather_base", 1e8, 8e8, 8);
  ASSERT_TRUE(ag);
  EXPECT_DOUBLE_EQ(ag->size_bytes, 8e8);
  EXPECT_DOUBLE_EQ(ag->busbw_factor, 7.0 / 8);
}

}  // namespace
}  // namespace goblin::hw
