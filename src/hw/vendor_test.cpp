#include "hw/vendor.h"

#include <gtest/gtest.h>

#include "core/data.h"
#include "model/timeline.h"

namespace goblin::hw {

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

TEST(Vendor, HipVersionIntegersDecode) {
  EXPECT_EQ(decode_hip_version("70051831"), "7.0.51831");
  EXPECT_EQ(decode_hip_version("70253211"), "7.2.53211");
  EXPECT_EQ(decode_hip_version("60241133"), "6.2.41133");
  EXPECT_EQ(decode_hip_version("\"60241133\""), "6.2.41133");
  EXPECT_FALSE(decode_hip_version("4.1").has_value());
  EXPECT_FALSE(decode_hip_version("12080").has_value());  // a CUDA version integer is not HIP's
  EXPECT_FALSE(decode_hip_version("").has_value());
}

// The vLLM trace: empty device name, warpSize 64, roctracer/HIP metadata: AMD, even though
// nothing names the product.
TEST(Vendor, EverySignalOfATrace) {
  Timeline tl;
  DeviceInfo d;
  d.id = 0;
  d.warp_size = 64;
  d.compute_major = 9;
  d.compute_minor = 4;
  tl.meta.devices.push_back(d);
  VendorFinding f = vendor_of_timeline(tl);
  EXPECT_EQ(f.vendor, Vendor::Amd);
  EXPECT_NE(f.decided_by.find("warpSize 64"), std::string::npos);
  tl.meta.versions["hip_runtime"] = "70051831";
  tl.meta.versions["roctracer"] = "4.1";
  f = vendor_of_timeline(tl);
  EXPECT_EQ(f.vendor, Vendor::Amd);
  EXPECT_NE(f.decided_by.find("trace metadata"), std::string::npos);
  EXPECT_GE(f.evidence.size(), 3u);
  EXPECT_TRUE(f.conflicts.empty());
  // Kernel names alone.
  Timeline k;
  GpuOpRow r;
  r.name = k.strings.intern("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64");
  k.gpu_ops.push(r);
  EXPECT_EQ(vendor_of_timeline(k).vendor, Vendor::Amd);
  Timeline n;
  r.name = n.strings.intern("nvjet_sm90_tst_128x192_64x5_4x1_v_bz_coopB_NTN");
  n.gpu_ops.push(r);
  RuntimeRow rt;
  rt.name = n.strings.intern("cudaLaunchKernel");
  n.runtime.push(rt);
  VendorFinding nf = vendor_of_timeline(n);
  EXPECT_EQ(nf.vendor, Vendor::Nvidia);
  EXPECT_NE(nf.decided_by.find("CUDA runtime"), std::string::npos);
  // A name that says NVIDIA wins over a conflicting signal, which is reported.
  n.meta.devices.push_back(DeviceInfo{0, "NVIDIA H100 80GB HBM3"});
  n.meta.versions["hip_runtime"] = "70051831";
  VendorFinding c = vendor_of_timeline(n);
  EXPECT_EQ(c.vendor, Vendor::Nvidia);
  EXPECT_FALSE(c.conflicts.empty());
  EXPECT_EQ(vendor_of_timeline(Timeline{}).vendor, Vendor::Unknown);
}

}  // namespace goblin::hw
