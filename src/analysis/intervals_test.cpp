#include "analysis/intervals.h"

#include <gtest/gtest.h>

#include <random>

namespace goblin::analysis {
namespace {

TEST(Intervals, UnionMergesOverlappingAndTouching) {
  IntervalSet u = union_of({{5, 7}, {0, 2}, {2, 3}, {6, 9}, {20, 20}, {12, 11}});
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0], (Interval{0, 3}));
  EXPECT_EQ(u[1], (Interval{5, 9}));
  EXPECT_EQ(total_length(u), 7);
}

TEST(Intervals, IntersectSubtractClipGaps) {
  IntervalSet a = union_of({{0, 10}, {20, 30}});
  IntervalSet b = union_of({{5, 25}});
  EXPECT_EQ(intersect(a, b), (IntervalSet{{5, 10}, {20, 25}}));
  EXPECT_EQ(subtract(a, b), (IntervalSet{{0, 5}, {25, 30}}));
  EXPECT_EQ(subtract(b, a), (IntervalSet{{10, 20}}));
  EXPECT_EQ(unite(a, b), (IntervalSet{{0, 30}}));
  EXPECT_EQ(unite(a, IntervalSet{{30, 31}, {40, 41}}), (IntervalSet{{0, 10}, {20, 31}, {40, 41}}));
  EXPECT_EQ(clip(a, {8, 22}), (IntervalSet{{8, 10}, {20, 22}}));
  EXPECT_EQ(gaps(a, {-5, 35}), (IntervalSet{{-5, 0}, {10, 20}, {30, 35}}));
  EXPECT_TRUE(clip(a, {10, 20}).empty());
  EXPECT_TRUE(gaps(a, {3, 3}).empty());
}

TEST(Intervals, SubtractManyHoles) {
  IntervalSet a{{0, 100}};
  IntervalSet b{{10, 20}, {30, 40}, {90, 120}};
  EXPECT_EQ(subtract(a, b), (IntervalSet{{0, 10}, {20, 30}, {40, 90}}));
}

// Against a brute-force per-nanosecond model on random sets.
TEST(Intervals, RandomAgainstBitmap) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 200; ++iter) {
    auto rand_set = [&] {
      std::vector<Interval> v;
      int n = rng() % 8;
      for (int i = 0; i < n; ++i) {
        int64_t s = rng() % 100, l = rng() % 20;
        v.push_back({s, s + l});
      }
      return union_of(v);
    };
    IntervalSet a = rand_set(), b = rand_set();
    auto in = [](const IntervalSet& s, int64_t t) {
      for (auto& i : s)
        if (t >= i.start && t < i.end) return true;
      return false;
    };
    int64_t inter = 0, sub = 0;
    for (int64_t t = 0; t < 130; ++t) {
      inter += in(a, t) && in(b, t);
      sub += in(a, t) && !in(b, t);
    }
    EXPECT_EQ(total_length(intersect(a, b)), inter);
    EXPECT_EQ(total_length(subtract(a, b)), sub);
    EXPECT_EQ(total_length(gaps(a, {0, 130})), 130 - total_length(clip(a, {0, 130})));
  }
}

}  // namespace
}  // namespace goblin::analysis
