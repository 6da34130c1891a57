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
#include "trace/readers.h"

namespace goblin::hw {

namespace {
KernelEngineFn taxonomy_engines() {  // data/taxonomy.yaml § kernel_engines
  static const auto tax = Taxonomy::load();
  return [](std::string_view k) { return tax ? tax->engine(k) : std::string(); };
}
}  // namespace

TEST(FlopSelection, RooflineAndMfuAgreeOnAnH100Trace) {
  set_data_dir(GOBLIN_DATA_DIR);
  Timeline tl;
  ASSERT_TRUE(read_path(std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_bf16_sdpa_w4.json.gz", tl).ok());
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

}  // namespace goblin::hw
