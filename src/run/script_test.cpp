// --script: a user's unmodified script (src/run/testdata/standin_script.py writes no result) run
// with goblin's hook (workloads/goblin_hook/sitecustomize.py), which times the optimizer steps and
// writes the result JSON itself, then ends the process after the measured window. torch is not
// installed on the CPU machines, so src/run/testdata/fake_torch is a TEST DOUBLE of the hook's
// entry point (torch.optim.optimizer.register_optimizer_step_post_hook and Optimizer.step).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/io.h"
#include "core/test_support.h"
#include "run/live.h"
#include "run/runners.h"

namespace goblin::run {
namespace {

std::string src(const std::string& p) { return std::string(GOBLIN_SOURCE_DIR) + "/" + p; }

struct FakeTorchPath {
  FakeTorchPath() { setenv("PYTHONPATH", src("src/run/testdata/fake_torch").c_str(), 1); }
  ~FakeTorchPath() { unsetenv("PYTHONPATH"); }
};

// The stand-in script on base.yaml, with the hook timing STEPS after WARMUP.
WorkloadSpec standin_script(int steps, int warmup) {
  auto w = script_workload(src("workloads/configs/base.yaml"), src("workloads/configs/base.yaml"),
                           src("src/run/testdata/standin_script.py"), {});
  if (!w.ok()) {
    ADD_FAILURE() << w.error().describe();
    return {};
  }
  w->steps = steps;
  w->warmup = warmup;
  w->timeout_s = 60;
  return *w;
}

// A launch script is its own workload: run whole under bash (a shell script) or its launch line
// alone (a README), with the hook timing and tokens per step from the line's flags.
TEST(Script, LaunchScriptsRunTheirOwnLine) {
  auto sh = resolve_workload(src("tests/sim_rocm/command/train.sh"), "");
  ASSERT_TRUE(sh.ok()) << sh.error().describe();
  EXPECT_EQ(sh->command, (std::vector<std::string>{"bash", src("tests/sim_rocm/command/train.sh")}));
  EXPECT_TRUE(sh->hook_result);
  ASSERT_TRUE(sh->tokens_per_step);
  EXPECT_EQ(*sh->tokens_per_step, 2 * 1024);  // --per_device_train_batch_size 2 --block_size 1024
  const std::string md = ::testing::TempDir() + "goblin_script_test_README.md";
  ASSERT_TRUE(write_file(md, "Run:\n\n```sh\npython3 train.py \\\n  --per_device_train_batch_size 4\n```\n").ok());
  auto r = resolve_workload(md, "");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->command,
            (std::vector<std::string>{"bash", "-c", "python3 train.py \\\n  --per_device_train_batch_size 4"}));
  // --workload names the harness: the script is then its config, as before.
  auto h = resolve_workload(src("tests/sim_rocm/command/train.sh"), src("tests/sim_rocm/workload.py"));
  ASSERT_TRUE(h.ok()) << h.error().describe();
  EXPECT_TRUE(h->command.empty());
  std::filesystem::remove(md);
}

TEST(Script, ConfigBecomesArgumentAndTokensFromConfig) {
  auto w = script_workload(src("workloads/configs/base.yaml"), src("workloads/configs/base.yaml"),
                           src("src/run/testdata/standin_script.py"), {});
  ASSERT_TRUE(w.ok()) << w.error().describe();
  EXPECT_TRUE(w->hook_result);
  ASSERT_EQ(w->command.size(), 3u);
  EXPECT_EQ(w->command[2], src("workloads/configs/base.yaml"));
  ASSERT_TRUE(w->tokens_per_step);
  EXPECT_EQ(*w->tokens_per_step, 8 * 1024 * 1);  // batch x seq x accumulation of base.yaml
  // {config} and the config as given are replaced by the file each run uses.
  auto p = script_workload("/tmp/patched.yaml", "my.yaml", src("src/run/testdata/standin_script.py"),
                           {"--cfg={config}", "my.yaml", "--x"});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->command[2], "--cfg=/tmp/patched.yaml");
  EXPECT_EQ(p->command[3], "/tmp/patched.yaml");
  // Arguments that never name the config cannot carry a patched config to the script.
  auto bad = script_workload("/tmp/patched.yaml", "my.yaml", src("src/run/testdata/standin_script.py"), {"--x"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("{config}"), std::string::npos);
  EXPECT_FALSE(script_workload("a.yaml", "a.yaml", "/no/such/train.py", {}).ok());
}

TEST(Script, HookWritesTheResultAndEndsTheRunAfterTheWindow) {
  FakeTorchPath fake;
  WorkloadSpec w = standin_script(6, 2);
  auto dir = goblin::testing::private_tmp_dir("script_run").string();
  RunOutcome o = run_workload(w, dir, {}, "");
  auto err = read_all(dir + "/stderr.log");
  ASSERT_FALSE(o.error) << o.error->describe() << "\n" << (err ? *err : std::string());
  const Json& r = o.result;
  EXPECT_EQ(r["schema"], "goblin.workload_result/1");
  EXPECT_NE(r["writer"].get<std::string>().find("goblin_hook"), std::string::npos);
  EXPECT_EQ(r["steps_measured"], 6);
  EXPECT_EQ(r["warmup_steps"], 2);
  double st = r["step_time_seconds"];
  EXPECT_GE(st, 0.011);  // 12 ms sleeps; loose upper bound for a loaded machine
  EXPECT_LT(st, 0.2);
  EXPECT_EQ(r["tokens_per_step"], 8192);
  EXPECT_NEAR(r["tokens_per_sec"].get<double>(), 8192 / st, 1e-6 * 8192 / st);
  EXPECT_EQ(r["step_times"].size(), 6u);
  EXPECT_EQ(r["env"]["torch"], "0.0.0+goblin-test-double");
  // The hook ended the script after warm-up + window (8 of its 500 steps, ~0.1 s, not 6 s).
  EXPECT_LT(o.proc.wall_s, 4.0);
  auto out = read_all(dir + "/stdout.log");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->find("ran all 500 steps"), std::string::npos);
}

// goblin profile --tracer cupti's hook mode (GOBLIN_TRACER=cupti): NVTX step ranges, and the
// unrecorded steps just before the window timed like the window (GOBLIN_PROFILE_COMPARE), handed
// to the tracer's metadata through $GOBLIN_CUPTI_DIR/goblin_meta_<pid>.tsv. The tracer itself
// needs a GPU (device runs: bench/results/tracer); here it is absent, which the paused mode must
// report rather than leave an empty window.
std::map<std::string, std::string> cupti_hook_env(const std::string& dir) {
  return {{"GOBLIN_PROFILE", "1"},        {"GOBLIN_TRACER", "cupti"},   {"GOBLIN_PROFILE_OUT", dir},
          {"GOBLIN_CUPTI_DIR", dir},      {"GOBLIN_PROFILE_WAIT", "4"}, {"GOBLIN_PROFILE_ACTIVE", "3"},
          {"GOBLIN_PROFILE_COMPARE", "2"}};
}

TEST(Script, CuptiHookTimesUnrecordedStepsBeforeItsWindow) {
  FakeTorchPath fake;
  WorkloadSpec w = standin_script(3, 4);
  auto dir = goblin::testing::private_tmp_dir("script_cupti_hook").string();
  RunOutcome o = run_workload(w, dir, cupti_hook_env(dir), "");
  ASSERT_FALSE(o.error) << o.error->describe();
  auto hook = read_all(dir + "/hook.json");
  ASSERT_TRUE(hook.ok());
  Json h = Json::parse(*hook);
  ASSERT_EQ(h["state"], "done") << h.dump();
  EXPECT_EQ(h["recording"], "whole run");  // no GOBLIN_CUPTI_START_PAUSED
  EXPECT_EQ(h["compare_steps"], 2);
  EXPECT_EQ(h["timed_by"], "host clock");  // no CUDA here; on a GPU, CUDA events at the step edges
  double un = h["untraced_step_time_seconds"], rec = h["step_time_seconds"];
  EXPECT_GE(un, 0.011);  // the stand-in sleeps 12 ms a step, in both blocks
  EXPECT_LT(un, 0.2);
  EXPECT_GE(rec, 0.011);
  EXPECT_EQ(h["step_times"].size(), 3u);
  EXPECT_NEAR(h["tracer_step_cost_pct"].get<double>(), 100.0 * (rec / un - 1.0), 0.01);
  auto meta = read_all(fmt::format("{}/goblin_meta_{}.tsv", dir, h["pid"].get<int>()));
  ASSERT_TRUE(meta.ok());
  EXPECT_NE(meta->find("goblin_untraced_step_time_seconds\t"), std::string::npos) << *meta;
  EXPECT_NE(meta->find("goblin_untraced_steps\t2\n"), std::string::npos) << *meta;
  EXPECT_NE(meta->find("goblin_tracer_step_cost_pct\t"), std::string::npos) << *meta;
  EXPECT_NE(meta->find("goblin_recorded\t\"whole run\""), std::string::npos) << *meta;
}

// GOBLIN_PROFILE_WINDOWS=K: K windows in one process, each with its own comparison steps (the
// cost study's repeats, bench/results/tracer issue 30). The next window's comparison starts after
// the step that finished the previous one; hook.json lists each window's figures.
TEST(Script, CuptiHookRepeatsItsWindowInOneProcess) {
  FakeTorchPath fake;
  WorkloadSpec w = standin_script(3, 4);
  auto dir = goblin::testing::private_tmp_dir("script_cupti_windows").string();
  auto env = cupti_hook_env(dir);
  env["GOBLIN_PROFILE_WINDOWS"] = "3";
  RunOutcome o = run_workload(w, dir, env, "");
  ASSERT_FALSE(o.error) << o.error->describe();
  auto hook = read_all(dir + "/hook.json");
  ASSERT_TRUE(hook.ok());
  Json h = Json::parse(*hook);
  ASSERT_EQ(h["state"], "done") << h.dump();
  ASSERT_EQ(h["windows"].size(), 3u) << h.dump();
  int first = 5;  // wait 4: the window's first step is the 5th; a window is 4 + 3 steps apart
  for (const Json& win : h["windows"]) {
    EXPECT_EQ(win["first_step"], first);
    first += 7;
    EXPECT_GE(win["untraced_step_time_seconds"].get<double>(), 0.011);
    EXPECT_GE(win["step_time_seconds"].get<double>(), 0.011);
    EXPECT_TRUE(win["tracer_step_cost_pct"].is_number());
  }
  // No torch C++ extension here: the observer says why it fell back, and nothing was handed over.
  EXPECT_EQ(h.value("ops_drain", Json()), Json()) << h.dump();
}

TEST(Script, PausedTracerThatCannotResumeIsAnErrorNotAnEmptyWindow) {
  FakeTorchPath fake;
  WorkloadSpec w = standin_script(3, 4);
  auto dir = goblin::testing::private_tmp_dir("script_cupti_paused").string();
  auto env = cupti_hook_env(dir);
  env["GOBLIN_CUPTI_START_PAUSED"] = "1";
  env["CUDA_INJECTION64_PATH"] = dir + "/no_such_libgoblin_cupti.so";
  RunOutcome o = run_workload(w, dir, env, "");
  auto hook = read_all(dir + "/hook.json");
  ASSERT_TRUE(hook.ok());
  Json h = Json::parse(*hook);
  EXPECT_EQ(h["state"], "error");
  EXPECT_NE(h.value("error", "").find("cannot resume the CUPTI tracer"), std::string::npos) << h.dump();
  EXPECT_EQ(h["recording"], "window");
  // The failed window ends a --script run like a finished one (not its 500 steps, 6 s).
  EXPECT_LT(o.proc.wall_s, 4.0);
}

TEST(Script, BenchInterleavesTwoConfigsOfOneScript) {
  FakeTorchPath fake;
  BenchRequest req;
  auto a = script_workload(src("workloads/configs/base.yaml"), src("workloads/configs/base.yaml"),
                           src("src/run/testdata/standin_script.py"), {"{config}"});
  auto b = script_workload(src("workloads/configs/tuned.yaml"), src("workloads/configs/base.yaml"),
                           src("src/run/testdata/standin_script.py"), {"{config}"});
  ASSERT_TRUE(a.ok() && b.ok());
  for (auto* s : {&*a, &*b}) s->steps = 5, s->warmup = 1, s->timeout_s = 60;
  req.a = *a;
  req.b = *b;
  req.repeats = 2;
  req.use_cache = false;
  req.require_gpu = false;
  req.work_dir = goblin::testing::private_tmp_dir("script_bench").string();
  BenchOutcome bo = bench_workloads(req);
  ASSERT_FALSE(bo.error) << bo.error->describe();
  EXPECT_EQ(bo.value["order"], "ABAB");
  // tuned.yaml has bf16: true, so the stand-in sleeps 3 ms instead of 12 ms a step.
  EXPECT_GT(bo.value["comparison"]["speedup"]["point"].get<double>(), 1.5) << bo.value["comparison"].dump();
  EXPECT_GT(bo.value["tokens_per_sec"].get<double>(), 0);
  // Versions come from goblin's environment fingerprint where the result has none (no CUDA here).
  EXPECT_TRUE(bo.value["versions"].contains("python")) << bo.value["versions"].dump();
}

TEST(Script, VersionsFromFingerprint) {
  auto v = versions_from_fingerprint(
      "gpu=NVIDIA H100 80GB HBM3;driver=580.159.04;vendor=nvidia;python=python3;torch,cuda,hip,py=2.11.0+cu130 13.0  "
      "3.12.3;host=vm");
  EXPECT_EQ(v["pytorch"], "2.11.0+cu130");
  EXPECT_EQ(v["cuda"], "13.0");
  EXPECT_EQ(v.count("rocm"), 0u);
  EXPECT_EQ(v["python"], "3.12.3");
  EXPECT_EQ(v["driver"], "580.159.04");
  EXPECT_EQ(v["gpu"], "NVIDIA H100 80GB HBM3");
  Json filled = fill_versions(Json{{"pytorch", "2.5"}, {"cuda", ""}}, "driver=1;torch,cuda,hip,py=2.11 13.0  3.12");
  EXPECT_EQ(filled["pytorch"], "2.5");  // the workload's own report wins
  EXPECT_EQ(filled["cuda"], "13.0");    // an empty value is filled
  EXPECT_EQ(filled["driver"], "1");
  EXPECT_TRUE(versions_from_fingerprint("torch,cuda,hip,py=unavailable").empty());
}

}  // namespace
}  // namespace goblin::run
