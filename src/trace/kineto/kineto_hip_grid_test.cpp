// A kernel launched through hipExtModuleLaunchKernel has its grid recorded in work-items by
// roctracer's Kineto (RoctracerLogger.cpp reads that call through hipModuleLaunchKernel's argument
// member); the reader stores it in workgroups like every other grid (model/timeline.h).
#include <gtest/gtest.h>

#include <string>

#include "trace/kineto/kineto_test_util.h"

namespace goblin::trace {
namespace {

TEST(KinetoHipGrid, ExtModuleLaunchGridsAreWorkgroups) {
  Timeline tl;
  ASSERT_TRUE(read("mi210_tracelens_gpu_only.json.gz", tl).ok());
  const auto& K = tl.gpu_ops;
  int ext = 0, plain = 0;
  for (size_t k = 0; k < K.size(); ++k) {
    const std::string_view n = tl.str(K.name[k]);
    // MIOpen's igemm forward of a 3x3 conv at batch 5 x 56 x 56 with 64 channels: 15680 x 64 outputs
    // in 64 x 64 tiles = 245 workgroups, recorded as 245 x 256 = 62720 work-items.
    if (n.starts_with("igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt64x64x64_")) {
      EXPECT_EQ(K.grid[k], (Dim3{245, 1, 1}));
      EXPECT_EQ(K.block[k], (Dim3{256, 1, 1}));
      ++ext;
    }
    // hipLaunchKernel records blocks: max-pool forward over 5 x 64 x 56 x 56 outputs, 256 a block.
    if (n.find("max_pool_forward_nchw") != std::string_view::npos) {
      EXPECT_EQ(K.grid[k], (Dim3{3920, 1, 1}));
      ++plain;
    }
  }
  EXPECT_EQ(ext, 4);
  EXPECT_EQ(plain, 1);
}

}  // namespace
}  // namespace goblin::trace
