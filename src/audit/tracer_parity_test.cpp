// The audit on a goblin CUPTI trace and on a torch.profiler trace of the same workload (issue 30:
// "the audit then uses the cupti tracer by default with no loss of prediction quality: same rules,
// ranges within 5 %"). Both recordings are goblin profile windows on one H100
// (examples/h100_tracer/audit_replay/, bench/results/tracer, 2026-11-27); the cupti
// traces carry input shapes in their first step only, mapped onto the later steps by the reader.
//
// Measured (bench/results/tracer, 2026-11-27): the same rules fire (6 on base.yaml, 3
// on the HF Trainer) and the GPU-side classes the models price (GEMM, attention, memory-bound,
// optimizer) agree within 1 %. Uncorrected, the ranges differed by up to 6.7 % because each tracer
// adds its own host time (HF step 220.7 ms under torch.profiler, 174.9 ms under cupti). With the
// profiler correction (docs/audit.md § Profiler correction; bench/results/tracer, 2026-11-26, the
// audit's profiler correction) both audits price the same unprofiled step (the cupti recording's
// own untraced steps; the torch replay's manifest carries the same measurement): base.yaml's
// ranges agree within 5 % ([4.425, 8.270] vs [4.590, 8.269]); the HF Trainer's within 8 %
// ([1.522, 2.585] vs [1.410, 2.442]): what is left is not tracer time but the two processes' own
// data loading (data wait 27.2 vs 19.5 ms, the DataLoader's pure-Python tokenizer), which no
// profiler correction touches. One HF pair is within the same tracer's run-to-run spread; over
// four recordings per tracer (the last test) the HF ranges agree within 1 %.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "audit/audit_flow.h"
#include "audit/replay_runner.h"
#include "audit/report.h"
#include "core/test_support.h"

using namespace goblin;
using namespace goblin::audit;
namespace fs = std::filesystem;

namespace {

struct Audited {
  std::set<std::string> rules;
  double low = 0, high = 0, step_before = 0;
  std::map<std::string, ClassPrediction> classes;
  ProfilerCorrection correction;
  std::string markdown, html;
};

// The classes whose time is the GPU's: what the trace's kernels, ops and shapes decide.
constexpr const char* kGpuClasses[] = {"gemm", "fp32_membound", "attention", "optimizer", "membound"};

// The audit of the replay manifest in `replay_dir` (relative to the source tree).
Audited audit_dir(const std::string& replay_dir, const std::string& config) {
  const std::string src = GOBLIN_SOURCE_DIR;
  auto runner = ReplayRunner::open(src + "/" + replay_dir);
  EXPECT_TRUE(runner.ok()) << runner.error().describe();
  Audited a;
  if (!runner.ok()) return a;
  AuditOptions opt;
  opt.round_dir =
      (goblin::testing::private_tmp_dir("tracer_parity_" + fs::path(replay_dir).filename().string()) / "rounds")
          .string();
  auto o = run_audit(src + "/" + config, *runner, opt);
  EXPECT_TRUE(o.ok() && !o->error) << replay_dir;
  if (!o.ok() || o->error) return a;
  for (const auto& r : o->report.rules) a.rules.insert(r.rule_id);
  a.low = o->report.speedup_predicted_low.value_or(0);
  a.high = o->report.speedup_predicted_high.value_or(0);
  if (o->report.speedup_model && *o->report.speedup_model) {
    for (const auto& c : (*o->report.speedup_model)->classes) a.classes[c.name] = c;
    a.correction = (*o->report.speedup_model)->profiler_correction;
    a.step_before = (*o->report.speedup_model)->step_before;
  }
  a.markdown = report_markdown(o->report);
  a.html = report_html(o->report);
  return a;
}

Audited audit_of(const std::string& workload, const std::string& tracer, const std::string& config) {
  return audit_dir("examples/h100_tracer/audit_replay/" + workload + "_" + tracer, config);
}

void expect_same_audit(const std::string& workload, const std::string& config, double range_tolerance) {
  const Audited c = audit_of(workload, "cupti", config), t = audit_of(workload, "torch", config);
  EXPECT_FALSE(t.rules.empty()) << workload;
  EXPECT_EQ(c.rules, t.rules) << workload << ": the same rules fire on both traces";
  ASSERT_GT(t.low, 0) << workload;
  // Both corrected to the same unprofiled step, none of it from the GPU classes.
  EXPECT_TRUE(c.correction.applied && t.correction.applied) << c.correction.note << " | " << t.correction.note;
  EXPECT_NEAR(c.step_before, t.step_before, 1e-6) << workload;
  // The report shows it: the ms removed, from which class, why.
  for (const Audited* a : {&c, &t}) {
    EXPECT_NE(a->markdown.find("## Profiler correction\n\nApplied: the profiled step is"), std::string::npos);
    EXPECT_NE(a->markdown.find("| host_gap | "), std::string::npos);
    EXPECT_NE(a->html.find("<h2>Profiler correction</h2>"), std::string::npos);
  }
  EXPECT_LE(std::fabs(c.low / t.low - 1), range_tolerance) << workload << " low " << c.low << " vs " << t.low;
  EXPECT_LE(std::fabs(c.high / t.high - 1), range_tolerance) << workload << " high " << c.high << " vs " << t.high;
  // Within 2 % (or 0.1 ms) on every GPU class, before and both ends after.
  auto near = [](double x, double y) { return std::fabs(x - y) <= std::max(0.02 * std::fabs(y), 1e-4); };
  for (const char* name : kGpuClasses) {
    auto ci = c.classes.find(name), ti = t.classes.find(name);
    ASSERT_EQ(ci == c.classes.end(), ti == t.classes.end()) << workload << " " << name;
    if (ci == c.classes.end()) continue;
    EXPECT_TRUE(near(ci->second.before, ti->second.before)) << workload << " " << name << " before";
    EXPECT_TRUE(near(ci->second.after_fast, ti->second.after_fast)) << workload << " " << name << " fast";
    EXPECT_TRUE(near(ci->second.after_slow, ti->second.after_slow)) << workload << " " << name << " slow";
  }
}

}  // namespace

TEST(TracerParity, BaseYamlSameRulesGpuClassesWithin2PctRangesWithin5Pct) {
  expect_same_audit("base", "workloads/configs/base.yaml", 0.05);
}

TEST(TracerParity, HfTrainerSameRulesGpuClassesWithin2PctRangesWithin8Pct) {
  expect_same_audit("hf", "workloads/tracer_checks/hf_bf16.yaml", 0.08);
}

// One pair of recordings is not enough to hold the HF Trainer to 5 %: the same tracer's audits
// of separate processes differ by more than that. Eight recordings of one H100 call, the tracers
// alternating c t t c c t t c (examples/h100_tracer/hf_repeats, bench/results/tracer, session of
// 2026-11-26, evening): the range ends of one tracer's four recordings spread 1.40-1.60 (low,
// cupti) and 2.32-2.63 (high, torch), ±6-10 % around their means, while the two tracers' means
// agree within 1 % (low 1.470 vs 1.465, high 2.471 vs 2.449). So the issue's bar, "ranges within
// 5 % of the torch-traced ones", is asserted on the means over the repeats; one pair (above) is
// held to what one pair's noise allows.
TEST(TracerParity, HfTrainerRangesOverFourRecordingsPerTracerWithin5Pct) {
  const std::string cfg = "workloads/tracer_checks/hf_bf16.yaml";
  const std::pair<int, const char*> recs[] = {{1, "cupti"}, {2, "torch"}, {3, "torch"}, {4, "cupti"},
                                              {5, "cupti"}, {6, "torch"}, {7, "torch"}, {8, "cupti"}};
  std::map<std::string, std::vector<Audited>> by;
  for (const auto& [i, tracer] : recs)
    by[tracer].push_back(audit_dir(fmt::format("examples/h100_tracer/hf_repeats/rec{}_{}", i, tracer), cfg));
  ASSERT_EQ(by["cupti"].size(), 4u);
  ASSERT_EQ(by["torch"].size(), 4u);
  const std::set<std::string> rules = by["torch"][0].rules;
  EXPECT_FALSE(rules.empty());
  auto mean = [](const std::vector<Audited>& v, double Audited::*end) {
    double s = 0;
    for (const auto& a : v) s += a.*end;
    return s / static_cast<double>(v.size());
  };
  for (const auto& [tracer, audits] : by)
    for (const auto& a : audits) {
      EXPECT_EQ(a.rules, rules) << tracer << ": the same rules fire on every recording";
      EXPECT_TRUE(a.correction.applied) << tracer << ": " << a.correction.note;
      EXPECT_GT(a.low, 1.0) << tracer;
    }
  const double cl = mean(by["cupti"], &Audited::low), tl = mean(by["torch"], &Audited::low);
  const double ch = mean(by["cupti"], &Audited::high), th = mean(by["torch"], &Audited::high);
  EXPECT_LE(std::fabs(cl / tl - 1), 0.05) << "low " << cl << " vs " << tl;
  EXPECT_LE(std::fabs(ch / th - 1), 0.05) << "high " << ch << " vs " << th;
}
