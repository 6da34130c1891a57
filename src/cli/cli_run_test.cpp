// The runners end to end through the goblin binary, with a stand-in workload (a small Python
// script with train.py's command line and result contract; no torch, no GPU).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "core/io.h"
#include "core/json.h"
#include "core/test_support.h"

namespace fs = std::filesystem;

namespace {

using Out = goblin::testing::CommandResult;
Out sh(const std::string& cmd) { return goblin::testing::run_command(cmd + " 2>/dev/null"); }

std::string goblin_bin() { return std::string(GOBLIN_BINARY_DIR) + "/goblin"; }
std::string src(const std::string& p) { return std::string(GOBLIN_SOURCE_DIR) + "/" + p; }
std::string standin() { return src("src/run/testdata/standin_workload.py"); }

std::string tmpdir(const std::string& name) { return goblin::testing::private_tmp_dir("run_" + name).string(); }

goblin::Json parse(const std::string& s) {
  try {
    return goblin::Json::parse(s);
  } catch (...) {
    ADD_FAILURE() << "not JSON: " << s;
    return nullptr;
  }
}

std::string bench_cmd(const std::string& env, const std::string& extra) {
  return env + " GOBLIN_CACHE_DIR=" + tmpdir(fmt::format("cache_{}", std::hash<std::string>{}(env + extra))) + " " +
         goblin_bin() + " bench " + src("workloads/configs/base.yaml") + " --workload " + standin() +
         " --allow-no-gpu --steps 4 --warmup 1 --json " + extra;
}

}  // namespace

TEST(CliBench, InterleavedComparisonMeasuresTheStandInSpeedup) {
  // The stand-in sleeps 16 ms a step for base.yaml and 4 ms for tuned.yaml (bf16: true).
  Out o = sh(bench_cmd("", "--against " + src("workloads/configs/tuned.yaml") + " --repeats 4"));
  ASSERT_EQ(o.code, 0) << o.out;
  auto j = parse(o.out);
  ASSERT_TRUE(j["ok"].get<bool>());
  const auto& r = j["result"];
  EXPECT_EQ(r["runner_kind"], "live");
  EXPECT_EQ(r["order"], "ABABABAB");
  EXPECT_EQ(r["a"]["runs"].size(), 4u);
  double sp = r["comparison"]["speedup"]["point"].get<double>();
  EXPECT_GT(sp, 2.0);  // 4x asleep; loose for loaded CI machines
  EXPECT_GT(r["comparison"]["speedup"]["low"].get<double>(), 1.0);
  EXPECT_FALSE(r["comparison"]["interval_includes_1"].get<bool>());
  EXPECT_TRUE(r["a"]["aa_noise_floor_pct"].is_number());
  EXPECT_EQ(r["cache"]["hit"], false);
  // No GPU telemetry on a CPU machine: utilisation is unobserved (null with a note), never 0.0.
  for (const char* side : {"a", "b"}) {
    EXPECT_TRUE(r[side]["gpu_util_pct"].is_null()) << side;
    EXPECT_NE(r[side]["gpu_util_note"].get<std::string>().find("unobserved"), std::string::npos);
  }
  EXPECT_FALSE(r.contains("gpu_util_pct"));
  EXPECT_NE(r["gpu_util_note"].get<std::string>().find("unobserved"), std::string::npos);
}

TEST(CliAudit, LiveAuditBenchesBeforeAndAfterInterleavedWithAnInterval) {
  // The whole live audit through the goblin binary with the stand-in workload: profile, patch
  // (bf16 among its edits makes the stand-in 4x faster), bench_pair A B A B, compare, report.
  std::string dir = tmpdir("audit_live");
  // --repeats beats the GOBLIN_AUDIT_REPEATS=2 a script left in the environment.
  Out o = sh("GOBLIN_AUDIT_ALLOW_NO_GPU=1 GOBLIN_AUDIT_REPEATS=2 GOBLIN_WORKLOAD=" + standin() + " " + goblin_bin() +
             " audit " + src("workloads/configs/base.yaml") + " -o " + dir +
             " --repeats 3 --steps 3 --rounds 1 --no-history -q --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto j = parse(o.out);
  ASSERT_TRUE(j["ok"].get<bool>()) << o.out;
  auto rep = parse(sh("cat " + dir + "/report.json").out);
  const auto& d = rep["speedup_actual_detail"];
  EXPECT_EQ(d["interleaved"], true);
  EXPECT_EQ(d["run_order"], "ABABAB");
  ASSERT_TRUE(d["ci_low"].is_number()) << d.dump();
  EXPECT_GT(d["ci_low"].get<double>(), 1.0);
  EXPECT_LE(d["ci_low"].get<double>(), d["ci_high"].get<double>());
  EXPECT_EQ(rep["validity_footer"]["measured_by"], "live");
  auto md = sh("cat " + dir + "/report.md").out;
  EXPECT_NE(md.find("| run order | ABABAB"), std::string::npos);
  auto runs = parse(sh("cat " + dir + "/live_runs.json").out);
  ASSERT_EQ(runs.size(), 3u);  // profile, one bench_pair, the AFTER side's profile
  EXPECT_EQ(runs[1]["call"], "bench_pair");
  EXPECT_EQ(runs[1]["bench"]["order"], "ABABAB");
  EXPECT_EQ(runs[2]["call"], "profile");
}

// --rounds 2 with a history file: round 1 accepted (significant), round 2 patches the patched
// config and is reverted (the stand-in's speed follows bf16 only); the history holds both rounds
// and a second audit reads them for calibration (the report says how many matched).
// GOBLIN_STANDIN_EXACT=1: round 2 compares two equally fast configs, and with measured sleeps a
// loaded CI machine once made that "significantly" faster (3 runs a side: no noise floor).
TEST(CliAudit, RoundsWithHistory) {
  std::string dir = tmpdir("audit_rounds"), hist = tmpdir("audit_rounds_hist") + "/h.sqlite";
  auto cmd = "GOBLIN_STANDIN_EXACT=1 GOBLIN_AUDIT_ALLOW_NO_GPU=1 GOBLIN_WORKLOAD=" + standin() + " " + goblin_bin() +
             " audit " + src("workloads/configs/base.yaml") + " -o " + dir +
             " --repeats 3 --steps 3 --rounds 2 --history " + hist + " -q --json";
  Out o = sh(cmd);
  ASSERT_EQ(o.code, 0) << o.out;
  auto rep = parse(sh("cat " + dir + "/report.json").out);
  ASSERT_EQ(rep["rounds"].size(), 2u) << rep["rounds"].dump(1);
  EXPECT_EQ(rep["rounds"][0]["accepted"], true);
  EXPECT_EQ(rep["rounds"][1]["accepted"], false);
  EXPECT_NE(rep["rounds"][1]["reverted"].get<std::string>().find("reverted"), std::string::npos);
  EXPECT_TRUE(rep["rounds"][1]["history_id"].is_number());
  EXPECT_TRUE(fs::exists(dir + "/rounds/round-1.yaml"));
  auto md = sh("cat " + dir + "/report.md").out;
  EXPECT_NE(md.find("## Rounds"), std::string::npos);
  EXPECT_NE(md.find("## Calibration (audit history)"), std::string::npos);
  Out again = sh(cmd);
  ASSERT_EQ(again.code, 0) << again.out;
  auto rep2 = parse(sh("cat " + dir + "/report.json").out);
  // The stand-in's profile has no waste budget, so no range to calibrate; the history still
  // counts the first audit's measured rounds per rule.
  EXPECT_NE(rep2["calibration"]["reason"].get<std::string>().find("no predicted range"), std::string::npos)
      << rep2["calibration"].dump();
  ASSERT_FALSE(rep2["calibration"]["by_rule"].empty()) << rep2["calibration"].dump();
  EXPECT_GE(rep2["calibration"]["by_rule"][0]["audits"].get<int>(), 1);
  EXPECT_GT(rep2["rounds"][0]["history_id"].get<int>(), rep["rounds"][1]["history_id"].get<int>());
}

// --script for bench: a script with no result code (src/run/testdata/standin_script.py), timed by
// goblin's hook, which writes the result; fake_torch is a TEST DOUBLE of torch's optimizer hook.
TEST(CliBench, ScriptIsTimedByTheHook) {
  Out o = sh("PYTHONPATH=" + src("src/run/testdata/fake_torch") + " GOBLIN_CACHE_DIR=" + tmpdir("script_cache") + " " +
             goblin_bin() + " bench " + src("workloads/configs/base.yaml") + " --against " +
             src("workloads/configs/tuned.yaml") + " --script " + src("src/run/testdata/standin_script.py") +
             " --allow-no-gpu --steps 4 --warmup 1 --repeats 2 --json -- '{config}'");
  ASSERT_EQ(o.code, 0) << o.out;
  auto j = parse(o.out);
  const auto& r = j["result"];
  EXPECT_EQ(r["order"], "ABAB");
  EXPECT_GT(r["comparison"]["speedup"]["point"].get<double>(), 1.5);  // 12 ms vs 3 ms a step
  EXPECT_NEAR(r["a"]["runs"][0]["tokens_per_sec"].get<double>() * r["a"]["runs"][0]["step_time_s"].get<double>(),
              8192.0, 10.0);  // tokens per step = batch 8 x seq 1024 x accumulation 1 from base.yaml
  // Arguments after -- without --script are a usage error.
  Out bad = sh(goblin_bin() + " bench " + src("workloads/configs/base.yaml") + " --allow-no-gpu --json -- x");
  EXPECT_EQ(bad.code, 2) << bad.out;
}

TEST(CliAudit, LiveKnobsWithReplayAreAUsageError) {
  Out o = sh(goblin_bin() + " audit " + src("examples/h100_llama/config_before.yaml") + " --replay " +
             src("examples/h100_llama") + " --repeats 3 -o " + tmpdir("audit_replay_knobs") + " -q --json");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(parse(o.out)["error"].get<std::string>().find("runs nothing"), std::string::npos) << o.out;
}

TEST(CliAudit, LiveAuditWithoutAGpuPointsAtReplay) {
  Out o = sh("GOBLIN_ASSUME_NO_GPU=1 " + goblin_bin() + " audit " + src("workloads/configs/base.yaml") + " -o " +
             tmpdir("audit_nogpu") + " -q --json");
  EXPECT_EQ(o.code, 7);
  EXPECT_NE(parse(o.out)["error"].get<std::string>().find("--replay"), std::string::npos);
}

TEST(CliBench, SecondCallIsACacheHitAndNoCacheRemeasures) {
  std::string cache = tmpdir("cache_hit");
  std::string base = "GOBLIN_CACHE_DIR=" + cache + " " + goblin_bin() + " bench " + src("workloads/configs/base.yaml") +
                     " --workload " + standin() + " --allow-no-gpu --steps 2 --warmup 1 --repeats 2 --json";
  auto a = parse(sh(base).out);
  ASSERT_TRUE(a["ok"].get<bool>()) << a.dump();
  EXPECT_FALSE(a["result"]["cache"]["hit"].get<bool>());
  auto b = parse(sh(base).out);
  EXPECT_TRUE(b["result"]["cache"]["hit"].get<bool>());
  EXPECT_EQ(a["result"]["cache"]["key"], b["result"]["cache"]["key"]);
  EXPECT_EQ(a["result"]["step_time_s"], b["result"]["step_time_s"]);
  auto c = parse(sh(base + " --no-cache").out);
  EXPECT_FALSE(c["result"]["cache"]["hit"].get<bool>());
  // A different step count is a different key.
  auto d = parse(sh("GOBLIN_CACHE_DIR=" + cache + " " + goblin_bin() + " bench " + src("workloads/configs/base.yaml") +
                    " --workload " + standin() + " --allow-no-gpu --steps 3 --warmup 1 --repeats 2 --json")
                     .out);
  EXPECT_NE(a["result"]["cache"]["key"], d["result"]["cache"]["key"]);
}

TEST(CliBench, CrashOomAndNoGpuAreFindingsWithExitCodes) {
  Out crash = sh(bench_cmd("GOBLIN_STANDIN=crash", "--repeats 1"));
  EXPECT_EQ(crash.code, 8);
  auto j = parse(crash.out);
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_NE(j["error"].get<std::string>().find("crashed with exit code 1"), std::string::npos);

  Out oom = sh(bench_cmd("GOBLIN_STANDIN=oom", "--repeats 1"));
  EXPECT_EQ(oom.code, 8);
  EXPECT_NE(parse(oom.out)["error"].get<std::string>().find("CUDA out of memory"), std::string::npos);

  Out nogpu = sh(bench_cmd("GOBLIN_STANDIN=nogpu", "--repeats 1"));
  EXPECT_EQ(nogpu.code, 7);

  // Without --allow-no-gpu, a machine without a GPU is refused before anything runs.
  Out refused = sh("GOBLIN_ASSUME_NO_GPU=1 " + goblin_bin() + " bench " + src("workloads/configs/base.yaml") +
                   " --workload " + standin() + " --json");
  EXPECT_EQ(refused.code, 7);
  EXPECT_NE(parse(refused.out)["error"].get<std::string>().find("--replay"), std::string::npos);
}

TEST(CliBench, HangIsKilledWithItsWholeProcessGroup) {
  std::string pidfile = tmpdir("hang") + "/child.pid";
  auto t0 = std::chrono::steady_clock::now();
  Out o = sh(bench_cmd("GOBLIN_STANDIN=hang STANDIN_PIDFILE=" + pidfile, "--repeats 1 --timeout 8"));
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(o.code, 8);
  EXPECT_NE(parse(o.out)["error"].get<std::string>().find("hung"), std::string::npos);
  EXPECT_LT(el, 60);
  std::ifstream f(pidfile);
  int pid = 0;
  if (f >> pid) {  // the stand-in forked a grandchild before the timeout: it must be gone
    bool alive = true;
    for (int i = 0; i < 50 && alive; ++i) {
      std::ifstream st(fmt::format("/proc/{}/stat", pid));
      std::string a, b, state;
      alive = static_cast<bool>(st >> a >> b >> state) && state != "Z";
      if (alive) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_FALSE(alive) << "stray process " << pid;
  }
}

TEST(CliProfile, WritesARunDirectory) {
  std::string dir = tmpdir("profile_ok");
  Out o = sh(goblin_bin() + " profile " + src("workloads/configs/base.yaml") + " --workload " + standin() +
             " --allow-no-gpu --steps 3 --warmup 1 -o " + dir + " --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto j = parse(o.out)["result"];
  EXPECT_EQ(j["runner_kind"], "live");
  EXPECT_EQ(j["hook"]["state"], "done");
  EXPECT_EQ(j["env_added"]["GOBLIN_PROFILE"], "1");
  EXPECT_NE(j["env_added"]["PYTHONPATH"].get<std::string>().find("goblin_hook"), std::string::npos);
  EXPECT_GT(j["profiled"]["step_time_s"].get<double>(), 0);
  for (const char* f : {"run.json", "metrics.json", "result.json", "hook.json", "stdout.log", "stderr.log"})
    EXPECT_TRUE(fs::exists(fs::path(dir) / f)) << f;
  auto m = parse(sh("cat " + dir + "/metrics.json").out);
  EXPECT_EQ(m["runner_kind"], "live");
  EXPECT_GT(m["step_time_s"].get<double>(), 0);
}

TEST(CliProfile, ProfilerMissingIsAnEnvironmentFinding) {
  Out o = sh("GOBLIN_STANDIN=profiler_missing " + goblin_bin() + " profile " + src("workloads/configs/base.yaml") +
             " --workload " + standin() + " --allow-no-gpu --steps 2 --warmup 1 -o " + tmpdir("profile_missing") +
             " --json");
  EXPECT_EQ(o.code, 7);
  EXPECT_NE(parse(o.out)["error"].get<std::string>().find("profiler is not available"), std::string::npos);
}

// `CONFIG --script FILE -- ARGS`: the arguments after `--` reach the script ({config} replaced by
// the config's path). The fake torch has no profiler, so the run ends as that finding (exit 7).
TEST(CliProfile, ScriptArgumentsAfterDoubleDashReachTheScript) {
  std::string dir = tmpdir("profile_script_args");
  Out o = sh("PYTHONPATH=" + src("src/run/testdata/fake_torch") + " " + goblin_bin() + " profile " +
             src("workloads/configs/base.yaml") + " --script " + src("src/run/testdata/standin_script.py") +
             " --allow-no-gpu --steps 2 --warmup 1 -o " + dir + " --json -- --cfg='{config}' extra");
  EXPECT_EQ(o.code, 7) << o.out;
  EXPECT_NE(parse(o.out)["error"].get<std::string>().find("profiler is not available"), std::string::npos) << o.out;
  auto run = goblin::Json::parse(*goblin::read_all(dir + "/run.json"));
  ASSERT_EQ(run["command"].size(), 4u) << run["command"].dump();
  EXPECT_EQ(run["command"][2], "--cfg=" + src("workloads/configs/base.yaml"));
  EXPECT_EQ(run["command"][3], "extra");
}

TEST(CliProfile, CommandModeRunsAnyCommand) {
  std::string dir = tmpdir("profile_cmd");
  Out o = sh(goblin_bin() + " profile --allow-no-gpu --steps 2 --warmup 1 -o " + dir + " --json -- python3 " +
             standin() + " " + src("workloads/configs/tuned.yaml") + " --steps 2 --warmup 1");
  ASSERT_EQ(o.code, 0) << o.out;
  auto j = parse(o.out)["result"];
  EXPECT_EQ(j["command"][0], "python3");
  EXPECT_TRUE(j["config"].is_null());
}
