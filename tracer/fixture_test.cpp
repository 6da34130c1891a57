// The tracer's real output, recorded on an H100 (bench/results/tracer/README.md, device.sh robust
// and graphs) and committed under examples/h100_tracer/, read through goblin's reader: steps
// from the hook's NVTX ranges, kernels per step, graph kernels attributed to their
// cudaGraphLaunch, and the tracer's metadata. CPU-only: no CUPTI needed to run these.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "analysis/steps.h"
#include "trace/readers.h"

namespace goblin {
namespace {

std::string example(const char* name) { return std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_tracer/" + name; }

struct GraphCount {
  size_t graph_kernels = 0, attributed = 0;
};
GraphCount graph_attribution(Timeline& tl) {
  tl.build_indexes();
  GraphCount g;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel || tl.gpu_ops.graph_id[i] == kNone) continue;
    ++g.graph_kernels;
    auto r = tl.runtime_by_correlation(tl.gpu_ops.correlation[i]);
    if (r && tl.str(tl.runtime.name[*r]) == "cudaGraphLaunch") ++g.attributed;
  }
  return g;
}

size_t kernels_in(const Timeline& tl, const analysis::Step& s) {
  size_t n = 0;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i)
    n += tl.gpu_ops.kind[i] == GpuOpKind::Kernel && tl.gpu_ops.start_ns[i] >= s.start_ns &&
         tl.gpu_ops.start_ns[i] < s.end_ns;
  return n;
}

// small_train.py: MLP + AdamW, 8 steps (the hook's window: steps 3..6), then a CUDA graph
// captured and replayed 3 times.
TEST(TracerFixture, SmallTrainStepsKernelsGraphAndMetadata) {
  Timeline tl;
  Status st = trace::read_path(example("small_train_cupti.json.gz"), tl);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_TRUE(tl.warnings.empty()) << tl.warnings[0].message;
  ASSERT_EQ(tl.meta.formats.size(), 1u);
  EXPECT_EQ(tl.meta.formats[0], Format::Kineto);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 252u);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Memcpy), 22u);
  EXPECT_EQ(tl.runtime.size(), 336u);
  EXPECT_EQ(tl.flows.size(), 0u);         // launch flows are counted, not stored
  EXPECT_EQ(tl.meta.launch_flows, 548u);  // one s/f pair per GPU op whose launch was recorded

  analysis::StepDetection d = analysis::find_steps(tl);
  ASSERT_EQ(d.steps.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(d.steps[i].name, "ProfilerStep#" + std::to_string(i + 3));
    EXPECT_EQ(kernels_in(tl, d.steps[i]), 26u) << d.steps[i].name;  // same work every step
  }

  GraphCount g = graph_attribution(tl);
  EXPECT_EQ(g.graph_kernels, 21u);  // 7 kernels per replay × 3 replays
  EXPECT_EQ(g.attributed, g.graph_kernels);

  EXPECT_EQ(tl.meta.versions.at("goblin_tracer"), "0.1.0");
  EXPECT_EQ(tl.meta.versions.at("cupti"), "130001");
  EXPECT_EQ(tl.meta.versions.at("nvidia_driver"), "580.159.04");
  EXPECT_EQ(tl.meta.versions.at("pytorch"), "2.11.0+cu130");  // from the hook, through the tracer
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(tl.meta.devices[0].arch, "sm_90");
  EXPECT_TRUE(tl.meta.clock_is_epoch);
  const std::string& gt = tl.meta.extra.at("goblin_tracer");
  EXPECT_NE(gt.find("\"written_at\":\"exit\""), std::string::npos);
  EXPECT_NE(gt.find("\"dropped_records\":0"), std::string::npos);
  EXPECT_NE(gt.find("\"clock\":{"), std::string::npos);
  EXPECT_TRUE(tl.meta.extra.count("step_time_seconds"));
}

// goblin profile tuned_compile_graphs.yaml --tracer cupti (torch.compile reduce-overhead):
// every kernel replayed from a CUDA graph resolves to its cudaGraphLaunch in one trace.
TEST(TracerFixture, CompiledGraphsAttributedToTheirLaunchInOneTrace) {
  Timeline tl;
  Status st = trace::read_path(example("tuned_compile_graphs_cupti.json.gz"), tl);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 15576u);
  GraphCount g = graph_attribution(tl);
  EXPECT_EQ(g.graph_kernels, 6272u);
  EXPECT_EQ(g.attributed, 6272u);
  analysis::StepDetection d = analysis::find_steps(tl);
  ASSERT_EQ(d.steps.size(), 5u);
  EXPECT_EQ(d.steps[0].name, "ProfilerStep#11");
  for (const auto& s : d.steps) EXPECT_GT(kernels_in(tl, s), 0u) << s.name;
}

// tuned_compile.yaml under goblin's own operator observer, five windows in one process
// (GOBLIN_PROFILE_WINDOWS=5; CUPTI attached and detached five times): every kernel linked to the
// ATen op that launched it, with input shapes, and no kernel of a later window linked to a launch
// of an earlier one (each attach's correlation ids are offset).
TEST(TracerFixture, OperatorObserverAttributesEveryKernelAcrossFiveAttaches) {
  Timeline tl;
  Status st = trace::read_path(example("tuned_compile_cupti_observer.json.gz"), tl);
  ASSERT_TRUE(st.ok()) << st.error().message;
  tl.build_indexes();
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 11725u);  // 25 steps x 469
  EXPECT_EQ(tl.cpu_ops.size(), 18708u);
  std::set<int64_t> corr;
  for (size_t i = 0; i < tl.runtime.size(); ++i)  // launches (cuda_sync events repeat their call's id)
    if (tl.str(tl.runtime.name[i]).find("Launch") != std::string_view::npos)
      EXPECT_TRUE(corr.insert(tl.runtime.correlation[i]).second) << tl.str(tl.runtime.name[i]);
  EXPECT_GT(corr.size(), 11725u / 2);
  size_t kernels = 0, with_op = 0;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    ++kernels;
    auto op = tl.cpu_op_by_external_id(tl.gpu_ops.external_id[i]);
    with_op += op && tl.cpu_ops.kind[*op] == CpuOpKind::Op;
  }
  EXPECT_EQ(with_op, kernels);
  size_t with_dims = 0;
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) with_dims += tl.cpu_ops.input_dims[i] != kNoStr;
  EXPECT_EQ(with_dims, tl.cpu_ops.size());
  analysis::StepDetection d = analysis::find_steps(tl);
  ASSERT_EQ(d.steps.size(), 25u);
  EXPECT_EQ(d.steps.front().name, "ProfilerStep#9");
  EXPECT_EQ(d.steps.back().name, "ProfilerStep#73");
  // Each step launched the same 469 kernels: count by the launching call's time (correlation).
  for (const auto& s : d.steps) {
    size_t n = 0;
    for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
      if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
      auto r = tl.runtime_by_correlation(tl.gpu_ops.correlation[i]);
      n += r && tl.runtime.start_ns[*r] >= s.cpu_start_ns && tl.runtime.start_ns[*r] < s.cpu_end_ns;
    }
    EXPECT_EQ(n, 469u) << s.name;
  }
}

// tuned_compile.yaml's first recorded window of the third session of 2026-11-26 (call 2; cut by
// time from its 20-window trace): goblin's operator observer records each input's dtype beside
// its shape, so the cpu_ops carry torch.profiler's "Input type" (one entry per input: the
// tensor's dtype name, "Scalar", or "" for anything else).
TEST(TracerFixture, OperatorsCarryInputTypesBesideTheirShapes) {
  Timeline tl;
  Status st = trace::read_path(example("tuned_compile_cupti_dtypes.json.gz"), tl);
  ASSERT_TRUE(st.ok()) << st.error().message;
  tl.build_indexes();
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 2345u);  // 5 steps x 469
  size_t ops = 0, typed = 0, mm = 0;
  auto entries = [](std::string_view j) {  // top-level entries of a JSON array ("[]": 0)
    size_t commas = 0, depth = 0;
    bool in_str = false;
    for (char c : j) {
      if (c == '"') in_str = !in_str;
      if (in_str) continue;
      depth += c == '[';
      depth -= c == ']';
      commas += depth == 1 && c == ',';
    }
    return j.size() > 2 ? commas + 1 : 0;
  };
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) {
    if (tl.cpu_ops.kind[i] != CpuOpKind::Op) continue;
    ++ops;
    if (tl.cpu_ops.input_types[i] == kNoStr) continue;
    ++typed;
    const std::string_view dims = tl.str(tl.cpu_ops.input_dims[i]), types = tl.str(tl.cpu_ops.input_types[i]);
    EXPECT_EQ(entries(dims), entries(types)) << dims << " " << types;
    if (tl.str(tl.cpu_ops.name[i]) == "aten::mm") {
      ++mm;
      EXPECT_EQ(types, R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])");
    }
  }
  EXPECT_EQ(ops, 3727u);
  EXPECT_EQ(typed, ops);
  EXPECT_EQ(mm, 855u);
}

}  // namespace
}  // namespace goblin
