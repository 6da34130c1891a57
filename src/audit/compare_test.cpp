#include "audit/compare.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "analysis/metrics_io.h"
#include "audit/audit_flow.h"
#include "audit/history.h"
#include "audit/replay_runner.h"
#include "audit/report.h"
#include "core/data.h"
#include "core/io.h"
#include "core/test_support.h"

using namespace goblin;
using namespace goblin::audit;

namespace {
std::string src(const std::string& rel) { return std::string(GOBLIN_SOURCE_DIR) + "/" + rel; }
std::filesystem::path tmpdir() {
  static const auto d = goblin::testing::private_tmp_dir("compare");
  return d;
}
std::string write_tmp(const std::string& name, const std::string& text) {
  auto p = tmpdir() / name;
  std::ofstream(p) << text;
  return p.string();
}
// Measured by the workload and stored in the traces' metadata (tokens_per_sec).
constexpr double kBeforeTps = 39663.2852792814, kAfterTps = 189094.268737371;

Json metrics_json(double step, std::optional<double> tps, const std::string& gpu, const std::string& kind) {
  Json j = {{"step_time_s", step},
            {"gpu_util_pct", 80.0},
            {"waste_budget",
             {{"useful_gpu", step * 0.5},
              {"data_wait", step * 0.2},
              {"host_gap", step * 0.3},
              {"comm_excess", 0.0},
              {"precision_path", 0.0},
              {"kernel_shape", 0.0},
              {"unattributed", 0.0},
              {"step_time_s", step},
              {"unobserved", {"memory_headroom"}}}},
            {"gpu_name", gpu},
            {"versions", {{"pytorch", "2.5.1"}, {"rocm", "6.3.1"}, {"driver", "6.10.5"}}},
            {"runner_kind", kind}};
  j["tokens_per_sec"] = tps ? Json(*tps) : Json(nullptr);
  return j;
}
Json patch_json(double lo, double hi, std::map<std::string, std::string> env = {}, std::string optim = "adamw_torch") {
  Json nc = {{"model_name", "m"},  {"batch_size", 4},         {"seq_len", 2048}, {"mode", "training"},
             {"optimizer", optim}, {"dataloader_workers", 4}, {"env_vars", env}};
  return {{"new_config", nc},
          {"diff", "--- a/c.yaml\n+++ b/c.yaml\n@@ -1 +1 @@\n-x: <old>\n+x: 1\n"},
          {"rationale",
           {{{"rule_id", "data.dataloader_workers_zero"},
             {"title", "t"},
             {"citation", "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html"},
             {"targets_bucket", "data_wait"}}}},
          {"edits", {{"dataloader_workers", {{"from", 0}, {"to", 4}, {"rule_id", "data.dataloader_workers_zero"}}}}},
          {"expected_speedup_low", lo},
          {"expected_speedup_high", hi},
          {"confidence", 0.5},
          {"evidence_coverage", 0.5},
          {"rule_consistency", 1.0},
          {"findings", Json::array()}};
}
// The Report as JSON (report_to_json), the form these tests read it in; the patch through its
// field list, as `goblin compare` reads one.
Result<Json> compare_json(const RunInput& b, const RunInput& a, const Json& patch, const CompareOptions& co = {}) {
  ASSIGN_OR_RETURN(auto p, patch_from_json(patch));
  ASSIGN_OR_RETURN(auto r, compare_runs(b, a, p, co));
  return report_to_json(r);
}
// The Report struct back from that JSON, for the renderers.
Report rep(const Json& j) {
  auto r = report_from_json(j);
  EXPECT_TRUE(r.ok()) << r.error().describe();
  return r.ok() ? *r : Report{};
}
}  // namespace

// Acceptance: the replay audit of the real H100 pair reports the actual speedup from the traces'
// tokens/s, the predicted range, and whether the prediction held.
TEST(ReplayAudit, H100PairEndToEnd) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto runner = ReplayRunner::open(src("examples/h100_llama"));
  ASSERT_TRUE(runner.ok()) << runner.error().describe();
  std::vector<std::string> lines;
  AuditOptions opt;
  opt.progress = [&](const std::string& step, const std::string& l) { lines.push_back(step + ": " + l); };
  auto o = run_audit(src("examples/h100_llama/config_before.yaml"), *runner, opt);
  ASSERT_TRUE(o.ok()) << o.error().describe();
  ASSERT_FALSE(o->error) << o->error->describe();
  const Json r = report_to_json(o->report);
  EXPECT_NEAR(r["speedup_actual"].get<double>(), kAfterTps / kBeforeTps, 0.002);
  EXPECT_NEAR(r["speedup_actual"].get<double>(), 4.77, 0.01);
  EXPECT_EQ(r["speedup_actual_detail"]["metric"], "tokens_per_sec");
  ASSERT_TRUE(r["speedup_predicted_low"].is_number());
  ASSERT_TRUE(r["speedup_predicted_high"].is_number());
  double lo = r["speedup_predicted_low"], hi = r["speedup_predicted_high"], act = r["speedup_actual"];
  EXPECT_GT(lo, 1.0);
  EXPECT_LE(lo, hi);
  std::string held = r["prediction_held"];
  EXPECT_EQ(held, act > hi ? "exceeded" : act < lo ? "missed" : "held");
  EXPECT_NE(r["summary_line"].get<std::string>().find("4.77x"), std::string::npos) << r["summary_line"];
  EXPECT_GT(r["confidence"].get<double>(), 0.0);
  // Seven tool calls (before and after benched by one bench_pair call, then the AFTER side
  // profiled: the replay's after recording), each with a thought and an outcome printed.
  ASSERT_EQ(o->trajectory.size(), 7u);
  EXPECT_EQ(o->trajectory.front().tool, "parse_config");
  EXPECT_EQ(o->trajectory[4].tool, "benchmark_pair");
  EXPECT_EQ(o->trajectory[5].tool, "compare_runs");
  EXPECT_EQ(o->trajectory.back().tool, "profile_after");
  EXPECT_EQ(lines.size(), 14u);
  // The speedup models made the range, and both sides' waste budgets are profiled: the realised
  // recovery per bucket sits beside the predicted one (replay: the after recording).
  EXPECT_EQ(r["prediction_method"], "speedup_models");
  ASSERT_TRUE(r["recovery_by_bucket"].is_array());
  EXPECT_EQ(r["recovery_by_bucket"].size(), 8u);
  EXPECT_TRUE(r["waste_budget_after_profile"].is_object());
  EXPECT_EQ(held, "held");  // 4.77x inside the model's range
  ASSERT_EQ(r["rounds"].size(), 1u);
  EXPECT_EQ(r["rounds"][0]["round"], 1);
  EXPECT_EQ(r["calibration"]["action"], "none");  // no history given
  // The replay runner keeps the default bench_pair: blocks, one recording per side, no interval,
  // and the report says so.
  EXPECT_FALSE(o->interleaved);
  EXPECT_EQ(r["speedup_actual_detail"]["interleaved"], false);
  EXPECT_TRUE(r["speedup_actual_detail"]["ci_low"].is_null());
  // Symptoms from BOTH the config and the waste budget.
  bool cfg_sym = false, bucket_sym = false;
  for (const auto& s : o->symptoms) {
    cfg_sym |= s.find("eager attention") != std::string::npos;
    bucket_sym |= s.rfind("precision_path:", 0) == 0;
  }
  EXPECT_TRUE(cfg_sym && bucket_sym);
  // The bf16 rule is applied and cited.
  bool bf16 = false;
  for (const auto& x : r["rules"]) bf16 |= x["rule_id"] == "precision.bf16_amp_over_fp32";
  EXPECT_TRUE(bf16);
  // Honest scope: the recording changed the DataLoader too, which this patch did not.
  bool workers = false;
  for (const auto& x : r["measurement_scope"]["after_run_changes_outside_patch"])
    workers |= x["field"] == "dataloader_workers";
  for (const auto& x : r["measurement_scope"]["patch_edits_not_in_after_run"])
    EXPECT_NE(x["field"], "precision");  // the recording is bf16
  EXPECT_TRUE(workers);
  EXPECT_FALSE(r["measurement_scope"]["after_run_is_patched_config"].get<bool>());
  // Validity footer: observed GPU and versions, batch/seq pattern.
  const Json& vf = r["validity_footer"];
  EXPECT_EQ(vf["gpu"], "NVIDIA H100 80GB HBM3");
  // The trace writes CUDA's integer encoding (cuda_driver_version 13000 = 1000*13 + 10*0); the
  // footer shows it readable and says which driver version it is.
  EXPECT_EQ(vf["driver"], "CUDA driver API 13.0");
  EXPECT_EQ(vf["cuda"], "13.0");
  EXPECT_EQ(vf["text"].get<std::string>().find("13000"), std::string::npos) << vf["text"];
  EXPECT_EQ(vf["batch_size"], 8);
  EXPECT_EQ(vf["seq_len"], 1024);
  EXPECT_EQ(vf["measured_by"], "replay");
  EXPECT_NE(vf["text"].get<std::string>().find("Valid only for"), std::string::npos);
  // Both budgets present and additive (sum = step time within rounding).
  for (const char* k : {"waste_budget_before", "waste_budget_after"}) {
    double sum = 0;
    for (const auto& b : bucket_names())
      if (r[k][b].is_number()) sum += r[k][b].get<double>();
    EXPECT_NEAR(sum, r[k]["step_time_s"].get<double>(), 1e-5) << k;
  }
}

TEST(ReplayAudit, PatchProposingUnrecordedRuleIsReported) {
  // A config whose patch sets torch.compile: the recording has no compiled run, so the report
  // must say the measured speedup does not include it.
  set_data_dir(GOBLIN_DATA_DIR);
  auto runner = ReplayRunner::open(src("examples/h100_llama"));
  ASSERT_TRUE(runner.ok());
  auto base = config::parse_config_file(src("examples/h100_llama/config_before.yaml"));
  ASSERT_TRUE(base.ok());
  auto before = runner->bench(*base);
  ASSERT_TRUE(before.ok());
  EXPECT_FALSE(runner->last_run_config());  // exact match
  config::WorkloadConfig patched = *base;
  ASSERT_TRUE(patched.set("precision", "bf16").ok());
  ASSERT_TRUE(patched.set("torch_compile", true).ok());
  auto after = runner->bench(patched);
  ASSERT_TRUE(after.ok());
  ASSERT_TRUE(runner->last_run_config());
  EXPECT_EQ(runner->last_run_id(), "after");
  Json p = patch_json(1.5, 2.5);
  p["new_config"] = config::config_to_json(patched, false);
  p["edits"] = {{"torch_compile", {{"from", false}, {"to", true}, {"rule_id", "compile.torch_compile"}}},
                {"precision", {{"from", "fp32"}, {"to", "bf16"}, {"rule_id", "precision.bf16_amp_over_fp32"}}}};
  CompareOptions co;
  co.after_run_config = runner->last_run_config();
  auto r = compare_json(RunInput{*before, {}, "b", "metrics"}, RunInput{*after, {}, "a", "metrics"}, p, co);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const Json& nm = (*r)["measurement_scope"]["patch_edits_not_in_after_run"];
  ASSERT_EQ(nm.size(), 1u) << nm.dump();
  EXPECT_EQ(nm[0]["field"], "torch_compile");
  EXPECT_EQ(nm[0]["rule_id"], "compile.torch_compile");
  bool said = false;
  for (const auto& n : (*r)["notes"])
    said |= n.get<std::string>().find("NOT in the measured speedup") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Compare, BenchRepeatsGiveBootstrapInterval) {
  Json b = metrics_json(0.2, 1000.0, "AMD Instinct MI300X", "live");
  Json a = metrics_json(0.1, 2000.0, "AMD Instinct MI300X", "live");
  // goblin bench --json shape: repeats under a.runs.
  b["a"] = {{"runs",
             {{{"step_time_s", 0.20}, {"tokens_per_sec", 1000}},
              {{"step_time_s", 0.21}, {"tokens_per_sec", 950}},
              {{"step_time_s", 0.19}, {"tokens_per_sec", 1050}}}}};
  a["a"] = {{"runs",
             {{{"step_time_s", 0.10}, {"tokens_per_sec", 2000}},
              {{"step_time_s", 0.11}, {"tokens_per_sec", 1900}},
              {{"step_time_s", 0.09}, {"tokens_per_sec", 2100}}}}};
  auto bi = run_input_from_json(Json{{"ok", true}, {"result", b}, {"error", nullptr}}, "b.json");
  auto ai = run_input_from_json(a, "a.json");
  ASSERT_TRUE(bi.ok() && ai.ok());
  EXPECT_EQ(bi->shape, "bench");
  EXPECT_EQ(bi->bench.tokens_per_sec.size(), 3u);
  auto r = compare_json(*bi, *ai, patch_json(1.5, 2.5));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  double act = (*r)["speedup_actual"];
  EXPECT_NEAR(act, 2.0, 1e-9);
  double lo = (*r)["speedup_actual_detail"]["ci_low"], hi = (*r)["speedup_actual_detail"]["ci_high"];
  EXPECT_LE(lo, 2.0);
  EXPECT_GE(hi, 2.0);
  EXPECT_GT(hi, lo);
  EXPECT_EQ((*r)["prediction_held"], "held");
  // Deltas: tokens/s +100 %, data_wait halves.
  for (const auto& row : (*r)["metric_deltas"]) {
    if (row["metric"] == "tokens_per_sec") EXPECT_NEAR(row["pct"].get<double>(), 100.0, 1e-6);
    if (row["metric"] == "waste.data_wait") EXPECT_NEAR(row["delta"].get<double>(), -0.02, 1e-9);
    if (row["metric"] == "waste.memory_headroom") EXPECT_TRUE(row["before"].is_null());
  }
  // Predicted above the actual → missed; below → exceeded.
  EXPECT_EQ((*compare_json(*bi, *ai, patch_json(2.5, 3.0)))["prediction_held"], "missed");
  EXPECT_EQ((*compare_json(*bi, *ai, patch_json(1.1, 1.5)))["prediction_held"], "exceeded");
}

// An image workload's benches (goblin bench --json of a script counted in images): the report
// speaks images/s, and its speedup is the images/s ratio even though the batch doubled (the step
// time alone would say 0.8x).
TEST(Compare, ImageWorkloadReportsImagesPerSecond) {
  auto side = [](double step, const std::vector<double>& ips) {
    Json j = metrics_json(step, std::nullopt, "NVIDIA H200", "live");
    Json runs = Json::array();
    for (double v : ips) runs.push_back({{"step_time_s", step}, {"tokens_per_sec", 0}, {"throughput", v}});
    j["a"] = {{"runs", runs}, {"throughput_unit", "images"}, {"throughput_median", ips[1]}};
    j["tokens_per_sec"] = 0;  // as goblin bench writes it for a workload that counts no tokens
    j["throughput_unit"] = "images";
    return j;
  };
  auto bi = run_input_from_json(side(0.032, {495, 500, 505}), "b.json");
  auto ai = run_input_from_json(side(0.040, {790, 800, 810}), "a.json");
  ASSERT_TRUE(bi.ok() && ai.ok()) << (bi.ok() ? ai.error().describe() : bi.error().describe());
  EXPECT_EQ(ai->bench.throughput.size(), 3u);
  auto r = compare_json(*bi, *ai, patch_json(1.4, 1.8));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ((*r)["throughput_unit"], "images");
  EXPECT_NEAR((*r)["speedup_actual"].get<double>(), 1.6, 1e-9);
  EXPECT_EQ((*r)["speedup_actual_detail"]["metric"], "throughput");
  EXPECT_NE((*r)["speedup_actual_detail"]["ci_method"].get<std::string>().find("images/s"), std::string::npos);
  EXPECT_EQ((*r)["prediction_held"], "held");
  const Json& first = (*r)["metric_deltas"][0];
  EXPECT_EQ(first["metric"], "throughput");
  EXPECT_EQ(first["unit"], "images/s");
  EXPECT_NEAR(first["pct"].get<double>(), 60.0, 1e-6);
  const std::string line = (*r)["summary_line"];
  EXPECT_NE(line.find("(500 -> 800 images/s)"), std::string::npos) << line;
  EXPECT_EQ(line.find("tokens/s"), std::string::npos) << line;
  const Report R = rep(*r);
  EXPECT_NE(report_markdown(R).find("images/s"), std::string::npos);
  EXPECT_NE(report_text(R).find("images/s"), std::string::npos);
  EXPECT_NE(report_html(R).find("images/s"), std::string::npos);
  // A token workload's report has no throughput_unit and no throughput row.
  auto tb = run_input_from_json(metrics_json(0.2, 1000.0, "NVIDIA H200", "live"), "t.json");
  auto r2 = compare_json(*tb, *tb, patch_json(1.0, 1.2));
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE(r2->contains("throughput_unit"));
  EXPECT_EQ((*r2)["metric_deltas"][0]["metric"], "tokens_per_sec");
}

// The live audit's shape: both sides are unprofiled benches (no waste budget), the BEFORE config
// also has a profiled run. The report takes BEFORE's buckets from it (labelled) and states how
// much the profiler slowed the step; an A/A-like pair is "no significant change".
TEST(Compare, ProfiledBeforeGivesBudgetAndPerturbation) {
  auto bench_side = [](double step, double tps, std::vector<double> tps_runs) {
    Json j = {
        {"step_time_s", step}, {"tokens_per_sec", tps}, {"gpu_name", "NVIDIA H100 80GB HBM3"}, {"runner_kind", "live"}};
    Json runs = Json::array();
    for (double t : tps_runs) runs.push_back({{"step_time_s", 8192.0 / t}, {"tokens_per_sec", t}});
    j["a"] = {{"runs", runs}};
    return j;
  };
  auto bi = run_input_from_json(bench_side(0.2, 40960, {40000, 40960, 41000, 40500}), "before.json");
  auto ai = run_input_from_json(bench_side(0.2, 40700, {40700, 41100, 40100, 40800}), "after.json");
  ASSERT_TRUE(bi.ok() && ai.ok());
  auto prof = run_input_from_json(metrics_json(0.25, 32768.0, "NVIDIA H100 80GB HBM3", "live"), "profile.json");
  ASSERT_TRUE(prof.ok());
  CompareOptions co;
  co.profiled_before = prof->metrics;
  auto r = compare_json(*bi, *ai, patch_json(1.5, 2.5), co);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ((*r)["waste_budget_before_source"], "profile_run");
  EXPECT_NEAR((*r)["waste_budget_before"]["data_wait"].get<double>(), 0.05, 1e-9);
  EXPECT_TRUE((*r)["waste_budget_after"].is_null());
  const Json& p = (*r)["profiler_perturbation"];
  ASSERT_TRUE(p.is_object());
  EXPECT_NEAR(p["pct"].get<double>(), 25.0, 1e-6);
  EXPECT_FALSE(p["within_10pct"].get<bool>());
  bool warned = false;
  for (const auto& f : (*r)["findings"]) {
    if (f["id"] == "measurement.profiler_perturbation") warned = f["severity"] == "warning";
    // Only the profile's own gap (memory_headroom) is left: info, not "no waste budget".
    if (f["id"] == "evidence.unobserved_buckets_before") EXPECT_EQ(f["severity"], "info") << f.dump();
  }
  EXPECT_TRUE(warned);
  EXPECT_EQ((*r)["speedup_actual_detail"]["significant"], false);
  EXPECT_NE((*r)["summary_line"].get<std::string>().find("no significant change"), std::string::npos)
      << (*r)["summary_line"];
  EXPECT_NE(
      report_markdown(rep(*r)).find("| profiler perturbation | profiled step 250.0 ms vs unprofiled 200.0 ms (+25.0 %"),
      std::string::npos);
  // Without a profiled run nothing is invented.
  auto plain = compare_json(*bi, *ai, patch_json(1.5, 2.5));
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE((*plain)["profiler_perturbation"].is_null());
  EXPECT_TRUE((*plain)["waste_budget_before"].is_null());
}

TEST(Compare, BenchObjectIntervalsOnlyUseRatioOfEnds) {
  Json b = metrics_json(0.2, std::nullopt, "", "live"), a = metrics_json(0.1, std::nullopt, "", "live");
  b["bench"] = {{"metric", "step_time_s"}, {"median", 0.2}, {"ci_low", 0.19}, {"ci_high", 0.21}};
  a["bench"] = {{"metric", "step_time_s"}, {"median", 0.1}, {"ci_low", 0.095}, {"ci_high", 0.105}};
  auto bi = run_input_from_json(b, "b"), ai = run_input_from_json(a, "a");
  ASSERT_TRUE(bi.ok() && ai.ok());
  auto r = compare_json(*bi, *ai, patch_json(1.5, 2.5));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)["speedup_actual_detail"]["metric"], "step_time_s");
  EXPECT_NEAR((*r)["speedup_actual"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR((*r)["speedup_actual_detail"]["ci_low"].get<double>(), 0.19 / 0.105, 1e-4);
  EXPECT_NEAR((*r)["speedup_actual_detail"]["ci_high"].get<double>(), 0.21 / 0.095, 1e-4);
}

TEST(Compare, Footguns) {
  Json b = metrics_json(0.2, 1000.0, "AMD Instinct MI300X", "live");
  Json a = metrics_json(0.1, 2000.0, "AMD Instinct MI300X", "trace");  // AFTER from a profiler trace
  auto bi = run_input_from_json(b, "b"), ai = run_input_from_json(a, "a");
  ASSERT_TRUE(bi.ok() && ai.ok());
  auto r = compare_json(*bi, *ai, patch_json(1.5, 2.5, {{"ROCPROFSYS_MODE", "sampling"}}, "paged_adamw_8bit"));
  ASSERT_TRUE(r.ok());
  std::map<std::string, Json> f;
  for (const auto& x : (*r)["findings"]) f[x["id"]] = x;
  ASSERT_TRUE(f.count("footgun.rocprofsys_env_as_tuning")) << (*r)["findings"].dump(1);
  EXPECT_NE(f["footgun.rocprofsys_env_as_tuning"]["detail"].get<std::string>().find("not the workload"),
            std::string::npos);
  EXPECT_EQ(f["footgun.rocprofsys_env_as_tuning"]["citation"].get<std::string>().rfind("https://", 0), 0u);
  ASSERT_TRUE(f.count("optim.bitsandbytes_on_rocm"));
  EXPECT_EQ(f["optim.bitsandbytes_on_rocm"]["severity"], "warning");  // version unknown
  EXPECT_TRUE(f.count("measurement.profiler_on_in_after_run"));
  EXPECT_TRUE(f.count("evidence.unobserved_buckets_before"));
  // bitsandbytes >= 0.50 on ROCm: informational only.
  b["versions"]["bitsandbytes"] = "0.50.1";
  auto bi2 = run_input_from_json(b, "b");
  auto r2 = compare_json(*bi2, *ai, patch_json(1.5, 2.5, {}, "paged_adamw_8bit"));
  for (const auto& x : (*r2)["findings"])
    if (x["id"] == "optim.bitsandbytes_on_rocm") EXPECT_EQ(x["severity"], "info");
  // Footer names the observed ROCm and PyTorch versions.
  const Json& vf = (*r)["validity_footer"];
  EXPECT_EQ(vf["rocm"], "6.3.1");
  EXPECT_EQ(vf["pytorch"], "2.5.1");
  EXPECT_NE(vf["text"].get<std::string>().find("ROCm 6.3.1"), std::string::npos);
}

// The footer of an AMD run names ROCm and the AMD driver, never "CUDA/ROCm version not
// recorded": from a Kineto trace's HIP version integers (the MI300X SGLang trace writes
// hip_runtime_version = hip_driver_version = 70253211), and from a live run's run.json (amd-smi's
// driver, torch.version.hip). Before, the first showed "ROCm 70253211, driver not recorded".
TEST(Compare, AmdFooterNamesRocmAndTheAmdDriver) {
  Json b = metrics_json(0.2, 1000.0, "AMD Instinct MI300X", "replay");
  b["versions"] = {{"hip_runtime", "70253211"}, {"hip_driver", "70253211"}, {"roctracer", "4.1"}};
  Json a = b;
  a["step_time_s"] = 0.1;
  auto bi = run_input_from_json(b, "b"), ai = run_input_from_json(a, "a");
  ASSERT_TRUE(bi.ok() && ai.ok());
  auto r = compare_json(*bi, *ai, patch_json(1.5, 2.5));
  ASSERT_TRUE(r.ok());
  const Json& vf = (*r)["validity_footer"];
  EXPECT_EQ(vf["rocm"], "7.2");
  EXPECT_EQ(vf["driver"], "HIP driver API 7.2.53211");
  EXPECT_TRUE(vf["cuda"].is_null());
  const std::string t = vf["text"];
  EXPECT_NE(t.find("driver HIP driver API 7.2.53211, ROCm 7.2"), std::string::npos) << t;
  EXPECT_EQ(t.find("CUDA"), std::string::npos) << t;

  // A live AMD run: run.json's versions (driver from amd-smi, hip from torch, cuda empty).
  b["versions"] = {{"driver", "6.10.5"}, {"hip", "6.4.43482-0f2d60242"}, {"cuda", ""}, {"pytorch", "2.7.0"}};
  auto bl = run_input_from_json(b, "b");
  ASSERT_TRUE(bl.ok());
  auto rl = compare_json(*bl, *bl, patch_json(1.5, 2.5));
  ASSERT_TRUE(rl.ok());
  const Json& lf = (*rl)["validity_footer"];
  EXPECT_EQ(lf["rocm"], "6.4");
  EXPECT_NE(lf["text"].get<std::string>().find("AMD driver 6.10.5, ROCm 6.4, PyTorch 2.7.0"), std::string::npos)
      << lf["text"];
}

TEST(Compare, WindowOnPrefetchedBatchesIsAValidityWarning) {
  Json b = metrics_json(0.2, 1000.0, "NVIDIA H100 80GB HBM3", "live");
  Json a = metrics_json(0.1, 2000.0, "NVIDIA H100 80GB HBM3", "live");
  auto bi = run_input_from_json(b, "b"), ai = run_input_from_json(a, "a");
  ASSERT_TRUE(bi.ok() && ai.ok());
  // The live runner's note (src/run/prefetch_window.h) on the BEFORE run only.
  bi->metrics.warnings.push_back(
      make_warning(W::window_on_prefetched_batches, "all 5 measured steps (11-15) ran on the 16 batches ..."));
  auto r = compare_json(*bi, *ai, patch_json(1.5, 2.5));
  ASSERT_TRUE(r.ok());
  int n = 0;
  for (const auto& x : (*r)["findings"])
    if (x["id"] == "validity.window_on_prefetched_batches") {
      ++n;
      EXPECT_EQ(x["severity"], "warning");
      EXPECT_EQ(x["detail"].get<std::string>().rfind("before run: all 5 measured steps", 0), 0u) << x.dump();
    }
  EXPECT_EQ(n, 1);
  // Without the note, no such finding.
  auto plain = compare_json(*run_input_from_json(b, "b"), *ai, patch_json(1.5, 2.5));
  for (const auto& x : (*plain)["findings"]) EXPECT_NE(x["id"], "validity.window_on_prefetched_batches");
}

TEST(Compare, BadInputNamesFileAndKind) {
  auto missing = load_run_input("/nonexistent/before.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::Io);
  auto broken = load_run_input(write_tmp("broken.json", "{\n  \"step_time_s\": 0.2,\n  oops\n}"));
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(broken.error().line, 3);
  EXPECT_NE(broken.error().file.find("broken.json"), std::string::npos);
  auto failed = load_run_input(write_tmp("failed.json", R"({"ok": false, "result": null, "error": {}})"));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("ok=false"), std::string::npos);
  auto empty = load_run_input(write_tmp("empty.json", R"({"gpu_name": "x"})"));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("step_time_s"), std::string::npos);
  auto badpatch = load_patch_file(write_tmp("badpatch.json", R"({"ok": true, "result": {"diff": ""}})"));
  ASSERT_FALSE(badpatch.ok());
  EXPECT_NE(badpatch.error().message.find("new_config"), std::string::npos);
  auto badbench = run_input_from_json(Json{{"step_time_s", 0.1}, {"bench", {{"samples", "x"}}}}, "b.json");
  ASSERT_FALSE(badbench.ok());
  EXPECT_EQ(badbench.error().file, "b.json");
  auto empty_dir = tmpdir() / "no_manifest";
  std::filesystem::create_directories(empty_dir);
  auto nomanifest = ReplayRunner::open(empty_dir.string());
  ASSERT_FALSE(nomanifest.ok());
  EXPECT_EQ(nomanifest.error().kind, ErrorKind::Io);
  auto badmanifest =
      ReplayRunner::open(write_tmp("replay.yaml", "runs:\n  - id: x\n    role: during\n    config: c\n"));
  ASSERT_FALSE(badmanifest.ok());
  EXPECT_NE(badmanifest.error().message.find("role"), std::string::npos);
  EXPECT_EQ(badmanifest.error().line, 2);
}

TEST(MetricsIo, OneReaderKeepsAuditBehaviour) {
  Json m = metrics_json(0.2, 1000.0, "g", "trace");
  m["waste_budget"].erase("kernel_shape");
  auto r = analysis::metrics_from_json(Json{{"ok", true}, {"result", {{"metrics", m}}}, {"error", nullptr}}, "f.json");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_DOUBLE_EQ(r->step_time_s, 0.2);
  EXPECT_DOUBLE_EQ(*r->tokens_per_sec, 1000.0);
  auto& un = r->waste_budget.unobserved;
  EXPECT_NE(std::find(un.begin(), un.end(), "kernel_shape"), un.end());
  EXPECT_NE(std::find(un.begin(), un.end(), "memory_headroom"), un.end());
  auto nob = analysis::metrics_from_json(Json{{"step_time_s", 0.1}}, "g.json");
  ASSERT_TRUE(nob.ok());
  EXPECT_EQ(nob->waste_budget.unobserved.size(), bucket_names().size());
  auto bad = analysis::metrics_from_json(Json{{"step_time_s", "slow"}}, "h.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().file, "h.json");
}

TEST(Report, HtmlIsSelfContainedAndEscaped) {
  Json b = metrics_json(0.2, 1000.0, "AMD Instinct MI300X", "live"),
       a = metrics_json(0.1, 2000.0, "AMD Instinct MI300X", "live");
  auto r = compare_json(*run_input_from_json(b, "b"), *run_input_from_json(a, "a"), patch_json(1.5, 2.5));
  ASSERT_TRUE(r.ok());
  std::string h = report_html(rep(*r));
  EXPECT_NE(h.find("<svg"), std::string::npos);
  EXPECT_NE(h.find("<rect"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("<link"), std::string::npos);
  EXPECT_EQ(h.find("src=\"http"), std::string::npos);
  EXPECT_NE(h.find("<span class=\"del\">-x: &lt;old&gt;</span>"), std::string::npos);
  EXPECT_NE(h.find("<span class=\"add\">+x: 1</span>"), std::string::npos);
  EXPECT_NE(h.find("href=\"https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html\""), std::string::npos);
  EXPECT_NE(h.find("Valid only for"), std::string::npos);
  std::string md = report_markdown(rep(*r));
  EXPECT_NE(md.find("| actual | 2.00x"), std::string::npos) << md;
  auto dir = (tmpdir() / "out").string();
  std::vector<std::string> w;
  ASSERT_TRUE(write_report_files(rep(*r), dir, &w).ok());
  EXPECT_EQ(w.size(), 3u);
  for (const auto& p : w) EXPECT_TRUE(std::filesystem::file_size(p) > 100) << p;
}

// --rounds on the replay: round 1 is measured (4.77x, accepted); round 2 starts from the AFTER
// recording's profile, patches again (torch.compile among its rules), and stops: the recordings
// hold no run of round 2's config, so nothing is measured and nothing is claimed.
TEST(ReplayAudit, RoundsGoAsFarAsTheRecordings) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto runner = ReplayRunner::open(src("examples/h100_llama"));
  ASSERT_TRUE(runner.ok());
  AuditOptions opt;
  opt.rounds = 2;
  opt.round_dir = (tmpdir() / "rounds").string();
  auto o = run_audit(src("examples/h100_llama/config_before.yaml"), *runner, opt);
  ASSERT_TRUE(o.ok() && !o->error) << (o.ok() ? o->error->describe() : o.error().describe());
  const Json r = report_to_json(o->report);
  ASSERT_EQ(r["rounds"].size(), 2u) << r["rounds"].dump(1);
  EXPECT_EQ(r["rounds"][0]["accepted"], true);
  EXPECT_NE(r["rounds"][0]["accepted_note"].get<std::string>().find("not established"), std::string::npos);
  const Json& r2 = r["rounds"][1];
  EXPECT_EQ(r2["round"], 2);
  EXPECT_EQ(r2["accepted"], false);
  bool compile = false;
  for (const auto& id : r2["rules"]) compile |= id == "compile.torch_compile";
  EXPECT_TRUE(compile) << r2["rules"].dump();  // the AFTER profile is host-bound: compile is proposed
  EXPECT_TRUE(r2["predicted"]["low"].is_number());
  EXPECT_NE(r["rounds_stop_reason"].get<std::string>().find("not measured"), std::string::npos)
      << r["rounds_stop_reason"];
  EXPECT_EQ(r["rounds_accepted"], 1);
  EXPECT_NEAR(r["total_speedup"]["point"].get<double>(), 4.77, 0.01);
  // Round 2 ran on round 1's patched file.
  EXPECT_TRUE(std::filesystem::exists(tmpdir() / "rounds" / "round-1.yaml"));
  EXPECT_NE(report_markdown(rep(r)).find("## Rounds"), std::string::npos);
  EXPECT_NE(report_markdown(rep(r)).find("## Waste budget before and after (profiled)"), std::string::npos);
}

TEST(AuditCli, ReplayJsonEnvelope) {
  std::string out = (tmpdir() / "cli_audit").string();
  std::string cmd = std::string(GOBLIN_BINARY_DIR) + "/goblin audit " + src("examples/h100_llama/config_before.yaml") +
                    " --replay " + src("examples/h100_llama") + " -o " + out + " --json -q 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  int rc = pclose(p);
  EXPECT_EQ(WEXITSTATUS(rc), 0);
  Json j = Json::parse(text);
  ASSERT_TRUE(j["ok"].get<bool>()) << text.substr(0, 500);
  EXPECT_NEAR(j["result"]["speedup_actual"].get<double>(), 4.77, 0.01);
  EXPECT_TRUE(std::filesystem::exists(out + "/report.html"));
  EXPECT_TRUE(std::filesystem::exists(out + "/patched_config_before.yaml"));
  // A replay directory without a manifest: exit 3 (input missing), not a crash. (Without --replay the
  // audit is live: src/run's tests cover it.)
  std::string cmd2 = std::string(GOBLIN_BINARY_DIR) + "/goblin audit " + src("examples/h100_llama/config_before.yaml") +
                     " --replay " + (tmpdir() / "no_manifest_cli").string() + " -o " + out + " >/dev/null 2>&1";
  std::filesystem::create_directories(tmpdir() / "no_manifest_cli");
  EXPECT_EQ(WEXITSTATUS(system(cmd2.c_str())), 3);
}

// The live audit of the tuned config on the H100 (bench/results/h100_audit_rounds/
// tuned_compile_current): no rule applied. The report says so rather than leaving an empty section.
TEST(Compare, ReportSaysNoRuleAppliedOnTheTunedConfig) {
  auto text =
      read_all(std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/h100_audit_rounds/tuned_compile_current/report.json");
  ASSERT_TRUE(text.ok());
  Json r = Json::parse(*text);
  ASSERT_TRUE(r["rules"].empty());
  EXPECT_EQ(r["prediction_held"], "not_predicted");
  EXPECT_NE(report_markdown(rep(r)).find("## Rules applied\n\nNone: no rule's detect holds"), std::string::npos);
  EXPECT_NE(report_html(rep(r)).find("None: no rule's detect holds"), std::string::npos);
}

// A replay whose AFTER side is the BEFORE side's own recording (the same file, or a copy of its
// bytes) measured nothing: the report says not_measured in every form (JSON, Markdown, HTML, the
// round's summary), never "1.00x, prediction missed", and the round never enters the history that
// calibrates later audits.
TEST(ReplayAudit, OneRecordingOnBothSidesIsNotMeasured) {
  set_data_dir(GOBLIN_DATA_DIR);
  const std::string trace = std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz";
  const auto copy = tmpdir() / "copy_of_before.json.gz";
  std::filesystem::copy_file(trace, copy, std::filesystem::copy_options::overwrite_existing);
  for (const std::string& after : {trace, copy.string()}) {
    SCOPED_TRACE(after);
    const std::string dir = (tmpdir() / (after == trace ? "same_file" : "same_bytes")).string();
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/replay.yaml") << "runs:\n  - id: before\n    role: baseline\n    config: "
                                        << src("examples/h100_llama/config_before.yaml") << "\n    trace: " << trace
                                        << "\n  - id: after\n    role: after\n    config: "
                                        << src("examples/h100_llama/config_after.yaml") << "\n    trace: " << after
                                        << "\n";
    auto runner = ReplayRunner::open(dir);
    ASSERT_TRUE(runner.ok()) << runner.error().describe();
    AuditOptions opt;
    opt.history_path = dir + "/history.sqlite";
    auto o = run_audit(src("examples/h100_llama/config_before.yaml"), *runner, opt);
    ASSERT_TRUE(o.ok() && !o->error) << (o.ok() ? o->error->describe() : o.error().describe());
    const Json r = report_to_json(o->report);
    EXPECT_EQ(r["prediction_held"], "not_measured") << r["summary_line"];
    EXPECT_TRUE(r["speedup_actual"].is_null()) << r["speedup_actual"];
    EXPECT_TRUE(r["speedup_predicted_low"].is_number());  // predicted, just not tested
    const std::string how = after == trace ? "the same file" : "files of identical content";
    EXPECT_NE(r["prediction_note"].get<std::string>().find(how), std::string::npos) << r["prediction_note"];
    EXPECT_NE(r["summary_line"].get<std::string>().find("not measured"), std::string::npos) << r["summary_line"];
    EXPECT_EQ(r["summary_line"].get<std::string>().find("missed"), std::string::npos) << r["summary_line"];
    ASSERT_EQ(r["rounds"].size(), 1u);
    EXPECT_EQ(r["rounds"][0]["prediction_held"], "not_measured");
    EXPECT_EQ(r["rounds"][0]["accepted"], false);
    const Report back = rep(r);
    EXPECT_NE(report_markdown(back).find("not measured"), std::string::npos);
    EXPECT_EQ(report_markdown(back).find("prediction missed"), std::string::npos);
    EXPECT_NE(report_html(back).find("not measured"), std::string::npos);
    // Nothing for calibration: the history holds no round of this audit.
    auto h = HistoryStore::open(opt.history_path);
    ASSERT_TRUE(h.ok()) << h.error().describe();
    auto all = h->all();
    ASSERT_TRUE(all.ok());
    EXPECT_TRUE(all->empty()) << all->size();
  }
}

// The AFTER recording's metadata claims 12,000 tokens/s against the BEFORE's 4,000 over the same
// 10 ms steps at the same batch x seq (both configs: 4 x 10; tests/fixtures/throughput): the
// headline is the step times' 1.00x, never "3.00x faster", and the contradiction is stated.
TEST(ReplayAudit, MetadataTokensPerSecContradictingStepsIsNotTheSpeedup) {
  set_data_dir(GOBLIN_DATA_DIR);
  const std::string dir = std::string(GOBLIN_FIXTURES) + "/throughput";
  auto runner = ReplayRunner::open(dir);
  ASSERT_TRUE(runner.ok()) << runner.error().describe();
  auto o = run_audit(dir + "/config_before.yaml", *runner, AuditOptions{});
  ASSERT_TRUE(o.ok() && !o->error) << (o.ok() ? o->error->describe() : o.error().describe());
  const Json r = report_to_json(o->report);
  ASSERT_TRUE(r["speedup_actual"].is_number()) << r.dump(1);
  EXPECT_NEAR(r["speedup_actual"].get<double>(), 1.0, 1e-3);
  EXPECT_EQ(r["speedup_actual_detail"]["metric"], "step_time_s");
  const std::string sl = r["summary_line"];
  EXPECT_EQ(sl.find("3.00x"), std::string::npos) << sl;
  EXPECT_NE(sl.find("tokens/s refused as evidence"), std::string::npos) << sl;
  EXPECT_NE(r["speedup_actual_detail"]["basis"].get<std::string>().find("4,000 -> 12,000"), std::string::npos)
      << r["speedup_actual_detail"]["basis"];
  int n = 0;
  for (const auto& f : r["findings"]) n += f["id"] == "validity.throughput_sources_disagree";
  EXPECT_EQ(n, 1) << r["findings"].dump(1);
  // Rendered: the Markdown report states it too.
  EXPECT_NE(report_markdown(rep(r)).find("refused as evidence"), std::string::npos);
}
