// Roofline FLOPs and MFU FLOPs come from one op selection (select_flop_ops): on a real H100 trace
// they count the same FLOP ops, split the same way into composites and leaves, and price the same
// FLOPs.
#include "hw/flop_count.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "analysis/taxonomy.h"
#include "core/data.h"
#include "hw/roofline.h"
#include "model/test_timeline.h"
#include "trace/readers.h"

namespace goblin::hw {

namespace {
KernelEngineFn taxonomy_engines() {  // data/taxonomy.yaml § kernel_engines
  static const auto tax = analysis::Taxonomy::load();
  return [](std::string_view k) { return tax ? tax->engine(k) : std::string(); };
}
}  // namespace

TEST(FlopSelection, RooflineAndMfuAgreeOnAnH100Trace) {
  set_data_dir(GOBLIN_DATA_DIR);
  Timeline tl;
  ASSERT_TRUE(trace::read_path(std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_bf16_sdpa_w4.json.gz", tl).ok());
  auto gpu = gpu_for_timeline(tl);
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  const RooflineReport rep = roofline_from_trace(tl, *gpu, taxonomy_engines());
  const FlopCount fc =
      count_flops(tl, {{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}}).at(0);
  const FlopOps sel = select_flop_ops(tl);

  ASSERT_GT(sel.count, 0u);
  EXPECT_EQ(static_cast<size_t>(rep.flop_op_instances), sel.count);
  EXPECT_EQ(static_cast<size_t>(fc.ops_counted + fc.ops_composite + fc.ops_unmodelled), sel.count);
  EXPECT_EQ(static_cast<size_t>(fc.ops_composite), sel.composite.size());

  // The roofline prices the leaf ops that launched kernels; MFU every leaf op. Every priced leaf op
  // of this GPU trace launched kernels, so the totals are the same FLOPs.
  double roofline_flops = 0;
  for (const auto& p : rep.ops) roofline_flops += p.flops;
  ASSERT_GT(fc.flops, 0);
  EXPECT_NEAR(roofline_flops, fc.flops, 1e-9 * fc.flops);
}

// MFU counts scaled FP8 / MX-FP4 and grouped (MoE) GEMMs with the op models' formula
// (data/op_models.yaml scaled_mm / grouped_mm: 2*G*M*N*K), beside the plain GEMMs.
TEST(FlopCount, CountsScaledAndGroupedGemms) {
  Timeline tl;
  goblin::testing::TimelineBuilder(tl)
      .cpu_op("aten::_scaled_mm", 1000, 2000, /*external_id=*/1, "[[4096, 8192], [8192, 2048], [], []]",
              R"(["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float"])")
      .cpu_op("aten::_grouped_mm", 4000, 2000, /*external_id=*/2, "[[8192, 4096], [8, 4096, 1024], [8]]",
              R"(["c10::BFloat16", "c10::BFloat16", "int"])")
      .cpu_op("aten::_scaled_mm", 7000, 2000, /*external_id=*/3, "[[4096, 2048], [2048, 2048], [], []]",
              R"(["c10::Float4_e2m1fn_x2", "c10::Float4_e2m1fn_x2", "", ""])")
      .cpu_op("aten::_grouped_mm", 10000, 2000, /*external_id=*/4, "", "");
  tl.finish();
  const FlopCount fc = count_flops(tl, {{0, 20000}}).at(0);
  const double fp8 = 2.0 * 4096 * 2048 * 8192, grouped = 2.0 * 8192 * 1024 * 4096, fp4 = 2.0 * 4096 * 2048 * 4096;
  EXPECT_EQ(fc.ops_counted, 3);
  EXPECT_EQ(fc.ops_unmodelled, 1);  // no shapes recorded: named in the MFU warning
  EXPECT_DOUBLE_EQ(fc.flops, fp8 + grouped + fp4);
  EXPECT_DOUBLE_EQ(fc.flops_by_dtype.at("fp8"), fp8);
  EXPECT_DOUBLE_EQ(fc.flops_by_dtype.at("bf16"), grouped);
  EXPECT_DOUBLE_EQ(fc.flops_by_dtype.at("fp4"), fp4);
  EXPECT_DOUBLE_EQ(fc.flops_by_kind.at("gemm"), fp8 + grouped + fp4);
  // Outside the window: not counted.
  EXPECT_EQ(count_flops(tl, {{20000, 30000}}).at(0).ops_counted, 0);
}

}  // namespace goblin::hw
