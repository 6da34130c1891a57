// The classic AMD run folder: torch_profile.json (Kineto) + trace.csv (rocprofv3 kernel trace) +
// amd_smi.csv. The rocprofv3 CSV is written here from the real MI300X Kineto trace's own kernels,
// in the columns rocprofv3 writes (tests/fixtures/rocprof/rocprofv3_kernel_trace.csv), stamped on
// the boot clock or on the wall clock: the same dispatches as a rocprofv3 run of that process
// would record. Before, the boot-clock folder was refused as "not one run" (exit 5) and the
// wall-clock one counted every kernel twice (a 5.97e8 s step, exit 0).
#include "trace/rocprof_pair.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/io.h"
#include "core/test_support.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

namespace fs = std::filesystem;
const std::string kKin = std::string(GOBLIN_FIXTURES) + "/kineto/";
const std::string kMi300x = kKin + "mi300x_sglang_qwen3_8b_decode.json.gz";
const std::string kSmi = std::string(GOBLIN_FIXTURES) + "/telemetry/amd_smi_metric_watch_mi300x.csv";

// rocprofv3 --kernel-trace --output-format csv of the kernels of `kineto`: each kernel's start
// and end moved by `shift_ns` (Kineto's clock → the rocprofv3 clock), with up to ±1 µs of jitter.
std::string rocprofv3_csv_of(const std::string& kineto, int64_t shift_ns) {
  Timeline tl;
  EXPECT_TRUE(read_path(kineto, tl).ok());
  std::string out =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
      "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
      "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\","
      "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";
  int n = 0;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    std::string name(tl.str(tl.gpu_ops.name[i]));
    for (size_t at = 0; (at = name.find('"', at)) != std::string::npos; at += 2) name.insert(at, "\"");
    const int64_t jitter = (n % 3 - 1) * 700;
    const int64_t s = tl.gpu_ops.start_ns[i] + shift_ns + jitter;
    out += fmt::format(
        "\"KERNEL_DISPATCH\",\"Agent 2\",1,1,4242,{0},{0},\"{1}\",{0},{2},{3},0,0,8,0,16,256,1,1,"
        "1024,1,1\n",
        ++n, name, s, s + tl.gpu_ops.dur_ns[i]);
  }
  return out;
}

int64_t kineto_base(const std::string& kineto) {
  Timeline tl;
  EXPECT_TRUE(read_path(kineto, tl).ok());
  return tl.meta.clock_base_ns;
}

fs::path three_file_folder(const char* name, const std::string& rocprof_csv) {
  auto dir = goblin::testing::private_tmp_dir(name);
  fs::copy_file(kMi300x, dir / "torch_profile.json.gz");
  fs::copy_file(kSmi, dir / "amd_smi.csv");
  EXPECT_TRUE(write_file((dir / "trace.csv").string(), rocprof_csv).ok());
  return dir;
}

bool warned(const Timeline& tl, W id, const std::string& needle) {
  for (const auto& d : tl.warnings)
    if (d.id == id && d.message.find(needle) != std::string::npos) return true;
  return false;
}

void expect_one_run(const fs::path& dir, const char* clock) {
  Timeline alone, folder;
  ASSERT_TRUE(read_path(kMi300x, alone).ok());
  Status st = read_path(dir.string(), folder);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  // The Kineto kernels, once: not doubled by the rocprofv3 ones, on the Kineto clock.
  EXPECT_EQ(folder.gpu_ops.count(GpuOpKind::Kernel), alone.gpu_ops.count(GpuOpKind::Kernel));
  EXPECT_EQ(folder.gpu_ops.start_ns.front(), alone.gpu_ops.start_ns.front());
  EXPECT_EQ(folder.gpu_ops.start_ns.back(), alone.gpu_ops.start_ns.back());
  EXPECT_GT(folder.samples.size(), 0u);  // amd_smi.csv read beside them
  ASSERT_EQ(folder.meta.devices.size(), 1u);
  EXPECT_EQ(folder.meta.devices[0].name, "AMD Instinct MI300X");
  EXPECT_TRUE(warned(folder, W::rocprof_cross_checked, fmt::format("trace.csv ({})", clock)));
  EXPECT_TRUE(warned(folder, W::rocprof_cross_checked, "555 of the 555 Kineto kernels"));
  EXPECT_TRUE(folder.meta.extra.count("rocprof_cross_check"));
}

TEST(RocprofPair, BootClockRocprofv3IsAlignedToKineto) {
  // Boot clock: ~1.4 days of uptime at the trace's first kernel.
  expect_one_run(three_file_folder("pair_boot", rocprofv3_csv_of(kMi300x, -4'800'000'000'000'000LL)), "boot clock");
}

TEST(RocprofPair, WallClockRocprofv3IsNeverCountedTwice) {
  expect_one_run(three_file_folder("pair_epoch", rocprofv3_csv_of(kMi300x, kineto_base(kMi300x))), "wall clock");
}

TEST(RocprofPair, AnotherRunsRocprofv3IsRefusedNamingTheFiles) {
  // The MI250 trace's kernels beside the MI300X Kineto trace: not one run.
  auto dir =
      three_file_folder("pair_mismatch", rocprofv3_csv_of(kKin + "mi250_rocm62_minitoy_train.json.gz",
                                                          kineto_base(kKin + "mi250_rocm62_minitoy_train.json.gz")));
  Timeline tl;
  Status st = read_path(dir.string(), tl);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::Usage);
  const std::string& m = st.error().message;
  EXPECT_NE(m.find("torch_profile.json.gz (Kineto) and trace.csv (rocprofv3-csv) do not record the same kernels"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("goblin triage"), std::string::npos) << m;
  EXPECT_EQ(tl.gpu_ops.size(), 0u);  // refused: no analysis runs over the rows
}

TEST(RocprofPair, SameKernelsAnHourApartOnTheWallClockAreTwoRuns) {
  auto dir = three_file_folder("pair_hour", rocprofv3_csv_of(kMi300x, kineto_base(kMi300x) + 3600'000'000'000LL));
  Timeline tl;
  Status st = read_path(dir.string(), tl);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("their wall-clock times are -3600 s apart: two runs of the same program"),
            std::string::npos)
      << st.error().message;
}

}  // namespace
}  // namespace goblin::trace
