// goblin diff on the real H100 Llama pair (examples/h100_llama): the contributions sum to the
// measured step-time change, and the kernels the patch removed (eager attention's softmax, the
// unfused AdamW's per-parameter kernels) are listed as gone.
#include "analysis/diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "trace/readers.h"

using namespace goblin;

namespace {

const std::string kEx = std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_llama/";
const std::string kBefore = kEx + "h100_llama_fp32_eager_w0.json.gz";
const std::string kAfter = kEx + "h100_llama_bf16_sdpa_w4.json.gz";

const analysis::DiffResult& llama_diff() {
  static analysis::DiffResult d = [] {
    auto r = analysis::diff_paths(kBefore, kAfter);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
    return r.ok() ? std::move(*r) : analysis::DiffResult{};
  }();
  return d;
}

bool has_gone(const analysis::DiffResult& d, const std::string& name_part, const std::string& op_or_scope) {
  return std::any_of(d.rows.begin(), d.rows.end(), [&](const analysis::DiffRow& r) {
    return r.status == "gone" && r.name.find(name_part) != std::string::npos &&
           (r.op == op_or_scope || r.scope.find(op_or_scope) != std::string::npos);
  });
}

}  // namespace

TEST(Diff, H100PairContributionsSumToTheMeasuredChange) {
  const analysis::DiffResult& d = llama_diff();
  ASSERT_GT(d.before.steps, 0);
  ASSERT_GT(d.after.steps, 0);
  // The step time is the mean complete-step wall; the after run is ~4-5x faster.
  EXPECT_GT(d.before_step_s, 3 * d.after_step_s);
  EXPECT_LT(d.step_change_s, 0);
  double rows = 0;
  for (const auto& r : d.rows) rows += r.change_s;
  double cats = 0;
  for (const auto& c : d.categories) cats += c.change_s;
  // The acceptance: contributions (every kernel row + the idle and overlap terms) sum to the
  // measured change within 1 % (they agree to rounding by construction).
  const double sum = rows + d.idle_change_s + d.overlap_term_s;
  EXPECT_NEAR(sum, d.step_change_s, 0.01 * std::fabs(d.step_change_s));
  EXPECT_NEAR(sum, d.step_change_s, 1e-9);
  EXPECT_NEAR(cats + d.idle_change_s + d.overlap_term_s, d.step_change_s, 1e-9);
  EXPECT_NEAR(d.sum_s, d.step_change_s, 1e-9);
  EXPECT_NEAR(rows, d.kernels_change_s, 1e-9);
  EXPECT_TRUE(d.kernel_level);
}

TEST(Diff, H100PairListsTheRemovedKernels) {
  const analysis::DiffResult& d = llama_diff();
  // Eager attention's softmax (forward and backward) is gone with SDPA.
  EXPECT_TRUE(has_gone(d, "softmax_warp_forward", "aten::_softmax"));
  EXPECT_TRUE(has_gone(d, "softmax_warp_backward", "aten::_softmax_backward_data"));
  // The unfused AdamW's per-parameter kernels (inside Optimizer.step) are gone; the fused one is new.
  size_t gone_opt = 0;
  for (const auto& r : d.rows)
    if (r.status == "gone" && r.scope.find("Optimizer.step") != std::string::npos) ++gone_opt;
  EXPECT_GE(gone_opt, 3u);
  EXPECT_TRUE(std::any_of(d.rows.begin(), d.rows.end(), [](const analysis::DiffRow& r) {
    return r.status == "new" && r.op == "aten::_fused_adamw_";
  }));
  // The fp32 GEMMs are gone and bf16 ones new: GEMM time per step fell.
  auto gemm = std::find_if(d.categories.begin(), d.categories.end(),
                           [](const analysis::DiffCategory& c) { return c.category == "gemm"; });
  ASSERT_NE(gemm, d.categories.end());
  EXPECT_LT(gemm->change_s, 0);
  EXPECT_GT(-gemm->change_s, 0.5 * -d.step_change_s);
}

TEST(Diff, JsonAndTextNameTheDecomposition) {
  const analysis::DiffResult& d = llama_diff();
  Json j = analysis::diff_to_json(d);
  EXPECT_NEAR(j["decomposition"]["sum_s"].get<double>(), j["step_time_change_s"].get<double>(), 1e-8);
  EXPECT_GT(j["counts"]["gone"].get<int>(), 0);
  EXPECT_GT(j["counts"]["new"].get<int>(), 0);
  EXPECT_EQ(j["kernels"].size(), d.rows.size());
  std::string h = analysis::diff_human(d, 5);
  EXPECT_NE(h.find("change = kernels"), std::string::npos);
  EXPECT_NE(h.find("gone ("), std::string::npos);
  auto story = analysis::diff_story(d, 3);
  ASSERT_GE(story.size(), 3u);
  EXPECT_NE(story[0].find("sum to the change"), std::string::npos);
}

TEST(Diff, SameTraceIsUnchanged) {
  auto r = analysis::diff_paths(kAfter, kAfter);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->step_change_s, 0, 1e-12);
  for (const auto& row : r->rows) EXPECT_EQ(row.status, "unchanged") << row.name;
}

TEST(Diff, CrossVendorComparesCategoriesOnly) {
  auto r = analysis::diff_paths(kAfter, std::string(GOBLIN_FIXTURES) + "/kineto/mi300x_sglang_qwen3_8b_decode.json.gz");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_FALSE(r->kernel_level);
  EXPECT_TRUE(r->rows.empty());
  EXPECT_FALSE(r->categories.empty());
  double cats = 0;
  for (const auto& c : r->categories) cats += c.change_s;
  EXPECT_NEAR(cats + r->idle_change_s + r->overlap_term_s, r->step_change_s, 1e-9);
}

TEST(Diff, UnreadableInputNamesTheSide) {
  auto r = analysis::diff_paths(kBefore, "/nonexistent/after.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("after"), std::string::npos);
}

TEST(Diff, BaseNameDropsTemplateArguments) {
  EXPECT_EQ(analysis::kernel_base_name("at::native::vectorized_elementwise_kernel<4, at::native::Foo<float>>"),
            "at::native::vectorized_elementwise_kernel");
  EXPECT_EQ(analysis::kernel_base_name("sm80_xmma_gemm_f32f32"), "sm80_xmma_gemm_f32f32");
}
