// amd-smi CSV reader. No real amd-smi capture is public, so the inputs are built from the
// writer's facts in FORMATS.md §3 (DictWriter CRLF, --watch banner and repeated headers with a
// blank line, N/A, Python list reprs, the MI355X `amd-smi metric` header, `monitor` keys).
#include <gtest/gtest.h>

#include <cmath>

#include "trace/readers.h"
#include "trace/rocprof/rocprof_test_files.h"

namespace goblin::trace {

using testing::has_warning;
using testing::TempDir;

namespace {

// Value of (ts, device, metric), NaN when absent; fails the test if it appears twice.
double sample(const Timeline& tl, int64_t ts, int32_t dev, std::string_view metric) {
  double v = NAN;
  int n = 0;
  for (size_t i = 0; i < tl.samples.size(); ++i) {
    if (tl.samples.ts_ns[i] == ts && tl.samples.device[i] == dev && tl.str(tl.samples.metric[i]) == metric) {
      v = tl.samples.value[i];
      ++n;
    }
  }
  EXPECT_LE(n, 1) << metric;
  return v;
}

size_t count_metric(const Timeline& tl, std::string_view metric) {
  size_t n = 0;
  for (size_t i = 0; i < tl.samples.size(); ++i) n += tl.str(tl.samples.metric[i]) == metric;
  return n;
}

const char* kMetricHeader =
    "timestamp,gpu,gfx_activity,umc_activity,mm_activity,vcn_activity,jpeg_activity,gfx_busy_inst_xcp_0,"
    "jpeg_busy_xcp_0,vcn_busy_xcp_0,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_status,"
    "power_management,gfx_0_clk,mem_0_clk,edge,hotspot,mem\r\n";

}  // namespace

TEST(AmdSmi, MetricWatchStdoutWithBannerRepeatedHeadersAndNa) {
  TempDir dir("amdsmi");
  std::string text = std::string("'CTRL' + 'C' to stop watching output:\r\n") + kMetricHeader + "\r\n" +
                     "1789515524,0,12,3,N/A,\"['N/A', 'N/A']\",\"[0, 5]\",N/A,N/A,N/A,163,N/A,N/A,N/A,"
                     "UNTHROTTLED,ENABLED,1404,2000,N/A,40,25\r\n"
                     "1789515524,1,0,0,N/A,\"['N/A', 'N/A']\",\"[0, 0]\",N/A,N/A,N/A,151,N/A,N/A,N/A,"
                     "UNTHROTTLED,ENABLED,132,900,N/A,38,24\r\n" +
                     // Next iteration: the header again, keys in another order (set order).
                     "timestamp,gpu,socket_power,gfx_activity,umc_activity,mm_activity,vcn_activity,jpeg_activity,"
                     "gfx_busy_inst_xcp_0,jpeg_busy_xcp_0,vcn_busy_xcp_0,gfx_voltage,soc_voltage,mem_voltage,"
                     "throttle_status,power_management,gfx_0_clk,mem_0_clk,edge,hotspot,mem\r\n\r\n"
                     "1789515525,0,700,97,41,N/A,\"['N/A', 'N/A']\",\"[0, 0]\",N/A,N/A,N/A,N/A,N/A,N/A,"
                     "UNTHROTTLED,ENABLED,2100,2000,N/A,71,60\r\n";
  Timeline tl;
  Status s = read_amd_smi(dir.write("amd_smi.csv", text), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  const int64_t t0 = 1789515524LL * 1000000000LL, t1 = t0 + 1000000000LL;
  EXPECT_EQ(sample(tl, t0, 0, "gpu_util_pct"), 12);
  EXPECT_EQ(sample(tl, t0, 0, "mem_util_pct"), 3);
  EXPECT_EQ(sample(tl, t0, 0, "power_w"), 163);
  EXPECT_EQ(sample(tl, t0, 0, "sm_clock_mhz"), 1404);
  EXPECT_EQ(sample(tl, t0, 0, "mem_clock_mhz"), 2000);
  EXPECT_EQ(sample(tl, t0, 0, "temp_hotspot_c"), 40);
  EXPECT_EQ(sample(tl, t0, 0, "temp_mem_c"), 25);      // "mem" beside edge/hotspot is a temperature
  EXPECT_EQ(sample(tl, t0, 0, "jpeg_activity_1"), 5);  // "[0, 5]" list repr
  EXPECT_EQ(sample(tl, t0, 1, "sm_clock_mhz"), 132);
  // Second block parsed by its own (reordered) header.
  EXPECT_EQ(sample(tl, t1, 0, "power_w"), 700);
  EXPECT_EQ(sample(tl, t1, 0, "gpu_util_pct"), 97);
  EXPECT_EQ(sample(tl, t1, 0, "mem_util_pct"), 41);
  EXPECT_EQ(sample(tl, t1, 0, "temp_mem_c"), 60);
  // N/A is no sample (never a zero), and an all-N/A normalised column is reported.
  EXPECT_EQ(count_metric(tl, "temp_c"), 0u);
  EXPECT_EQ(count_metric(tl, "mm_activity"), 0u);
  EXPECT_EQ(count_metric(tl, "throttle_status"), 0u);
  EXPECT_TRUE(has_warning(tl, "column 'edge' (temp_c) was N/A"));
  EXPECT_EQ(count_metric(tl, "gpu_util_pct"), 3u);
  ASSERT_EQ(tl.meta.devices.size(), 2u);
  EXPECT_FALSE(has_warning(tl, "line before the first CSV header"));
}

TEST(AmdSmi, MonitorKeysWithoutTimestamp) {
  TempDir dir("amdmon");
  std::string p = dir.write("mon.csv",
                            "gpu,power_usage,hotspot_temperature,memory_temperature,gfx,gfx_clock,mem,mem_clock,"
                            "encoder,decoder,vram_used,vram_total,single_bit_ecc,double_bit_ecc,pcie_replay\r\n"
                            "0,142,45,38,87,2100,35,1300,N/A,N/A,18432,196592,0,0,0\r\n");
  Timeline tl;
  ASSERT_TRUE(read_amd_smi(p, tl, {}).ok());
  EXPECT_EQ(sample(tl, 0, 0, "gpu_util_pct"), 87);  // monitor's "gfx"
  EXPECT_EQ(sample(tl, 0, 0, "mem_util_pct"), 35);  // monitor's "mem" is activity %
  EXPECT_EQ(sample(tl, 0, 0, "temp_c"), 45);        // no edge sensor column: hotspot
  EXPECT_EQ(sample(tl, 0, 0, "temp_mem_c"), 38);
  EXPECT_EQ(sample(tl, 0, 0, "power_w"), 142);
  EXPECT_EQ(sample(tl, 0, 0, "mem_used_bytes"), 18432.0 * 1024 * 1024);  // MB → bytes
  EXPECT_EQ(sample(tl, 0, 0, "mem_total_bytes"), 196592.0 * 1024 * 1024);
  EXPECT_EQ(sample(tl, 0, 0, "pcie_replay"), 0);  // vendor metric keeps its name
  EXPECT_TRUE(has_warning(tl, "no 'timestamp' column"));
}

TEST(AmdSmi, UsageIsNotGpuUtilisation) {
  TempDir dir("amdusage");
  std::string p = dir.write("u.csv", "gpu,usage,used_vram,total_vram\r\n0,55,1024,196592\r\n1,N/A,N/A,196592\r\n");
  Timeline tl;
  ASSERT_TRUE(read_amd_smi(p, tl, {}).ok());
  EXPECT_EQ(count_metric(tl, "gpu_util_pct"), 0u);
  EXPECT_EQ(sample(tl, 0, 0, "usage"), 55);
  EXPECT_EQ(sample(tl, 0, 0, "mem_used_bytes"), 1024.0 * 1024 * 1024);
  EXPECT_EQ(count_metric(tl, "mem_used_bytes"), 1u);  // GPU 1's N/A is absent, not zero
}

TEST(AmdSmi, PartitionRowsKeepTheirXcp) {
  TempDir dir("amdxcp");
  std::string p = dir.write("x.csv", "timestamp,gpu,xcp,power_usage,pcie_bw\r\n10,0,0,300,12\r\n10,0,1,N/A,7\r\n");
  Timeline tl;
  ASSERT_TRUE(read_amd_smi(p, tl, {}).ok());
  EXPECT_EQ(sample(tl, 10000000000, 0, "power_w"), 300);
  EXPECT_EQ(sample(tl, 10000000000, 0, "pcie_bw"), 12);
  EXPECT_EQ(sample(tl, 10000000000, 0, "pcie_bw_xcp1"), 7);
}

TEST(AmdSmi, BadInput) {
  TempDir dir("amdbad");
  {
    Timeline tl;
    Status s = read_amd_smi(dir.write("e.csv", ""), tl, {});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  }
  {
    Timeline tl;
    Status s = read_amd_smi(dir.write("b.csv", "'CTRL' + 'C' to stop watching output:\r\n"), tl, {});
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("no amd-smi CSV header"), std::string::npos);
  }
  {
    Timeline tl;
    Status s = read_amd_smi(dir.write("g.csv", "timestamp,gfx_activity\r\n1,2\r\n"), tl, {});
    ASSERT_FALSE(s.ok());  // not an amd-smi header at all
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  }
  {
    Timeline tl;
    std::string p = dir.write("r.csv",
                              "timestamp,gpu,gfx_activity,socket_power\r\n"
                              "100,0,50,200\r\n"
                              "101,0,abc,201\r\n"   // non-numeric where a number is expected
                              "102,0,52\r\n"        // truncated row
                              "103,N/A,53,203\r\n"  // no GPU index
                              "xyz,0,54,204\r\n");  // bad timestamp
    ASSERT_TRUE(read_amd_smi(p, tl, {}).ok());
    EXPECT_EQ(count_metric(tl, "gpu_util_pct"), 2u);  // lines 2 and 4
    EXPECT_EQ(count_metric(tl, "power_w"), 2u);       // lines 2 and 3
    int64_t line = 0;
    EXPECT_TRUE(has_warning(tl, "column 'gfx_activity' is not a number", nullptr, &line));
    EXPECT_EQ(line, 3);
    EXPECT_TRUE(has_warning(tl, "fewer fields than the header", nullptr, &line));
    EXPECT_EQ(line, 4);
    EXPECT_TRUE(has_warning(tl, "column 'gpu' is not a GPU index", nullptr, &line));
    EXPECT_EQ(line, 5);
    EXPECT_TRUE(has_warning(tl, "'timestamp' is not epoch seconds", nullptr, &line));
    EXPECT_EQ(line, 6);
  }
}

}  // namespace goblin::trace
