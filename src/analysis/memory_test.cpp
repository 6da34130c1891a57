// `goblin memory`'s analysis on the real H100 snapshots (tests/fixtures/memory, recorded by
// workloads/memory_snapshot.py): the peak equals what torch.cuda.max_memory_allocated() reported in
// the same run, and the diff of batch 8 and batch 32 puts the growth in the activations.
#include "analysis/memory.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/memory_test_support.h"
#include "core/data.h"
#include "core/io.h"
#include "core/json.h"

namespace goblin::analysis {
namespace {

const std::string kDir = GOBLIN_SOURCE_DIR "/tests/fixtures/memory/";

Json recorded(int batch) {
  auto t = read_all(kDir + fmt::format("snapshot_b{}.json", batch));
  EXPECT_TRUE(t.ok());
  return Json::parse(*t);
}

MemoryReport report(int batch) {
  auto s = trace::read_memory_snapshot(kDir + fmt::format("snapshot_b{}.pickle", batch));
  EXPECT_TRUE(s.ok()) << s.error().message;
  return analyse_memory(*s, testing::memory_category_rules(), -1);
}

TEST(Memory, PeakEqualsMaxMemoryAllocated) {
  for (int batch : {8, 32}) {
    const Json rec = recorded(batch);
    const MemoryReport r = report(batch);
    ASSERT_EQ(r.devices.size(), 1u);
    const DeviceMemory& d = r.devices[0];
    EXPECT_TRUE(d.has_history);
    EXPECT_EQ(d.peak_allocated, rec["max_memory_allocated"].get<int64_t>()) << batch;
    EXPECT_EQ(d.peak_reserved, rec["max_memory_reserved"].get<int64_t>()) << batch;
    EXPECT_EQ(d.allocated_at_dump, rec["memory_allocated_at_dump"].get<int64_t>()) << batch;
    EXPECT_EQ(d.reserved_at_dump, rec["memory_reserved_at_dump"].get<int64_t>()) << batch;
    // What was live at the peak adds up to the peak.
    int64_t sum = 0;
    for (const auto& [c, b] : d.by_category) sum += b;
    EXPECT_EQ(sum, d.peak_allocated);
    // Parameters: the model's (fp32), as the script counted them; AdamW keeps two moments of each.
    EXPECT_EQ(d.by_category.at("parameters"), rec["parameter_bytes"].get<int64_t>());
    EXPECT_GE(d.by_category.at("optimizer_state"), 2 * rec["parameter_bytes"].get<int64_t>());
    EXPECT_FALSE(d.timeline.empty());
    EXPECT_LE(d.timeline.size(), 200u);
    EXPECT_GE(d.fragmentation_at_dump, 0.0);
    EXPECT_LE(d.fragmentation_at_dump, 1.0);
  }
}

TEST(Memory, DiffOfTwoBatchSizesPutsTheGrowthInActivations) {
  const auto diffs = diff_memory(report(8), report(32));
  ASSERT_EQ(diffs.size(), 1u);
  const MemoryDiff& d = diffs[0];
  EXPECT_EQ(d.peak_delta,
            recorded(32)["max_memory_allocated"].get<int64_t>() - recorded(8)["max_memory_allocated"].get<int64_t>());
  EXPECT_NEAR(d.explained, 1.0, 1e-9);  // the categories' changes add up to the peak's
  ASSERT_FALSE(d.by_category.empty());
  EXPECT_EQ(d.by_category.front().category, "activations");  // the largest growth
  EXPECT_GT(d.by_category.front().delta, d.peak_delta / 2);
  for (const auto& c : d.by_category)
    if (c.category == "parameters" || c.category == "optimizer_state") EXPECT_EQ(c.delta, 0) << c.category;
  ASSERT_FALSE(d.by_stack.empty());
}

}  // namespace
}  // namespace goblin::analysis
