// Timeline::validate on damaged rows (issue 14): a kernel that ends before it starts counts as
// 0 ns, kernels stacked at one timestamp on one stream are flagged, and ids shared by most rows
// are named as damaged.
#include <gtest/gtest.h>

#include "model/timeline.h"

using namespace goblin;

namespace {

GpuOpRow kernel(int64_t start, int64_t dur, int64_t corr, int64_t stream = 7) {
  GpuOpRow k;
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
  tl.gpu_ops.push(kernel(1000, -500, 1));
  tl.gpu_ops.push(kernel(2000, 300, 2));
  tl.finish();
  EXPECT_EQ(tl.gpu_ops.dur_ns[0], 0);
  EXPECT_EQ(tl.gpu_ops.dur_ns[1], 300);
  EXPECT_TRUE(has_warning(tl, "1 kernels end before they start")) << tl.warnings.front().message;
}

TEST(Validate, KernelsStackedAtOneTimestampOnOneStream) {
  Timeline tl;
  for (int i = 0; i < 100; ++i) tl.gpu_ops.push(kernel(5000, 1000, i));  // overlap 1000 ns = the tolerance
  tl.finish();
  EXPECT_TRUE(has_warning(tl, "99 kernels overlap an earlier kernel on device 0 stream 7")) << tl.warnings.size();
  // Back-to-back kernels with a rounding overlap of a few ns stay quiet.
  Timeline ok;
  for (int i = 0; i < 100; ++i) ok.gpu_ops.push(kernel(5000 + i * 1000, 1002, i));
  ok.finish();
  EXPECT_FALSE(has_warning(ok, "overlap"));
}

TEST(Validate, CorrelationIdsSharedByMostKernels) {
  Timeline tl;
  for (int i = 0; i < 50; ++i) tl.gpu_ops.push(kernel(i * 2000, 1000, 1));
  tl.finish();
  EXPECT_TRUE(has_warning(tl, "50 of 50 kernels share correlation id 1"));
  // Under a graph launch, many kernels share one correlation id legitimately.
  Timeline g;
  for (int i = 0; i < 50; ++i) g.gpu_ops.push(kernel(i * 2000, 1000, 1));
  RuntimeRow r;
  r.correlation = 1;
  r.name = g.strings.intern("cudaGraphLaunch");
  g.runtime.push(r);
  g.finish();
  EXPECT_FALSE(has_warning(g, "share correlation id"));
  // A majority that the first rows do not show (ids 0..19 first, then id 7 on 31 of 51 rows) is
  // found and counted; half the rows is not a majority.
  Timeline m;
  for (int i = 0; i < 20; ++i) m.gpu_ops.push(kernel(i * 2000, 1000, 100 + i));
  for (int i = 20; i < 51; ++i) m.gpu_ops.push(kernel(i * 2000, 1000, 7));
  m.finish();
  EXPECT_TRUE(has_warning(m, "31 of 51 kernels share correlation id 7"));
  Timeline half;
  for (int i = 0; i < 25; ++i) half.gpu_ops.push(kernel(i * 2000, 1000, 7));
  for (int i = 25; i < 50; ++i) half.gpu_ops.push(kernel(i * 2000, 1000, 100 + i));
  half.finish();
  EXPECT_FALSE(has_warning(half, "share correlation id"));
  // Distinct ids: nothing to say.
  Timeline d;
  for (int i = 0; i < 50; ++i) d.gpu_ops.push(kernel(i * 2000, 1000, i));
  d.finish();
  EXPECT_TRUE(d.warnings.empty());
}

// Telemetry and trace times meet only on one clock: a known epoch base converts (with a
// warning), two clocks that cannot be lined up are refused (no offset, and telemetry stays out
// of the trace's span).
TEST(Validate, ClockDomainsAreNeverMixedSilently) {
  auto timeline = [](ClockDomain trace, int64_t base) {
    Timeline tl;
    tl.meta.sources = {"run"};
    tl.meta.trace_clock = trace;
    tl.meta.sample_clock = ClockDomain::Epoch;
    tl.meta.clock_base_ns = base;
    tl.meta.clock_is_epoch = base > 0;
    tl.gpu_ops.push(kernel(1000, 500, 1));
    tl.samples.push(base + 1200, 0, tl.strings.intern("gpu_util_pct"), 90);
    return tl;
  };
  const int64_t base = 1'700'000'000'000'000'000;
  // Kineto trace relative to baseTimeNanoseconds: converted explicitly.
  Timeline k = timeline(ClockDomain::KinetoTrace, base);
  ASSERT_TRUE(k.samples_to_trace_offset().has_value());
  EXPECT_EQ(*k.samples_to_trace_offset(), -base);
  EXPECT_EQ(k.span(), (std::pair<int64_t, int64_t>{1000, 1500}));
  k.finish();
  EXPECT_TRUE(has_warning(k, "telemetry on the epoch clock placed on the trace's kineto clock"));
  EXPECT_EQ(k.warnings.back().id, W::clocks_converted);
  // rocprofv3's boot clock has no epoch base: refused, and the span is the trace's alone.
  Timeline r = timeline(ClockDomain::BootTime, 0);
  EXPECT_FALSE(r.samples_to_trace_offset().has_value());
  EXPECT_EQ(r.span(), (std::pair<int64_t, int64_t>{1000, 1500}));
  r.finish();
  EXPECT_FALSE(has_warning(r, "placed on the trace's"));
  // A sample index is no time at all, even beside another sample-index source.
  Timeline s = timeline(ClockDomain::Epoch, 0);
  s.meta.sample_clock = ClockDomain::SampleIndex;
  EXPECT_FALSE(s.samples_to_trace_offset().has_value());
  // One clock: nothing to convert.
  Timeline e = timeline(ClockDomain::Epoch, 0);
  EXPECT_EQ(e.samples_to_trace_offset(), std::optional<int64_t>(0));
}

}  // namespace

// Kineto ts of +-9e15 us (9e18 ns): still int64, but the span from one to the other, or an end,
// overflows. Clamped into +-2^62 ns with duration 0 and a catalogued warning: spans stay positive.
TEST(Validate, TimestampsFarFromTheOriginAreClampedNeverNegativeSpans) {
  Timeline tl;
  tl.gpu_ops.push(kernel(-9'000'000'000'000'000'000, 1000, 1));
  tl.gpu_ops.push(kernel(9'000'000'000'000'000'000, 1000, 2, 8));
  tl.gpu_ops.push(kernel(1'000'000, 1000, 3, 9));
  tl.gpu_ops.push(kernel(4'000'000'000'000'000'000, 900'000'000'000'000'000, 4, 10));  // end past 2^62
  AnnotationRow a;
  a.start_ns = 9'100'000'000'000'000'000;
  a.dur_ns = 5;
  tl.annotations.push(a);
  tl.finish();                               // sorted by start: -9e18, 1e6, 4e18, 9e18
  const int64_t L = (int64_t{1} << 62) - 1;  // the span from -L to L fits in int64
  EXPECT_EQ(tl.gpu_ops.start_ns[0], -L);
  EXPECT_EQ(tl.gpu_ops.dur_ns[0], 0);
  EXPECT_EQ(tl.gpu_ops.start_ns[3], L);
  EXPECT_EQ(tl.gpu_ops.dur_ns[1], 1000);  // a plausible event is untouched
  EXPECT_EQ(tl.gpu_ops.end_ns(2), L);
  EXPECT_EQ(tl.annotations.start_ns[0], L);
  auto [first, last] = tl.span();
  EXPECT_GT(last - first, 0);
  EXPECT_TRUE(has_warning(tl, "4 event(s) lie further than 2^62 ns")) << tl.warnings.front().message;
  bool catalogued = false;
  for (const auto& w : tl.warnings) catalogued |= w.id == W::timestamp_out_of_range;
  EXPECT_TRUE(catalogued);
}
