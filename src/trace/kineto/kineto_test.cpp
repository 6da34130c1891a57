// Kineto reader tests: golden counts on every real fixture (counted independently with Python's
// json module: X events by category, s/f flows of cat ac2g/fwdbwd/async, ProfilerStep cpu_ops
// counted once more as annotations), hand-checked records, chunk boundaries, and damaged input.
#include "trace/kineto/kineto.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/io.h"
#include "trace/kineto/kineto_test_util.h"
#include "trace/kineto/trace_splitter.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

TEST(KinetoGolden, CountsAndSpansOnEveryFixture) {
  for (const auto& g : kGolden) {
    SCOPED_TRACE(g.file);
    Timeline tl;
    Status s = read(g.file, tl);
    ASSERT_TRUE(s.ok()) << s.error().describe();
    EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), g.kernels);
    EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), g.memcpy);
    EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memset), g.memset);
    EXPECT_EQ(tl.runtime.size(), g.runtime);
    EXPECT_EQ(tl.cpu_ops.size(), g.cpu_ops);
    EXPECT_EQ(tl.annotations.size(), g.annotations);
    EXPECT_EQ(tl.flows.size() + tl.meta.launch_flows, g.flows);  // launch flows counted, not stored
    auto [s0, s1] = tl.span();
    EXPECT_EQ(s1 - s0, g.span_ns);
    auto [g0, g1] = tl.gpu_span();
    EXPECT_EQ(g1 - g0, g.gpu_span_ns);
    for (const auto& w : tl.warnings) {
      EXPECT_EQ(w.message.find("damaged"), std::string::npos) << w.message;
    }
  }
}

TEST(KinetoRecords, CurrentSchemaKernelMemcpyAndMetadata) {
  Timeline tl;
  ASSERT_TRUE(read("h100_llama_fp32_eager_w0.json.gz", tl).ok());
  // First kernel in file order: ts 4470243504710.984 dur 85.058, pid 0 tid 7, stream 7,
  // correlation 17004, grid [32000,1,1], block [128,1,1], 32 registers, 0 shared memory.
  EXPECT_TRUE(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)])
                  .starts_with("void at::native::vectorized_elementwise_kernel<4, "
                               "at::native::AUnaryFunctor<float, float, float,"));
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 4470243504710984);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 85058);
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 0);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 7);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 17004);
  EXPECT_EQ(tl.gpu_ops.external_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)],
            kNone);  // this kernel's args carry no External id
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{32000, 1, 1}));
  EXPECT_EQ(tl.gpu_ops.block[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 32);
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 0);
  // First memcpy: HtoD 65536 bytes, External id 180, correlation 21815.
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], CopyKind::HtoD);
  EXPECT_EQ(tl.gpu_ops.bytes[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 65536);
  EXPECT_EQ(tl.gpu_ops.external_id[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 180);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 21815);
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 4470243509890182);
  // Metadata: clock base, versions, devices, verbatim workload values.
  EXPECT_EQ(tl.meta.clock_base_ns, 1790857026000000000);
  EXPECT_TRUE(tl.meta.clock_is_epoch);
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(tl.meta.devices[0].arch, "sm_90");
  EXPECT_EQ(tl.meta.devices[0].num_sms, 132);
  EXPECT_EQ(tl.meta.devices[0].total_memory_bytes, 85017493504);
  EXPECT_EQ(tl.meta.versions.at("cuda_driver"), "13000");
  EXPECT_TRUE(tl.meta.versions.count("cupti"));
  EXPECT_EQ(tl.meta.extra.at("tokens_per_sec"), "39663.2852792814");
  EXPECT_TRUE(tl.meta.extra.count("traceName"));  // written after traceEvents
  EXPECT_TRUE(tl.meta.extra.count("step_time_seconds"));
  // Flows: fwdbwd stored (every stored flow), ac2g counted.
  size_t fwdbwd = 0;
  for (auto c : tl.flows.category) fwdbwd += tl.str(c) == "fwdbwd";
  EXPECT_EQ(fwdbwd, 2u * 2812u);
  EXPECT_EQ(tl.flows.size(), fwdbwd);
  EXPECT_GT(tl.meta.launch_flows, 0u);
  // record_shapes: Input Dims kept as raw JSON text.
  size_t with_dims = 0;
  for (auto d : tl.cpu_ops.input_dims) with_dims += d != kNoStr;
  EXPECT_GT(with_dims, 0u);
}

TEST(KinetoRecords, Schema2021StreamTidsAndIntegerEpoch) {
  Timeline tl;
  ASSERT_TRUE(read("kineto_2021_legacy_resnet50.json.gz", tl).ok());
  // First kernel: ts 1610366388630527 µs (integer epoch), dur 1009, tid "stream 7",
  // correlation 627, "external id" 883, grid [12544,2,1], block [8,8,1], 80 regs, 2304 B shared.
  EXPECT_TRUE(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)])
                  .starts_with("void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3"));
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1610366388630527000);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 1009000);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 7);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 627);
  EXPECT_EQ(tl.gpu_ops.external_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 883);
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{12544, 2, 1}));
  EXPECT_EQ(tl.gpu_ops.block[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], (std::array<uint32_t, 3>{8, 8, 1}));
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 80);
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2304);
  EXPECT_TRUE(tl.meta.clock_is_epoch);  // no baseTimeNanoseconds, but epoch µs
  EXPECT_EQ(tl.meta.clock_base_ns, 0);
  // Runtime tid is the string "1441273664".
  EXPECT_EQ(tl.runtime.tid[0], 1441273664);
  // "async"/"launch" flows are launch flows: counted with the ac2g ones, not stored.
  EXPECT_GT(tl.meta.launch_flows, 0u);
  for (auto c : tl.flows.category) EXPECT_EQ(tl.str(c), "fwdbwd");
  // Operator args "Input dims" (2021 spelling).
  EXPECT_EQ(tl.str(tl.cpu_ops.input_dims[0]), "[[], [], [], [], [], []]");
}

TEST(KinetoRecords, ComputePropertiesAndProfilerStepCpuOp) {
  Timeline tl;
  ASSERT_TRUE(read("kineto_2021_computeProperties.json", tl).ok());
  ASSERT_FALSE(tl.meta.devices.empty());
  EXPECT_EQ(tl.meta.devices[0].name, "Tesla V100-DGXS-32GB");
  EXPECT_EQ(tl.meta.devices[0].arch, "sm_70");
  ASSERT_EQ(tl.annotations.size(), 1u);  // ProfilerStep#N written as an Operator
  EXPECT_TRUE(tl.str(tl.annotations.name[0]).starts_with("ProfilerStep#"));
  EXPECT_FALSE(tl.annotations.on_gpu[0]);
}

TEST(KinetoRecords, RocmKernelsAndMemcpyKind) {
  Timeline tl;
  ASSERT_TRUE(read("mi250_rocm62_minitoy_train.json.gz", tl).ok());
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 4203669603771648);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 6880);
  EXPECT_EQ(tl.gpu_ops.device[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 2);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 0);
  EXPECT_EQ(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 118);
  EXPECT_EQ(tl.gpu_ops.external_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 13);
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)],
            (std::array<uint32_t, 3>{0, 0, 0}));  // ROCm GPU events carry no grid
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], CopyKind::HtoD);
  bool hip = false;
  for (auto n : tl.runtime.name) hip |= tl.str(n) == "hipLaunchKernel";
  EXPECT_TRUE(hip);
  size_t gpu_ann = 0;
  for (size_t i = 0; i < tl.annotations.size(); ++i) {
    if (tl.annotations.on_gpu[i]) {
      ++gpu_ann;
      EXPECT_EQ(tl.annotations.device[i], 2);
    }
  }
  EXPECT_EQ(gpu_ann, 2u);
}

TEST(KinetoRecords, SyncGraphIdAndDistributed) {
  Timeline tl;
  ASSERT_TRUE(read("kineto_2026_occupancy_cuda_sync.json", tl).ok());
  EXPECT_EQ(tl.gpu_ops.graph_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 0);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 20);
  size_t sync = 0;
  for (auto s : tl.runtime.is_sync) sync += s;
  EXPECT_EQ(sync, 2u);

  Timeline d;
  ASSERT_TRUE(read("cpu_only_rank-34.json.gz", d).ok());
  EXPECT_EQ(d.meta.distributed.rank, 34);
  EXPECT_EQ(d.meta.distributed.world_size, 300);
  EXPECT_EQ(d.meta.distributed.backend, "gloo");
}

TEST(KinetoRecords, NumbersBeyondInt64KeepTheEvent) {
  Timeline tl;
  ASSERT_TRUE(read("large_integer_rank-70.json.gz", tl).ok());
  ASSERT_EQ(tl.cpu_ops.size(), 1u);
  EXPECT_EQ(tl.str(tl.cpu_ops.name[0]), "record_param_comms");
  EXPECT_EQ(tl.cpu_ops.start_ns[0], 200000);
}

TEST(KinetoRecords, PythonFunctionsAndMemoryEvents) {
  Timeline tl;
  ASSERT_TRUE(read("h100_qwen05b_inference_stack.json.gz", tl).ok());
  size_t py = 0, root = 0;
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) py += tl.cpu_ops.kind[i] == CpuOpKind::PythonFunction;
  EXPECT_EQ(py, 4262u);
  // Every frame's ids, each pointing at a python_function row, in row order.
  ASSERT_EQ(tl.python_frames.size(), py);
  std::set<int64_t> ids;
  for (size_t f = 0; f < tl.python_frames.size(); ++f) {
    const auto row = static_cast<size_t>(tl.python_frames.cpu_op[f]);
    ASSERT_LT(row, tl.cpu_ops.size());
    EXPECT_EQ(tl.cpu_ops.kind[row], CpuOpKind::PythonFunction);
    if (f > 0) EXPECT_GT(tl.python_frames.cpu_op[f], tl.python_frames.cpu_op[f - 1]);
    EXPECT_NE(tl.python_frames.python_id[f], kNone);
    ids.insert(tl.python_frames.python_id[f]);
    root += tl.python_frames.python_parent_id[f] == kNone;  // "Python parent id": null
  }
  EXPECT_EQ(ids.size(), py);  // ids are unique per frame
  EXPECT_GT(root, 0u);
  // Every parent named is a frame of the trace.
  for (size_t f = 0; f < tl.python_frames.size(); ++f)
    if (tl.python_frames.python_parent_id[f] != kNone) EXPECT_TRUE(ids.count(tl.python_frames.python_parent_id[f]));
  bool noted = false;
  for (const auto& w : tl.warnings) {
    if (w.message.find("[memory]") != std::string::npos) {
      // Read into the memory_events table (not "counted only"), and the note says so.
      noted = true;
      EXPECT_EQ(w.id, W::kineto_memory_events);
      EXPECT_EQ(w.count, 2450);
      EXPECT_EQ(tl.memory_events.size(), 2450u);
      EXPECT_NE(w.message.find("read into the memory_events table"), std::string::npos) << w.message;
    }
  }
  EXPECT_TRUE(noted);
}

// The same file read through reads of 1, 7, 61 and 4096 bytes gives the same timeline.
TEST(KinetoChunks, TinyReadsGiveIdenticalResults) {
  auto text = read_all(kDir + "h100_torch211_export_chrome_trace.json");
  ASSERT_TRUE(text.ok());
  Timeline ref;
  ASSERT_TRUE(read_text(*text, ref).ok());
  ASSERT_EQ(ref.gpu_ops.count(GpuOpKind::Kernel), 40u);
  for (size_t step : {size_t{1}, size_t{7}, size_t{61}, size_t{4096}}) {
    SCOPED_TRACE(step);
    Timeline tl;
    ASSERT_TRUE(read_text(*text, tl, step, step).ok());
    EXPECT_EQ(tl.gpu_ops.start_ns, ref.gpu_ops.start_ns);
    EXPECT_EQ(tl.gpu_ops.dur_ns, ref.gpu_ops.dur_ns);
    EXPECT_EQ(tl.cpu_ops.size(), ref.cpu_ops.size());
    EXPECT_EQ(tl.flows.id, ref.flows.id);
    EXPECT_EQ(tl.meta.launch_flows, ref.meta.launch_flows);
    EXPECT_EQ(tl.meta.extra, ref.meta.extra);
  }
}

// ---- splitter unit tests ----------------------------------------------------------------------

}  // namespace
}  // namespace goblin::trace
