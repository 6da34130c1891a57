#include "core/stats.h"

#include <gtest/gtest.h>

namespace goblin {

TEST(CoreStats, MedianOddEvenEmpty) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

// The empty case the two former copies disagreed on: one answer, all zeros, for every empty side.
TEST(CoreStats, EmptyInputGivesZeroInterval) {
  for (const auto& ci : {bootstrap_median({}), bootstrap_ratio({}, {1.0, 2.0}), bootstrap_ratio({1.0, 2.0}, {}),
                         bootstrap_ratio({}, {})}) {
    EXPECT_EQ(ci.point, 0);
    EXPECT_EQ(ci.low, 0);
    EXPECT_EQ(ci.high, 0);
  }
}

TEST(CoreStats, NonPositiveDenominatorGivesZeroPoint) {
  ConfidenceInterval ci = bootstrap_ratio({1.0, 1.0}, {0.0, 0.0});
  EXPECT_EQ(ci.point, 0);
  EXPECT_EQ(ci.low, 0);  // every resample dropped
  EXPECT_EQ(ci.high, 0);
}

TEST(CoreStats, RatioIsDeterministicAndBracketsThePoint) {
  std::vector<double> num = {2.0, 2.1, 1.9, 2.05, 1.95}, den = {1.0, 1.02, 0.98, 1.01, 0.99};
  ConfidenceInterval a = bootstrap_ratio(num, den), b = bootstrap_ratio(num, den);
  EXPECT_DOUBLE_EQ(a.low, b.low);  // fixed seed
  EXPECT_DOUBLE_EQ(a.high, b.high);
  EXPECT_DOUBLE_EQ(a.point, 2.0);
  EXPECT_LE(a.low, a.point);
  EXPECT_GE(a.high, a.point);
  EXPECT_GT(a.low, 1.8);
  EXPECT_LT(a.high, 2.2);
  // Another seed moves the ends a little, not the point.
  ConfidenceInterval c = bootstrap_ratio(num, den, 2000, 0.95, 7);
  EXPECT_DOUBLE_EQ(c.point, a.point);
}

}  // namespace goblin
