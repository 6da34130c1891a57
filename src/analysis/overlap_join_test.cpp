// overlap_join as a library call on the real graph-off / graph-on H100 pair
// (examples/h100_cudagraphs): the join's counts, the attribution a graph GEMM gets through the
// mapping trace, and the JSON the verb and the MCP server print.
#include "analysis/overlap_join.h"

#include <gtest/gtest.h>

#include "trace/load.h"

namespace goblin::analysis {
namespace {

const std::string kEx = std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_cudagraphs/";

std::string cpu_op_of(const OverlapJoinResult& r, const std::string& kernel) {
  for (const auto& row : r.rows)
    if (row.kernel == kernel) return row.cpu_op;
  return "(absent)";
}

TEST(OverlapJoin, GraphKernelsTakeTheMappingTracesAttribution) {
  auto off = trace::load_trace(kEx + "graph_off_compile_default.json.gz");
  auto on = trace::load_trace(kEx + "graph_on_reduce_overhead.json.gz");
  ASSERT_TRUE(off.ok() && on.ok());
  auto mapped = overlap_join(off->timeline, on->timeline);
  ASSERT_TRUE(mapped.ok()) << mapped.error().describe();
  EXPECT_EQ(mapped->matched, 2566);
  EXPECT_EQ(mapped->unmatched, 65);
  EXPECT_EQ(mapped->matched + mapped->unmatched, static_cast<int64_t>(on->timeline.gpu_op_count()));
  ASSERT_FALSE(mapped->unmatched_sample.empty());
  EXPECT_LE(mapped->unmatched_sample.size(), 20u);
  ASSERT_EQ(mapped->devices.size(), 1u);
  EXPECT_GT(mapped->devices[0].busy_ns, 0);

  // Joined with itself, the graph-on trace only knows the autograd wrapper of the graph GEMM.
  auto self = overlap_join(on->timeline, on->timeline);
  ASSERT_TRUE(self.ok());
  const std::string gemm = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
  EXPECT_EQ(cpu_op_of(*self, gemm).rfind("CompiledFunction", 0), 0u) << cpu_op_of(*self, gemm);
  EXPECT_EQ(cpu_op_of(*mapped, gemm), "aten::mm");

  Json j = overlap_join_to_json(*mapped);
  EXPECT_EQ(j["join"]["formal_ops_matched"], 2566);
  EXPECT_EQ(j["overlap_opportunities"].size(), mapped->rows.size());
}

}  // namespace
}  // namespace goblin::analysis
