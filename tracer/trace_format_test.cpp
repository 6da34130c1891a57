// The pure half of the tracer, without CUPTI: JSON escaping, time text, clock alignment, and
// the writer read back through goblin's own Kineto reader and step detection (the contract the
// tracer exists for). The recorded-trace fixture test is in tracer/fixture_test.cpp.
#include "trace_format.h"

#include <gtest/gtest.h>

#include "analysis/steps.h"
#include "core/json.h"
#include "trace/kineto/kineto.h"

namespace goblin::tracer {
namespace {

std::string esc(std::string_view s) {
  std::string o;
  append_json_string(o, s);
  return o;
}

TEST(TracerJson, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(esc("void f<\"a\">(char\\*)"), "\"void f<\\\"a\\\">(char\\\\*)\"");
  EXPECT_EQ(esc("a\nb\tc\x01"), "\"a\\u000ab\\u0009c\\u0001\"");
  EXPECT_EQ(esc(""), "\"\"");
}

TEST(TracerJson, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(esc("gemm_\xC3\xA9t\xE2\x82\xAC"), "\"gemm_\xC3\xA9t\xE2\x82\xAC\"");  // é, €
  EXPECT_EQ(esc("k\xFFx"), "\"k\xEF\xBF\xBDx\"");                                  // stray byte
  EXPECT_EQ(esc("k\xC3"), "\"k\xEF\xBF\xBD\"");                                    // cut sequence
  EXPECT_EQ(esc("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");                      // overlong '/'
  EXPECT_EQ(esc("\xED\xA0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");      // surrogate
}

TEST(TracerTime, MicrosecondsWithThreeDecimals) {
  std::string o;
  append_us(o, 1234567);
  EXPECT_EQ(o, "1234.567");
  o.clear();
  append_us(o, 5);
  EXPECT_EQ(o, "0.005");
  o.clear();
  append_us(o, -3);  // never negative
  EXPECT_EQ(o, "0.000");
}

TEST(TracerClock, TightestBracketWins) {
  std::vector<ClockSample> s = {
      {1'000'000, 500, 1'000'900},        // 900 ns wide
      {2'000'000, 1'000'100, 2'000'040},  // 40 ns wide: offset = 2'000'020 - 1'000'100
      {3'000'000, 2'000'000, 2'999'000},  // after < before: unusable
      {4'000'000, 0, 4'000'010},          // no CUPTI reading
  };
  ClockAlignment a = align_clocks(s);
  ASSERT_TRUE(a.valid);
  EXPECT_EQ(a.samples, 2);
  EXPECT_EQ(a.offset_ns, 2'000'020 - 1'000'100);
  EXPECT_EQ(a.uncertainty_ns, 20);
  EXPECT_FALSE(align_clocks({}).valid);
}

TEST(TracerNames, CuptiEnumsNamedAsKinetoDoes) {
  EXPECT_STREQ(copy_kind_name(1), "HtoD");
  EXPECT_STREQ(copy_kind_name(10), "PtoP");
  EXPECT_STREQ(copy_kind_name(99), "Unknown");
  EXPECT_STREQ(memory_kind_name(2), "Pinned");
  EXPECT_STREQ(sync_type_name(3), "Stream Sync");
  EXPECT_STREQ(overhead_kind_name(1 << 16), "CUPTI buffer flush");
}

// Two NVTX steps; step 1 launches an eager kernel and a memcpy, step 2 a CUDA graph of two
// kernels (correlation of cudaGraphLaunch, graph id 7). CUPTI clock = epoch - 1e9.
Trace two_step_trace() {
  Trace t;
  t.pid = 4242;
  t.process_name = "python3";
  t.clock.offset_ns = 1'000'000'000;
  t.clock.valid = true;
  t.strings = {"ProfilerStep#1", "ProfilerStep#2", "void gemm<\"x\">(float*)", "triton_poi_fused_0", "bad\xFFname"};
  t.api_names[api_key(false, 211)] = "cudaLaunchKernel";
  t.api_names[api_key(false, 31)] = "cudaMemcpyAsync";
  t.api_names[api_key(false, 311)] = "cudaGraphLaunch";
  const uint64_t T = 1'700'000'000'000'000'000ull;  // CUPTI ns
  // step markers on thread 77
  t.markers.push_back({T + 0, 1, 0, 77, 4242, MarkerRec::Start});
  t.markers.push_back({T + 1'000'000, 1, kNoId, 77, 4242, MarkerRec::End});
  t.markers.push_back({T + 1'000'000, 2, 1, 77, 4242, MarkerRec::Start});
  t.markers.push_back({T + 2'000'000, 2, kNoId, 77, 4242, MarkerRec::End});
  t.markers.push_back({T + 2'500'000, 3, 0, 77, 4242, MarkerRec::Start});  // never closed
  t.apis.push_back({T + 100'000, T + 110'000, 211, 10, 4242, 77, false});
  t.apis.push_back({T + 200'000, T + 210'000, 31, 11, 4242, 77, false});
  t.apis.push_back({T + 1'100'000, T + 1'120'000, 311, 12, 4242, 77, false});
  KernelRec k;
  k.start = T + 150'000;
  k.end = T + 450'000;
  k.name = 2;
  k.correlation = 10;
  k.stream = 7;
  k.grid[0] = 132, k.grid[1] = k.grid[2] = 1;
  k.block[0] = 256, k.block[1] = k.block[2] = 1;
  k.registers = 96;
  k.static_smem = 1024;
  k.dynamic_smem = 4096;
  t.kernels.push_back(k);
  for (int i = 0; i < 2; ++i) {
    KernelRec g = k;
    g.name = i == 0 ? 3 : 4;
    g.correlation = 12;
    g.start = T + 1'200'000 + i * 300'000;
    g.end = g.start + 250'000;
    g.graph_id = 7;
    g.graph_node_id = 100 + i;
    t.kernels.push_back(g);
  }
  CopyRec c;
  c.start = T + 500'000;
  c.end = T + 600'000;
  c.bytes = 1 << 20;
  c.correlation = 11;
  c.stream = 7;
  c.copy_kind = 1;
  c.src_kind = 2;
  c.dst_kind = 3;
  t.copies.push_back(c);
  t.syncs.push_back({T + 1'900'000, T + 1'950'000, 13, 0, 7, 3});
  t.devices.push_back({0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 32, 85'000'000'000ull});
  t.versions["cupti"] = "130000";
  t.versions["cuda_driver"] = "13000";
  t.metadata_json["goblin_tracer"] = "{\"name\":\"goblin-cupti\",\"dropped_records\":0}";
  return t;
}

TEST(TracerWriter, ReadsBackThroughTheKinetoReaderIntoOneTimeline) {
  Trace t = two_step_trace();
  std::string text;
  WriteStats ws = write_kineto(t, [&](std::string_view s) { text.append(s); });
  EXPECT_EQ(ws.kernels, 3u);
  EXPECT_EQ(ws.copies, 1u);
  EXPECT_EQ(ws.apis, 3u);
  EXPECT_EQ(ws.ranges, 2u);
  EXPECT_EQ(ws.unmatched_markers, 1u);
  EXPECT_EQ(ws.flows, 4u);
  EXPECT_EQ(ws.base_epoch_ns, 1'700'000'001'000'000'000);

  Timeline tl;
  auto src = trace::kineto::memory_source("tracer.json", text, 4096);  // small reads cross chunk edges
  Status st = trace::kineto::read_source(*src, tl, trace::ReadOptions{});
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_TRUE(tl.warnings.empty()) << tl.warnings[0].message;
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 3u);
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)]), "void gemm<\"x\">(float*)");
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 2)]), "bad\xEF\xBF\xBDname");
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 300'000);
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 150'000);  // relative to baseTimeNanoseconds
  EXPECT_EQ(tl.gpu_ops.shared_mem_bytes[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 5120);
  EXPECT_EQ(tl.gpu_ops.registers_per_thread[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 96);
  EXPECT_EQ(tl.gpu_ops.grid[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)][0], 132u);
  EXPECT_EQ(tl.gpu_ops.graph_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], kNone);
  EXPECT_EQ(tl.gpu_ops.graph_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)], 7);
  EXPECT_EQ(tl.gpu_ops.stream[tl.gpu_ops.nth(GpuOpKind::Kernel, 0)], 7);
  ASSERT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 1u);
  EXPECT_EQ(tl.gpu_ops.copy_kind[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], CopyKind::HtoD);
  EXPECT_EQ(tl.gpu_ops.bytes[tl.gpu_ops.nth(GpuOpKind::Memcpy, 0)], 1 << 20);
  EXPECT_EQ(tl.runtime.size(), 4u);  // 3 API calls + 1 cuda_sync
  EXPECT_EQ(tl.flows.size(), 0u);    // the tracer writes launch flows (ac2g) only: counted, not stored
  EXPECT_EQ(tl.meta.launch_flows, 8u);
  EXPECT_TRUE(tl.meta.clock_is_epoch);
  EXPECT_EQ(tl.meta.clock_base_ns, 1'700'000'001'000'000'000);
  EXPECT_EQ(tl.meta.versions.at("cupti"), "130000");
  EXPECT_EQ(tl.meta.versions.at("cuda_driver"), "13000");
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].arch, "sm_90");
  EXPECT_EQ(tl.meta.devices[0].num_sms, 132);
  EXPECT_TRUE(tl.meta.extra.count("goblin_tracer"));

  // Graph kernels resolve to their cudaGraphLaunch by correlation.
  tl.build_indexes();
  auto r = tl.runtime_by_correlation(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)]);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(tl.str(tl.runtime.name[*r]), "cudaGraphLaunch");

  // The NVTX ranges are the steps; each step window holds the GPU work its launches made.
  analysis::StepDetection d = analysis::find_steps(tl);
  ASSERT_EQ(d.steps.size(), 2u);
  EXPECT_EQ(d.steps[0].name, "ProfilerStep#1");
  EXPECT_EQ(d.steps[1].name, "ProfilerStep#2");
  EXPECT_EQ(d.steps[0].start_ns, 0);
  EXPECT_EQ(d.steps[1].end_ns, 2'000'000);
}

TEST(TracerWriter, EmptyTraceIsStillValidKineto) {
  Trace t;
  t.pid = 1;
  std::string text;
  WriteStats ws = write_kineto(t, [&](std::string_view s) { text.append(s); });
  EXPECT_EQ(ws.kernels, 0u);
  EXPECT_EQ(ws.base_epoch_ns, 0);
  Timeline tl;
  auto src = trace::kineto::memory_source("empty.json", text);
  ASSERT_TRUE(trace::kineto::read_source(*src, tl, trace::ReadOptions{}).ok());
  EXPECT_EQ(tl.gpu_op_count(), 0u);
}

}  // namespace
}  // namespace goblin::tracer

// The tracer's own record of its run (docs/tracer.md "goblin_tracer"): valid JSON with every
// field, the command line escaped, detach_error only when there was one.
TEST(TracerRun, MetadataIsValidJsonWithEveryField) {
  goblin::tracer::TracerRun r;
  r.written_at = "exit";
  r.api_mode = "launch";
  r.kinds = "kernel,memcpy";
  r.command = "python \"train.py\" --lr 3e-4";
  r.records = 42;
  r.cupti_overhead_ns = {{"COMPILER", 7}, {"CUPTI_BUFFER_FLUSH", 11}};
  r.clock.samples = 5;
  r.clock.offset_ns = -123;
  r.drift_at_exit_ns = 9;
  auto j = nlohmann::json::parse(goblin::tracer::tracer_run_json(r));
  EXPECT_EQ(j["name"], goblin::tracer::kTracerName);
  EXPECT_EQ(j["command"], r.command);
  EXPECT_EQ(j["records"], 42);
  EXPECT_EQ(j["pause_mode"], "detach");
  EXPECT_FALSE(j.contains("detach_error"));
  EXPECT_EQ(j["cupti_overhead_ns"]["CUPTI_BUFFER_FLUSH"], 11);
  EXPECT_EQ(j["clock"]["offset_ns"], -123);
  EXPECT_EQ(j["clock"]["drift_at_exit_ns"], 9);
  r.detach_error = "cuptiFinalize failed";
  EXPECT_EQ(nlohmann::json::parse(goblin::tracer::tracer_run_json(r))["detach_error"], "cuptiFinalize failed");
}
