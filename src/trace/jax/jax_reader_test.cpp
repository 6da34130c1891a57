// JAX (XProf) trace reader: our own H100 recordings (tests/fixtures/jax, written by
// workloads/jax/record_traces.py with JAX 0.11.2) are sniffed by content and read into kernels,
// memcpys, memsets, launch calls, steps and CPU ops; small hand-written traces cover derived
// device lines, unnamed processes, damaged events and truncation.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/io.h"
#include "model/warnings.h"
#include "trace/jax/jax.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

bool has_warning(const Timeline& tl, const std::string& text) {
  for (const auto& w : tl.warnings)
    if (w.message.find(text) != std::string::npos) return true;
  return false;
}

std::string fixture_path(const std::string& name) {
  return std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/jax/" + name + ".trace.json.gz";
}

Timeline read_fixture(const std::string& name) {
  Timeline tl;
  Status st = read_path(fixture_path(name), tl);
  EXPECT_TRUE(st.ok()) << st.error().describe();
  return tl;
}

size_t count_named(const Timeline& tl, std::string_view prefix) {
  size_t n = 0;
  for (size_t i = 0; i < tl.annotations.size(); ++i) n += tl.str(tl.annotations.name[i]).starts_with(prefix);
  return n;
}

TEST(JaxReader, TransformerFixtureReadsKernelsStepsAndLaunches) {
  Timeline tl = read_fixture("transformer");
  ASSERT_EQ(tl.meta.formats.size(), 1u);
  EXPECT_EQ(tl.meta.formats[0], Format::Jax);
  EXPECT_EQ(tl.meta.trace_clock, ClockDomain::JaxTrace);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 816u);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 4u);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memset), 52u);
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].id, 0);
  // StepTraceAnnotation("train", step_num=N) → ProfilerStep#N.
  EXPECT_EQ(count_named(tl, "ProfilerStep#"), 4u);
  EXPECT_EQ(tl.runtime.size(), 16u);
  std::set<std::string> names;
  size_t graph = 0, with_grid = 0;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    names.insert(std::string(tl.str(tl.gpu_ops.name[i])));
    graph += tl.gpu_ops.graph_id[i] != kNone;
    with_grid += tl.gpu_ops.grid[i][0] > 0 && tl.gpu_ops.block[i][0] > 0;
    EXPECT_EQ(tl.gpu_ops.device[i], 0);
    EXPECT_EQ(tl.gpu_ops.stream[i], 14);
    EXPECT_NE(tl.gpu_ops.correlation[i], kNone);
  }
  EXPECT_EQ(with_grid, 816u);
  EXPECT_GT(graph, 800u);  // the train step runs as one CUDA graph (XLA command buffer)
  EXPECT_TRUE(names.count("input_reduce_fusion_8"));
  EXPECT_TRUE(names.count("gemm_fusion_dot_17"));
  EXPECT_TRUE(names.count("triton_softmax_1"));
  // Python frames ("$file:line fn") are python-function CPU ops without the '$'.
  size_t frames = 0;
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) frames += tl.cpu_ops.kind[i] == CpuOpKind::PythonFunction;
  EXPECT_EQ(frames, 4087u);
}

TEST(JaxReader, KernelsLinkToTheirXlaOpOnTheHost) {
  // The Pallas kernel "kern" ran as XLA op pallas_call.1: the host event of that name, which
  // encloses its launch, is its launching CPU op.
  Timeline tl = read_fixture("transformer");
  size_t pallas = 0;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.str(tl.gpu_ops.name[i]) != "kern") continue;
    auto op = tl.cpu_op_by_external_id(tl.gpu_ops.external_id[i]);
    ASSERT_TRUE(op.has_value());
    EXPECT_EQ(tl.str(tl.cpu_ops.name[*op]), "pallas_call.1");
    ++pallas;
  }
  EXPECT_EQ(pallas, 4u);  // once per traced step
}

TEST(JaxReader, DataParallelFixtureHasTheSameStep) {
  Timeline tl = read_fixture("dataparallel");
  EXPECT_EQ(tl.meta.formats[0], Format::Jax);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 816u);
  EXPECT_EQ(count_named(tl, "ProfilerStep#"), 4u);
}

TEST(JaxReader, SniffsXprofJsonButNotKineto) {
  EXPECT_TRUE(sniff_jax(R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)"
                        R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}}]})"));
  // perfetto_trace.json.gz: the same document re-dumped by Python, without "metadata".
  EXPECT_TRUE(sniff_jax(R"({"displayTimeUnit": "ns", "traceEvents": [{"ph": "M", "pid": 701, "name": )"
                        R"("process_name", "args": {"name": "/host:CPU"}}]})"));
  EXPECT_FALSE(sniff_jax(R"({"schemaVersion":1,"traceEvents":[{"ph":"X","name":"k","pid":0,"tid":7}]})"));
  EXPECT_FALSE(sniff_jax(R"({"displayTimeUnit":"ns","traceEvents":[]})"));
  EXPECT_FALSE(sniff_jax("[1,2,3]"));
}

Status read_text(const std::string& text, Timeline& tl) {
  auto src = make_string_source(text, "t.trace.json");
  ReadOptions opt;
  opt.chunk_bytes = 7;  // events straddle reads
  return read_jax_source(*src, tl, opt);
}

constexpr const char* kHead =
    R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)"
    R"({"ph":"M","pid":3,"name":"process_name","args":{"name":"/device:GPU:2"}},)"
    R"x({"ph":"M","pid":3,"tid":9,"name":"thread_name","args":{"name":"Stream #9(Compute)"}},)x"
    R"({"ph":"M","pid":3,"tid":1,"name":"thread_name","args":{"name":"XLA Ops"}},)"
    R"({"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},)";

TEST(JaxReader, DerivedLinesAreAnnotationsAndDetailsAreParsed) {
  Timeline tl;
  Status st = read_text(
      std::string(kHead) +
          R"({"ph":"X","pid":3,"tid":9,"ts":10.5,"dur":2.25,"name":"loop_add_fusion","args":{"correlation_id":"5",)"
          R"("kernel_details":"regs:32 static_shared:16 dynamic_shared:48 grid:4,2,1 block:128,1,1"}},)"
          R"({"ph":"X","pid":3,"tid":1,"ts":10.5,"dur":2.25,"name":"add.1"},)"
          R"({"ph":"X","pid":3,"tid":9,"ts":20,"dur":1,"name":"MemcpyD2H","args":{"memcpy_details":"size:4096"}},)"
          R"({"ph":"X","pid":701,"tid":4,"ts":9,"dur":1,"name":"cuLaunchKernel","args":{"correlation_id":"5"}},)"
          R"({}]})",
      tl);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  tl.finish();
  ASSERT_EQ(tl.gpu_ops.size(), 2u);
  EXPECT_EQ(tl.gpu_ops.start_ns[0], 10500);
  EXPECT_EQ(tl.gpu_ops.dur_ns[0], 2250);
  EXPECT_EQ(tl.gpu_ops.device[0], 2);
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[0], 32);
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[0], 64);
  EXPECT_EQ(tl.gpu_ops.grid[0], (Dim3{4, 2, 1}));
  EXPECT_EQ(tl.gpu_ops.block[0], (Dim3{128, 1, 1}));
  EXPECT_EQ(tl.gpu_ops.kind[1], GpuOpKind::Memcpy);
  EXPECT_EQ(tl.gpu_ops.copy_kind[1], CopyKind::DtoH);
  EXPECT_EQ(tl.gpu_ops.bytes[1], 4096);
  ASSERT_EQ(tl.annotations.size(), 1u);  // the "XLA Ops" line: on the GPU, not a kernel
  EXPECT_TRUE(tl.annotations.on_gpu[0]);
  ASSERT_EQ(tl.runtime.size(), 1u);
  EXPECT_TRUE(tl.runtime.is_driver[0]);
  EXPECT_EQ(tl.runtime.correlation[0], 5);
}

TEST(JaxReader, UnnamedProcessAndDamagedEventsAreWarned) {
  Timeline tl;
  Status st = read_text(std::string(kHead) + R"({"ph":"X","pid":44,"tid":1,"ts":1,"dur":1,"name":"work"},)"
                                             R"({"ph":"X","pid":701,"tid":1,"ts":"x","dur":1,"name":"bad"},)"
                                             R"({"ph":"X","tid":1,"ts":1,"dur":1,"name":"nopid"},)"
                                             R"({"ph":"i","pid":701,"tid":1,"ts":1,"name":"instant"}]})",
                        tl);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_EQ(tl.cpu_ops.size(), 1u);
  EXPECT_TRUE(has_warning(tl, "process 44 has no process_name"));
  EXPECT_TRUE(has_warning(tl, "an event could not be read"));
  EXPECT_TRUE(has_warning(tl, "phase other than complete"));
}

TEST(JaxReader, TruncatedTraceKeepsWhatWasReadAndIsMalformed) {
  Timeline tl;
  Status st = read_text(std::string(kHead) + R"({"ph":"X","pid":3,"tid":9,"ts":1,"dur":1,"name":"k1"},)"
                                             R"({"ph":"X","pid":3,"tid":9,"ts":2,"dur":1,"na)",
                        tl);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(tl.gpu_ops.size(), 1u);
}

}  // namespace
}  // namespace goblin::trace
