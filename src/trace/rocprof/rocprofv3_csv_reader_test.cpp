// rocprofv3 CSV reader on the real fixtures (golden values checked by hand against the files)
// and on damaged inputs.
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
  Status s = read_rocprofv3_csv(fixture(rel), tl, {});
  EXPECT_TRUE(s.ok()) << rel << ": " << s.error().describe();
  return tl;
}
}  // namespace

TEST(RocprofV3Csv, KernelTraceRocm7Columns) {
  Timeline tl = read_ok("rocprof/rocprofv3_kernel_trace.csv");
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 9u);
  // Row 1: "Agent 4",queue 1,stream 1,...,"void addition_kernel<float>(...)",corr 1,
  // 1550151853029637..1550151853042437, LDS 0, VGPR 8, AccVGPR 0, WG 64x1x1, grid 1024x1024x1.
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]),
            "void addition_kernel<float>(float*, float const*, float const*, int, int)");
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 4);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1);
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1550151853029637);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 12800);
  EXPECT_EQ(tl.gpu_ops.block[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{64, 1, 1}));
  // Grid in blocks: 1024 work-items / 64 per workgroup = 16; y: 1024 / 1.
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{16, 1024, 1}));
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 8);
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 0);
  // Row 2: divide_kernel, VGPR 12 + Accum_VGPR 4 = 16 (one CDNA register file).
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)], 16);
  // Row 5 is on queue/stream 2.
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 4)], 2);
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].id, 4);
}

TEST(RocprofV3Csv, KernelTrace2024VariantsWithIntAgentsAndSegmentSizes) {
  Timeline tl = read_ok("rocprof/rocprofv3_2024_kernel_trace.785cc39.csv");
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);
  // "KERNEL_DISPATCH",1,139690710949888,15,"matrixTranspose(float*, float*, int)",0,671599758568,
  // 671599825328,0,0,4,4,1,1024,1024,1
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)],
            139690710949888);                                                      // no Stream_Id: the queue handle
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], kNone);  // 0 = none
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 66760);
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{256, 256, 1}));
  EXPECT_EQ(tl.gpu_ops.block[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{4, 4, 1}));
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 0);          // Group_Segment_Size
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], kNone);  // no VGPR column in 6.2

  Timeline t2 = read_ok("rocprof/rocprofv3_2024_kernel_trace.5bec9f6.csv");
  ASSERT_EQ(t2.gpu_ops.count(GpuOpKind::Kernel), 7u);  // 7 rows and a blank line
  EXPECT_EQ(t2.gpu_ops.correlation[t2.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1451);
  EXPECT_EQ(t2.gpu_ops.stream[t2.gpu_ops.nth(GpuOpKind::Kernel, 1)], 2);
  EXPECT_EQ(t2.gpu_ops.dur_ns[t2.gpu_ops.nth(GpuOpKind::Kernel, 0)], 8819330200116308 - 8819330200067564);
  EXPECT_EQ(t2.gpu_ops.grid[t2.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{16, 1024, 1}));
}

TEST(RocprofV3Csv, TruncatedKernelNames) {
  Timeline tl = read_ok("rocprof/rocprofv3_kernel_trace_truncated.csv");
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 4u);
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]), "addition_kernel");
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 3)]), "subtract_kernel");
}

TEST(RocprofV3Csv, RocpdToCsvCapitalisationAndGuid) {
  TempDir dir("rocpd");
  std::string p = dir.write(
      "out_kernel_trace.csv",
      "\"Guid\",\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
      "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Lds_Block_Size\",\"Scratch_Size\","
      "\"Vgpr_Count\",\"Accum_Vgpr_Count\",\"Sgpr_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\","
      "\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
      "\"0000ddb5-8903\",\"KERNEL_DISPATCH\",\"GPU 2\",1,3,137,1,10,\"k\",10,100,250,2048,0,24,8,16,256,1,1,"
      "65536,2,1\n");
  Timeline tl;
  ASSERT_TRUE(read_rocprofv3_csv(p, tl, {}).ok());
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2);  // "GPU 2"
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 3);
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2048);  // Lds_Block_Size
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)],
            32);  // Vgpr_Count 24 + Accum_Vgpr_Count 8
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{256, 2, 1}));
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 150);
}

TEST(RocprofV3Csv, RocpdToCsvApiTraceWithGuid) {
  Timeline tl = read_ok("rocprof/rocprofv3_rocpd-to-csv.csv");
  ASSERT_EQ(tl.runtime.size(), 13u);
  EXPECT_EQ(tl.str(tl.runtime.name[9]), "hipLaunchKernel");
  EXPECT_EQ(tl.runtime.correlation[9], 10);
  EXPECT_EQ(tl.runtime.pid[9], 137);
  EXPECT_EQ(tl.runtime.dur_ns[9], 3719662417325443 - 3719662416752501);
}

TEST(RocprofV3Csv, MemoryCopyCurrentAnd2024) {
  Timeline tl = read_ok("rocprof/rocprofv3_memory_copy_trace.csv");
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 4u);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], CopyKind::HtoD);
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 4);  // "Agent 0" → "Agent 4": the GPU end
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 0);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 1);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 77040);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 2)], CopyKind::DtoH);
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Memcpy, 2)], 4);  // "Agent 4" → "Agent 0"
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Memcpy, 2)]), "MEMORY_COPY_DEVICE_TO_HOST");

  Timeline t2 = read_ok("rocprof/rocprofv3_2024_memory_copy_trace.8ab1ed7.csv");
  ASSERT_EQ(t2.gpu_ops.count(GpuOpKind::Memcpy), 2u);
  EXPECT_EQ(t2.gpu_ops.device[t2.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 1);  // int agents 0 → 1
  EXPECT_EQ(t2.gpu_ops.device[t2.gpu_ops.nth(GpuOpKind::Memcpy, 1)], 1);  // 1 → 0, device to host
  EXPECT_EQ(t2.gpu_ops.stream[t2.gpu_ops.nth(GpuOpKind::Memcpy, 0)], kNone);
  EXPECT_EQ(t2.gpu_ops.copy_kind[t2.gpu_ops.nth(GpuOpKind::Memcpy, 1)], CopyKind::DtoH);
}

TEST(RocprofV3Csv, ApiTracesGoToRuntime) {
  Timeline hip = read_ok("rocprof/rocprofv3_hip_trace.csv");
  ASSERT_EQ(hip.runtime.size(), 17u);
  EXPECT_EQ(hip.str(hip.runtime.name[7]), "hipDeviceSynchronize");
  EXPECT_TRUE(hip.runtime.is_sync[7]);
  EXPECT_FALSE(hip.runtime.is_driver[7]);
  EXPECT_EQ(hip.runtime.tid[0], 15);
  EXPECT_EQ(hip.runtime.correlation[16], 17);

  Timeline hsa = read_ok("rocprof/rocprofv3_hsa_core_api_trace.csv");
  EXPECT_EQ(hsa.runtime.size(), 32u);
  EXPECT_TRUE(hsa.runtime.is_driver[0]);
  EXPECT_EQ(read_ok("rocprof/rocprofv3_hsa_api_trace.csv").runtime.size(), 10u);
  EXPECT_EQ(read_ok("rocprof/rocprofv3_hip_compile_trace.csv").runtime.size(), 5u);
  EXPECT_EQ(read_ok("rocprof/rocprofv3_hip_runtime_trace.csv").runtime.size(), 8u);
  EXPECT_EQ(read_ok("rocprof/rocprofv3_rocdecode_api_trace.csv").runtime.size(), 6u);
  EXPECT_EQ(read_ok("rocprof/rocprofv3_rocjpeg_api_trace.csv").runtime.size(), 4u);

  Timeline rccl = read_ok("rocprof/rocprofv3_rccl_trace.csv");
  ASSERT_EQ(rccl.runtime.size(), 21u);
  // "RCCL_API","ncclAllReduce",1834151,1834151,89097,18414380653860,18414380693574
  EXPECT_EQ(rccl.str(rccl.runtime.name[7]), "ncclAllReduce");
  EXPECT_EQ(rccl.runtime.correlation[7], 89097);
  EXPECT_EQ(rccl.runtime.dur_ns[7], 39714);
}

TEST(RocprofV3Csv, MarkersBecomeCpuAnnotations) {
  Timeline tl = read_ok("rocprof/rocprofv3_marker_api_trace.csv");
  EXPECT_EQ(tl.runtime.size(), 0u);
  ASSERT_EQ(tl.annotations.size(), 5u);
  EXPECT_EQ(tl.str(tl.annotations.name[0]), "before hipLaunchKernel");
  EXPECT_EQ(tl.annotations.dur_ns[0], 0);  // roctxMark: start == end
  EXPECT_FALSE(tl.annotations.on_gpu[0]);
  EXPECT_EQ(tl.str(tl.annotations.name[4]), "hipLaunchKernel range");
  EXPECT_EQ(tl.annotations.tid[4], 0);  // a process-wide range
  EXPECT_EQ(tl.annotations.dur_ns[4], 1520113901495882 - 1520113899682208);
  EXPECT_EQ(read_ok("rocprof/rocprofv3_python_bindings.csv").annotations.size(), 6u);
}

TEST(RocprofV3Csv, CounterCollectionCurrentAnd2024) {
  Timeline tl = read_ok("rocprof/rocprofv3_counter_collection.csv");
  ASSERT_EQ(tl.counters.size(), 4u);
  EXPECT_EQ(tl.counters.kernel_key[0], 1);  // Dispatch_Id
  EXPECT_EQ(tl.str(tl.counters.counter[0]), "SQ_WAVES");
  EXPECT_DOUBLE_EQ(tl.counters.value[0], 16384.0);
  EXPECT_EQ(tl.str(tl.counters.kernel_name[1]), "subtract_kernel(float*, float const*, float const*, int, int)");
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 0u);  // counter rows are not kernel events

  Timeline old = read_ok("rocprof/rocprofv3_2024_counter_collection.bc69b6a.csv");
  ASSERT_EQ(old.counters.size(), 1u);
  EXPECT_DOUBLE_EQ(old.counters.value[0], 65536.0);
  EXPECT_EQ(read_ok("rocprof/rocprofv3_2024_counter_collection.df939cb.csv").counters.size(), 7u);  // + a blank line
  EXPECT_EQ(read_ok("rocprof/rocprofv3_kernel_names.csv").counters.size(), 4u);
}

TEST(RocprofV3Csv, StatsAreKeptAsSummaryNotEvents) {
  Timeline tl = read_ok("rocprof/rocprofv3_hip_api_stats.csv");
  EXPECT_EQ(tl.runtime.size(), 0u);
  auto it = tl.meta.extra.find("stats:rocprofv3_hip_api_stats.csv");
  ASSERT_NE(it, tl.meta.extra.end());
  auto j = nlohmann::json::parse(it->second);
  ASSERT_EQ(j.size(), 17u);
  EXPECT_EQ(j[0]["name"], "hipStreamCreateWithFlags");
  EXPECT_EQ(j[0]["calls"], 4);
  EXPECT_EQ(j[0]["total_ns"], 262497406);
  EXPECT_EQ(j[1]["stddev_ns"], 0.0);  // "0.00000000e+00"
  EXPECT_TRUE(has_warning(tl, "summary statistics file: 17 rows"));

  Timeline dom = read_ok("rocprof/rocprofv3_hip_domain_stats.csv");
  EXPECT_EQ(nlohmann::json::parse(dom.meta.extra.at("stats:rocprofv3_hip_domain_stats.csv")).size(), 1u);
}

TEST(RocprofV3Csv, UnanalysedDomainsAreCountedNotDropped) {
  int64_t n = 0;
  Timeline alloc = read_ok("rocprof/rocprofv3_memory_allocation_trace.csv");
  EXPECT_TRUE(has_warning(alloc, "memory_allocation_trace: 4 records read but not analysed", &n));
  Timeline scratch = read_ok("rocprof/rocprofv3_scratch_memory_trace.csv");
  EXPECT_TRUE(has_warning(scratch, "scratch_memory_trace: 2 records read but not analysed"));
  Timeline pc = read_ok("rocprof/rocprofv3_pc_sampling_host_trap.csv");
  EXPECT_TRUE(has_warning(pc, "pc_sampling: 79 records read but not analysed"));
  Timeline st = read_ok("rocprof/rocprofv3_pc_sampling_stochastic_debug.csv");
  EXPECT_TRUE(has_warning(st, "pc_sampling: 97 records read but not analysed"));
}

TEST(RocprofV3Csv, AgentInfoNamesTheDevices) {
  TempDir dir("v3agents");
  // A subset of agent_info.csv's 53 columns (FORMATS.md §2), with the names goblin uses.
  std::string p = dir.write("123_agent_info.csv",
                            "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\",\"Wave_Front_Size\",\"Cu_Count\",\"Name\","
                            "\"Vendor_Name\",\"Product_Name\",\"Model_Name\"\n"
                            "0,0,\"CPU\",0,64,\"AMD EPYC\",\"CPU\",\"AMD EPYC\",\"\"\n"
                            "2,1,\"GPU\",64,304,\"gfx942\",\"AMD\",\"AMD Instinct MI300X\",\"ip discovery\"\n");
  Timeline tl;
  ASSERT_TRUE(read_rocprofv3_csv(p, tl, {}).ok());
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].id, 1);  // Logical_Node_Id: the N of "Agent N"
  EXPECT_EQ(tl.meta.devices[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(tl.meta.devices[0].arch, "gfx942");
  EXPECT_EQ(tl.meta.devices[0].num_sms, 304);
  EXPECT_EQ(tl.meta.devices[0].warp_size, 64);
}

// ---- bad input ----

TEST(RocprofV3Csv, EmptyFileIsMalformed) {
  TempDir dir("v3empty");
  Timeline tl;
  Status s = read_rocprofv3_csv(dir.write("empty.csv", ""), tl, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("empty"), std::string::npos);
}

TEST(RocprofV3Csv, MissingRequiredColumnNamesItAndTheHeaderLine) {
  TempDir dir("v3missing");
  std::string p =
      dir.write("k.csv",
                "\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"Workgroup_Size_X\",\"Grid_Size_X\"\n"
                "\"KERNEL_DISPATCH\",\"Agent 1\",\"k\",5,64,64\n");
  Timeline tl;
  Status s = read_rocprofv3_csv(p, tl, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(s.error().line, 1);
  EXPECT_NE(s.error().message.find("'End_Timestamp'"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("Kind,Agent_Id"), std::string::npos) << s.error().message;
}

TEST(RocprofV3Csv, UnknownHeaderIsMalformed) {
  TempDir dir("v3unknown");
  Timeline tl;
  Status s = read_rocprofv3_csv(dir.write("x.csv", "\"Foo\",\"Bar\"\n1,2\n"), tl, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("Foo,Bar"), std::string::npos);
}

TEST(RocprofV3Csv, TruncatedRowsAndBadNumbersWarnWithLineAndKeepGoing) {
  TempDir dir("v3bad");
  std::string p = dir.write(
      "k.csv",
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
      "\"Workgroup_Size_X\",\"Grid_Size_X\"\n"
      "\"KERNEL_DISPATCH\",\"Agent 1\",1,\"good\",1,100,200,64,128\n"
      "\"KERNEL_DISPATCH\",\"Agent 1\",1,\"short\",2,300,400\n"        // truncated: no WG/grid
      "\"KERNEL_DISPATCH\",\"Agent 1\",1,\"badts\",3,abc,500,64,64\n"  // non-numeric start
      "\"KERNEL_DISPATCH\",\"Agent 1\",x,\"badq\",4,600,700,64,64\n"   // non-numeric queue
      "\"KERNEL_DISPATCH\",\"Agent 1\",1,\"cut\",5,800\n");            // truncated before End
  Timeline tl;
  ASSERT_TRUE(read_rocprofv3_csv(p, tl, {}).ok());
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 3u);  // good, short, badq
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)]), "short");
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)],
            (std::array<uint32_t, 3>{0, 0, 0}));  // unknown, not invented
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 2)], kNone);
  int64_t count = 0, line = 0;
  ASSERT_TRUE(has_warning(tl, "fewer fields than the header", &count, &line));
  EXPECT_EQ(count, 2);
  EXPECT_EQ(line, 3);
  ASSERT_TRUE(has_warning(tl, "column 'Start_Timestamp' is not an integer", &count, &line));
  EXPECT_EQ(line, 4);
  ASSERT_TRUE(has_warning(tl, "column 'Queue_Id' is not an integer", &count, &line));
  EXPECT_EQ(line, 5);
  ASSERT_TRUE(has_warning(tl, "row skipped: no valid Start_Timestamp/End_Timestamp", &count, &line));
  EXPECT_EQ(count, 2);
}

TEST(RocprofV3Csv, UnterminatedQuoteKeepsRowsBeforeIt) {
  TempDir dir("v3quote");
  std::string p =
      dir.write("h.csv",
                "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\","
                "\"End_Timestamp\"\n"
                "\"HIP_RUNTIME_API_EXT\",\"hipMalloc\",1,1,1,10,20\n"
                "\"HIP_RUNTIME_API_EXT\",\"hipFree,1,1,2,30,40\n");
  Timeline tl;
  Status s = read_rocprofv3_csv(p, tl, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(s.error().line, 3);
  EXPECT_GE(tl.runtime.size(), 1u);
  EXPECT_EQ(tl.str(tl.runtime.name[0]), "hipMalloc");
}

TEST(RocprofV3Csv, StatsWithInvalidUtf8NameDoNotThrow) {
  TempDir dir("v3utf8");
  std::string p = dir.write("s.csv",
                            "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\","
                            "\"StdDev\"\n\"k\xB2\",1,5,5.0,100.0,5,5,0\n");
  Timeline tl;
  ASSERT_TRUE(read_rocprofv3_csv(p, tl, {}).ok());
  auto j = nlohmann::json::parse(tl.meta.extra.at("stats:s.csv"));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["total_ns"], 5);
}

TEST(RocprofV3Csv, MissingFileIsIo) {
  Timeline tl;
  Status s = read_rocprofv3_csv("/nonexistent/kernel_trace.csv", tl, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Io);
}

}  // namespace goblin::trace
