// RunMetrics on inputs with nothing to time (issue 14): no GPU activity and no step give null, with
// the reason, instead of a 0.0 that reads as a measurement; a metrics file with an implausible step
// time is refused.
#include <gtest/gtest.h>

#include "analysis/metrics_io.h"
#include "analysis/run_metrics.h"
#include "trace/readers.h"

using namespace goblin;

namespace {

// A warning of catalogue entry `id` whose message holds `text`.
bool has(const std::vector<Warning>& v, WarningId id, const std::string& text) {
  for (const auto& w : v)
    if (w.id == id && w.message.find(text) != std::string::npos) return true;
  return false;
}

TEST(HostileMetrics, CpuOnlyTraceSaysNoGpuActivity) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(std::string(GOBLIN_FIXTURES) + "/kineto/cpu_only_rank-34.json.gz", tl).ok());
  auto m = analysis::compute_run_metrics(tl);
  ASSERT_TRUE(m.ok()) << m.error().describe();
  EXPECT_FALSE(m->gpu_activity);
  EXPECT_TRUE(has(m->warnings, W::no_gpu_activity, "no GPU activity"));
  const Json j = analysis::run_metrics_to_json(*m);
  EXPECT_TRUE(j["gpu_util_pct"].is_null());
  EXPECT_TRUE(j["step_time_s"].is_number());  // it has ProfilerStep annotations to time
  // Read back: null stays "no GPU activity".
  auto back = analysis::run_metrics_from_json(j);
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->gpu_activity);
}

TEST(HostileMetrics, NothingToTimeIsNullNotZero) {
  Timeline tl;  // no rows at all
  auto m = analysis::compute_run_metrics(tl);
  ASSERT_TRUE(m.ok()) << m.error().describe();
  const Json j = analysis::run_metrics_to_json(*m);
  EXPECT_TRUE(j["step_time_s"].is_null());
  EXPECT_TRUE(has(m->warnings, W::step_time_unobserved, "step_time_s unobserved"));
  auto back = analysis::run_metrics_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->step_time_s, 0.0);
}

TEST(HostileMetrics, ImplausibleStepTimesAreRefused) {
  for (double t : {5e-324, -1.0, 1e300}) {
    Json j = {{"step_time_s", t}, {"waste_budget", Json::object()}};
    auto m = analysis::metrics_from_json(j, "m.json");
    ASSERT_FALSE(m.ok()) << t;
    EXPECT_NE(m.error().message.find("not a plausible step time"), std::string::npos) << m.error().message;
  }
  Json tps = {{"step_time_s", 0.25}, {"tokens_per_sec", 1e300}};
  EXPECT_FALSE(analysis::metrics_from_json(tps, "m.json").ok());
  Json ok = {{"step_time_s", 0.25}, {"tokens_per_sec", 40000.0}};
  EXPECT_TRUE(analysis::metrics_from_json(ok, "m.json").ok());
}

}  // namespace
