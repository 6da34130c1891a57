// A roofline point above 100 % of a physical peak (issue #35: "205,439,392 % of peak") is
// impossible: flagged (above_peak_pct, bound "impossible", a note naming the op and the figure)
// and not presented as achieved (pct_of_peak null).
#include <gtest/gtest.h>

#include "hw/roofline.h"
#include "model/test_timeline.h"

namespace goblin::hw {
namespace {

TEST(Roofline, AboveThePeakIsFlaggedNotAchieved) {
  Timeline tl;
  goblin::testing::TimelineBuilder(tl)
      .cpu_op("aten::mm", 1000, 5000, /*external_id=*/1, "[[8192, 8192], [8192, 8192]]",
              R"(["c10::BFloat16", "c10::BFloat16"])")
      .launch(2000, /*correlation=*/5)
      .kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 3000, 1, 5, 1);  // 1.1 TFLOP in 1 ns
  auto g = lookup_gpu("H100-SXM");
  ASSERT_TRUE(g.ok());
  // nvjet is a tensor-core GEMM (data/taxonomy.yaml § kernel_engines says so; hw sits below it)
  auto rep = roofline_from_trace(tl, *g, [](std::string_view) { return std::string("matrix"); });
  ASSERT_EQ(rep.ops.size(), 1u);
  const RooflinePoint& p = rep.ops[0];
  ASSERT_TRUE(p.above_peak_pct.has_value());
  EXPECT_GT(*p.above_peak_pct, 100.0);
  EXPECT_FALSE(p.pct_of_peak.has_value());
  EXPECT_EQ(p.bound, "impossible");
  bool named = false;
  for (const auto& n : rep.notes)
    named |= n.rfind("aten::mm", 0) == 0 && n.find("physically impossible") != std::string::npos;
  EXPECT_TRUE(named);
  const Json j = roofline_to_json(rep);
  EXPECT_TRUE(j.dump().find("\"above_peak_pct\"") != std::string::npos);
}

}  // namespace
}  // namespace goblin::hw
