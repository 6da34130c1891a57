// `goblin memory TRACE`'s analysis on the real H100 Kineto traces recorded with
// profile_memory=True: the peak equals torch.cuda.max_memory_allocated() of the same run, the
// steps, the categories inferred from the enclosing ops, the batch headroom and its basis.
#include "analysis/memory_events.h"

#include <gtest/gtest.h>

#include "analysis/memory_json.h"
#include "analysis/memory_test_support.h"
#include "analysis/run_metrics.h"
#include "core/data.h"
#include "core/io.h"
#include "core/json.h"
#include "hw/knowledge.h"
#include "trace/load.h"

namespace goblin::analysis {
namespace {

const std::string kDir = GOBLIN_SOURCE_DIR "/tests/fixtures/memory/";

Timeline load(const std::string& path) {
  auto in = trace::load_trace(path, trace::kNeedMemoryEvents);
  EXPECT_TRUE(in.ok()) << in.error().message;
  return std::move(in->timeline);
}

Json meta() {
  auto t = read_all(kDir + "kineto_memory_train_meta.json");
  EXPECT_TRUE(t.ok());
  return Json::parse(*t);
}

// workloads/memory_kineto.py: the profiler started before the model was built, so every byte of
// the peak was allocated inside the trace.
TEST(MemoryEvents, TracePeakEqualsMaxMemoryAllocated) {
  const Json rec = meta();
  const Timeline tl = load(kDir + "kineto_memory_train.json.gz");
  const MemoryReport r = analyse_memory_events(tl, testing::memory_category_rules(), -1);
  EXPECT_EQ(r.source_kind, "kineto_trace");
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceMemory& d = r.devices[0];
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(d.peak_allocated, rec["max_memory_allocated"].get<int64_t>());
  EXPECT_EQ(d.peak_reserved, rec["max_memory_reserved"].get<int64_t>());
  EXPECT_EQ(d.before_history, 0);
  EXPECT_EQ(d.allocated_at_dump, rec["memory_allocated_at_end"].get<int64_t>());
  // Every byte live at the peak is accounted for by an allocation of the trace.
  int64_t sum = 0;
  for (const auto& [c, b] : d.by_category) sum += b;
  EXPECT_EQ(sum, d.peak_allocated);
  EXPECT_EQ(d.by_category.count("before_history"), 0u);
  // The model was built before the first step (parameters: its fp32 weights, and its buffers) and
  // AdamW's two moments per weight outlive the step (its `step` counters live on the CPU).
  auto res = read_all(kDir + "kineto_memory_train_result.json");
  ASSERT_TRUE(res.ok());
  const int64_t weights = 4 * Json::parse(*res)["params"].get<int64_t>();
  EXPECT_GE(d.by_category.at("parameters"), weights);
  EXPECT_EQ(d.by_category.at("optimizer_state"), 2 * weights);
  // One ProfilerStep per training step (warm-up 1 + 3 measured); the peak lies in one of them.
  ASSERT_EQ(d.steps.size(), 4u);
  int64_t best = 0;
  for (const auto& s : d.steps) {
    EXPECT_GT(s.events, 0);
    EXPECT_GE(s.peak_allocated, s.allocated_at_start);
    best = std::max(best, s.peak_allocated);
  }
  EXPECT_EQ(best, d.peak_allocated);
  ASSERT_FALSE(d.by_stack.empty());
  EXPECT_NE(d.by_stack[0].site, "aten::empty");  // the op that allocated, not the allocator call
}

// tests/fixtures/h100_memory/kineto_memory_b8.json.gz (bench/results/h100_memory): one step
// profiled after the model was built and trained (torch.cuda.reset_peak_memory_stats() before
// it). Total Allocated counts every live byte, so the peak is still the recorded one; what was
// allocated before the profiler started is reported as such.
TEST(MemoryEvents, PeakOfAStepProfiledLate) {
  auto t = read_all(kDir + "snapshot_b8.json");
  ASSERT_TRUE(t.ok());
  const Json rec = Json::parse(*t);
  const Timeline tl = load(GOBLIN_SOURCE_DIR "/tests/fixtures/h100_memory/kineto_memory_b8.json.gz");
  const MemoryReport r = analyse_memory_events(tl, testing::memory_category_rules(), -1);
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceMemory& d = r.devices[0];
  EXPECT_EQ(d.peak_allocated, rec["kineto_step_max_memory_allocated"].get<int64_t>());
  EXPECT_GT(d.before_history, 0);
  EXPECT_GT(d.by_category.at("before_history"), 0);
  bool noted = false;
  for (const auto& n : r.notes) noted |= n.find("before the trace's first memory event") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(MemoryEvents, DiffOfATraceWithItselfIsZero) {
  const Timeline tl = load(kDir + "kineto_memory_train.json.gz");
  const MemoryReport r = analyse_memory_events(tl, testing::memory_category_rules(), -1);
  const auto d = diff_memory(r, r);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].peak_delta, 0);
  EXPECT_TRUE(d[0].by_stack.empty());
  EXPECT_DOUBLE_EQ(d[0].explained, 1.0);
}

TEST(MemoryEvents, HeadroomAgainstTheDevice) {
  const Timeline tl = load(kDir + "kineto_memory_train.json.gz");
  const MemoryReport r = analyse_memory_events(tl, testing::memory_category_rules(), -1);
  const auto& hw = hw::hw_knowledge();
  std::string why;
  // The trace's device properties give the capacity.
  ASSERT_FALSE(tl.meta.devices.empty());
  const int64_t total = tl.meta.devices[0].total_memory_bytes;
  ASSERT_GT(total, 0);
  auto h = memory_headroom(r, *hw, "", total, why);
  ASSERT_TRUE(h) << why;
  EXPECT_EQ(h->capacity_bytes, total);
  EXPECT_EQ(h->headroom_bytes, total - h->peak_reserved);
  EXPECT_EQ(h->fixed_bytes + h->per_batch_bytes, h->peak_allocated);
  EXPECT_GT(h->batch_scale_fits, 100.0);  // a 2-layer model on an 80 GB card
  EXPECT_NE(h->basis.find("totalGlobalMem"), std::string::npos);
  // Else data/gpus.yaml's memory_size of the named GPU, cited.
  auto g = memory_headroom(r, *hw, "NVIDIA H100 80GB HBM3", 0, why);
  ASSERT_TRUE(g) << why;
  EXPECT_EQ(g->capacity_bytes, 80'000'000'000);
  EXPECT_NE(g->capacity_basis.find("data/gpus.yaml H100-SXM"), std::string::npos);
  // Neither: unknown, with the reason.
  EXPECT_FALSE(memory_headroom(r, *hw, "", 0, why));
  EXPECT_NE(why.find("--gpu"), std::string::npos);
  // The audit's feed: the metrics' HBM figures and the batch rules' evidence.
  RunMetrics m;
  m.waste_budget.unobserved = {"memory_headroom"};
  apply_memory_headroom(m, *g);
  ASSERT_TRUE(m.hbm_peak_gb && m.hbm_total_gb && m.memory_headroom_gb && m.batch_scale_fits);
  EXPECT_DOUBLE_EQ(*m.hbm_total_gb, 80.0);
  EXPECT_DOUBLE_EQ(*m.batch_scale_fits, g->batch_scale_fits);
  EXPECT_TRUE(m.waste_budget.observed("memory_headroom"));
}

TEST(MemoryEvents, NoMemoryEventsIsANote) {
  Timeline tl;
  tl.finish();
  const MemoryReport r = analyse_memory_events(tl, testing::memory_category_rules(), -1);
  EXPECT_TRUE(r.devices.empty());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("profile_memory=True"), std::string::npos);
}

}  // namespace
}  // namespace goblin::analysis

namespace goblin::analysis {
namespace {

// A peak that is nearly all parameters: 400 kB grow with the batch, so the linear ratio runs to
// ~10^5 x. The figure is capped at one allocator segment a batch (data/memory_categories.yaml),
// marked capped, and the linear figure kept beside it.
TEST(MemoryEvents, BatchScaleCappedBelowOneAllocatorSegment) {
  MemoryReport r;
  r.source = "hand-built";
  r.allocator_segment_bytes = testing::memory_category_rules().allocator_segment_bytes;
  ASSERT_EQ(r.allocator_segment_bytes, 20971520);
  DeviceMemory d;
  d.peak_allocated = d.peak_reserved = 10'000'000'000;
  d.by_category["parameters"] = 10'000'000'000 - 400'000;
  r.devices.push_back(d);
  std::string why;
  auto h = memory_headroom(r, *hw::hw_knowledge(), "", 80'000'000'000, why);
  ASSERT_TRUE(h) << why;
  EXPECT_EQ(h->per_batch_bytes, 400'000);
  const double free_bytes = 80e9 - (10e9 - 400'000);
  EXPECT_NEAR(h->batch_scale_fits_uncapped, free_bytes / 400'000, 1e-6);  // 175001 x
  EXPECT_TRUE(h->batch_scale_capped);
  EXPECT_NEAR(h->batch_scale_fits, free_bytes / 20971520, 1e-6);  // 3337.88 x
  EXPECT_NE(h->batch_scale_cap.find("capped at 3337.88x"), std::string::npos) << h->batch_scale_cap;
  EXPECT_NE(h->basis.find("capped"), std::string::npos);
  const Json j = memory_headroom_json(*h);
  EXPECT_EQ(j["batch_scale_capped"], true);
  EXPECT_DOUBLE_EQ(j["batch_scale_fits"].get<double>(), 3337.879);
  EXPECT_DOUBLE_EQ(j["batch_scale_fits_uncapped"].get<double>(), 175001.0);
  // A real batch (the trace's 224 MB of activations) is not capped.
  const Timeline tl = load(kDir + "kineto_memory_train.json.gz");
  auto t = memory_headroom(analyse_memory_events(tl, testing::memory_category_rules(), -1), *hw::hw_knowledge(), "",
                           tl.meta.devices[0].total_memory_bytes, why);
  ASSERT_TRUE(t) << why;
  EXPECT_FALSE(t->batch_scale_capped);
  EXPECT_DOUBLE_EQ(t->batch_scale_fits, t->batch_scale_fits_uncapped);
}

}  // namespace
}  // namespace goblin::analysis
