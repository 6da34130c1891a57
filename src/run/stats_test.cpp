#include "run/stats.h"

#include <gtest/gtest.h>

namespace goblin::run {

TEST(Stats, MedianOddEvenEmpty) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(Stats, BootstrapMedianIsDeterministicAndBracketsThePoint) {
  std::vector<double> xs = {0.220, 0.221, 0.219, 0.224, 0.218, 0.222, 0.220};
  ConfidenceInterval a = bootstrap_median(xs), b = bootstrap_median(xs);
  EXPECT_DOUBLE_EQ(a.low, b.low);  // fixed seed
  EXPECT_DOUBLE_EQ(a.high, b.high);
  EXPECT_DOUBLE_EQ(a.point, 0.220);
  EXPECT_LE(a.low, a.point);
  EXPECT_GE(a.high, a.point);
  EXPECT_GE(a.low, 0.218);
  EXPECT_LE(a.high, 0.224);
}

TEST(Stats, RatioOfClearlyDifferentSamplesExcludesOne) {
  std::vector<double> before = {0.220, 0.221, 0.219, 0.222, 0.220};
  std::vector<double> after = {0.043, 0.044, 0.043, 0.042, 0.043};
  Comparison c = compare_step_times(before, after);
  EXPECT_NEAR(c.speedup.point, 0.220 / 0.043, 1e-9);
  EXPECT_GT(c.speedup.low, 4.5);
  EXPECT_FALSE(c.includes_one);
  EXPECT_TRUE(c.significant);
  ASSERT_TRUE(c.noise.available);
  EXPECT_LT(c.noise.floor_pct, 5);
}

TEST(Stats, SameDistributionIncludesOne) {
  std::vector<double> a = {0.0431, 0.0436, 0.0429, 0.0433, 0.0440};
  std::vector<double> b = {0.0434, 0.0430, 0.0438, 0.0431, 0.0432};
  Comparison c = compare_step_times(a, b);
  EXPECT_TRUE(c.includes_one);
  EXPECT_FALSE(c.significant);
}

TEST(Stats, NoiseFloorNeedsFourRuns) {
  EXPECT_FALSE(aa_noise_floor({1, 1, 1}).available);
  NoiseFloor nf = aa_noise_floor({1.0, 1.1, 1.0, 1.1, 1.0, 1.1});
  ASSERT_TRUE(nf.available);
  EXPECT_NEAR(nf.aa_ratio.point, 1.0 / 1.1, 1e-9);  // odd positions vs even positions
  EXPECT_NEAR(nf.floor_pct, 100 * (1 - 1.0 / 1.1), 1e-6);
}

TEST(Stats, JsonNamesTheMethod) {
  Json j = comparison_to_json(compare_step_times({2, 2, 2, 2}, {1, 1, 1, 1}));
  EXPECT_EQ(j["bootstrap"]["resamples"], 2000);
  EXPECT_EQ(j["bootstrap"]["seed"], kBootstrapSeed);
  EXPECT_DOUBLE_EQ(j["speedup"]["point"].get<double>(), 2.0);
}

}  // namespace goblin::run
