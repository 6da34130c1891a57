// rocm-smi reader: the real concise-table fixture, older table layouts, --csv output.
#include <gtest/gtest.h>

#include <cmath>

#include "trace/readers.h"
#include "trace/rocprof/rocprof_test_files.h"

namespace goblin::trace {

using testing::fixture;
using testing::has_warning;
using testing::TempDir;

namespace {
double sample(const Timeline& tl, int64_t ts, int32_t dev, std::string_view metric) {
  for (size_t i = 0; i < tl.samples.size(); ++i) {
    if (tl.samples.ts_ns[i] == ts && tl.samples.device[i] == dev && tl.str(tl.samples.metric[i]) == metric)
      return tl.samples.value[i];
  }
  return NAN;
}
}  // namespace

TEST(RocmSmi, ConciseTableFixture) {
  for (const char* rel : {"telemetry/rocm_smi.txt", "rocprof/rocprofv3_rocm-smi.txt"}) {
    Timeline tl;
    Status s = read_rocm_smi(fixture(rel), tl, {});
    ASSERT_TRUE(s.ok()) << s.error().describe();
    // 4 devices x (Temp, Power, SCLK, MCLK, Fan, PwrCap, VRAM%, GPU%).
    EXPECT_EQ(tl.samples.size(), 32u) << rel;
    ASSERT_EQ(tl.meta.devices.size(), 4u);
    // "0  4  0x74a0,   50375  48.0°C  110.0W  NPS1, SPX, 0  98Mhz  1300Mhz  0%  auto  550.0W  0%  0%"
    EXPECT_EQ(sample(tl, 0, 0, "temp_c"), 48.0);
    EXPECT_EQ(sample(tl, 0, 0, "power_w"), 110.0);
    EXPECT_EQ(sample(tl, 0, 0, "sm_clock_mhz"), 98);
    EXPECT_EQ(sample(tl, 0, 0, "mem_clock_mhz"), 1300);
    EXPECT_EQ(sample(tl, 0, 0, "power_limit_w"), 550);
    EXPECT_EQ(sample(tl, 0, 0, "gpu_util_pct"), 0);
    EXPECT_EQ(sample(tl, 0, 0, "vram_used_pct"), 0);
    // "2  6  0x74a0,   44670  52.0°C  125.0W  NPS1, SPX, 0  100Mhz  1300Mhz ..."
    EXPECT_EQ(sample(tl, 0, 2, "power_w"), 125.0);
    EXPECT_EQ(sample(tl, 0, 2, "sm_clock_mhz"), 100);
    EXPECT_EQ(sample(tl, 0, 1, "temp_c"), 53.0);
    EXPECT_TRUE(has_warning(tl, "no timestamps"));
  }
}

TEST(RocmSmi, OlderConciseLayouts) {
  TempDir dir("rsmiold");
  // ROCm 5.x: "GPU", "Temp (DieEdge)", "AvgPwr".
  std::string p5 = dir.write("r5.txt",
                             "======================= ROCm System Management Interface =======================\n"
                             "================================= Concise Info =================================\n"
                             "GPU  Temp (DieEdge)  AvgPwr  SCLK    MCLK     Fan  Perf  PwrCap  VRAM%  GPU%  \n"
                             "0    35.0c           35.0W   800Mhz  1600Mhz  0%   auto  300.0W    0%   7%    \n"
                             "================================================================================\n"
                             "============================= End of ROCm SMI Log ==============================\n");
  Timeline t5;
  ASSERT_TRUE(read_rocm_smi(p5, t5, {}).ok());
  EXPECT_EQ(sample(t5, 0, 0, "temp_c"), 35.0);
  EXPECT_EQ(sample(t5, 0, 0, "power_w"), 35.0);
  EXPECT_EQ(sample(t5, 0, 0, "gpu_util_pct"), 7);
  // ROCm 6.0: "[Model : Revision]" column and the device name on a continuation line.
  std::string p6 = dir.write("r6.txt",
                             "========================================= ROCm System Management Interface "
                             "=========================================\n"
                             "=================================================== Concise Info "
                             "===================================================\n"
                             "Device  [Model : Revision]    Temp        Power     Partitions      SCLK    MCLK    Fan  "
                             "Perf    PwrCap  VRAM%  GPU%\n"
                             "        Name (20 chars)       (Junction)  (Socket)  (Mem, Compute)\n"
                             "========================================================================================="
                             "===========================\n"
                             "0       [0x74a1 : 0x00]       35.0°C      140.0W    NPS1, SPX       132Mhz  900Mhz  0%   "
                             "manual  750.0W  0%     3%\n"
                             "        AMD Instinct MI300X\n"
                             "========================================================================================="
                             "===========================\n");
  Timeline t6;
  ASSERT_TRUE(read_rocm_smi(p6, t6, {}).ok());
  EXPECT_EQ(sample(t6, 0, 0, "power_w"), 140.0);
  EXPECT_EQ(sample(t6, 0, 0, "sm_clock_mhz"), 132);
  EXPECT_EQ(sample(t6, 0, 0, "gpu_util_pct"), 3);
  ASSERT_EQ(t6.meta.devices.size(), 1u);
  EXPECT_EQ(t6.meta.devices[0].name, "AMD Instinct MI300X");
}

TEST(RocmSmi, CsvBlocksWithWarningsAndReorderedColumns) {
  TempDir dir("rsmicsv");
  std::string p = dir.write(
      "r.csv",
      "WARNING: One or more commands failed\n"
      "device,Temperature (Sensor edge) (C),Temperature (Sensor junction) (C),Current Socket Graphics Package Power "
      "(W),GPU use (%),VRAM Total Memory (B),VRAM Total Used Memory (B),sclk clock speed:,Card Series\n"
      "card0,41.0,45.0,120.0,12,206141652992,10737418240,(1700Mhz),AMD Instinct MI300X\n"
      "card1,N/A,44.0,118.0,0,206141652992,283115520,(132Mhz),AMD Instinct MI300X\n"
      "\n"
      "device,GPU use (%),Average Graphics Package Power (W)\n"
      "card0,99,650.0\n");
  Timeline tl;
  Status s = read_rocm_smi(p, tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(sample(tl, 0, 0, "temp_c"), 41.0);
  EXPECT_EQ(sample(tl, 0, 0, "temp_hotspot_c"), 45.0);
  EXPECT_EQ(sample(tl, 0, 0, "power_w"), 120.0);
  EXPECT_EQ(sample(tl, 0, 0, "gpu_util_pct"), 12);
  EXPECT_EQ(sample(tl, 0, 0, "mem_total_bytes"), 206141652992.0);
  EXPECT_EQ(sample(tl, 0, 0, "mem_used_bytes"), 10737418240.0);
  EXPECT_EQ(sample(tl, 0, 0, "sm_clock_mhz"), 1700);
  EXPECT_TRUE(std::isnan(sample(tl, 0, 1, "temp_c")));  // N/A: no sample
  EXPECT_EQ(sample(tl, 0, 1, "sm_clock_mhz"), 132);
  // Second block = second sample.
  EXPECT_EQ(sample(tl, 1, 0, "gpu_util_pct"), 99);
  EXPECT_EQ(sample(tl, 1, 0, "power_w"), 650.0);
  EXPECT_FALSE(has_warning(tl, "is not a number"));  // "Card Series" is text, not a metric
}

// Lower-case "n/a" is an absent reading as "N/A" is (the amd-smi reader's spelling too, one helper
// in smi_values.h): no sample, no "not a number" warning.
TEST(RocmSmi, LowerCaseNaIsAnAbsentReading) {
  TempDir dir("rsmina");
  std::string p = dir.write("r.csv",
                            "device,Temperature (Sensor edge) (C),GPU use (%)\n"
                            "card0,n/a,12\n"
                            "card1,N/A,7\n");
  Timeline tl;
  Status s = read_rocm_smi(p, tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_TRUE(std::isnan(sample(tl, 0, 0, "temp_c")));
  EXPECT_TRUE(std::isnan(sample(tl, 0, 1, "temp_c")));
  EXPECT_EQ(sample(tl, 0, 0, "gpu_util_pct"), 12);
  EXPECT_EQ(sample(tl, 0, 1, "gpu_util_pct"), 7);
  EXPECT_FALSE(has_warning(tl, "not a number"));
}

TEST(RocmSmi, BadInput) {
  TempDir dir("rsmibad");
  {
    Timeline tl;
    Status s = read_rocm_smi(dir.write("e.txt", "\n\n"), tl, {});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  }
  {
    Timeline tl;
    Status s = read_rocm_smi(dir.write("h.csv", "device,GPU use (%)\n"), tl, {});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  }
  {
    Timeline tl;
    std::string p = dir.write("t.txt",
                              "=== ROCm System Management Interface ===\n"
                              "Device  Temp    Power   GPU%\n"
                              "0       40.0°C  100.0W  5%\n"
                              "1       41.0°C  5%\n"
                              "2       hot     90.0W   1%\n");
    ASSERT_TRUE(read_rocm_smi(p, tl, {}).ok());
    EXPECT_EQ(sample(tl, 0, 0, "power_w"), 100.0);
    EXPECT_TRUE(std::isnan(sample(tl, 0, 1, "gpu_util_pct")));  // short row skipped
    int64_t line = 0;
    EXPECT_TRUE(has_warning(tl, "fewer cells than the header", nullptr, &line));
    EXPECT_EQ(line, 4);
    EXPECT_TRUE(has_warning(tl, "value for 'temp_c' is not a number", nullptr, &line));
    EXPECT_EQ(line, 5);
    EXPECT_EQ(sample(tl, 0, 2, "power_w"), 90.0);
  }
}

}  // namespace goblin::trace
