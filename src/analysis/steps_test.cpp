#include "analysis/steps.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/run_metrics.h"
#include "analysis/step_time.h"
#include "analysis/test_timelines.h"
#include "core/io.h"
#include "core/test_support.h"
#include "model/profiler_step.h"
#include "trace/load.h"
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
  EXPECT_EQ(d.steps[0].start_ns, 0);    // the GPU was idle before k1: the step starts at its CPU start
  EXPECT_EQ(d.steps[0].end_ns, 150);    // its own kernel's end, which is where step 2's kernel starts
  EXPECT_EQ(d.steps[1].start_ns, 150);  // step 2 starts at its own first kernel, not in k1's tail
  EXPECT_EQ(d.steps[1].end_ns, 260);    // GPU work extends the window
  EXPECT_EQ(d.steps[0].cpu_start_ns, 0);
  EXPECT_EQ(d.steps[1].cpu_start_ns, 100);
  EXPECT_FALSE(d.steps[0].partial);
  EXPECT_FALSE(d.steps[1].partial);
  EXPECT_NE(d.method.find("correlation"), std::string::npos);
}

// Issue 47: a GPU-bound loop whose CPU runs a step ahead. Every window must hold the work its own
// step launched, the last one included: cutting each window at the next step's CPU start gave
// steps 1-2 the previous step's queued tail and the last one both (150 against 100).
TEST(Steps, GpuBoundLoopLastStepIsNotInflated) {
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 100);
  b.annotation("ProfilerStep#2", 100, 200);
  b.annotation("ProfilerStep#3", 200, 300);
  b.launch("prior", 1, 2, 0, 60);  // queued before the profiler started: no launch record (below)
  b.tl.runtime.correlation.back() = kNone;
  b.tl.gpu_ops.correlation.back() = kNone;
  b.launch("k1", 10, 15, 60, 160);
  b.launch("k2", 110, 115, 160, 260);
  b.launch("k3", 210, 215, 260, 360);
  b.runtime_only("cudaDeviceSynchronize", 300, 360, true);
  b.annotation("tail", 360, 400);
  StepDetection d = find_steps(b.done());
  ASSERT_EQ(d.steps.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(d.steps[i].start_ns, 60 + 100 * static_cast<int64_t>(i)) << i;
    EXPECT_EQ(d.steps[i].end_ns, 160 + 100 * static_cast<int64_t>(i)) << i;
    EXPECT_FALSE(d.steps[i].partial) << i;
  }
  ASSERT_TRUE(d.has_before_first_step);  // the queued work before step 1's first kernel
  EXPECT_EQ(d.before_first_step.start_ns, 0);
  EXPECT_EQ(d.before_first_step.end_ns, 60);
}

// A host-bound loop: the GPU idles while the host prepares each step, and that idle time is the
// step's own (data_wait, host_gap): the window starts at the CPU start, after the previous step's
// GPU work ended.
TEST(Steps, HostBoundLoopKeepsItsHostTime) {
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 100);
  b.annotation("ProfilerStep#2", 100, 200);
  b.launch("k1", 60, 65, 70, 90);
  b.launch("k2", 160, 165, 170, 190);
  b.annotation("tail", 200, 210);
  StepDetection d = find_steps(b.done());
  ASSERT_EQ(d.steps.size(), 2u);
  EXPECT_EQ(d.steps[0].start_ns, 0);
  EXPECT_EQ(d.steps[0].end_ns, 100);
  EXPECT_EQ(d.steps[1].start_ns, 100);
  EXPECT_EQ(d.steps[1].end_ns, 200);  // the last step runs to its CPU end like the others
}

// A damaged read (a truncated file loses its last events) makes the last step partial.
TEST(Steps, DamagedReadMakesTheLastStepPartial) {
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 100);
  b.annotation("ProfilerStep#2", 100, 200);
  b.launch("k1", 10, 15, 20, 90);
  b.launch("k2", 110, 115, 120, 180);
  b.annotation("tail", 200, 210);
  Timeline& tl = b.done();
  EXPECT_FALSE(find_steps(tl).steps.back().partial);
  tl.warn(W::input_damaged, "the read stopped early: t.json: byte 123: unexpected end of input", "t.json");
  StepDetection d = find_steps(tl);
  EXPECT_FALSE(d.steps[0].partial);
  EXPECT_TRUE(d.steps[1].partial);
  bool named = false;
  for (const auto& n : d.notes) named |= n.find("ProfilerStep#2 is partial (the read was damaged") == 0;
  EXPECT_TRUE(named);
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

// Issue 47's acceptance, computed apart from find_steps: a step's own GPU work is the GPU ops
// (kernels, memcpys, memsets) whose launching runtime call began inside its CPU ProfilerStep span
// (by correlation, on any thread); its exact busy time is the union of their intervals.
struct OwnWork {
  std::string name;
  int64_t cpu_start = 0, cpu_end = 0;
  std::vector<std::pair<int64_t, int64_t>> ops;
};
int64_t union_ns(std::vector<std::pair<int64_t, int64_t>> v) {
  std::sort(v.begin(), v.end());
  int64_t total = 0, a = 0, b = INT64_MIN;
  for (const auto& [s, e] : v) {
    if (s > b) {
      if (b != INT64_MIN) total += b - a;
      a = s;
      b = e;
    } else {
      b = std::max(b, e);
    }
  }
  if (b != INT64_MIN) total += b - a;
  return total;
}
std::vector<OwnWork> own_work(const Timeline& tl) {
  std::vector<OwnWork> own;
  for (size_t i = 0; i < tl.annotations.size(); ++i)
    if (!tl.annotations.on_gpu[i] && is_numbered_profiler_step(tl.str(tl.annotations.name[i])))
      own.push_back(
          {std::string(tl.str(tl.annotations.name[i])), tl.annotations.start_ns[i], tl.annotations.end_ns(i), {}});
  std::sort(own.begin(), own.end(), [](const OwnWork& a, const OwnWork& b) { return a.cpu_start < b.cpu_start; });
  std::unordered_map<int64_t, size_t> step_of;
  for (size_t r = 0; r < tl.runtime.size(); ++r) {
    if (tl.runtime.correlation[r] == kNone) continue;
    for (size_t k = 0; k < own.size(); ++k)
      if (tl.runtime.start_ns[r] >= own[k].cpu_start && tl.runtime.start_ns[r] < own[k].cpu_end) {
        step_of.emplace(tl.runtime.correlation[r], k);
        break;
      }
  }
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i)
    if (auto it = step_of.find(tl.gpu_ops.correlation[i]); it != step_of.end())
      own[it->second].ops.emplace_back(tl.gpu_ops.start_ns[i], tl.gpu_ops.end_ns(i));
  return own;
}

// Every step's busy time, as `goblin metrics` reports it, is the union of its own GPU work within
// 0.1 %, the last step included, and the last step's wall is within 5 % of the other steps' mean
// (before issue 47 the fp32 Llama trace's last step was 266.0 ms against 206.7 ms).
TEST(Steps, EveryStepsBusyIsItsOwnLaunchedWork) {
  for (const char* name :
       {"h100_llama_fp32_eager_w0.json.gz", "h100_llama_bf16_sdpa_w4.json.gz", "nccl_sampled_rank-0.json.gz",
        "nccl_sampled_rank-1.json.gz", "h100_qwen05b_inference_stack.json.gz"}) {
    SCOPED_TRACE(name);
    Timeline tl;
    ASSERT_TRUE(trace::read_path(std::string(GOBLIN_FIXTURES) + "/kineto/" + name, tl).ok());
    const std::vector<OwnWork> own = own_work(tl);
    auto m = compute_run_metrics(tl);
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_EQ(m->steps.size(), own.size());
    double others = 0;
    for (size_t i = 0; i < own.size(); ++i) {
      EXPECT_EQ(m->steps[i].name, own[i].name);
      ASSERT_FALSE(own[i].ops.empty());
      const double exact = static_cast<double>(union_ns(own[i].ops)) / 1e9;
      EXPECT_NEAR(m->steps[i].busy_s, exact, 1e-3 * exact) << own[i].name;
      if (i + 1 < own.size()) others += m->steps[i].wall_s;
    }
    if (own.size() > 1) {
      const double mean = others / static_cast<double>(own.size() - 1);
      EXPECT_NEAR(m->steps.back().wall_s, mean, 0.05 * mean) << own.back().name;
    }
  }
}

// The same check on every Kineto trace of the test data and the bundled examples (the H100/H200
// examples, the DDP pairs, the tracer's recordings, the CUDA-graph pair, the fixtures' foreign
// traces: HTA's, TraceLens's, the MI300X serving traces). A trace with CPU ProfilerSteps has each
// step checked against its own launched work (a step that launched nothing has a busy time of 0);
// a trace without them is one step, the window, whose exact busy time is the union of every GPU op
// of the trace. A trace with no GPU op (a CPU-only profile) and the MTIA fixture (see below) are
// skipped and named. Each covered trace's name and step count is printed, so the log says what it
// covers.
TEST(Steps, EveryTraceInTheTestDataHasExactBusy) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string root : {std::string(GOBLIN_FIXTURES), std::string(GOBLIN_SOURCE_DIR) + "/examples"})
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      const std::string p = e.path().string();
      if (e.is_regular_file() && (p.ends_with(".json.gz") || p.ends_with(".json"))) files.push_back(p);
    }
  std::sort(files.begin(), files.end());
  int covered = 0;
  std::vector<std::string> skipped;
  for (const std::string& path : files) {
    auto head = read_prefix(path, 64 * 1024);  // read_path sniffs as much (TraceLens traces open with metadata)
    if (!head.ok() || trace::sniff_format(*head, path) != Format::Kineto) continue;
    Timeline tl;
    if (!trace::read_path(path, tl).ok()) {
      skipped.push_back(path + " (damaged on purpose: read with an error)");
      continue;
    }
    // The MTIA fixture's device DMAs (dma_request, 50 us a step) carry no launch correlation: the
    // step's busy time holds them, a reference built from launches cannot (0.55 against 0.50 ms).
    if (path.ends_with("mtia/mtia_synthetic.json")) {
      skipped.push_back(path + " (uncorrelated device DMAs: the launch-based reference cannot see them)");
      continue;
    }
    std::vector<OwnWork> own = own_work(tl);
    if (own.empty()) {  // no CPU ProfilerStep: the window, every GPU op of the trace
      own.push_back({"window", 0, 0, {}});
      for (size_t i = 0; i < tl.gpu_ops.size(); ++i)
        own.back().ops.emplace_back(tl.gpu_ops.start_ns[i], tl.gpu_ops.end_ns(i));
    }
    if (std::all_of(own.begin(), own.end(), [](const OwnWork& o) { return o.ops.empty(); })) {
      skipped.push_back(fmt::format("{} ({} steps, none with launched GPU work)", path, own.size()));
      continue;
    }
    SCOPED_TRACE(path);
    auto m = compute_run_metrics(tl);
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_EQ(m->steps.size(), own.size());
    for (size_t i = 0; i < own.size(); ++i) {
      EXPECT_EQ(m->steps[i].name, own[i].name);
      const double exact = static_cast<double>(union_ns(own[i].ops)) / 1e9;
      EXPECT_NEAR(m->steps[i].busy_s, exact, 1e-3 * exact) << own[i].name;
    }
    ++covered;
    std::cout << fmt::format("covered: {} ({} steps)\n", path.substr(path.find_last_of('/') + 1), own.size());
  }
  for (const auto& s : skipped) std::cout << "skipped: " << s << "\n";
  EXPECT_GE(covered, 60);
}

// A trace cut at 98 % of its bytes (a copy that stopped early): the read is damaged, its last
// step lost part of its GPU work and is partial, reported and left out of the step time.
TEST(Steps, TruncatedTracesLastStepIsPartialAndOutOfTheMean) {
  auto text = read_all(std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz");
  ASSERT_TRUE(text.ok());
  const std::string cut = (goblin::testing::private_tmp_dir("steps_truncated") / "cut.json").string();
  ASSERT_TRUE(write_file(cut, std::string_view(*text).substr(0, text->size() * 98 / 100)).ok());
  auto in = trace::load_trace(cut);
  ASSERT_TRUE(in.ok()) << in.error().describe();
  ASSERT_TRUE(in->damage.has_value());
  const StepDetection d = find_steps(in->timeline);
  ASSERT_EQ(d.steps.size(), 4u);
  for (size_t i = 0; i + 1 < d.steps.size(); ++i) EXPECT_FALSE(d.steps[i].partial) << d.steps[i].name;
  EXPECT_TRUE(d.steps.back().partial);
  bool named = false;
  for (const auto& n : d.notes) named |= n.find("ProfilerStep#4 is partial") == 0;
  EXPECT_TRUE(named);
  const StepTime st = step_time(d);
  EXPECT_EQ(st.averaged, (std::vector<size_t>{0, 1, 2}));
  auto m = compute_run_metrics(in->timeline);
  ASSERT_TRUE(m.ok());
  ASSERT_EQ(m->steps.size(), 4u);
  EXPECT_TRUE(m->steps.back().partial);
  EXPECT_NEAR(m->step_time_s, st.seconds(), 1e-9);
  EXPECT_NEAR(m->step_time_s, (m->steps[0].wall_s + m->steps[1].wall_s + m->steps[2].wall_s) / 3, 1e-9);
}

}  // namespace
}  // namespace goblin::analysis
