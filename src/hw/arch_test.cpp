#include "hw/arch.h"

#include <gtest/gtest.h>

#include "core/data.h"

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

TEST(ArchOf, UnknownIsEmpty) {
  set_data_dir(GOBLIN_DATA_DIR);
  EXPECT_EQ(arch_of(""), "");
  EXPECT_EQ(arch_of("Intel Arc A770"), "");
}

}  // namespace goblin::hw
