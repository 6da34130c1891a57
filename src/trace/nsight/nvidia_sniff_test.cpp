// Every NVIDIA fixture is sniffed to its format from content alone, and no AMD or Kineto
// fixture is mistaken for an NVIDIA one.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/io.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

Format sniff_file(const std::string& path) {
  auto prefix = read_prefix(path, 64 * 1024);
  EXPECT_TRUE(prefix.ok()) << path;
  return prefix.ok() ? sniff_format(*prefix, path) : Format::Unknown;
}

std::string fx(const std::string& rel) { return std::string(GOBLIN_FIXTURES) + "/" + rel; }

TEST(NvidiaSniff, NsightFixtures) {
  EXPECT_EQ(sniff_file(fx("nsight/nsys_2026_export.sqlite")), Format::NsysSqlite);
  EXPECT_EQ(sniff_file(fx("nsight/ncu_raw_h100_full.csv")), Format::NcuCsv);
  EXPECT_EQ(sniff_file(fx("nsight/ncu_raw_h100_selected_metrics.csv")), Format::NcuCsv);
  EXPECT_EQ(sniff_file(fx("nsight/ncu_details_h100.csv")), Format::NcuCsv);
}

TEST(NvidiaSniff, TelemetryFixtures) {
  EXPECT_EQ(sniff_file(fx("telemetry/nvidia_smi_query.csv")), Format::NvidiaSmi);
  EXPECT_EQ(sniff_file(fx("telemetry/nvidia_smi_query_nounits.csv")), Format::NvidiaSmi);
  EXPECT_EQ(sniff_file(fx("telemetry/nvidia_smi_h100_training.csv")), Format::NvidiaSmi);
  EXPECT_EQ(sniff_file(fx("telemetry/nvidia_smi_dmon.txt")), Format::NvidiaSmi);
  EXPECT_NE(sniff_file(fx("telemetry/rocm_smi.txt")), Format::NvidiaSmi);
}

// ncu output with application stdout (not ==PROF== lines) before the header, and a header
// without the optional columns; dmon from an older driver ("# gpu pwr ...").
TEST(NvidiaSniff, Variants) {
  EXPECT_TRUE(
      sniff_ncu_csv("==PROF== Connected to process 1\nepoch 1 loss 2.3\nstep, 4\n"
                    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\"\n"));
  EXPECT_TRUE(
      sniff_nvidia_smi("# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk\n# Idx W C C % % % % MHz MHz\n"));
  EXPECT_TRUE(sniff_nvidia_smi("timestamp, index, power.draw [W]\n"));
  EXPECT_TRUE(sniff_nvidia_smi("index, name, utilization.gpu\n"));
  EXPECT_FALSE(sniff_nvidia_smi("gpu,gfx_activity,vram_used\n"));
  EXPECT_FALSE(sniff_ncu_csv("\"Kernel_Name\",\"Dispatch_Id\"\n"));
}

// Nothing outside nsight/ and telemetry/ is taken for an NVIDIA format.
TEST(NvidiaSniff, OtherFixturesAreNotNvidia) {
  size_t looked = 0;
  for (const char* dir : {"rocprof", "kineto"}) {
    for (const auto& e : std::filesystem::directory_iterator(fx(dir))) {
      if (!e.is_regular_file()) continue;
      Format f = sniff_file(e.path().string());
      ++looked;
      EXPECT_TRUE(f != Format::NsysSqlite && f != Format::NcuCsv && f != Format::NvidiaSmi)
          << e.path() << " sniffed as " << format_name(f);
    }
  }
  EXPECT_GT(looked, 20u);
}

}  // namespace
}  // namespace goblin::trace
