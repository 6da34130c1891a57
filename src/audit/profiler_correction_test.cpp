// The profiler correction (docs/audit.md § Profiler correction): the profiled - unprofiled step is
// taken out of the host classes in data/speedup_model.yaml's order before the speedup models run,
// none below zero, GPU classes untouched; no measurement, no longer profiled step or an excess
// larger than the host idle: no correction. And where the unprofiled step comes from (a trace's
// untraced steps, a replay manifest's `unprofiled`, a run directory's run.json).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "audit/knowledge.h"
#include "audit/replay_runner.h"
#include "audit/speedup_model.h"
#include "core/data.h"
#include "core/io.h"
#include "core/test_support.h"

using namespace goblin;
using namespace goblin::audit;

namespace {

std::string src(const std::string& rel) { return std::string(GOBLIN_SOURCE_DIR) + "/" + rel; }

// A launch-bound step of 82 ms: 50 ms of tensor-core GEMMs, 20 ms data wait, 10 ms host gap, 2 ms
// unattributed idle; the patch turns torch.compile on (the compile model prices host_gap).
analysis::RunMetrics profile() {
  analysis::RunMetrics m;
  analysis::CostProfile c;
  c.steps = 3;
  c.gemm_tensor_s = 0.050;
  c.data_wait_s = 0.020;
  c.host_gap_s = 0.010;
  c.unattributed_s = 0.002;
  c.step_s = 0.082;
  c.kernels = 1000;
  m.cost = c;
  m.step_time_s = c.step_s;
  return m;
}
config::WorkloadConfig cfg(bool compile) {
  config::WorkloadConfig w;
  EXPECT_TRUE(w.set("torch_compile", compile).ok());
  return w;
}
std::map<std::string, ClassPrediction> by_name(const SpeedupPrediction& p) {
  std::map<std::string, ClassPrediction> out;
  for (const auto& c : p.classes) out[c.name] = c;
  return out;
}

}  // namespace

TEST(ProfilerCorrection, TakesTheExcessFromHostGapThenUnattributedThenDataWait) {
  set_data_dir(GOBLIN_DATA_DIR);
  const SpeedupPrediction plain = predict_speedup(profile(), cfg(false), cfg(true));
  const SpeedupPrediction p =
      predict_speedup(profile(), cfg(false), cfg(true), UnprofiledStep{0.067, "a bench of the same config"});
  ASSERT_TRUE(p.predicted) << p.note;
  const ProfilerCorrection& pc = p.profiler_correction;
  ASSERT_TRUE(pc.applied) << pc.note;
  EXPECT_NEAR(pc.excess_s.value_or(0), 0.015, 1e-9);
  EXPECT_NEAR(pc.removed_s.value_or(0), 0.015, 1e-9);
  EXPECT_EQ(pc.source, "a bench of the same config");
  ASSERT_EQ(pc.classes.size(), 3u);
  EXPECT_EQ(pc.classes[0].name, "host_gap");
  EXPECT_NEAR(pc.classes[0].removed, 0.010, 1e-9);
  EXPECT_NEAR(pc.classes[0].corrected, 0.0, 1e-9);
  EXPECT_EQ(pc.classes[1].name, "unattributed");
  EXPECT_NEAR(pc.classes[1].removed, 0.002, 1e-9);
  EXPECT_EQ(pc.classes[2].name, "data_wait");
  EXPECT_NEAR(pc.classes[2].removed, 0.003, 1e-9);
  EXPECT_NEAR(pc.classes[2].corrected, 0.017, 1e-9);
  // The classes partition the unprofiled step; the GPU class is the profile's own.
  EXPECT_NEAR(p.step_before, 0.067, 1e-9);
  double sum = 0;
  for (const auto& c : p.classes) sum += c.before;
  EXPECT_NEAR(sum, 0.067, 1e-9);
  auto pcl = by_name(p), bcl = by_name(plain);
  EXPECT_DOUBLE_EQ(pcl["gemm"].before, bcl["gemm"].before);
  EXPECT_DOUBLE_EQ(pcl["gemm"].after_slow, bcl["gemm"].after_slow);
  EXPECT_NEAR(pcl["host_gap"].before, 0.0, 1e-9);
  // The uncorrected prediction says why it was not corrected, in its JSON too.
  EXPECT_FALSE(plain.profiler_correction.applied);
  EXPECT_NE(plain.profiler_correction.note.find("no unprofiled measurement"), std::string::npos);
  const Json j = speedup_prediction_to_json(p);
  EXPECT_TRUE(j["profiler_correction"]["applied"].get<bool>());
  EXPECT_EQ(j["profiler_correction"]["classes"].size(), 3u);
  SpeedupPrediction back;
  ASSERT_TRUE(speedup_prediction_from_json(j, back, "speedup_model").ok());
  EXPECT_EQ(back.profiler_correction.classes.size(), 3u);
  EXPECT_NEAR(back.profiler_correction.removed_s.value_or(0), 0.015, 1e-9);
}

TEST(ProfilerCorrection, NothingWhenTheExcessIsNotProfilerHostTime) {
  set_data_dir(GOBLIN_DATA_DIR);
  const SpeedupPrediction plain = predict_speedup(profile(), cfg(false), cfg(true));
  // 42 ms more than unprofiled, 32 ms of host idle: the runs differ or the GPU was slowed.
  const SpeedupPrediction over = predict_speedup(profile(), cfg(false), cfg(true), UnprofiledStep{0.040, "x"});
  EXPECT_FALSE(over.profiler_correction.applied);
  EXPECT_NE(over.profiler_correction.note.find("not corrected"), std::string::npos);
  EXPECT_DOUBLE_EQ(over.low, plain.low);
  EXPECT_DOUBLE_EQ(over.high, plain.high);
  // An unprofiled step not shorter than the profiled one: no profiler time to take out.
  const SpeedupPrediction longer = predict_speedup(profile(), cfg(false), cfg(true), UnprofiledStep{0.090, "x"});
  EXPECT_FALSE(longer.profiler_correction.applied);
  EXPECT_DOUBLE_EQ(longer.low, plain.low);
  EXPECT_DOUBLE_EQ(longer.step_before, 0.082);
}

TEST(ProfilerCorrection, TheOrderIsDataAndChecked) {
  auto k = knowledge();
  ASSERT_TRUE(k.ok());
  EXPECT_EQ((*k)->speedup.profiler_correction_order,
            (std::vector<std::string>{"host_gap", "unattributed", "data_wait"}));
  auto text = read_all(std::string(GOBLIN_DATA_DIR) + "/speedup_model.yaml");
  ASSERT_TRUE(text.ok());
  const std::string order = "order: [host_gap, unattributed, data_wait]";
  const auto at = text->find(order);
  ASSERT_NE(at, std::string::npos);
  // A GPU class holds no profiler host time: refused, naming the file.
  std::string gpu = *text;
  gpu.replace(at, order.size(), "order: [host_gap, gemm]");
  auto e = SpeedupFactors::parse(gpu, "x.yaml");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, ErrorKind::Malformed);
  EXPECT_NE(e.error().message.find("only the host classes"), std::string::npos) << e.error().message;
  std::string empty = *text;
  empty.replace(at, order.size(), "order: []");
  EXPECT_FALSE(SpeedupFactors::parse(empty, "x.yaml").ok());
}

// Where the unprofiled step comes from: the cupti recording's own untraced steps; the torch
// replay's manifest entry; a run directory's run.json (the live runner's profile).
TEST(ProfilerCorrection, UnprofiledStepFromTheTraceTheManifestOrTheRunDirectory) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto cupti = ReplayRunner::open(src("examples/h100_tracer/audit_replay/hf_cupti"));
  ASSERT_TRUE(cupti.ok()) << cupti.error().describe();
  ASSERT_TRUE(cupti->profile(cupti->runs()[0].config).ok());
  auto u = cupti->last_unprofiled_step();
  ASSERT_TRUE(u.has_value());
  EXPECT_NEAR(u->step_s, 0.11704261016845703, 1e-12);
  EXPECT_NE(u->source.find("own 2 untraced steps"), std::string::npos) << u->source;

  auto torch = ReplayRunner::open(src("examples/h100_tracer/audit_replay/hf_torch"));
  ASSERT_TRUE(torch.ok()) << torch.error().describe();
  ASSERT_TRUE(torch->profile(torch->runs()[0].config).ok());
  u = torch->last_unprofiled_step();
  ASSERT_TRUE(u.has_value());
  EXPECT_NEAR(u->step_s, 0.11704261016845703, 1e-12);
  EXPECT_NE(u->source.find("cupti recording's process"), std::string::npos) << u->source;

  // A manifest's `unprofiled` needs a positive step and a source.
  const auto dir = goblin::testing::private_tmp_dir("profiler_correction_manifest");
  const std::string cfg_path = src("workloads/tracer_checks/hf_bf16.yaml");
  const std::string trace = src("examples/h100_tracer/audit_hf_torch.json.gz");
  ASSERT_TRUE(write_file((dir / "replay.yaml").string(), "runs:\n  - {id: b, role: baseline, config: " + cfg_path +
                                                             ", trace: " + trace + ", unprofiled: {step_s: 0.1}}\n")
                  .ok());
  auto bad = ReplayRunner::open(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::Malformed);
  EXPECT_NE(bad.error().message.find("`unprofiled` needs"), std::string::npos) << bad.error().message;

  // The default Runner: a `goblin profile` run directory's run.json.
  struct DirRunner : Runner {
    std::string dir;
    Result<analysis::RunMetrics> profile(const config::WorkloadConfig&) override { return analysis::RunMetrics{}; }
    Result<analysis::RunMetrics> bench(const config::WorkloadConfig&) override { return analysis::RunMetrics{}; }
    std::string kind() const override { return "test"; }
    std::string last_trace() const override { return dir; }
  } r;
  const auto run_dir = goblin::testing::private_tmp_dir("profiler_correction_run");
  r.dir = run_dir.string();
  EXPECT_FALSE(r.last_unprofiled_step().has_value());  // no run.json
  ASSERT_TRUE(write_file((run_dir / "run.json").string(),
                         R"({"profiled": {"step_time_s": 0.25, "untraced_step_time_s": 0.2, "untraced_steps": 3}})")
                  .ok());
  auto ru = r.last_unprofiled_step();
  ASSERT_TRUE(ru.has_value());
  EXPECT_DOUBLE_EQ(ru->step_s, 0.2);
  EXPECT_NE(ru->source.find("3 untraced steps"), std::string::npos) << ru->source;
}
