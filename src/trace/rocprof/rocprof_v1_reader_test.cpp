// Legacy rocprof (v1 results.csv/json/db, rocprofv2-style CSVs, stats) on the real fixtures.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "trace/readers.h"
#include "trace/rocprof/rocprof_test_files.h"

namespace goblin::trace {

using testing::fixture;
using testing::has_warning;
using testing::TempDir;

namespace {
Timeline read_ok(const std::string& rel) {
  Timeline tl;
  Status s = read_rocprof_v1(fixture(rel), tl, {});
  EXPECT_TRUE(s.ok()) << rel << ": " << s.error().describe();
  return tl;
}
}  // namespace

TEST(RocprofV1, Mi100TimestampsCsv) {
  Timeline tl = read_ok("rocprof/legacy_rocprof_MI100__timestamps.csv");
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 3u);
  // 0,"vecCopy(...) [clone .kd]",2,0,0,...,1048576,256,0,0,8,8,16,64,...,DispatchNs 1410204895282038,
  // Start 1410204895308401, End 1410204895332881
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]),
            "vecCopy(double*, double*, double*, int, int)");
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 0);
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1410204895308401);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 24480);
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)],
            (std::array<uint32_t, 3>{4096, 1, 1}));  // 1048576 / 256
  EXPECT_EQ(tl.gpu_ops.block[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 16);  // 8 arch + 8 accum
  int64_t n = 0;
  EXPECT_TRUE(has_warning(tl, "[clone .kd]", &n));
  EXPECT_EQ(n, 3);
  EXPECT_EQ(tl.counters.size(), 0u);
}

TEST(RocprofV1, Mi300xCountersAndKdSuffix) {
  Timeline tl = read_ok("rocprof/legacy_rocprof_MI300X_A1__SQ_LEVEL_WAVES.csv");
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 3u);
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]),
            "vecCopy(double*, double*, double*, int, int)");  // " (.kd)" stripped
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 60633);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], kNone);  // Correlation_ID 0 = not traced
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 716380685161855 - 716380685145736);
  ASSERT_EQ(tl.counters.size(), 27u);  // 9 counter columns x 3 dispatches
  EXPECT_EQ(tl.str(tl.counters.counter[4]), "SQ_WAVES");
  EXPECT_DOUBLE_EQ(tl.counters.value[4], 16384.0);
  EXPECT_EQ(tl.counters.kernel_key[4], 0);

  Timeline pmc = read_ok("rocprof/legacy_rocprof_MI300X_A1__pmc_perf.csv");
  EXPECT_EQ(pmc.gpu_ops.count(GpuOpKind::Kernel), 3u);  // Start_/End_Timestamp are the last two of 2718 columns
  // 2718 columns - 12 dispatch fields - 2 timestamps - 39 pandas duplicates of dispatch fields
  // from merged pmc passes (Wave_Size_1.., Correlation_ID_1.., XCC_Index, XCC_Index_5..)
  // = 2665 counters per dispatch (checked with a script over the header).
  EXPECT_EQ(pmc.counters.size(), 3u * 2665u);
  EXPECT_EQ(pmc.str(pmc.counters.counter[0]), "SQC_DCACHE_INPUT_VALID_READYB");
  EXPECT_DOUBLE_EQ(pmc.counters.value[0], 2579507.0);
}

TEST(RocprofV1, ResultsJsonWithQuotedNumbers) {
  Timeline tl = read_ok("rocprof/legacy_rocprof_gemm_results.json");
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);
  EXPECT_EQ(tl.runtime.size(), 12u);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 3u);
  EXPECT_EQ(tl.flows.size(), 8u);
  // GPU2 kernel: BeginNs 3497798443427445, EndNs 3498130077612123, dev-id 2, stream-id 1.
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 3497798443427445);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 331634184678);
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], CopyKind::HtoD);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 196532);
  EXPECT_EQ(tl.str(tl.runtime.name[0]), "hipMalloc");
  EXPECT_EQ(tl.runtime.pid[0], 894);
  EXPECT_EQ(tl.runtime.start_ns[0], 3497798221064656);
  Timeline v = read_ok("rocprof/legacy_rocprof_vecadd_results.json");
  EXPECT_EQ(v.gpu_ops.count(GpuOpKind::Kernel), 1u);
}

TEST(RocprofV1, ResultsDbCorrelatesLaunchAndKernelByIndex) {
  Timeline tl = read_ok("rocprof/legacy_rocprof_gemm_results.db");
  ASSERT_EQ(tl.runtime.size(), 12u);
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 3u);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 8);
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 331634184678);
  tl.build_indexes();
  auto launch = tl.runtime_by_correlation(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]);
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(tl.str(tl.runtime.name[*launch]), "hipLaunchKernel");
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 2)], CopyKind::DtoH);
  EXPECT_EQ(read_ok("rocprof/legacy_rocprof_vecadd_results.db").runtime.size(), 13u);
}

TEST(RocprofV1, FiveColumnStats) {
  Timeline tl = read_ok("rocprof/legacy_rocprof_vecadd_results.hip_stats.csv");
  auto j = nlohmann::json::parse(tl.meta.extra.at("stats:legacy_rocprof_vecadd_results.hip_stats.csv"));
  ASSERT_EQ(j.size(), 7u);
  EXPECT_EQ(j[0]["name"], "hipMemcpy");
  EXPECT_EQ(j[0]["total_ns"], 1342822760);
  EXPECT_FALSE(j[0].contains("min_ns"));
  EXPECT_EQ(tl.runtime.size(), 0u);
}

TEST(RocprofV1, BadInput) {
  TempDir dir("v1bad");
  {
    Timeline tl;
    Status s = read_rocprof_v1(dir.write("e.csv", ""), tl, {});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  }
  {
    Timeline tl;
    Status s = read_rocprof_v1(dir.write("n.csv", "Index,gpu-id,BeginNs,EndNs\n0,1,2,3\n"), tl, {});
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("KernelName"), std::string::npos);
    EXPECT_EQ(s.error().line, 1);
  }
  {
    Timeline tl;
    std::string p = dir.write("t.csv",
                              "Index,KernelName,gpu-id,BeginNs,EndNs,SQ_WAVES\n"
                              "0,\"k [clone .kd]\",0,10,20,5\n"
                              "1,\"k [clone .kd]\",0,30\n"
                              "2,\"k [clone .kd]\",0,40,50,lots\n");
    ASSERT_TRUE(read_rocprof_v1(p, tl, {}).ok());
    EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 2u);
    EXPECT_EQ(tl.counters.size(), 1u);
    int64_t line = 0;
    EXPECT_TRUE(has_warning(tl, "fewer fields", nullptr, &line));
    EXPECT_EQ(line, 3);
    EXPECT_TRUE(has_warning(tl, "column 'SQ_WAVES' is not a number", nullptr, &line));
    EXPECT_EQ(line, 4);
  }
  {
    Timeline tl;
    ASSERT_TRUE(read_rocprof_v1(dir.write("c.csv", "Index,KernelName,SQ_WAVES\n0,k,5\n"), tl, {}).ok());
    EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 0u);
    EXPECT_EQ(tl.counters.size(), 1u);
    EXPECT_TRUE(has_warning(tl, "no BeginNs/EndNs"));
  }
  {
    Timeline tl;
    std::string p = dir.write("cut.json",
                              "{ \"traceEvents\":[{}\n,{\"args\":{\"name\":\"GPU0\"},\"ph\":\"M\",\"pid\":6,"
                              "\"name\":\"process_name\"}\n,{\"ph\":\"X\",\"name\":\"k\",\"pid\":6,\"tid\":1,"
                              "\"ts\":\"10\",\"dur\":\"2\",\"args\":{\"BeginNs\":\"10000\",\"EndNs\":\"12000\"}}\n"
                              ",{\"ph\":\"X\",\"name\":\"k2\",\"pid\":6,\"ts\":\"1");
    Status s = read_rocprof_v1(p, tl, {});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
    ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);  // the event before the cut
    EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2000);
  }
}

}  // namespace goblin::trace
