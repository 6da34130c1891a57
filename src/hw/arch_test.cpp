#include "hw/arch.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "core/data.h"
#include "core/test_support.h"
#include "hw/gpu_specs.h"
#include "hw/knowledge.h"

namespace goblin::hw {

TEST(ArchOf, AliasesFromTheSpecDatabase) {
  set_data_dir(GOBLIN_DATA_DIR);
  EXPECT_EQ(arch_of("NVIDIA H100 80GB HBM3"), "sm_90");
  EXPECT_EQ(arch_of("AMD Instinct MI300X"), "gfx942");
  EXPECT_EQ(arch_of("MI355X"), "gfx950");
  EXPECT_EQ(arch_of("NVIDIA A100-SXM4-40GB"), "sm_80");
}

TEST(ArchOf, FragmentsForNamesTheDatabaseDoesNotHold) {
  set_data_dir(GOBLIN_DATA_DIR);
  EXPECT_EQ(arch_of("NVIDIA GH200 480GB"), "sm_90");
  EXPECT_EQ(arch_of("NVIDIA A10G"), "sm_86");
  EXPECT_EQ(arch_of("AMD Instinct MI210"), "gfx90a");
  EXPECT_EQ(arch_of("AMD Radeon Graphics gfx942"), "gfx942");
}

// Every CDNA generation of data/gpu_arch_names.yaml is reachable from a name: MI100 (CDNA 1),
// MI200 (CDNA 2), the MI300 steppings gfx940/941/942 (CDNA 3), MI355X (CDNA 4); targets of one
// generation are "compatible".
TEST(ArchOf, EveryCdnaGenerationFromData) {
  set_data_dir(GOBLIN_DATA_DIR);
  EXPECT_EQ(arch_of("AMD Instinct MI100"), "gfx908");
  EXPECT_EQ(arch_of("gfx908"), "gfx908");
  EXPECT_EQ(arch_of("AMD Instinct MI250X/MI250"), "gfx90a");
  EXPECT_EQ(arch_of("gfx940"), "gfx940");
  EXPECT_EQ(arch_of("gfx941"), "gfx941");
  EXPECT_EQ(arch_of("AMD Instinct MI355X"), "gfx950");
  EXPECT_EQ(match_arch("gfx940", "gfx942").match, "compatible");
  EXPECT_NE(match_arch("gfx940", "gfx942").reason.find("CDNA 3"), std::string::npos);
  EXPECT_NE(match_arch("gfx908", "gfx90a").reason.find("CDNA 1"), std::string::npos);
  EXPECT_EQ(match_arch("gfx908", "gfx90a").match, "unknown");
}

// One GCD of a multi-die module is recognised from gpus.yaml's match.devices_per_module, not a
// GPU id in C++.
TEST(ArchOf, DevicesPerModuleFromData) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto db = load_gpu_db();
  ASSERT_TRUE(db.ok());
  for (const auto& g : *db) EXPECT_EQ(g.match_devices_per_module, g.id == "MI250X" || g.id == "MI250" ? 2 : 1) << g.id;
}

TEST(ArchOf, UnknownIsEmpty) {
  set_data_dir(GOBLIN_DATA_DIR);
  EXPECT_EQ(arch_of(""), "");
  EXPECT_EQ(arch_of("Intel Arc A770"), "");
}

// HIP major.minor → gfx target, narrowed by data/gpus.yaml (CUs, memory) or the data's `assume`.
TEST(ArchFromHipCompute, DataDecides) {
  set_data_dir(GOBLIN_DATA_DIR);
  DeviceInfo d;
  d.warp_size = 64;
  d.compute_major = 9;
  d.compute_minor = 4;
  d.num_sms = 304;
  d.total_memory_bytes = 206141652992;  // the MI300X fixtures
  hw::ArchFromCompute a = hw::arch_from_hip_compute(d);
  EXPECT_EQ(a.arch, "gfx942");
  EXPECT_NE(a.how.find("MI300X"), std::string::npos) << a.how;
  d.num_sms = 38;  // a CPX partition: no GPU of the database matches, the data's assumption applies
  a = hw::arch_from_hip_compute(d);
  EXPECT_EQ(a.arch, "gfx942");
  EXPECT_NE(a.how.find("pre-production"), std::string::npos) << a.how;
  d.compute_minor = 5;
  d.num_sms = 256;
  EXPECT_EQ(hw::arch_from_hip_compute(d).arch, "gfx950");
  d.compute_minor = 0;
  d.num_sms = 104;  // MI210, or one GCD of an MI250: both gfx90a in the database (issue #34)
  a = hw::arch_from_hip_compute(d);
  EXPECT_EQ(a.arch, "gfx90a") << a.how;
  d.num_sms = 96;  // 9.0 covers gfx900 .. gfx90c and nothing in the database has 96 CUs
  a = hw::arch_from_hip_compute(d);
  EXPECT_EQ(a.arch, "");
  EXPECT_NE(a.how.find("gfx908"), std::string::npos);
  d.num_sms = 110;  // one GCD of an MI250X
  EXPECT_EQ(hw::arch_from_hip_compute(d).arch, "gfx90a");
}

// The vLLM MI300X trace: deviceProperties name "", computeMajor 9 / Minor 4, warpSize 64.
TEST(ObserveArch, EmptyNameAmdDevice) {
  set_data_dir(GOBLIN_DATA_DIR);
  DeviceInfo d;
  d.warp_size = 64;
  d.compute_major = 9;
  d.compute_minor = 4;
  d.num_sms = 304;
  d.total_memory_bytes = 206141652992;
  ObservedArch o = observe_arch(d, Vendor::Amd);
  EXPECT_EQ(o.arch, "gfx942");
  EXPECT_EQ(o.vendor, "amd");
  auto g = gpu_for_device(d);  // the spec database identifies it too (MFU, roofline)
  ASSERT_TRUE(g.ok()) << g.error().describe();
  EXPECT_EQ(g->id, "MI300X");
  DeviceInfo named;
  named.name = "AMD Instinct MI355X";
  EXPECT_EQ(observe_arch(named, Vendor::Unknown).arch, "gfx950");
}

TEST(MatchArch, Gfx942AgainstGfx950IsCompatibleWithTheDifferences) {
  set_data_dir(GOBLIN_DATA_DIR);
  ArchMatch m = match_arch("gfx942", "gfx950");
  EXPECT_EQ(m.match, "compatible");
  for (const char* fact : {"CDNA 3", "CDNA 4", "LDS", "FNUZ", "fp4"})
    EXPECT_NE(m.reason.find(fact), std::string::npos) << fact << " missing from: " << m.reason;
  EXPECT_EQ(match_arch("gfx950", "gfx942").match, "compatible");
  EXPECT_EQ(match_arch("gfx942", "gfx941").match, "compatible");  // same generation
  EXPECT_EQ(match_arch("gfx90a", "gfx950").match, "unknown");
  EXPECT_EQ(match_arch("gfx942", "gfx942:sramecc+").match, "exact");
}

}  // namespace goblin::hw

namespace goblin::hw {

// The hardware context (hw/knowledge.h): one parse per data directory, each file's error kept
// beside its part, so a broken NCU rule file does not hide the GPU database.
TEST(HwKnowledge, LoadedOncePerDataDirectoryWithEachFilesErrorKept) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto a = hw_knowledge();
  EXPECT_EQ(hw_knowledge(), a);  // cached
  EXPECT_FALSE(a->gpus.empty());
  EXPECT_TRUE(a->ncu_rules.ok());
  EXPECT_TRUE(a->ncu_metric_schema.ok());
  EXPECT_FALSE(a->arch.fragments.empty());
  EXPECT_FALSE(a->arch.amd_kernel_markers.empty());
  ASSERT_TRUE(a->gpu("H100").ok());
  EXPECT_EQ(a->measured(*a->gpu("H100")).file, "data/measured/h100_sxm.json");

  auto dir = testing::private_tmp_dir("hw_knowledge_broken");
  {
    std::FILE* f = std::fopen((dir / "ncu_rules.yaml").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("sol_bottleneck: [\n", f);
    std::fclose(f);
  }
  set_data_dir(dir.string());
  auto b = hw_knowledge();
  EXPECT_NE(b, a);  // another data directory: parsed again
  ASSERT_FALSE(b->ncu_rules.ok());
  EXPECT_NE(b->ncu_rules.error().message.find("ncu_rules.yaml"), std::string::npos);
  EXPECT_FALSE(load_ncu_rules().ok());        // the thin overload reads the same context
  EXPECT_EQ(b->gpus.size(), a->gpus.size());  // the embedded gpus.yaml still loads
  set_data_dir(GOBLIN_DATA_DIR);
}

}  // namespace goblin::hw
