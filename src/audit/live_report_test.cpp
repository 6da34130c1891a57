// The live audit's report (issue #34): the live runner benches both sides unprofiled and profiles
// them apart (profile_run, profile_after), so "what got faster" must come from `goblin diff` of the
// two profiles and the AFTER waste budget from the patched config's profile. No GPU here: a runner
// that behaves as the live one does (unprofiled bench, profiled profile/profile_after) over the
// recorded H100 pair of examples/h100_llama, and the live audits' recorded profile run directories
// of bench/results/h100_live.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "analysis/diff.h"
#include "audit/after_profile.h"
#include "audit/audit_flow.h"
#include "audit/replay_runner.h"
#include "audit/report.h"
#include "audit/report_diff.h"
#include "core/data.h"

using namespace goblin;
using namespace goblin::audit;

namespace {
std::string src(const std::string& rel) { return std::string(GOBLIN_SOURCE_DIR) + "/" + rel; }

// What LiveRunner does, over recordings: profile() and profile_after() are profiled runs with a
// trace (its run directory); bench_pair() runs unprofiled, so its metrics have no waste budget,
// no steps and no trace.
class LiveLikeRunner : public Runner {
 public:
  explicit LiveLikeRunner(ReplayRunner r) : replay_(std::move(r)) {}
  Result<analysis::RunMetrics> profile(const config::WorkloadConfig& c) override {
    auto m = replay_.profile(c);
    trace_ = m ? replay_.last_trace() : "";
    return m;
  }
  Result<analysis::RunMetrics> profile_after(const config::WorkloadConfig& c) override {
    auto m = replay_.profile_after(c);
    trace_ = m ? replay_.last_trace() : "";
    return m;
  }
  Result<analysis::RunMetrics> bench(const config::WorkloadConfig& c) override {
    trace_.clear();
    ASSIGN_OR_RETURN(auto m, replay_.bench(c));
    return unprofiled(std::move(m));
  }
  Result<PairBench> bench_pair(const config::WorkloadConfig& b, const config::WorkloadConfig& a) override {
    PairBench p;
    ASSIGN_OR_RETURN(p.before, bench(b));
    ASSIGN_OR_RETURN(p.after, bench(a));
    p.note = "unprofiled bench of both sides (a live bench)";
    return p;  // before_trace, after_trace: "" (nothing profiled)
  }
  std::string kind() const override { return "live"; }
  std::string last_trace() const override { return trace_; }

 private:
  static analysis::RunMetrics unprofiled(analysis::RunMetrics m) {
    m.runner_kind = "live";
    m.steps.clear();
    m.waste_budget.mark_all_unobserved();
    m.cost.reset();
    for (const char* k : {"cupti", "kineto_schema"}) m.versions.erase(k);
    return m;
  }
  ReplayRunner replay_;
  std::string trace_;
};
}  // namespace

TEST(LiveAuditReport, WhatGotFasterIsTheDiffOfTheTwoProfiles) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto replay = ReplayRunner::open(src("examples/h100_llama"));
  ASSERT_TRUE(replay.ok()) << replay.error().describe();
  LiveLikeRunner runner(std::move(*replay));
  AuditOptions opt;
  auto o = run_audit(src("examples/h100_llama/config_before.yaml"), runner, opt);
  ASSERT_TRUE(o.ok()) << o.error().describe();
  ASSERT_FALSE(o->error) << o->error->describe();
  const Report& rep = o->report;

  // Both sides were profiled: the kernel diff is `goblin diff` of the two profiles.
  ASSERT_TRUE(rep.kernel_diff);
  EXPECT_TRUE(rep.kernel_diff->available) << rep.kernel_diff->reason.value_or("");
  EXPECT_NE(rep.kernel_diff->before_trace.value_or("").find("h100_llama_fp32_eager_w0"), std::string::npos);
  EXPECT_NE(rep.kernel_diff->after_trace.value_or("").find("h100_llama_bf16_sdpa_w4"), std::string::npos);
  auto d = analysis::diff_paths(src("examples/h100_llama/h100_llama_fp32_eager_w0.json.gz"),
                                src("examples/h100_llama/h100_llama_bf16_sdpa_w4.json.gz"));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(rep.kernel_diff->story, analysis::diff_story(*d, 5));  // the same diff verb, the same story
  const std::string md = report_markdown(rep);
  EXPECT_EQ(md.find("no profiler trace for the"), std::string::npos) << md;
  EXPECT_EQ(md.find("no kernel-level comparison"), std::string::npos);

  // Every after figure the audit measured sits beside the before figure: the AFTER budget is the
  // patched config's profile (the bench had none), in the report and in the metrics table.
  ASSERT_TRUE(rep.waste_budget_after);
  ASSERT_TRUE(rep.waste_budget_after_profile);
  EXPECT_EQ(rep.waste_budget_after->step_time_s, rep.waste_budget_after_profile->step_time_s);
  int waste_rows = 0;
  for (const DeltaRow& row : rep.metric_deltas) {
    if (row.metric.rfind("waste.", 0) != 0) continue;
    ++waste_rows;
    // Every bucket measured before is measured after (memory_headroom is unobserved on both sides
    // of these recordings: no memory telemetry).
    EXPECT_EQ(row.after.has_value(), row.before.has_value()) << row.metric;
    if (row.metric == "waste.host_gap") EXPECT_TRUE(row.before && row.after);
  }
  EXPECT_EQ(waste_rows, 8);
  for (const Finding& f : rep.findings) EXPECT_NE(f.id, "evidence.unobserved_buckets_after");
  EXPECT_TRUE(std::any_of(rep.findings.begin(), rep.findings.end(),
                          [](const Finding& f) { return f.id == "evidence.after_budget_from_profile"; }));
  // The rendered metrics table (| metric | before | after | ...): an after figure wherever a before one.
  std::istringstream lines(md);
  int rendered = 0;
  for (std::string l; std::getline(lines, l);) {
    if (l.rfind("| waste.", 0) != 0) continue;
    ++rendered;
    const size_t c1 = l.find('|', 1), c2 = l.find('|', c1 + 1), c3 = l.find('|', c2 + 1);
    ASSERT_NE(c3, std::string::npos) << l;
    const bool before_na = l.substr(c1 + 1, c2 - c1 - 1).find("n/a") != std::string::npos;
    const bool after_na = l.substr(c2 + 1, c3 - c2 - 1).find("n/a") != std::string::npos;
    EXPECT_EQ(after_na, before_na) << l;
  }
  EXPECT_EQ(rendered, 8) << md;
}

// The live runner's last_trace() is the profile's run directory: `goblin diff` reads the recorded
// live audits' profile run directories (bench/results/h100_live: base.yaml and the tuned,
// torch.compile config, each profiled on the H100) as it reads trace files.
TEST(LiveAuditReport, KernelDiffReadsLiveProfileRunDirectories) {
  set_data_dir(GOBLIN_DATA_DIR);
  const KernelDiff k = kernel_diff_for_report(src("tests/fixtures/h100_live/audit_base/live/profile-1"),
                                              src("tests/fixtures/h100_live/audit_tuned_compile/live/profile-1"));
  EXPECT_TRUE(k.available) << k.reason.value_or("");
  ASSERT_TRUE(k.story);
  EXPECT_FALSE(k.story->empty());
  ASSERT_TRUE(k.step_time_change_s);
  EXPECT_TRUE(k.step_time_change_s->is_number());
}
