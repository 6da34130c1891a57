// Sniffing of every AMD fixture (rocprof/ and telemetry/) to the right format, no AMD sniffer
// claiming the NVIDIA fixtures, and a rocprofv3 output directory read as one run.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/io.h"
#include "trace/readers.h"
#include "trace/rocprof/rocprof_test_files.h"

namespace goblin::trace {

using testing::fixture;
using testing::TempDir;

namespace {
Format sniff_file(const std::string& path) {
  auto prefix = read_prefix(path, 64 * 1024);
  EXPECT_TRUE(prefix.ok()) << path;
  return prefix.ok() ? sniff_format(*prefix, path) : Format::Unknown;
}

Format expected_rocprof_format(const std::string& name) {
  if (name.starts_with("legacy_rocprof_")) {
    if (name.ends_with(".txt")) return Format::Unknown;  // sysinfo.txt (rocminfo dump)
    return Format::RocprofV1;
  }
  if (name.ends_with(".json.gz")) return Format::RocprofV3Json;
  if (name.ends_with(".csv")) return Format::RocprofV3Csv;
  if (name == "rocprofv3_rocm-smi.txt") return Format::RocmSmi;
  return Format::Unknown;  // list-avail.txt, summary.txt: human reports, nothing to analyse
}
}  // namespace

TEST(AmdSniff, EveryRocprofFixture) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(fixture("rocprof"))) {
    std::string name = e.path().filename().string();
    EXPECT_EQ(format_name(sniff_file(e.path().string())), std::string(format_name(expected_rocprof_format(name))))
        << name;
    ++n;
  }
  EXPECT_GE(n, 40u);
}

TEST(AmdSniff, TelemetryFixturesAndNoClaimOnNvidiaFiles) {
  EXPECT_EQ(sniff_file(fixture("telemetry/rocm_smi.txt")), Format::RocmSmi);
  EXPECT_EQ(sniff_file(fixture("telemetry/amd_smi_metric_watch_mi300x.csv")), Format::AmdSmi);
  for (const char* dir : {"telemetry", "nsight", "kineto"}) {
    for (const auto& e : std::filesystem::directory_iterator(fixture(dir))) {
      std::string name = e.path().filename().string();
      if (name.starts_with("rocm_smi") || name.starts_with("amd_smi") || name.starts_with("mi250")) continue;
      auto prefix = read_prefix(e.path().string(), 64 * 1024);
      ASSERT_TRUE(prefix.ok()) << name;
      EXPECT_FALSE(sniff_rocprofv3_json(*prefix)) << name;
      EXPECT_FALSE(sniff_rocprof_v1(*prefix)) << name;
      EXPECT_FALSE(sniff_rocprofv3_csv(*prefix)) << name;
      EXPECT_FALSE(sniff_amd_smi(*prefix)) << name;
      EXPECT_FALSE(sniff_rocm_smi(*prefix)) << name;
    }
  }
}

TEST(AmdSniff, AmdSmiAndRocmSmiShapes) {
  // amd-smi metric --watch (banner, CRLF), amd-smi monitor, plain metric without timestamp.
  EXPECT_TRUE(sniff_amd_smi("'CTRL' + 'C' to stop watching output:\r\ntimestamp,gpu,gfx_activity\r\n"));
  EXPECT_TRUE(sniff_amd_smi("gpu,power_usage,hotspot_temperature,gfx,gfx_clock,mem,mem_clock,vram_used\r\n0,1,2\r\n"));
  EXPECT_TRUE(sniff_amd_smi("gpu,total_vram,used_vram,free_vram\r\n0,196592,283,196309\r\n"));
  EXPECT_TRUE(sniff_amd_smi("timestamp,gpu,xcp,power_usage,pcie_bw\r\n"));
  EXPECT_FALSE(sniff_amd_smi("gpu,name\n0,foo\n"));
  EXPECT_TRUE(sniff_rocm_smi("WARNING: something\ndevice,GPU use (%)\ncard0,0\n"));
  EXPECT_TRUE(sniff_rocm_smi("device,VRAM Total Memory (B),VRAM Total Used Memory (B)\ncard0,1,2\n"));
  EXPECT_FALSE(sniff_rocm_smi("device,name\n"));
  // And they reach the right reader through sniff_format.
  EXPECT_EQ(sniff_format("gpu,gfx_activity,umc_activity\r\n0,1,2\r\n", ""), Format::AmdSmi);
  EXPECT_EQ(sniff_format("device,Temperature (Sensor edge) (C)\ncard0,30.0\n", ""), Format::RocmSmi);
}

TEST(RocprofDir, DirectoryOfRocprofv3CsvIsOneRun) {
  // hip_trace and memory_copy_trace come from one recording (their boot-clock times lie minutes
  // apart); kernel_trace from another, days later on its machine's clock (issue 14: refused).
  TempDir dir("v3dir");
  dir.copy_fixture("rocprof/rocprofv3_hip_trace.csv");
  dir.copy_fixture("rocprof/rocprofv3_memory_copy_trace.csv");
  dir.copy_fixture("rocprof/rocprofv3_hip_api_stats.csv");
  dir.copy_fixture("rocprof/rocprofv3_summary.txt");  // not readable: skipped with a warning
  Timeline tl;
  Status s = read_path(dir.path(), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(tl.runtime.size(), 17u);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 4u);
  EXPECT_EQ(tl.meta.formats.size(), 3u);
  EXPECT_TRUE(testing::has_warning(tl, "skipped rocprofv3_summary.txt: not a format goblin reads"));  // named
  dir.copy_fixture("rocprof/rocprofv3_kernel_trace.csv");
  Timeline mixed;
  Status m = read_path(dir.path(), mixed, {});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, ErrorKind::Malformed);
  EXPECT_NE(m.error().message.find("do not belong to one run"), std::string::npos) << m.error().message;
  EXPECT_EQ(mixed.gpu_op_count(), 0u);
}

TEST(RocprofDir, KernelAndHipApiCorrelationIdsLineUp) {
  // The fixtures come from different runs, so this directory is one consistent run written
  // in rocprofv3's layout: kernels 1 and 2 launched by hipLaunchKernel calls 3 and 5.
  TempDir dir("v3corr");
  dir.write(
      "123_kernel_trace.csv",
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
      "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
      "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\","
      "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
      "\"KERNEL_DISPATCH\",\"Agent 2\",1,1,77,1,10,\"gemm\",3,1000,2000,0,0,8,0,16,256,1,1,4096,1,1\n"
      "\"KERNEL_DISPATCH\",\"Agent 2\",1,1,77,2,11,\"relu\",5,2100,2500,0,0,8,0,16,256,1,1,4096,1,1\n");
  dir.write("123_hip_api_trace.csv",
            "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\","
            "\"End_Timestamp\"\n"
            "\"HIP_RUNTIME_API_EXT\",\"hipMalloc\",123,77,1,100,200\n"
            "\"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",123,77,3,900,950\n"
            "\"HIP_RUNTIME_API_EXT\",\"hipLaunchKernel\",123,77,5,960,990\n"
            "\"HIP_RUNTIME_API_EXT\",\"hipDeviceSynchronize\",123,77,6,1000,2600\n");
  Timeline tl;
  ASSERT_TRUE(read_path(dir.path(), tl, {}).ok());
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 2u);
  tl.build_indexes();
  for (size_t k = 0; k < tl.gpu_ops.count(GpuOpKind::Kernel); ++k) {
    auto r = tl.runtime_by_correlation(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, k)]);
    ASSERT_TRUE(r.has_value()) << k;
    EXPECT_EQ(tl.str(tl.runtime.name[*r]), "hipLaunchKernel");
    EXPECT_LT(tl.runtime.start_ns[*r], tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, k)]);
  }
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{16, 1, 1}));
}

TEST(RocprofDir, DirectoryWithOnlyDamagedFilesReportsError) {
  TempDir dir("v3damaged");
  dir.write("kernel_trace.csv", "\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Workgroup_Size_X\",\"Grid_Size_X\"\n");
  Timeline tl;
  Status s = read_path(dir.path(), tl, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("Start_Timestamp"), std::string::npos);
}

}  // namespace goblin::trace
