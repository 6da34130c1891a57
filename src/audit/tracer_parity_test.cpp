// The audit on a goblin CUPTI trace and on a torch.profiler trace of the same workload (issue 30:
// "the audit then uses the cupti tracer by default with no loss of prediction quality: same rules,
// ranges within 5 %"). Both recordings are goblin profile windows on one H100
// (examples/h100_tracer/audit_replay/, docs/results/tracer § session of 2026-11-27); the cupti
// traces carry input shapes in their first step only, mapped onto the later steps by the reader.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "audit/audit_flow.h"
#include "audit/replay_runner.h"
#include "core/test_support.h"

using namespace goblin;
using namespace goblin::audit;

namespace {

struct Audited {
  std::set<std::string> rules;
  double low = 0, high = 0;
};

Audited audit_of(const std::string& workload, const std::string& tracer, const std::string& config) {
  const std::string src = GOBLIN_SOURCE_DIR;
  auto runner = ReplayRunner::open(src + "/examples/h100_tracer/audit_replay/" + workload + "_" + tracer);
  EXPECT_TRUE(runner.ok()) << runner.error().describe();
  Audited a;
  if (!runner.ok()) return a;
  AuditOptions opt;
  opt.round_dir = (goblin::testing::private_tmp_dir("tracer_parity_" + workload + tracer) / "rounds").string();
  auto o = run_audit(src + "/" + config, *runner, opt);
  EXPECT_TRUE(o.ok() && !o->error) << workload << " " << tracer;
  if (!o.ok() || o->error) return a;
  for (const auto& r : o->report.rules) a.rules.insert(r.rule_id);
  a.low = o->report.speedup_predicted_low.value_or(0);
  a.high = o->report.speedup_predicted_high.value_or(0);
  return a;
}

void expect_same_audit(const std::string& workload, const std::string& config) {
  const Audited c = audit_of(workload, "cupti", config), t = audit_of(workload, "torch", config);
  EXPECT_FALSE(t.rules.empty()) << workload;
  EXPECT_EQ(c.rules, t.rules) << workload << ": the same rules fire on both traces";
  ASSERT_GT(t.low, 0) << workload;
  EXPECT_LE(std::fabs(c.low / t.low - 1), 0.05) << workload << " low " << c.low << " vs " << t.low;
  EXPECT_LE(std::fabs(c.high / t.high - 1), 0.05) << workload << " high " << c.high << " vs " << t.high;
}

}  // namespace

TEST(TracerParity, BaseYamlSameRulesAndRangesWithin5Pct) { expect_same_audit("base", "workloads/configs/base.yaml"); }

TEST(TracerParity, HfTrainerSameRulesAndRangesWithin5Pct) {
  expect_same_audit("hf", "workloads/tracer_checks/hf_bf16.yaml");
}
