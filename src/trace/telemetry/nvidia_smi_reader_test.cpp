// nvidia-smi query CSV and dmon readers on the real H100 fixtures. Golden values read off the
// files by hand; epoch values of the UTC-naive timestamps computed with Python's
// calendar.timegm.
#include <gtest/gtest.h>

#include <optional>

#include "core/io.h"
#include "trace/readers.h"
#include "trace/telemetry/nvidia_smi.h"

namespace goblin::trace {
namespace {

std::string fixture(const char* name) { return std::string(GOBLIN_FIXTURES) + "/telemetry/" + name; }

// Value of `metric` at (ts, device); fails the test when absent.
std::optional<double> sample(const Timeline& tl, int64_t ts, int32_t dev, std::string_view metric) {
  for (size_t i = 0; i < tl.samples.size(); ++i)
    if (tl.samples.ts_ns[i] == ts && tl.samples.device[i] == dev && tl.str(tl.samples.metric[i]) == metric)
      return tl.samples.value[i];
  return std::nullopt;
}

size_t count_metric(const Timeline& tl, std::string_view metric) {
  size_t n = 0;
  for (size_t i = 0; i < tl.samples.size(); ++i) n += tl.str(tl.samples.metric[i]) == metric;
  return n;
}

const Diagnostic* find_warning(const Timeline& tl, std::string_view needle) {
  for (const auto& w : tl.warnings)
    if (w.message.find(needle) != std::string::npos) return &w;
  return nullptr;
}

TEST(NvidiaSmiValues, Cells) {
  EXPECT_EQ(nvsmi::parse_value("117.82 W"), 117.82);
  EXPECT_EQ(nvsmi::parse_value("2 %"), 2);
  EXPECT_EQ(nvsmi::parse_value("81559 MiB"), 81559);
  EXPECT_EQ(nvsmi::parse_value("0x0000000000000004"), 4);
  EXPECT_EQ(nvsmi::parse_value("P8"), 8);
  EXPECT_EQ(nvsmi::parse_value("Not Active"), 0);
  EXPECT_FALSE(nvsmi::parse_value("Enabled"));
  EXPECT_FALSE(nvsmi::parse_value("12 34 W"));
  EXPECT_FALSE(nvsmi::parse_value("nan"));
  EXPECT_TRUE(nvsmi::is_unavailable("[N/A]"));
  EXPECT_TRUE(nvsmi::is_unavailable("[Not Supported]"));
  EXPECT_TRUE(nvsmi::is_unavailable("[Unknown Error]"));
  EXPECT_TRUE(nvsmi::is_unavailable("-"));
  EXPECT_EQ(nvsmi::parse_timestamp("2026/11/22 06:05:38.730"), 1795327538730000000);
  EXPECT_EQ(nvsmi::parse_timestamp("1970/01/01 00:00:01"), 1000000000);
  EXPECT_FALSE(nvsmi::parse_timestamp("2026/13/22 06:05:38.730"));
  EXPECT_FALSE(nvsmi::parse_timestamp("2026-11-22 06:05:38.730"));
  EXPECT_FALSE(nvsmi::parse_timestamp("3026/11/22 06:05:38.730"));  // beyond int64 ns (found by the fuzzer)
  EXPECT_FALSE(nvsmi::parse_gpu_index("4294967296"));
  EXPECT_EQ(nvsmi::parse_gpu_index("3"), 3);
  EXPECT_EQ(nvsmi::parse_dmon_time("20261122", "06:05:40"), 1795327540000000000);
  EXPECT_EQ(nvsmi::metric_name("clocks.sm"), "sm_clock_mhz");
  EXPECT_EQ(nvsmi::metric_name("clocks_throttle_reasons.active"), "clocks_event_reasons");
  EXPECT_EQ(nvsmi::metric_name("fan.speed"), "fan.speed");
}

TEST(NvidiaSmiQuery, WithUnits) {
  Timeline tl;
  Status s = read_nvidia_smi(fixture("nvidia_smi_query.csv"), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  // 4 rows × 12 numeric fields (pstate, temperature, 2 utilisations, 3 memory, 2 power, 2 clocks,
  // clocks_event_reasons).
  EXPECT_EQ(tl.samples.size(), 48u);
  const int64_t t0 = 1795327538730000000;  // 2026/11/22 06:05:38.730
  EXPECT_EQ(sample(tl, t0, 0, "gpu_util_pct"), 2);
  EXPECT_EQ(sample(tl, t0, 0, "mem_util_pct"), 0);
  EXPECT_EQ(sample(tl, t0, 0, "mem_total_bytes"), 81559.0 * 1048576);
  EXPECT_EQ(sample(tl, t0, 0, "mem_used_bytes"), 0);
  EXPECT_EQ(sample(tl, t0, 0, "mem_free_bytes"), 81079.0 * 1048576);
  EXPECT_EQ(sample(tl, t0, 0, "power_w"), 117.82);
  EXPECT_EQ(sample(tl, t0, 0, "power_limit_w"), 700);
  EXPECT_EQ(sample(tl, t0, 0, "temp_c"), 32);
  EXPECT_EQ(sample(tl, t0, 0, "sm_clock_mhz"), 1980);
  EXPECT_EQ(sample(tl, t0, 0, "mem_clock_mhz"), 2619);
  EXPECT_EQ(sample(tl, t0, 0, "pstate"), 0);
  EXPECT_EQ(sample(tl, t0, 0, "clocks_event_reasons"), 0);
  EXPECT_EQ(sample(tl, 1795327539943000000, 0, "power_w"), 121.53);  // last row, 06:05:39.943
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].id, 0);
  EXPECT_EQ(tl.meta.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(tl.meta.devices[0].total_memory_bytes, 81559LL * 1048576);
  EXPECT_EQ(tl.meta.versions["driver"], "580.159.04");
  EXPECT_TRUE(tl.warnings.empty());
}

TEST(NvidiaSmiQuery, NoheaderNounitsMatchesKnownOrder) {
  Timeline tl;
  Status s = read_nvidia_smi(fixture("nvidia_smi_query_nounits.csv"), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(tl.samples.size(), 12u);
  const int64_t t = 1795327540370000000;
  EXPECT_EQ(sample(tl, t, 0, "power_w"), 121.46);
  EXPECT_EQ(sample(tl, t, 0, "mem_total_bytes"), 81559.0 * 1048576);
  EXPECT_EQ(sample(tl, t, 0, "sm_clock_mhz"), 1980);
  const Diagnostic* w = find_warning(tl, "no header line");
  ASSERT_NE(w, nullptr);  // loud: the mapping is an inference and says so
  EXPECT_EQ(w->line, 1);
}

TEST(NvidiaSmiQuery, RealTrainingTrace) {
  Timeline tl;
  Status s = read_nvidia_smi(fixture("nvidia_smi_h100_training.csv"), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  // 261 rows × 8 numeric fields.
  EXPECT_EQ(tl.samples.size(), 261u * 8u);
  EXPECT_EQ(count_metric(tl, "gpu_util_pct"), 261u);
  // File line 130, the peak-power sample: 06:00:01.095, 99 %, 40 %, 17141 MiB, 624.68 W, 56 C.
  const int64_t t = 1795327201095000000;
  EXPECT_EQ(sample(tl, t, 0, "gpu_util_pct"), 99);
  EXPECT_EQ(sample(tl, t, 0, "mem_util_pct"), 40);
  EXPECT_EQ(sample(tl, t, 0, "mem_used_bytes"), 17141.0 * 1048576);
  EXPECT_EQ(sample(tl, t, 0, "power_w"), 624.68);
  EXPECT_EQ(sample(tl, t, 0, "temp_c"), 56);
  EXPECT_TRUE(tl.warnings.empty());
}

TEST(NvidiaSmiDmon, Fixture) {
  Timeline tl;
  Status s = read_nvidia_smi(fixture("nvidia_smi_dmon.txt"), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(tl.samples.size(), 2u * 11u);
  const int64_t t0 = 1795327540000000000, t1 = t0 + 1000000000;
  EXPECT_EQ(sample(tl, t0, 0, "power_w"), 121);
  EXPECT_EQ(sample(tl, t0, 0, "temp_c"), 32);
  EXPECT_EQ(sample(tl, t0, 0, "mtemp"), 40);
  EXPECT_EQ(sample(tl, t0, 0, "gpu_util_pct"), 0);
  EXPECT_EQ(sample(tl, t0, 0, "mem_clock_mhz"), 2619);
  EXPECT_EQ(sample(tl, t0, 0, "sm_clock_mhz"), 1980);
  EXPECT_EQ(sample(tl, t1, 0, "power_w"), 80);
  EXPECT_EQ(sample(tl, t1, 0, "sm_clock_mhz"), 345);
}

TEST(NvidiaSmiDmon, OldColumnsNoDateDashesAndRepeatedHeader) {
  std::string text =
      "# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk    fb\n"
      "# Idx     W     C     C     %     %     %     %   MHz   MHz    MB\n"
      "    0    61    30     -     5     1     0     0  1593  1410  1024\n"
      "    1    62    31     -     6     2     0     0  1593  1410     0\n"
      "# gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk    fb\n"
      "# Idx     W     C     C     %     %     %     %   MHz   MHz    MB\n"
      "    0    63    30     -     7     1     0     0  1593  1410  2048\n"
      "    1    64\n";
  Timeline tl;
  Status s = nvsmi::parse(text, "dmon.txt", tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  // 3 complete rows × 10 metrics, minus 3 '-' readings.
  EXPECT_EQ(tl.samples.size(), 27u);
  EXPECT_EQ(sample(tl, 0, 1, "power_w"), 62);
  EXPECT_EQ(sample(tl, 1000000000, 0, "mem_used_bytes"), 2048.0 * 1048576);
  EXPECT_NE(find_warning(tl, "without Date/Time"), nullptr);
  const Diagnostic* dash = find_warning(tl, "unavailable");
  ASSERT_NE(dash, nullptr);
  EXPECT_EQ(dash->count, 3);
  EXPECT_EQ(dash->id, W::telemetry_unavailable_reading);
  const Diagnostic* cut = find_warning(tl, "row has 2 of 11 columns");
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(cut->line, 8);
  EXPECT_EQ(cut->id, W::telemetry_row_width_skipped);
}

TEST(NvidiaSmiBadInput, Empty) {
  Timeline tl;
  Status s = nvsmi::parse("  \n", "e.csv", tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("empty"), std::string::npos);
}

TEST(NvidiaSmiBadInput, NoheaderUnknownOrderIsRefused) {
  Timeline tl;
  Status s = nvsmi::parse("2026/11/22 06:05:40.370, 0, 45, 300.5\n", "u.csv", tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("columns are unknown"), std::string::npos);
  EXPECT_EQ(s.error().line, 1);
  EXPECT_EQ(tl.samples.size(), 0u);
}

TEST(NvidiaSmiBadInput, UnavailableTextAndTruncatedRows) {
  std::string text =
      "timestamp, index, name, utilization.gpu [%], power.draw [W], fan.speed [%]\n"
      "2026/11/22 06:05:38.730, 0, NVIDIA H100 80GB HBM3, 50 %, [N/A], [Not Supported]\n"
      "2026/11/22 06:05:38.730, 1, NVIDIA H100 80GB HBM3, busy, 300.00 W, [Unknown Error]\n"
      "2026/11/22 06:05:39.130, 0, NVIDIA H100 80GB HBM3, 51 %, 301.00 W, 30 %\n"
      "not a time, 0, NVIDIA H100 80GB HBM3, 52 %, 302.00 W, 30 %\n"
      "2026/11/22 06:05:39.530, 0, NVIDIA H100 80GB HBM3, 53 %, 30";
  Timeline tl;
  Status s = nvsmi::parse(text, "bad.csv", tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  // Row 2: util only; row 3: power only; row 4: all three; row 5 skipped; row 6: util (its cut
  // last field dropped).
  EXPECT_EQ(tl.samples.size(), 1u + 1u + 3u + 1u);
  EXPECT_EQ(sample(tl, 1795327538730000000, 1, "power_w"), 300);
  EXPECT_EQ(sample(tl, 1795327539530000000, 0, "gpu_util_pct"), 53);
  EXPECT_FALSE(sample(tl, 1795327539530000000, 0, "power_w"));
  const Diagnostic* na = find_warning(tl, "unavailable readings");
  ASSERT_NE(na, nullptr);
  EXPECT_EQ(na->count, 3);
  EXPECT_EQ(na->line, 2);
  const Diagnostic* text_w = find_warning(tl, "column 4 (utilization.gpu): expected a number");
  ASSERT_NE(text_w, nullptr);
  EXPECT_EQ(text_w->line, 3);
  const Diagnostic* ts = find_warning(tl, "timestamp is not");
  ASSERT_NE(ts, nullptr);
  EXPECT_EQ(ts->line, 5);
  const Diagnostic* cut = find_warning(tl, "truncated");
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(cut->line, 6);
  // Each names its catalogue entry (model/warnings.h), which JSON output carries as "id".
  EXPECT_EQ(na->id, W::telemetry_unavailable_reading);
  EXPECT_EQ(text_w->id, W::telemetry_non_numeric);
  EXPECT_EQ(ts->id, W::telemetry_bad_timestamp);
  EXPECT_EQ(cut->id, W::telemetry_row_short);
  EXPECT_EQ(tl.meta.devices.size(), 2u);
}

TEST(NvidiaSmiBadInput, DmonDataBeforeHeader) {
  Timeline tl;
  Status s = nvsmi::parse_dmon("    0    61    30\n# gpu pwr gtemp\n", "d.txt", tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(s.error().line, 1);
}

}  // namespace
}  // namespace goblin::trace
