#include "analysis/steps.h"

#include <gtest/gtest.h>

#include <string>

#include "analysis/test_timelines.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

using testing::TlBuilder;

TEST(Steps, CpuProfilerStepsWithGpuWorkByCorrelation) {
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 100);
  b.annotation("ProfilerStep#2", 100, 200);
  b.annotation("other_annotation", 0, 500);
  b.launch("k1", 10, 15, 20, 150);     // step 1's kernel runs into step 2's CPU span
  b.launch("k2", 110, 115, 150, 260);  // step 2's kernel ends after its CPU span
  b.runtime_only("cudaDeviceSynchronize", 255, 262, true);
  StepDetection d = find_steps(b.done());
  ASSERT_EQ(d.steps.size(), 2u);
  EXPECT_EQ(d.steps[0].name, "ProfilerStep#1");
  EXPECT_EQ(d.steps[0].start_ns, 0);
  EXPECT_EQ(d.steps[0].end_ns, 100);  // hull [0,150) clipped at step 2's start
  EXPECT_EQ(d.steps[1].start_ns, 100);
  EXPECT_EQ(d.steps[1].end_ns, 260);  // GPU work extends the window
  EXPECT_FALSE(d.steps[0].partial);
  EXPECT_FALSE(d.steps[1].partial);
  EXPECT_NE(d.method.find("correlation"), std::string::npos);
}

TEST(Steps, TrailingStepWithLostLaunchesIsPartialNotDropped) {
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 100);
  b.annotation("ProfilerStep#2", 100, 200);
  b.launch("k1", 10, 15, 20, 90);
  b.launch("k2", 110, 115, 120, 180);
  b.runtime_only("cudaLaunchKernel", 150, 155);  // launched, never recorded on the GPU
  b.launch("k3", 300, 301, 302, 310);            // after both steps (not in any step)
  StepDetection d = find_steps(b.done());
  ASSERT_EQ(d.steps.size(), 2u);
  EXPECT_TRUE(d.steps[1].partial);
  EXPECT_FALSE(d.steps[0].partial);
  EXPECT_FALSE(d.notes.empty());
}

TEST(Steps, GpuUserAnnotationSteps) {
  TlBuilder b;
  b.annotation("ProfilerStep#5", 10, 60, true);
  b.annotation("ProfilerStep#6", 55, 90, true);
  b.launch("k", 0, 1, 10, 90);
  StepDetection d = find_steps(b.done());
  ASSERT_EQ(d.steps.size(), 2u);
  EXPECT_EQ(d.steps[0].source, "gpu_user_annotation");
  EXPECT_EQ(d.steps[0].end_ns, 55);  // clipped: no overlap
  EXPECT_EQ(d.steps[1].end_ns, 90);
}

TEST(Steps, FallbackOneWindowAndEmpty) {
  TlBuilder b;
  b.launch("k", 0, 1, 10, 20);
  b.launch("k", 2, 3, 30, 45, 9);
  StepDetection d = find_steps(b.done());
  ASSERT_EQ(d.steps.size(), 1u);
  EXPECT_EQ(d.steps[0].name, "window");
  EXPECT_EQ(d.steps[0].start_ns, 10);
  EXPECT_EQ(d.steps[0].end_ns, 45);
  Timeline empty;
  StepDetection e = find_steps(empty);
  EXPECT_TRUE(e.steps.empty());
  EXPECT_FALSE(e.method.empty());
}

TEST(Steps, NonStepNamesIgnored) {
  TlBuilder b;
  b.annotation("ProfilerStep#", 0, 10);
  b.annotation("ProfilerStep#3x", 0, 10);
  b.launch("k", 0, 1, 10, 20);
  EXPECT_EQ(find_steps(b.done()).steps[0].name, "window");
}

// find_steps keeps correlation ids in flat blocks when they are dense (counters, as profilers
// write them) and in hash maps when they are not: the same traces with their ids spread a million
// apart give the same steps, notes and before-first-step counts.
TEST(Steps, SparseCorrelationIdsGiveTheSameSteps) {
  for (const char* name : {"h100_llama_fp32_eager_w0.json.gz", "h100_qwen05b_inference_stack.json.gz",
                           "nccl_sampled_rank-0.json.gz", "a100_alexnet_cuda_sync.json.gz"}) {
    const std::string path = std::string(GOBLIN_FIXTURES) + "/kineto/" + name;
    Timeline dense, sparse;
    ASSERT_TRUE(trace::read_path(path, dense).ok()) << name;
    ASSERT_TRUE(trace::read_path(path, sparse).ok()) << name;
    auto spread = [](int64_t c) { return c == kNone ? c : c * 1'000'003; };
    for (auto& c : sparse.runtime.correlation) c = spread(c);
    for (auto& c : sparse.gpu_ops.correlation) c = spread(c);
    sparse.build_indexes();  // the runtime index, if the read built one, over the new ids
    const StepDetection a = find_steps(dense), b = find_steps(sparse);
    ASSERT_FALSE(a.steps.empty()) << name;
    ASSERT_EQ(a.steps.size(), b.steps.size()) << name;
    for (size_t i = 0; i < a.steps.size(); ++i) {
      EXPECT_EQ(a.steps[i].name, b.steps[i].name) << name;
      EXPECT_EQ(a.steps[i].start_ns, b.steps[i].start_ns) << name << " " << a.steps[i].name;
      EXPECT_EQ(a.steps[i].end_ns, b.steps[i].end_ns) << name << " " << a.steps[i].name;
      EXPECT_EQ(a.steps[i].partial, b.steps[i].partial) << name << " " << a.steps[i].name;
    }
    EXPECT_EQ(a.notes, b.notes) << name;
    EXPECT_EQ(a.method, b.method) << name;
    EXPECT_EQ(a.before_first_step_ops, b.before_first_step_ops) << name;
    EXPECT_EQ(a.before_first_step_orphans, b.before_first_step_orphans) << name;
  }
}

}  // namespace
}  // namespace goblin::analysis
