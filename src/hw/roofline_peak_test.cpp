// A roofline point above 100 % of a physical peak (issue #35: "205,439,392 % of peak") is
// impossible: flagged (above_peak_pct, bound "impossible", a note naming the op and the figure)
// and not presented as achieved (pct_of_peak null).
#include <gtest/gtest.h>

#include "hw/roofline.h"

namespace goblin::hw {
namespace {

TEST(Roofline, AboveThePeakIsFlaggedNotAchieved) {
  Timeline tl;
  CpuOpRow mm;
  mm.start_ns = 1000;
  mm.dur_ns = 5000;
  mm.tid = 7;
  mm.name = tl.strings.intern("aten::mm");
  mm.external_id = 1;
  mm.input_dims = tl.strings.intern("[[8192, 8192], [8192, 8192]]");
  mm.input_types = tl.strings.intern(R"(["c10::BFloat16", "c10::BFloat16"])");
  tl.cpu_ops.push(mm);
  RuntimeRow rt;
  rt.start_ns = 2000;
  rt.dur_ns = 10;
  rt.tid = 7;
  rt.correlation = 5;
  rt.name = tl.strings.intern("cudaLaunchKernel");
  tl.runtime.push(rt);
  GpuOpRow k;
  k.start_ns = 3000;
  k.dur_ns = 1;  // 1.1 TFLOP in 1 ns
  k.correlation = 5;
  k.external_id = 1;
  k.name = tl.strings.intern("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  tl.gpu_ops.push(k);
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
