// Numbers that cannot lie (issue #35): a stray step annotation overlapping another, memory used
// above the card's capacity, and figures a trace asserts about itself (tokens/s, step time) that
// its own measurements contradict. Each is flagged where the figure is computed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/run_metrics.h"
#include "analysis/steps.h"
#include "analysis/test_timelines.h"

namespace goblin::analysis {
namespace {

using testing::TlBuilder;

bool has_warning(const RunMetrics& m, const std::string& needle) {
  for (const auto& w : m.warnings)
    if (w.message.find(needle) != std::string::npos) return true;
  return false;
}

// Five 100 µs steps, each launching one kernel; plus what the test adds.
TlBuilder five_steps() {
  TlBuilder b;
  for (int s = 0; s < 5; ++s) {
    const int64_t t = s * 100'000;
    b.annotation("ProfilerStep#" + fmt::format("{}", s + 1), t, t + 100'000);
    b.launch("k", t + 1'000, t + 2'000, t + 5'000, t + 90'000);
  }
  b.launch("tail", 550'000, 550'500, 600'000, 601'000);  // the trace runs past the last step
  return b;
}

TEST(Steps, OverlappingAnnotationsAreFlaggedNotAveraged) {
  TlBuilder b = five_steps();
  b.annotation("ProfilerStep#99", 150'000, 175'000);  // a stray range inside step 2
  StepDetection d = find_steps(b.tl);
  ASSERT_EQ(d.steps.size(), 6u);
  int partial = 0;
  for (const Step& s : d.steps) partial += s.partial;
  EXPECT_TRUE(d.steps[1].partial);  // ProfilerStep#2, overlapped
  EXPECT_TRUE(d.steps[2].partial);  // ProfilerStep#99, overlapping
  EXPECT_EQ(partial, 2);
  bool noted = false;
  for (const auto& n : d.notes) noted |= n.find("overlapping step annotations: ProfilerStep#99 starts") == 0;
  EXPECT_TRUE(noted);
  auto m = compute_run_metrics(b.tl);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_NEAR(m->step_time_s, 100e-6, 1e-9);  // not cut by the stray range (it would give 83 µs)
  EXPECT_TRUE(has_warning(*m, "overlapping step annotations"));
  // Touching annotations (1 µs of rounding) are no overlap.
  TlBuilder ok = five_steps();
  EXPECT_TRUE(find_steps(ok.tl).notes.empty() || find_steps(ok.tl).notes[0].find("overlapping") == std::string::npos);
}

TEST(RunMetricsNumbers, MemoryAboveTheCardIsRefused) {
  TlBuilder b = five_steps();
  const StrId used = b.tl.strings.intern("mem_used_bytes"), total = b.tl.strings.intern("mem_total_bytes");
  b.tl.samples.push(0, 0, used, 1048e9);
  b.tl.samples.push(0, 0, total, 80e9);
  auto m = compute_run_metrics(b.tl);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->hbm_peak_gb.has_value());
  EXPECT_FALSE(m->memory_headroom_gb.has_value());
  EXPECT_TRUE(has_warning(*m, "hbm_peak_gb refused: 1048 GB used on a device with 80 GB")) << m->warnings.size();
}

TEST(RunMetricsNumbers, AssertedThroughputAndStepTimeAreChecked) {
  TlBuilder b = five_steps();
  b.tl.meta.extra["tokens_per_sec"] = "3000000";  // 3x what 100 tokens per 100 µs step give
  b.tl.meta.extra["tokens_per_step"] = "100";
  b.tl.meta.extra["step_time_seconds"] = "0.0001";
  auto m = compute_run_metrics(b.tl);
  ASSERT_TRUE(m.ok());
  // Refused: it contradicts the tokens per step the workload wrote over the measured step; the
  // trace steps' figure stands (docs/metrics.md § Throughput sources).
  EXPECT_EQ(*m->tokens_per_sec, 1e6);
  EXPECT_NE(m->window.find("tokens_per_sec source: trace_steps (trace_metadata: 3e+06)"), std::string::npos)
      << m->window;
  EXPECT_TRUE(has_warning(*m, "tokens_per_sec: the trace asserts 3e+06 tokens/s")) << m->warnings.back().message;
  EXPECT_FALSE(has_warning(*m, "step_time_s: the trace asserts"));  // 100 µs agrees
  b.tl.meta.extra["tokens_per_sec"] = "1020000";                    // within 10 %
  b.tl.meta.extra["step_time_seconds"] = "0.00013";                 // 30 % off
  m = compute_run_metrics(b.tl);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(has_warning(*m, "tokens_per_sec: the trace asserts"));
  EXPECT_TRUE(has_warning(*m, "step_time_s: the trace asserts step_time_seconds = 0.00013 s"));
}

}  // namespace
}  // namespace goblin::analysis
