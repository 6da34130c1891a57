// LiveRunner::bench_pair and the audit flow over it, with the stand-in workload
// (src/run/testdata/standin_workload.py: train.py's command line and result contract, no torch,
// no GPU; it sleeps 16 ms a step, 4 ms when the config says `bf16: true`).
#include "run/live_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "audit/audit_flow.h"
#include "audit/history.h"
#include "audit/rules.h"
#include "config/workload_config.h"
#include "core/test_support.h"

namespace goblin::run {
namespace {

std::string src(const std::string& p) { return std::string(GOBLIN_SOURCE_DIR) + "/" + p; }

LiveRunnerOptions standin_options(const std::string& name) {
  LiveRunnerOptions o;
  o.out_dir = goblin::testing::private_tmp_dir(name).string();
  o.workload_flag = src("src/run/testdata/standin_workload.py");
  o.bench_steps = 3;
  o.bench_warmup = 1;
  o.repeats = 3;
  o.timeout_s = 60;
  o.use_cache = false;
  o.require_gpu = false;  // stand-in: no GPU needed
  return o;
}

bool has_warning(const analysis::RunMetrics& m, const std::string& prefix) {
  return std::any_of(m.warnings.begin(), m.warnings.end(),
                     [&](const Warning& w) { return w.message.rfind(prefix, 0) == 0; });
}

TEST(LiveRunnerPair, BenchPairInterleavesAndReturnsPerRunSamples) {
  LiveRunner r(standin_options("pair"));
  auto before = config::parse_config_file(src("workloads/configs/base.yaml"));
  auto after = config::parse_config_file(src("workloads/configs/tuned.yaml"));  // bf16: true
  ASSERT_TRUE(before.ok() && after.ok());
  auto p = r.bench_pair(*before, *after);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_EQ(p->order, "ABABAB");
  EXPECT_TRUE(p->interleaved);
  ASSERT_EQ(p->before_samples.step_time_s.size(), 3u);
  ASSERT_EQ(p->after_samples.step_time_s.size(), 3u);
  EXPECT_EQ(p->before_samples.tokens_per_sec.size(), 3u);
  EXPECT_EQ(p->after_samples.tokens_per_sec.size(), 3u);
  // The stand-in really sleeps 16 ms vs 4 ms a step; loose bounds for a loaded CI machine.
  for (double s : p->before_samples.step_time_s) EXPECT_GE(s, 0.015);
  EXPECT_GT(p->before.step_time_s, 2.0 * p->after.step_time_s);
  EXPECT_EQ(p->before.runner_kind, "live");
  EXPECT_EQ(p->after.runner_kind, "live");
  EXPECT_NE(p->note.find("ABABAB (interleaved)"), std::string::npos) << p->note;
  // No GPU telemetry here: utilisation is unobserved (0 with a saying warning), never a figure.
  EXPECT_EQ(p->before.gpu_util_pct, 0.0);
  EXPECT_TRUE(has_warning(p->before, "gpu_util_pct: unobserved")) << p->before.warnings.size();
  EXPECT_TRUE(has_warning(p->after, "gpu_util_pct: unobserved"));
  // One bench call for the pair, logged with both config files.
  ASSERT_EQ(r.log().size(), 1u);
  EXPECT_EQ(r.log()[0]["call"], "bench_pair");
  EXPECT_EQ(r.log()[0]["bench"]["order"], "ABABAB");
  EXPECT_TRUE(r.log()[0]["bench"]["a"]["gpu_util_pct"].is_null());
  EXPECT_NE(r.log()[0]["bench"]["a"]["gpu_util_note"].get<std::string>().find("unobserved"), std::string::npos);
}

TEST(LiveRunnerPair, BenchSideSamplesSkipFailedRuns) {
  Json b = {{"a",
             {{"runs", Json::array({{{"step_time_s", 0.2}, {"tokens_per_sec", 10.0}},
                                    {{"error", {{"message", "boom"}}}},
                                    {{"step_time_s", 0.3}, {"tokens_per_sec", 0.0}}})}}}};
  auto s = bench_side_samples(b, "a");
  EXPECT_EQ(s.step_time_s, (std::vector<double>{0.2, 0.3}));
  EXPECT_EQ(s.tokens_per_sec, (std::vector<double>{10.0}));  // 0 tokens/s: not recorded
  EXPECT_TRUE(bench_side_samples(b, "b").step_time_s.empty());
}

TEST(LiveRunnerPair, TelemetryUtilisationReachesRunMetricsLabelled) {
  Json b = {{"step_time_s", 0.1},
            {"gpu_util_pct", 87.5},
            {"gpu_util_basis", "telemetry-based: mean over 3 run(s) ..."},
            {"gpu", {{"name", "NVIDIA H100"}}}};
  analysis::RunMetrics m = bench_to_run_metrics(b);
  EXPECT_DOUBLE_EQ(m.gpu_util_pct, 87.5);
  EXPECT_TRUE(has_warning(m, "gpu_util_pct: telemetry-based"));
}

// The profile step is not under test here (a live profile runs `goblin metrics` through the
// goblin binary, covered by cli_run_test): it returns step-time-only RunMetrics, as the runner
// does when the analysis cannot read a run directory.
class StandinAuditRunner : public LiveRunner {
 public:
  using LiveRunner::LiveRunner;
  Result<analysis::RunMetrics> profile(const config::WorkloadConfig&) override {
    analysis::RunMetrics m;
    m.runner_kind = "live";
    m.step_time_s = 0.016;
    m.waste_budget.unobserved = audit::bucket_names();
    return m;
  }
};

TEST(LiveRunnerPair, AuditFlowComparesInterleavedSamplesWithAnInterval) {
  StandinAuditRunner r(standin_options("audit_pair"));
  audit::AuditOptions opt;
  auto o = audit::run_audit(src("workloads/configs/base.yaml"), r, opt);
  ASSERT_TRUE(o.ok()) << o.error().describe();
  ASSERT_FALSE(o->error) << o->error->describe();
  EXPECT_TRUE(o->interleaved);
  EXPECT_EQ(o->run_order, "ABABAB");
  ASSERT_EQ(o->trajectory.size(), 7u);  // ... compare_runs, then profile_after (the AFTER side)
  EXPECT_EQ(o->trajectory[4].tool, "benchmark_pair");
  EXPECT_EQ(o->trajectory[6].tool, "profile_after");
  const Json report = audit::report_to_json(o->report);
  const Json& d = report["speedup_actual_detail"];
  EXPECT_EQ(d["interleaved"], true);
  EXPECT_EQ(d["run_order"], "ABABAB");
  ASSERT_TRUE(d["ci_low"].is_number()) << d.dump();
  ASSERT_TRUE(d["ci_high"].is_number());
  double lo = d["ci_low"].get<double>(), hi = d["ci_high"].get<double>();
  double act = report["speedup_actual"].get<double>();
  EXPECT_LE(lo, hi);
  EXPECT_GT(lo, 1.0);   // the patch sets bf16: the stand-in is 4x faster, measured
  EXPECT_GT(act, 1.5);  // bf16 4x, but torch_compile (also in the patch) costs the stand-in 4 ms a step
  EXPECT_NE(d["ci_method"].get<std::string>().find("interleaved ABABAB"), std::string::npos) << d["ci_method"];
  EXPECT_NE(d["ci_method"].get<std::string>().find("3 vs 3 repeats"), std::string::npos) << d["ci_method"];
  EXPECT_NE(report["summary_line"].get<std::string>().find("[95% CI"), std::string::npos);
}

// Rounds over the live runner: round 1 (bf16 patch, measured significant) is accepted; round 2
// starts from round 1's patched file and its AFTER profile and stops when no rule changes anything
// measurable. The history records every measured round.
TEST(LiveRunnerPair, RoundsChainAndHistory) {
  auto out = goblin::testing::private_tmp_dir("audit_rounds");
  StandinAuditRunner r(standin_options("audit_rounds_runs"));
  audit::AuditOptions opt;
  opt.rounds = 3;
  opt.round_dir = (out / "rounds").string();
  opt.history_path = (out / "history.sqlite").string();
  auto o = audit::run_audit(src("workloads/configs/base.yaml"), r, opt);
  ASSERT_TRUE(o.ok() && !o->error) << (o.ok() ? o->error->describe() : o.error().describe());
  const Json rep = audit::report_to_json(o->report);
  ASSERT_GE(rep["rounds"].size(), 2u) << rep["rounds"].dump(1);
  EXPECT_EQ(rep["rounds"][0]["accepted"], true);
  EXPECT_TRUE(rep["rounds"][0]["measured"]["ci_low"].is_number());
  EXPECT_GE(rep["rounds_accepted"].get<int>(), 1);
  EXPECT_GT(rep["total_speedup"]["point"].get<double>(), 1.5);  // bf16 4x, compile costs the stand-in 4 ms
  EXPECT_FALSE(rep["rounds_stop_reason"].get<std::string>().empty());
  EXPECT_TRUE(std::filesystem::exists(out / "rounds" / "round-1.yaml"));
  auto h = audit::HistoryStore::open((out / "history.sqlite").string());
  ASSERT_TRUE(h.ok());
  auto all = h->all();
  ASSERT_TRUE(all.ok());
  EXPECT_GE(all->size(), 1u);
  EXPECT_EQ((*all)[0].round, 1);
  EXPECT_EQ((*all)[0].runner_kind, "live");
  EXPECT_TRUE((*all)[0].measured.has_value());
}

}  // namespace
}  // namespace goblin::run
