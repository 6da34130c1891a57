// Figures above a physical ceiling: the helper's rule, and the roofline flagging every point held
// above its peak or its roofline on the bundled fp32 Llama trace (aten::gather's bytes model
// counts the whole index tensor read from a table that the L2 holds, nll_loss_backward its
// dense gradient), where the figures were plain numbers before.
#include "hw/ceiling.h"

#include <gtest/gtest.h>

#include <cmath>

#include "hw/knowledge.h"
#include "hw/roofline.h"
#include "trace/readers.h"

namespace goblin::hw {
namespace {

TEST(AbovePhysicalPeak, FlagsOnlyFiguresAboveTheirCeiling) {
  EXPECT_FALSE(above_physical_peak(100.0, "x", "its roofline"));
  EXPECT_FALSE(above_physical_peak(37.5, "x", "its roofline"));
  EXPECT_FALSE(above_physical_peak(std::nan(""), "x", "its roofline"));
  auto a = above_physical_peak(879.1, "aten::gather % of roofline", "its roofline on H100-SXM");
  ASSERT_TRUE(a);
  EXPECT_DOUBLE_EQ(a->pct, 879.1);
  EXPECT_NE(a->message.find("879.10 % of its roofline on H100-SXM"), std::string::npos) << a->message;
  EXPECT_NE(a->message.find("wrong guess"), std::string::npos);
  Json j = above_peak_json(a);
  EXPECT_EQ(j["code"], "above_physical_peak");
  EXPECT_DOUBLE_EQ(j["pct"].get<double>(), 879.1);
  EXPECT_TRUE(above_peak_json(std::nullopt).is_null());
  EXPECT_NE(above_peak_marker(a).find(kAbovePeakMarker), std::string::npos);
  EXPECT_EQ(above_peak_marker(std::nullopt), "");
}

TEST(AbovePhysicalPeak, RooflineFlagsEveryPointAboveItsRoof) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz", tl).ok());
  auto gpu = gpu_for_timeline(tl);
  ASSERT_TRUE(gpu.ok());
  RooflineInputs in;
  in.models = &*hw_knowledge()->op_models;
  const RooflineReport r = roofline_from_trace(tl, *gpu, in);
  int flagged = 0;
  bool gather = false;
  for (const auto* list : {&r.ops, &r.kernels})
    for (const RooflinePoint& p : *list) {
      const bool above = (p.pct_of_roofline && *p.pct_of_roofline > 100) || p.above_peak_pct;
      EXPECT_EQ(above, p.above_peak.has_value()) << p.label;
      flagged += above;
      if (p.above_peak && p.label.rfind("aten::gather", 0) == 0) gather = true;
    }
  EXPECT_GT(flagged, 10);
  EXPECT_TRUE(gather);
  const Json j = roofline_to_json(r);
  int json_flags = 0;
  for (const char* list : {"ops", "kernels"})
    for (const auto& p : j[list]) {
      ASSERT_TRUE(p.contains("above_physical_peak"));
      json_flags += !p["above_physical_peak"].is_null();
    }
  EXPECT_EQ(json_flags, flagged);
  const std::string text = roofline_human(r, 1000);
  EXPECT_NE(text.find(std::string(kAbovePeakMarker)), std::string::npos);
  EXPECT_NE(text.find("above a physical ceiling"), std::string::npos);
}

}  // namespace
}  // namespace goblin::hw
