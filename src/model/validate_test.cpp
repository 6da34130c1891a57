// Timeline::validate on damaged rows (issue 14): a kernel that ends before it starts counts as
// 0 ns, kernels stacked at one timestamp on one stream are flagged, and ids shared by most rows
// are named as damaged.
#include <gtest/gtest.h>

#include "model/timeline.h"

using namespace goblin;

namespace {

KernelRow kernel(int64_t start, int64_t dur, int64_t corr, int64_t stream = 7) {
  KernelRow k;
  k.start_ns = start;
  k.dur_ns = dur;
  k.device = 0;
  k.stream = stream;
  k.correlation = corr;
  return k;
}

bool has_warning(const Timeline& tl, const std::string& text) {
  for (const auto& w : tl.warnings)
    if (w.message.find(text) != std::string::npos) return true;
  return false;
}

TEST(Validate, NegativeDurationsCountAsZeroWithAWarning) {
  Timeline tl;
  tl.kernels.push(kernel(1000, -500, 1));
  tl.kernels.push(kernel(2000, 300, 2));
  tl.validate();
  EXPECT_EQ(tl.kernels.dur_ns[0], 0);
  EXPECT_EQ(tl.kernels.dur_ns[1], 300);
  EXPECT_TRUE(has_warning(tl, "1 kernels end before they start")) << tl.warnings.front().message;
}

TEST(Validate, KernelsStackedAtOneTimestampOnOneStream) {
  Timeline tl;
  for (int i = 0; i < 100; ++i) tl.kernels.push(kernel(5000, 1000, i));  // overlap 1000 ns = the tolerance
  tl.validate();
  EXPECT_TRUE(has_warning(tl, "99 kernels overlap an earlier kernel on device 0 stream 7")) << tl.warnings.size();
  // Back-to-back kernels with a rounding overlap of a few ns stay quiet.
  Timeline ok;
  for (int i = 0; i < 100; ++i) ok.kernels.push(kernel(5000 + i * 1000, 1002, i));
  ok.validate();
  EXPECT_FALSE(has_warning(ok, "overlap"));
}

TEST(Validate, CorrelationIdsSharedByMostKernels) {
  Timeline tl;
  for (int i = 0; i < 50; ++i) tl.kernels.push(kernel(i * 2000, 1000, 1));
  tl.validate();
  EXPECT_TRUE(has_warning(tl, "50 of 50 kernels share correlation id 1"));
  // Under a graph launch, many kernels share one correlation id legitimately.
  Timeline g;
  for (int i = 0; i < 50; ++i) g.kernels.push(kernel(i * 2000, 1000, 1));
  RuntimeRow r;
  r.correlation = 1;
  r.name = g.strings.intern("cudaGraphLaunch");
  g.runtime.push(r);
  g.validate();
  EXPECT_FALSE(has_warning(g, "share correlation id"));
  // A majority that the first rows do not show (ids 0..19 first, then id 7 on 31 of 51 rows) is
  // found and counted; half the rows is not a majority.
  Timeline m;
  for (int i = 0; i < 20; ++i) m.kernels.push(kernel(i * 2000, 1000, 100 + i));
  for (int i = 20; i < 51; ++i) m.kernels.push(kernel(i * 2000, 1000, 7));
  m.validate();
  EXPECT_TRUE(has_warning(m, "31 of 51 kernels share correlation id 7"));
  Timeline half;
  for (int i = 0; i < 25; ++i) half.kernels.push(kernel(i * 2000, 1000, 7));
  for (int i = 25; i < 50; ++i) half.kernels.push(kernel(i * 2000, 1000, 100 + i));
  half.validate();
  EXPECT_FALSE(has_warning(half, "share correlation id"));
  // Distinct ids: nothing to say.
  Timeline d;
  for (int i = 0; i < 50; ++i) d.kernels.push(kernel(i * 2000, 1000, i));
  d.validate();
  EXPECT_TRUE(d.warnings.empty());
}

}  // namespace

// Kineto ts of +-9e15 us (9e18 ns): still int64, but the span from one to the other, or an end,
// overflows. Clamped into +-2^62 ns with duration 0 and a catalogued warning: spans stay positive.
TEST(Validate, TimestampsFarFromTheOriginAreClampedNeverNegativeSpans) {
  Timeline tl;
  tl.kernels.push(kernel(-9'000'000'000'000'000'000, 1000, 1));
  tl.kernels.push(kernel(9'000'000'000'000'000'000, 1000, 2, 8));
  tl.kernels.push(kernel(1'000'000, 1000, 3, 9));
  tl.kernels.push(kernel(4'000'000'000'000'000'000, 900'000'000'000'000'000, 4, 10));  // end past 2^62
  AnnotationRow a;
  a.start_ns = 9'100'000'000'000'000'000;
  a.dur_ns = 5;
  tl.annotations.push(a);
  tl.validate();
  const int64_t L = (int64_t{1} << 62) - 1;  // the span from -L to L fits in int64
  EXPECT_EQ(tl.kernels.start_ns[0], -L);
  EXPECT_EQ(tl.kernels.dur_ns[0], 0);
  EXPECT_EQ(tl.kernels.start_ns[1], L);
  EXPECT_EQ(tl.kernels.dur_ns[2], 1000);  // a plausible event is untouched
  EXPECT_EQ(tl.kernels.end_ns(3), L);
  EXPECT_EQ(tl.annotations.start_ns[0], L);
  auto [first, last] = tl.span();
  EXPECT_GT(last - first, 0);
  EXPECT_TRUE(has_warning(tl, "4 event(s) lie further than 2^62 ns")) << tl.warnings.front().message;
  bool catalogued = false;
  for (const auto& w : tl.warnings) catalogued |= w.id == W::timestamp_out_of_range;
  EXPECT_TRUE(catalogued);
}
