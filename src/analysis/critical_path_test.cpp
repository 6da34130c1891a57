#include "analysis/critical_path.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "analysis/critical_path_graph.h"
#include "analysis/taxonomy.h"
#include "analysis/taxonomy_test_support.h"
#include "analysis/test_timelines.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

using testing::TlBuilder;

const Taxonomy& tax() { return testing::taxonomy(); }

int64_t bucket(const StepPath& p, PathBucket b) { return p.bucket_ns[static_cast<size_t>(b)]; }
int64_t bucket_sum(const StepPath& p) { return std::accumulate(p.bucket_ns.begin(), p.bucket_ns.end(), int64_t{0}); }

// Launches far ahead of a GPU that runs kernels back to back: the path is the GPU's.
TEST(CriticalPath, GpuBoundStepIsItsKernels) {
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 50);
  b.launch("ampere_sgemm_128x64_nn", 10, 15, 20, 120);
  b.launch("ampere_sgemm_128x64_nn", 16, 21, 121, 221);
  b.launch("ampere_sgemm_128x64_nn", 22, 27, 222, 322);
  const CriticalPathResult r = critical_path(b.done(), tax());
  ASSERT_EQ(r.paths.size(), 1u);
  const StepPath& p = r.paths[0];
  EXPECT_EQ(p.step_ns, 322);
  EXPECT_EQ(p.length_ns, p.step_ns);
  EXPECT_EQ(bucket_sum(p), p.length_ns);
  EXPECT_EQ(bucket(p, PathBucket::GpuCompute), 300);
  EXPECT_EQ(p.gpu_by_category_ns.at("gemm"), 300);
  EXPECT_EQ(bucket(p, PathBucket::Idle), 2);        // two 1 ns stream gaps
  EXPECT_EQ(bucket(p, PathBucket::CpuLaunch), 10);  // the first kernel's launch latency [10, 20)
  EXPECT_EQ(bucket(p, PathBucket::CpuPython), 10);  // [0, 10): CPU before the first call
}

// Short kernels launched far apart: the CPU is the path, the GPU waits on every launch.
TEST(CriticalPath, CpuBoundStepIsItsThread) {
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 400);
  b.launch("ampere_sgemm_128x64_nn", 0, 10, 15, 25);
  b.launch("ampere_sgemm_128x64_nn", 200, 210, 215, 225);
  b.launch("ampere_sgemm_128x64_nn", 390, 395, 398, 400);
  const CriticalPathResult r = critical_path(b.done(), tax());
  const StepPath& p = r.paths[0];
  EXPECT_EQ(p.length_ns, 400);
  EXPECT_EQ(bucket_sum(p), 400);
  EXPECT_EQ(bucket(p, PathBucket::GpuCompute), 2);  // only the last kernel
  EXPECT_GT(bucket(p, PathBucket::CpuPython), 350);
  // Making the GEMMs 10x faster saves only the last kernel's 1.8 ns: the graph knows, subtraction
  // does not.
  CriticalPathOptions o;
  o.what_if.terms.push_back({"gemm", "", 10.0});
  const CriticalPathResult w = critical_path(b.tl, tax(), o);
  EXPECT_EQ(w.paths[0].what_if_ns, 398);
  EXPECT_EQ(w.what_if_ops, 3);
}

// A host sync that returns after the kernel it waited for: the kernel is on the path, the
// sync's return is synchronisation; a GPU 2x faster makes the step shorter through the sync.
TEST(CriticalPath, HostSyncPutsTheKernelOnThePath) {
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 300);
  b.launch("ampere_sgemm_128x64_nn", 0, 10, 20, 220);
  b.tl.runtime.push([&] {
    RuntimeRow r;
    r.start_ns = 12;
    r.dur_ns = 210;  // returns at 222, 2 ns after the kernel
    r.name = b.tl.strings.intern("cudaDeviceSynchronize");
    r.pid = 1;
    r.tid = 1;
    r.is_sync = true;
    return r;
  }());
  b.launch("ampere_sgemm_128x64_nn", 230, 240, 245, 300);
  const Timeline& tl = b.done();
  const CriticalPathResult r = critical_path(tl, tax());
  const StepPath& p = r.paths[0];
  EXPECT_EQ(r.sync_edges, 1);
  EXPECT_EQ(bucket_sum(p), 300);
  EXPECT_EQ(bucket(p, PathBucket::GpuCompute), 200 + 55);
  EXPECT_EQ(bucket(p, PathBucket::Synchronization), 2);
  CriticalPathOptions o;
  o.what_if.terms.push_back({"", "sgemm", 2.0});
  const StepPath& w = critical_path(tl, tax(), o).paths[0];
  // The first kernel ends at 120, the sync returns at 122, the second launch at 130, its kernel
  // [135, 162.5): 100 + 27.5 ns saved.
  EXPECT_EQ(w.what_if_ns, 300 - 100 - 28);
}

// Cross-stream waits: a kernel on stream 8 that starts right after stream 7's kernel ends, well
// after its own launch, waited for it.
TEST(CriticalPath, CrossStreamWaitIsAnEdge) {
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 100);
  b.launch("ampere_sgemm_128x64_nn", 0, 5, 10, 50000, 7);
  b.launch("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 6, 9, 50500, 90000, 8);
  const CriticalPathResult r = critical_path(b.done(), tax());
  EXPECT_EQ(r.cross_stream_edges, 1);
  const StepPath& p = r.paths[0];
  EXPECT_EQ(bucket(p, PathBucket::Communication), 39500);
  EXPECT_EQ(bucket(p, PathBucket::Synchronization), 500);
  EXPECT_EQ(bucket(p, PathBucket::GpuCompute), 49990);
}

// Every fixture with steps: the path tiles the step (length = step time, within 1 %), the
// attribution sums to it, and a what-if with k = 1 gives the step time back.
TEST(CriticalPath, FixturesPathLengthEqualsStepTime) {
  const std::string fix = GOBLIN_FIXTURES;
  std::vector<std::string> files;
  for (const char* dir : {"/kineto", "/rocprof"})
    for (const auto& e : std::filesystem::directory_iterator(fix + dir)) {
      const std::string n = e.path().filename().string();
      if (n.find(".json") != std::string::npos || n.find(".db") != std::string::npos) files.push_back(e.path());
    }
  int checked = 0;
  for (const std::string& f : files) {
    Timeline tl;
    if (!trace::read_path(f, tl).ok() || tl.gpu_op_count() == 0) continue;
    CriticalPathOptions o;
    o.what_if.terms.push_back({"gemm", "", 1.0});
    const CriticalPathResult r = critical_path(tl, tax(), o);
    for (const StepPath& p : r.paths) {
      EXPECT_NEAR(static_cast<double>(p.length_ns), static_cast<double>(p.step_ns), 0.01 * p.step_ns) << f;
      EXPECT_EQ(bucket_sum(p), p.length_ns) << f << " " << p.step.name;
      EXPECT_EQ(p.what_if_ns, p.step_ns) << f << " " << p.step.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
}

// HTA's alexnet fixture (HTA tests/test_critical_path_analysis.py): the GPU→GPU sync edge from
// fft2d_c2r (stream 20, correlation 5606) to the elementwise add (stream 7, correlation 5629),
// read from the Stream Wait Event args as HTA reads it (the other five: critical_path_waits_test).
TEST(CriticalPath, AlexnetCrossStreamEdgeMatchesHta) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(std::string(GOBLIN_FIXTURES) + "/kineto/a100_alexnet_cuda_sync.json.gz", tl).ok());
  const critical_path_detail::Graph g = critical_path_detail::build_graph(tl, tax());
  int32_t src = -1, dst = -1;
  for (int32_t i = 0; i < g.ng; ++i) {
    if (tl.gpu_ops.correlation[i] == 5606) src = i;
    if (tl.gpu_ops.correlation[i] == 5629) dst = i;
  }
  ASSERT_GE(src, 0);
  ASSERT_GE(dst, 0);
  EXPECT_EQ(g.cross[dst], src);
  EXPECT_EQ(g.bind[dst], critical_path_detail::kCross);
  EXPECT_EQ(g.cross_edges, 6);
  EXPECT_EQ(g.cross_edges_from_args, 6);
  // HTA's window: the second "measure|forward" annotation.
  CriticalPathOptions o;
  o.annotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";
  const CriticalPathResult r = critical_path(tl, tax(), o);
  ASSERT_EQ(r.paths.size(), 2u);
  EXPECT_EQ(r.paths[1].length_ns, r.paths[1].step_ns);
  EXPECT_EQ(r.paths[1].step_ns, 36356000);
}

// The H100 pair (examples/h100_llama): the fp32 step is GPU-bound, and the graph's what-if puts
// a floor under the step (the CPU's launch chain) that subtraction ignores.
TEST(CriticalPath, WhatIfOnTheGraphIsBoundedByTheCpu) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz", tl).ok());
  CriticalPathOptions o;
  o.what_if.terms = {{"gemm", "", 17.4}, {"elementwise", "", 2.51}, {"softmax", "", 3.83}, {"reduction", "", 1.2}};
  const CriticalPathResult r = critical_path(tl, tax(), o);
  ASSERT_EQ(r.paths.size(), 4u);
  EXPECT_GT(r.blocked_launches, 0);
  for (const StepPath& p : r.paths) {
    EXPECT_GT(bucket(p, PathBucket::GpuCompute), 0.9 * p.step_ns);
    EXPECT_LT(p.what_if_ns, p.step_ns);
    EXPECT_GT(p.what_if_ns, p.subtract_ns);
    EXPECT_GT(p.what_if_ns, 60'000'000);  // not below the CPU's launch chain
  }
}

TEST(CriticalPath, EmptyAndHostileTimelines) {
  Timeline empty;
  empty.finish();
  EXPECT_TRUE(critical_path(empty, tax()).paths.empty());
  // A launch that "starts" after its kernel, a sync inside its own kernel, zero durations.
  TlBuilder b;
  b.annotation("ProfilerStep#1", 0, 100);
  b.launch("k", 50, 60, 10, 10);
  b.launch("k", 0, 100, 0, 100);
  b.runtime_only("cudaDeviceSynchronize", 0, 100, true);
  CriticalPathOptions o;
  o.what_if.terms.push_back({"", "k", 1e6});
  const CriticalPathResult r = critical_path(b.done(), tax(), o);
  ASSERT_EQ(r.paths.size(), 1u);
  EXPECT_EQ(bucket_sum(r.paths[0]), r.paths[0].length_ns);
  EXPECT_GE(r.paths[0].what_if_ns, 0);
}

}  // namespace
}  // namespace goblin::analysis

namespace goblin::analysis {
namespace {

// CUDA graph replays (examples/h100_cudagraphs, torch.compile mode=reduce-overhead): every
// replayed kernel hangs off its cudaGraphLaunch, and the path still tiles each step.
TEST(CriticalPath, GraphReplaysHangOffTheGraphLaunch) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(
                  std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_cudagraphs/graph_on_reduce_overhead.json.gz", tl)
                  .ok());
  const CriticalPathResult r = critical_path(tl, tax());
  EXPECT_GT(r.graph_replay_kernels, 1000);
  ASSERT_FALSE(r.paths.empty());
  for (const StepPath& p : r.paths) {
    EXPECT_EQ(p.length_ns, p.step_ns);
    EXPECT_EQ(bucket_sum(p), p.length_ns);
  }
}

// Several what-ifs on one graph (the audit's fast and slow ends) give, scenario by scenario, what
// one critical_path call per scenario gives: the same paths, attribution, what-if and subtraction.
TEST(CriticalPath, WhatIfsOnOneGraphEqualOneCallEach) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz", tl).ok());
  std::vector<WhatIf> scenarios(3);
  scenarios[0].terms = {{"gemm", "", 16.88}, {"softmax", "", 76}, {"elementwise", "", 2}, {"reduction", "", 2}};
  scenarios[1].terms = {{"gemm", "", 7.95}, {"", "softmax", 10.1}, {"elementwise", "", 1.333}};
  // scenarios[2]: no what-if at all (what_if_ns and subtract_ns stay kNone)
  CriticalPathOptions o;
  o.top = 3;
  const std::vector<CriticalPathResult> all = critical_path_what_ifs(tl, tax(), o, scenarios);
  ASSERT_EQ(all.size(), scenarios.size());
  for (size_t k = 0; k < scenarios.size(); ++k) {
    o.what_if = scenarios[k];
    const CriticalPathResult one = critical_path(tl, tax(), o);
    const CriticalPathResult& r = all[k];
    EXPECT_EQ(r.what_if.terms.size(), scenarios[k].terms.size());
    EXPECT_EQ(r.what_if_ops, one.what_if_ops) << k;
    EXPECT_EQ(r.nodes, one.nodes);
    EXPECT_EQ(r.notes, one.notes);
    ASSERT_EQ(r.paths.size(), one.paths.size());
    ASSERT_EQ(r.paths.size(), 4u);
    for (size_t i = 0; i < r.paths.size(); ++i) {
      const StepPath &a = r.paths[i], &b = one.paths[i];
      EXPECT_EQ(a.what_if_ns, b.what_if_ns) << k << " " << a.step.name;
      EXPECT_EQ(a.subtract_ns, b.subtract_ns) << k << " " << a.step.name;
      EXPECT_EQ(a.length_ns, b.length_ns);
      EXPECT_EQ(a.bucket_ns, b.bucket_ns);
      EXPECT_EQ(a.gpu_by_category_ns, b.gpu_by_category_ns);
      EXPECT_EQ(a.events, b.events);
      ASSERT_EQ(a.top.size(), b.top.size());
      for (size_t j = 0; j < a.top.size(); ++j) EXPECT_EQ(a.top[j].what, b.top[j].what);
    }
  }
  EXPECT_GT(all[0].what_if_ops, 0);
  EXPECT_NE(all[0].paths[0].what_if_ns, kNone);
  EXPECT_EQ(all[2].what_if_ops, 0);
  EXPECT_EQ(all[2].paths[0].what_if_ns, kNone);
  EXPECT_TRUE(critical_path_what_ifs(tl, tax(), o, {}).empty());
}

// Several ranks (examples/ddp_h200, a GPU straggler): collective kernels lined up by order; each
// rank's collectives split into transfer (the fastest rank's duration) and waiting for the others.
TEST(CriticalPath, CollectiveWaitsOnOtherRanks) {
  const std::string dir = std::string(GOBLIN_SOURCE_DIR) + "/examples/ddp_h200/straggler_gpu/";
  std::vector<Timeline> tls(2);
  std::vector<std::vector<int64_t>> durs;
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(trace::read_path(fmt::format("{}rank{}.pt.trace.json.gz", dir, r), tls[r]).ok());
    durs.push_back(collective_durations(tls[r], tax()));
  }
  std::string why;
  CriticalPathOptions o;
  o.comm_floor_ns = collective_floors(durs, &why);
  ASSERT_FALSE(o.comm_floor_ns.empty()) << why;
  for (size_t i = 0; i < o.comm_floor_ns.size(); ++i) EXPECT_LE(o.comm_floor_ns[i], durs[0][i]);
  int64_t wait = 0;
  for (const Timeline& tl : tls)
    for (const StepPath& p : critical_path(tl, tax(), o).paths) {
      EXPECT_EQ(bucket_sum(p), p.length_ns);
      wait += bucket(p, PathBucket::CommunicationWait);
    }
  EXPECT_GT(wait, 0);
  // Ranks that ran different numbers of collectives are not lined up.
  EXPECT_TRUE(collective_floors({{1, 2}, {1}}, &why).empty());
  EXPECT_NE(why.find("different numbers"), std::string::npos);
}

}  // namespace
}  // namespace goblin::analysis
