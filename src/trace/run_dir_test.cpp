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
  EXPECT_TRUE(warned(tl2, "not a format goblin reads"));
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

}  // namespace
}  // namespace goblin::trace
