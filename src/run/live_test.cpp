#include "run/live.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "core/io.h"
#include "core/test_support.h"

namespace goblin::run {

static std::string testdata(const char* f) { return std::string(GOBLIN_SOURCE_DIR) + "/src/run/testdata/" + f; }

TEST(Classify, ExitZeroIsFine) {
  ProcResult p;
  p.exit_code = 0;
  EXPECT_FALSE(classify_failure(p, 10, "").has_value());
}

TEST(Classify, OomCrashNoGpuHang) {
  ProcResult p;
  p.exit_code = 1;
  p.stderr_tail = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB";
  auto e = classify_failure(p, 10, "");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ErrorKind::Workload);
  EXPECT_NE(e->message.find("out of GPU memory"), std::string::npos);

  p.stderr_tail = "RuntimeError: boom";
  e = classify_failure(p, 10, "");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->exit_code(), 8);
  EXPECT_NE(e->message.find("exit code 1"), std::string::npos);
  EXPECT_NE(e->message.find("boom"), std::string::npos);

  p.exit_code = 3;
  p.stderr_tail = "goblin workload: no CUDA/ROCm device visible to PyTorch";
  e = classify_failure(p, 10, "");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->exit_code(), 7);
  EXPECT_NE(e->message.find("--replay"), std::string::npos);

  ProcResult h;
  h.timed_out = true;
  h.term_signal = 15;
  e = classify_failure(h, 42, "");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->exit_code(), 8);
  EXPECT_NE(e->message.find("hung"), std::string::npos);
  EXPECT_NE(e->message.find("42 s"), std::string::npos);
}

TEST(Telemetry, SummarisesRecordedH100NvidiaSmiCsv) {
  // Recorded on the H100 (bench/results/h100_workload_check): ~200 ms samples across base and
  // tuned runs, idle samples at both ends.
  TelemetrySummary t = summarize_nvidia_smi_csv(testdata("nvidia_smi_200ms.csv"));
  ASSERT_TRUE(t.observed);
  EXPECT_EQ(t.samples, 101);
  EXPECT_GT(t.sm_clock_mhz_median, 1000);  // busy samples only: boost clocks, not 345 MHz idle
  EXPECT_LE(t.sm_clock_mhz_max, 1980);
  EXPECT_GT(t.power_w_median, 100);
  EXPECT_LE(t.power_w_max, 700);
  EXPECT_GT(t.temp_c_max, 30);
  EXPECT_GT(t.mem_used_gb_max, 1);
  EXPECT_LT(t.mem_used_gb_max, 80);
  Json j = telemetry_to_json(t);
  EXPECT_TRUE(j["observed"].get<bool>());
}

// `amd-smi metric --usage --power --clock --temperature --mem-usage --csv -w 1`, what the live
// AMD run collects: banner, the header repeated each second, N/A and list cells. Before, the
// summary was never computed, so run.json said "telemetry": {"observed": false} and its files
// map listed no telemetry: HBM was never observed on AMD.
TEST(Telemetry, SummarisesAmdSmiWatchCsv) {
  TelemetrySummary t =
      summarize_amd_smi_csv(std::string(GOBLIN_FIXTURES) + "/telemetry/amd_smi_metric_watch_mi300x.csv");
  ASSERT_TRUE(t.observed) << t.note;
  EXPECT_EQ(t.source, "amd-smi");
  EXPECT_EQ(t.samples, 5);
  // Busy samples only (util > 0): 2100, 2100, 2095, 1404; the idle first one (0 %) is left out.
  EXPECT_DOUBLE_EQ(t.sm_clock_mhz_median, 2097.5);
  EXPECT_DOUBLE_EQ(t.power_w_max, 738);
  EXPECT_DOUBLE_EQ(t.temp_c_max, 56);                    // edge, not hotspot
  EXPECT_NEAR(t.mem_used_gb_max, 90412.0 / 1024, 1e-9);  // used_vram MB (MiB) → GiB
  Json j = telemetry_to_json(t);
  EXPECT_TRUE(j["observed"].get<bool>());
  EXPECT_DOUBLE_EQ(j["mem_used_gb_max"].get<double>(), 88.29);
}

TEST(Telemetry, AmdSmiWithoutSamplesIsUnobservedAndSaysWhy) {
  auto dir = goblin::testing::private_tmp_dir("amdsmi_empty");
  const std::string p = (dir / "telemetry.csv").string();
  ASSERT_TRUE(write_file(p, "'CTRL' + 'C' to stop watching output:\r\n").ok());
  TelemetrySummary t = summarize_amd_smi_csv(p);
  EXPECT_FALSE(t.observed);
  EXPECT_NE(t.note.find("no samples"), std::string::npos) << t.note;
  std::filesystem::remove_all(dir);
}

TEST(Telemetry, MissingFileIsUnobservedNotACrash) {
  TelemetrySummary t = summarize_nvidia_smi_csv("/nonexistent/telemetry.csv");
  EXPECT_FALSE(t.observed);
}

TEST(Cache, HashDependsOnEveryPart) {
  EXPECT_EQ(hash_parts({"a", "b"}), hash_parts({"a", "b"}));
  EXPECT_NE(hash_parts({"a", "b"}), hash_parts({"ab", ""}));
  EXPECT_NE(hash_parts({"a", "b"}), hash_parts({"a", "c"}));
  EXPECT_EQ(hash_parts({"x"}).size(), 16u);
}

TEST(Cache, RoundTripUnderGoblinCacheDir) {
  auto dir = goblin::testing::private_tmp_dir("cache");
  setenv("GOBLIN_CACHE_DIR", dir.c_str(), 1);
  EXPECT_FALSE(cache_get("k1").has_value());
  cache_put("k1", Json{{"step_time_s", 0.5}});
  auto v = cache_get("k1");
  ASSERT_TRUE(v.has_value());
  EXPECT_DOUBLE_EQ((*v)["step_time_s"].get<double>(), 0.5);
  unsetenv("GOBLIN_CACHE_DIR");
  std::filesystem::remove_all(dir);
}

TEST(Workload, ResolvesTrainPyBesideTheConfigsFolder) {
  std::string cfg = std::string(GOBLIN_SOURCE_DIR) + "/workloads/configs/base.yaml";
  auto w = resolve_workload(cfg, "");
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_NE(w->workload_py.find("workloads/train.py"), std::string::npos);
  EXPECT_FALSE(hook_dir_for(*w).empty());
  auto bad = resolve_workload(cfg, "/nonexistent/train.py");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::Io);
}

TEST(Process, RunsCapturesAndTimesOut) {
  ProcSpec s;
  s.argv = {"sh", "-c", "echo out; echo err >&2; exit 5"};
  auto dir = goblin::testing::private_tmp_dir("process");
  s.stdout_path = (dir / "goblin_proc_out.txt").string();
  s.stderr_path = (dir / "goblin_proc_err.txt").string();
  auto r = run_process(s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 5);
  EXPECT_EQ(r->stderr_tail, "err\n");

  s.argv = {"sleep", "30"};
  s.timeout_s = 0.5;
  s.kill_grace_s = 0.5;
  r = run_process(s);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(r->wall_s, 10);

  s.argv = {"/nonexistent/binary"};
  s.timeout_s = 10;
  r = run_process(s);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->exec_failed);
}

}  // namespace goblin::run
