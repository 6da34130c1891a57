// Reading a run directory: goblin's own side files are skipped without a warning; a goblin run
// directory (run.json with schema goblin.run/N) is read as exactly the trace and telemetry it
// lists, so other processes' traces it keeps (cupti/) are not merged into the run's timeline.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/io.h"
#include "core/test_support.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

namespace fs = std::filesystem;
const std::string kSmi = std::string(GOBLIN_FIXTURES) + "/telemetry/nvidia_smi_h100_training.csv";
const std::string kTrace = std::string(GOBLIN_FIXTURES) + "/kineto/gpu_user_annotation_steps.json.gz";
// One live run's trace and telemetry (same clock, same day): a run directory must hold one run.
const std::string kLiveRun =
    std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/h100_live/audit_tuned_compile/live/profile-1";

bool warned(const Timeline& tl, const std::string& needle) {
  for (const auto& d : tl.warnings)
    if (d.message.find(needle) != std::string::npos) return true;
  return false;
}

TEST(RunDirectory, SideFilesSkippedQuietly) {
  auto dir = goblin::testing::private_tmp_dir("rundir_plain");
  fs::copy_file(kSmi, dir / "telemetry.csv");
  for (const char* f : {"hook.json", "result.json", "metrics.json", "stdout.log", "stderr.log"})
    ASSERT_TRUE(write_file((dir / f).string(), "{}\n").ok());
  Timeline tl;
  Status st = read_path(dir.string(), tl);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_GT(tl.samples.size(), 100u);
  EXPECT_FALSE(warned(tl, "not a format goblin reads"));
  // A file goblin does not know is still named.
  ASSERT_TRUE(write_file((dir / "notes.txt").string(), "my notes\n").ok());
  Timeline tl2;
  ASSERT_TRUE(read_path(dir.string(), tl2).ok());
  EXPECT_TRUE(warned(tl2, "skipped notes.txt: not a format goblin reads"));  // named (issue 47)
  ASSERT_TRUE(write_file((dir / "empty.json").string(), "").ok());
  Timeline tl3;
  ASSERT_TRUE(read_path(dir.string(), tl3).ok());
  EXPECT_TRUE(warned(tl3, "skipped empty.json: the file is empty"));
}

// One run is what one process recorded under one clock (issue 47): a folder holding two traces
// (the before and the after of a change) is refused before anything is read, naming both and the
// verbs that read several runs, never merged into one timeline (which gave 8 steps, one of 23 s).
TEST(RunDirectory, SeveralRunsAreRefusedNamingEach) {
  auto dir = goblin::testing::private_tmp_dir("rundir_two_runs");
  const std::string k = std::string(GOBLIN_FIXTURES) + "/kineto/";
  fs::copy_file(k + "h100_llama_fp32_eager_w0.json.gz", dir / "before.json.gz");
  fs::copy_file(k + "h100_llama_bf16_sdpa_w4.json.gz", dir / "after.json.gz");
  ASSERT_TRUE(write_file((dir / "README.md").string(), "two runs\n").ok());
  Timeline tl;
  Status st = read_path(dir.string(), tl);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::Usage);
  const std::string& m = st.error().message;
  EXPECT_NE(m.find("holds 2 runs"), std::string::npos) << m;
  EXPECT_NE(m.find("before.json.gz (kineto)"), std::string::npos) << m;
  EXPECT_NE(m.find("after.json.gz (kineto)"), std::string::npos) << m;
  EXPECT_NE(m.find("goblin diff"), std::string::npos) << m;
  EXPECT_NE(m.find("goblin ranks"), std::string::npos) << m;
  EXPECT_EQ(tl.gpu_op_count(), 0u);  // nothing merged
  // One trace and its telemetry are one run.
  fs::remove(dir / "after.json.gz");
  fs::copy_file(kSmi, dir / "telemetry.csv");
  Timeline one;
  Status ok = read_path(dir.string(), one);
  EXPECT_TRUE(ok.ok() || ok.error().kind != ErrorKind::Usage) << ok.error().describe();
}

TEST(RunDirectory, GoblinRunReadsOnlyItsListedFiles) {
  auto dir = goblin::testing::private_tmp_dir("rundir_goblin");
  fs::copy_file(kLiveRun + "/telemetry.csv", dir / "telemetry.csv");
  fs::copy_file(kLiveRun + "/trace.json.gz", dir / "trace.json.gz");
  fs::create_directories(dir / "cupti");
  fs::copy_file(kTrace, dir / "cupti" / "goblin_cupti_999.json.gz");  // another process's trace
  ASSERT_TRUE(write_file((dir / "notes.txt").string(), "not listed\n").ok());
  ASSERT_TRUE(write_file((dir / "run.json").string(),
                         R"({"schema": "goblin.run/1", "files": {"trace": "trace.json.gz", "telemetry": "telemetry.csv",
                             "hook": "hook.json", "metrics": "metrics.json"}})")
                  .ok());
  Timeline tl;
  Status st = read_path(dir.string(), tl);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  Timeline one;
  ASSERT_TRUE(read_path(kLiveRun + "/trace.json.gz", one).ok());
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel),
            one.gpu_ops.count(GpuOpKind::Kernel));  // the cupti/ trace was not merged
  EXPECT_GT(tl.samples.size(), 100u);               // the telemetry was read
  EXPECT_FALSE(warned(tl, "not a format goblin reads"));
  EXPECT_EQ(tl.meta.sources.size(), 2u);
}

// Telemetry that names another GPU than the trace (nvidia-smi of an H100, or amd-smi of a 64 GB
// MI250, beside an MI300X trace) keeps the trace's device and says so: warning
// telemetry_device_mismatch naming the file. amd-smi of the MI300X itself warns of nothing.
bool has_id(const Timeline& tl, W id, const std::string& needle) {
  for (const auto& d : tl.warnings)
    if (d.id == id && d.message.find(needle) != std::string::npos) return true;
  return false;
}

TEST(RunDirectory, TelemetryOfAnotherGpuIsWarnedOf) {
  const std::string trace = std::string(GOBLIN_FIXTURES) + "/kineto/mi300x_sglang_qwen3_8b_decode.json.gz";
  const std::string amd = std::string(GOBLIN_FIXTURES) + "/telemetry/amd_smi_metric_watch_mi300x.csv";
  {
    auto dir = goblin::testing::private_tmp_dir("rundir_tele_nv");
    fs::copy_file(trace, dir / "trace.json.gz");
    ASSERT_TRUE(write_file((dir / "nvidia_smi.csv").string(),
                           "timestamp, index, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%]\n"
                           "2026/05/28 17:14:24.000, 0, NVIDIA H100 80GB HBM3, 81559 MiB, 1000 MiB, 50 %\n")
                    .ok());
    Timeline tl;
    ASSERT_TRUE(read_path(dir.string(), tl).ok());
    ASSERT_EQ(tl.meta.devices.size(), 1u);
    EXPECT_EQ(tl.meta.devices[0].name, "AMD Instinct MI300X");
    EXPECT_TRUE(has_id(tl, W::telemetry_device_mismatch, "nvidia_smi.csv describes device 0"));
    EXPECT_TRUE(has_id(tl, W::telemetry_device_mismatch, "NVIDIA H100 80GB HBM3"));
  }
  {
    // The same amd-smi capture with total_vram of an MI250 GCD (65520 MB).
    auto text = read_all(amd);
    ASSERT_TRUE(text.ok());
    std::string t = *text;
    for (size_t at; (at = t.find(",196592,")) != std::string::npos;) t.replace(at, 8, ",65520,");
    auto dir = goblin::testing::private_tmp_dir("rundir_tele_mi250");
    fs::copy_file(trace, dir / "trace.json.gz");
    ASSERT_TRUE(write_file((dir / "amd_smi.csv").string(), t).ok());
    Timeline tl;
    ASSERT_TRUE(read_path(dir.string(), tl).ok());
    EXPECT_EQ(tl.meta.devices[0].total_memory_bytes, 206141652992);
    EXPECT_TRUE(has_id(tl, W::telemetry_device_mismatch, "memory 68.7 GB vs the trace's 206.1 GB"));
  }
  {
    auto dir = goblin::testing::private_tmp_dir("rundir_tele_mi300x");
    fs::copy_file(trace, dir / "trace.json.gz");
    fs::copy_file(amd, dir / "amd_smi.csv");
    Timeline tl;
    ASSERT_TRUE(read_path(dir.string(), tl).ok());
    EXPECT_GT(tl.samples.size(), 0u);
    EXPECT_FALSE(has_id(tl, W::telemetry_device_mismatch, ""));
  }
}

}  // namespace
}  // namespace goblin::trace
