#include "hw/vendor.h"

#include <gtest/gtest.h>

namespace goblin {

TEST(Vendor, FromGpuNames) {
  EXPECT_EQ(vendor_from_gpu_name("NVIDIA H100 80GB HBM3"), Vendor::Nvidia);
  EXPECT_EQ(vendor_from_gpu_name("Tesla V100-SXM2-16GB"), Vendor::Nvidia);
  EXPECT_EQ(vendor_from_gpu_name("AMD Instinct MI300X"), Vendor::Amd);
  EXPECT_EQ(vendor_from_gpu_name("gfx942"), Vendor::Amd);
  EXPECT_EQ(vendor_from_gpu_name(""), Vendor::Unknown);
  EXPECT_EQ(vendor_from_gpu_name("Intel Arc A770"), Vendor::Unknown);
  EXPECT_STREQ(vendor_name(Vendor::Amd), "amd");
  EXPECT_STREQ(vendor_name(Vendor::Unknown), "unknown");
}

}  // namespace goblin
