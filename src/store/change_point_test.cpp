// Change points and the gate's test on synthetic series with known shifts (store/change_point.h).
#include "store/change_point.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace goblin::store {
namespace {

// A series of `n` runs at 1.0 with Gaussian noise of `cv` (relative), shifted by `shift_pct` from
// index `at` on. A fixed seed: the same series every time.
std::vector<double> series(size_t n, size_t at, double shift_pct, double cv, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, cv);
  std::vector<double> xs;
  for (size_t i = 0; i < n; ++i) xs.push_back((i >= at ? 1 + shift_pct / 100 : 1.0) * (1 + noise(rng)));
  return xs;
}

TEST(ChangePoint, StudentTTailMatchesTables) {
  EXPECT_NEAR(student_t_sf(0, 5), 0.5, 1e-12);
  EXPECT_NEAR(student_t_sf(1, 1), 0.25, 1e-9);           // Cauchy: 1/2 - atan(1)/pi
  EXPECT_NEAR(student_t_sf(2.228139, 10), 0.025, 1e-6);  // t table, 10 df, 97.5 %
  EXPECT_NEAR(student_t_sf(-2.228139, 10), 0.975, 1e-6);
  EXPECT_NEAR(student_t_sf(1.959964, 1e7), 0.025, 1e-5);  // the normal limit
}

TEST(ChangePoint, ShiftsOf2To10PercentAreFoundWithin3Runs) {
  for (double shift : {2.0, 5.0, 10.0, -2.0, -5.0}) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      // 20 runs before the shift, then only 3 after it: seen on the third run.
      const auto xs = series(23, 20, shift, 0.002, seed);
      const auto cps = change_points(xs);
      ASSERT_EQ(cps.size(), 1u) << "shift " << shift << " seed " << seed;
      EXPECT_EQ(cps[0].index, 20u);
      EXPECT_NEAR(cps[0].change_pct, shift, 0.5);
      EXPECT_LT(cps[0].p_value, 0.001);
    }
  }
}

TEST(ChangePoint, NoiseAloneGivesNoChange) {
  int alerts = 0;
  for (uint64_t seed = 1; seed <= 50; ++seed)
    alerts += static_cast<int>(change_points(series(40, 40, 0, 0.002, seed)).size());
  EXPECT_LE(alerts, 2) << "false alerts over 50 noise-only series of 40 runs";
}

TEST(ChangePoint, TwoShiftsAreTwoChanges) {
  auto xs = series(30, 10, 5, 0.002, 7);
  for (size_t i = 20; i < xs.size(); ++i) xs[i] *= 0.9;  // a second step down at 20
  const auto cps = change_points(xs);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 10u);
  EXPECT_EQ(cps[1].index, 20u);
  EXPECT_GT(cps[0].change_pct, 0);
  EXPECT_LT(cps[1].change_pct, 0);
}

// One slow run (a noisy neighbour, a cold cache: 15-50 % slower) anywhere in a steady series is
// not a change point: E-divisive's split needs 3 runs a side and the t-test sees the outlier as
// spread, not as a shift of the mean. The gate flags the slow run itself (it is slower), and no
// later run for having it in the baseline. bench/results/change_points measures the rate over
// random series.
TEST(ChangePoint, ASingleOutlierRunIsNoChangeAndNoLaterGateAlert) {
  for (double slow : {15.0, 30.0, 50.0})
    for (uint64_t seed = 1; seed <= 3; ++seed)
      for (size_t at = 0; at < 30; ++at) {
        auto xs = series(30, 30, 0, 0.003, seed);
        xs[at] *= 1 + slow / 100;
        EXPECT_TRUE(change_points(xs).empty()) << "outlier +" << slow << " % at run " << at << ", seed " << seed;
        // Every run whose 10-run baseline holds the outlier (later ones see plain noise: the gate's own
        // 1 % false-alert rate, measured in the bench).
        for (size_t i = std::max<size_t>(at + 1, 10); i < std::min(xs.size(), at + 11); ++i) {
          const std::vector<double> base(xs.begin() + static_cast<long>(i) - 10, xs.begin() + static_cast<long>(i));
          EXPECT_GT(newest_vs_baseline(base, xs[i], true).p_worse, 0.01)
              << "run " << i << " after the outlier at " << at;
        }
        if (at >= 10) {
          const std::vector<double> base(xs.begin() + static_cast<long>(at) - 10, xs.begin() + static_cast<long>(at));
          EXPECT_LT(newest_vs_baseline(base, xs[at], true).p_worse, 0.01) << "the slow run itself, at " << at;
        }
      }
}

TEST(ChangePoint, ShortSeriesAndConstantSeries) {
  EXPECT_TRUE(change_points({}).empty());
  EXPECT_TRUE(change_points({1, 2, 3, 4, 5}).empty());  // fewer than two segments of 3
  EXPECT_TRUE(change_points(std::vector<double>(10, 1.0)).empty());
  const auto step = change_points({1, 1, 1, 1, 2, 2, 2, 2});  // no noise at all: a certain change
  ASSERT_EQ(step.size(), 1u);
  EXPECT_EQ(step[0].index, 4u);
  EXPECT_NEAR(step[0].change_pct, 100, 1e-9);
}

TEST(ChangePoint, NewestTestNeedsThreeBaselineRuns) {
  auto two = newest_vs_baseline({1.0, 1.0}, 1.5, true);
  EXPECT_FALSE(two.enough_data);
  EXPECT_NE(two.why.find("not enough data"), std::string::npos);
  const std::vector<double> base = {1.00, 1.02, 0.99, 1.01, 0.98, 1.00, 1.03, 0.97, 1.01, 0.99};
  auto slow = newest_vs_baseline(base, 1.30, true);
  ASSERT_TRUE(slow.enough_data);
  EXPECT_LT(slow.p_worse, 1e-6);
  auto same = newest_vs_baseline(base, 1.01, true);
  EXPECT_GT(same.p_worse, 0.2);
  auto faster = newest_vs_baseline(base, 0.80, true);  // better is never a regression
  EXPECT_GT(faster.p_worse, 0.99);
  auto fewer_tokens = newest_vs_baseline(base, 0.80, false);  // higher is better: worse
  EXPECT_LT(fewer_tokens.p_worse, 1e-4);
  EXPECT_GT(slow.threshold, 1.02);
  EXPECT_LT(slow.threshold, 1.10);
}

TEST(ChangePoint, SpreadOfAMixedBaseline) {
  EXPECT_NEAR(coefficient_of_variation_pct({1, 1, 1}), 0, 1e-12);
  EXPECT_GT(coefficient_of_variation_pct({0.04, 0.04, 0.14, 0.14}), kMixedBaselineCvPct);
}

}  // namespace
}  // namespace goblin::store
