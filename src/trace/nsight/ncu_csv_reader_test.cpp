// Nsight Compute CSV reader on the real H100 fixtures. Golden values were read off the files by
// hand (e.g. kernel 0's gpu__time_duration.sum is the cell "13,888" with unit "ns" in row 2).
#include <gtest/gtest.h>

#include <set>

#include "core/io.h"
#include "trace/nsight/ncu_csv.h"
#include "trace/nsight/ncu_values.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

std::string fixture(const char* name) { return std::string(GOBLIN_FIXTURES) + "/nsight/" + name; }

std::string slurp(const std::string& path) {
  auto t = read_all(path);
  EXPECT_TRUE(t.ok());
  return t.ok() ? *t : std::string();
}

// Value of `counter` for kernel `key`; NaN-free: fails the test when absent.
double counter(const Timeline& tl, int64_t key, std::string_view name, std::string* unit = nullptr) {
  for (size_t i = 0; i < tl.counters.size(); ++i) {
    if (tl.counters.kernel_key[i] == key && tl.str(tl.counters.counter[i]) == name) {
      if (unit) *unit = std::string(tl.str(tl.counters.unit[i]));
      return tl.counters.value[i];
    }
  }
  ADD_FAILURE() << "no counter " << name << " for kernel " << key;
  return -1;
}

size_t distinct_kernels(const Timeline& tl) {
  std::set<int64_t> k(tl.counters.kernel_key.begin(), tl.counters.kernel_key.end());
  return k.size();
}

TEST(NcuValues, ThousandsSeparatorsBothLocales) {
  using ncu::NumberLocale;
  EXPECT_EQ(ncu::parse_number("13,888", NumberLocale::English), 13888);
  EXPECT_EQ(ncu::parse_number("2,612,093,023.26", NumberLocale::English), 2612093023.26);
  EXPECT_EQ(ncu::parse_number("13.888", NumberLocale::European), 13888);
  EXPECT_EQ(ncu::parse_number("2.612.093.023,26", NumberLocale::European), 2612093023.26);
  EXPECT_EQ(ncu::parse_number("62,26", NumberLocale::European), 62.26);
  EXPECT_EQ(ncu::parse_number("-0.5", NumberLocale::English), -0.5);
  EXPECT_EQ(ncu::parse_number("1e-05", NumberLocale::English), 1e-05);
  // Grouping must be in threes; anything else is not a number.
  EXPECT_FALSE(ncu::parse_number("13,88", NumberLocale::English));
  EXPECT_FALSE(ncu::parse_number("1,2345", NumberLocale::English));
  EXPECT_FALSE(ncu::parse_number("PolicySpread", NumberLocale::English));
  EXPECT_FALSE(ncu::parse_number("", NumberLocale::English));
  EXPECT_FALSE(ncu::parse_number("inf", NumberLocale::English));
  EXPECT_FALSE(ncu::parse_number("(256, 1, 1)", NumberLocale::English));
  // Every double → integer conversion is range-checked (the fuzzer found a device id of 1.2e10).
  EXPECT_FALSE(ncu::as_integer(1.25871e10, 0, 1 << 30));
  EXPECT_FALSE(ncu::as_integer(1.5, 0, 10));
  EXPECT_EQ(ncu::as_integer(7.0, 0, 10), 7);
  EXPECT_EQ(ncu::locale_hint("62.26"), ncu::LocaleHint::English);
  EXPECT_EQ(ncu::locale_hint("62,26"), ncu::LocaleHint::European);
  EXPECT_EQ(ncu::locale_hint("13,888"), ncu::LocaleHint::None);
  EXPECT_EQ(ncu::locale_hint("1.234.567"), ncu::LocaleHint::European);
}

TEST(NcuValues, Dim3) {
  auto d = ncu::parse_dim3("(2, 66, 1)");
  ASSERT_TRUE(d);
  EXPECT_EQ((*d)[0], 2u);
  EXPECT_EQ((*d)[1], 66u);
  EXPECT_EQ((*d)[2], 1u);
  EXPECT_FALSE(ncu::parse_dim3("(2, 66)"));
  EXPECT_FALSE(ncu::parse_dim3("(2, 66, 1, 1)"));
  EXPECT_FALSE(ncu::parse_dim3("(2, -1, 1)"));
  EXPECT_FALSE(ncu::parse_dim3("256"));
}

TEST(NcuRaw, FullPage) {
  Timeline tl;
  Status s = read_ncu_csv(fixture("ncu_raw_h100_full.csv"), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(distinct_kernels(tl), 2u);
  std::string unit;
  EXPECT_EQ(counter(tl, 0, "gpu__time_duration.sum", &unit), 13888);
  EXPECT_EQ(unit, "ns");
  EXPECT_EQ(counter(tl, 1, "gpu__time_duration.sum"), 11232);
  EXPECT_DOUBLE_EQ(counter(tl, 0, "sm__throughput.avg.pct_of_peak_sustained_elapsed", &unit), 62.26);
  EXPECT_EQ(unit, "%");
  EXPECT_EQ(counter(tl, 0, "launch__grid_size"), 1056);
  EXPECT_EQ(counter(tl, 0, "launch__registers_per_thread", &unit), 44);
  EXPECT_EQ(unit, "register/thread");
  EXPECT_EQ(counter(tl, 0, "device__attribute_total_memory"), 85017493504.0);
  // Launch shape from "(256, 1, 1)" / "(1056, 1, 1)" and the second kernel's "(4096, 1, 1)".
  EXPECT_EQ(counter(tl, 0, "Block Size.x", &unit), 256);
  EXPECT_EQ(unit, "thread");
  EXPECT_EQ(counter(tl, 0, "Grid Size.x"), 1056);
  EXPECT_EQ(counter(tl, 1, "Grid Size.x"), 4096);
  EXPECT_EQ(counter(tl, 1, "Block Size.x"), 128);
  // 1098 numeric metric cells (counted in the file) + 6 launch-shape counters per kernel.
  EXPECT_EQ(tl.counters.size(), 1098u + 12u);
  EXPECT_TRUE(tl.str(tl.counters.kernel_name[0]).starts_with("void unnamed>::distribution_elementwise_grid_stride"));
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].id, 0);
  EXPECT_EQ(tl.meta.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(tl.meta.devices[0].num_sms, 132);
  EXPECT_EQ(tl.meta.devices[0].arch, "sm_90");
  EXPECT_EQ(tl.meta.devices[0].warp_size, 32);
  EXPECT_EQ(tl.meta.devices[0].total_memory_bytes, 85017493504);
  // Text values ("PolicySpread", "all", "No-CC") are skipped with one folded warning.
  ASSERT_FALSE(tl.warnings.empty());
  bool folded = false;
  for (const auto& w : tl.warnings)
    if (w.message.find("non-numeric") != std::string::npos) folded = w.count > 1;
  EXPECT_TRUE(folded);
  EXPECT_TRUE(tl.gpu_ops.count(GpuOpKind::Kernel) == 0);
}

TEST(NcuRaw, SelectedMetrics) {
  Timeline tl;
  Status s = read_ncu_csv(fixture("ncu_raw_h100_selected_metrics.csv"), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(distinct_kernels(tl), 10u);
  EXPECT_EQ(counter(tl, 0, "gpu__time_duration.sum"), 52576);
  std::string unit;
  EXPECT_EQ(counter(tl, 0, "dram__bytes_read.sum", &unit), 12800);
  EXPECT_EQ(unit, "byte");
  EXPECT_EQ(counter(tl, 1, "dram__bytes_read.sum"), 11520);
  // nvjet GEMM, kernel 2: grid "(2, 66, 1)", block "(384, 1, 1)".
  EXPECT_EQ(counter(tl, 2, "Grid Size.x"), 2);
  EXPECT_EQ(counter(tl, 2, "Grid Size.y"), 66);
  EXPECT_EQ(counter(tl, 2, "Grid Size.z"), 1);
  EXPECT_EQ(counter(tl, 2, "Block Size.x"), 384);
  EXPECT_EQ(counter(tl, 9, "Block Size.x"), 1024);
}

TEST(NcuDetails, MetricAndRuleRows) {
  Timeline tl;
  Status s = read_ncu_csv(fixture("ncu_details_h100.csv"), tl, {});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(distinct_kernels(tl), 2u);
  std::string unit;
  EXPECT_DOUBLE_EQ(counter(tl, 0, "GPU Speed Of Light Throughput/DRAM Frequency", &unit), 2612093023.26);
  EXPECT_EQ(unit, "hz");
  EXPECT_EQ(counter(tl, 0, "GPU Speed Of Light Throughput/Duration"), 13760);
  EXPECT_EQ(counter(tl, 1, "GPU Speed Of Light Throughput/Duration"), 11328);
  EXPECT_EQ(counter(tl, 0, "Launch Statistics/Threads"), 270336);
  EXPECT_EQ(counter(tl, 1, "Launch Statistics/Threads"), 524288);
  EXPECT_DOUBLE_EQ(counter(tl, 0, "Launch Statistics/Waves Per SM"), 1.60);
  // 94 numeric metric rows (6 are text: PolicySpread, CachePreferNone, all) + 6 shape counters each.
  EXPECT_EQ(tl.counters.size(), 94u + 12u);
  // 10 rule rows: 4 for kernel 0, 6 for kernel 1 (WorkloadImbalance three times).
  ASSERT_EQ(tl.rules.size(), 10u);
  EXPECT_EQ(tl.rules.kernel_key[0], 0);
  EXPECT_EQ(tl.str(tl.rules.section[0]), "SpeedOfLight");
  EXPECT_EQ(tl.str(tl.rules.rule[0]), "SOLBottleneck");
  EXPECT_EQ(tl.str(tl.rules.type[0]), "OPT");
  EXPECT_EQ(tl.rules.est_speedup_pct[0], -1);  // no estimate given
  EXPECT_EQ(tl.str(tl.rules.rule[1]), "LaunchConfiguration");
  EXPECT_EQ(tl.str(tl.rules.speedup_type[1]), "global");
  EXPECT_EQ(tl.rules.est_speedup_pct[1], 50);
  EXPECT_TRUE(tl.str(tl.rules.description[1]).starts_with("A wave of thread blocks"));
  EXPECT_DOUBLE_EQ(tl.rules.est_speedup_pct[2], 19.19);
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].num_sms, 132);
  EXPECT_EQ(tl.meta.devices[0].arch, "sm_90");
}

// The same raw page as a European-locale ncu would write it: grouping '.', decimal ','.
TEST(NcuRaw, EuropeanLocale) {
  std::string text = slurp(fixture("ncu_raw_h100_full.csv"));
  // Swap the separators inside quoted numeric cells only ("13,888" → "13.888", "62.26" →
  // "62,26", "9.0" → "9,0"); names and the field separators stay as they are.
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '"') {
      out.push_back(text[i++]);
      continue;
    }
    size_t end = text.find('"', i + 1);
    std::string cell = text.substr(i + 1, end - i - 1);
    bool numeric = !cell.empty() && cell.find_first_not_of("0123456789.,-") == std::string::npos;
    if (numeric)
      for (char& c : cell) c = c == ',' ? '.' : (c == '.' ? ',' : c);
    out += '"' + cell + '"';
    i = end + 1;
  }
  Timeline tl;
  Status s = parse_ncu_csv(out, "eu.csv", tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(counter(tl, 0, "gpu__time_duration.sum"), 13888);
  EXPECT_DOUBLE_EQ(counter(tl, 0, "sm__throughput.avg.pct_of_peak_sustained_elapsed"), 62.26);
  EXPECT_EQ(counter(tl, 0, "device__attribute_total_memory"), 85017493504.0);
  EXPECT_EQ(counter(tl, 0, "Grid Size.x"), 1056);
  EXPECT_EQ(tl.counters.size(), 1098u + 12u);  // exactly what the English file gives
}

TEST(NcuBadInput, EmptyAndNoHeader) {
  Timeline tl;
  Status s = parse_ncu_csv("", "e.csv", tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("empty"), std::string::npos);
  s = parse_ncu_csv("==PROF== Connected to process 1\nhello from the app\n", "n.csv", tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("no header"), std::string::npos);
  EXPECT_EQ(s.error().file, "n.csv");
}

TEST(NcuBadInput, TruncatedKeepsEarlierKernels) {
  std::string text = slurp(fixture("ncu_raw_h100_selected_metrics.csv"));
  // Cut in the middle of the last data row (kernel 9).
  size_t last = text.rfind("\n\"9\",");
  ASSERT_NE(last, std::string::npos);
  text.resize(last + 2000);
  Timeline tl;
  Status s = parse_ncu_csv(text, "cut.csv", tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(s.error().line, 14);  // 2 ==PROF== lines, header, units, kernels 0..8, then kernel 9
  EXPECT_GE(distinct_kernels(tl), 9u);
  EXPECT_EQ(counter(tl, 8, "gpu__time_duration.sum") > 0, true);
}

TEST(NcuBadInput, UnterminatedQuote) {
  std::string text = slurp(fixture("ncu_details_h100.csv"));
  text.resize(text.size() / 2);
  text += "\"1\",\"541\",\"python3.12\",\"unterminated";
  Timeline tl;
  Status s = parse_ncu_csv(text, "q.csv", tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_GT(s.error().line, 4);
  EXPECT_GT(tl.counters.size(), 0u);
}

TEST(NcuBadInput, NonNumericIdSkippedWithLine) {
  std::string text =
      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"ns\"\n\"x\",\"k\",\"1\"\n\"3\",\"k\",\"1,500\"\n";
  Timeline tl;
  Status s = parse_ncu_csv(text, "id.csv", tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(tl.counters.size(), 1u);
  EXPECT_EQ(tl.counters.kernel_key[0], 3);
  EXPECT_EQ(tl.counters.value[0], 1500);
  ASSERT_EQ(tl.warnings.size(), 1u);
  EXPECT_EQ(tl.warnings[0].line, 3);
}

}  // namespace
}  // namespace goblin::trace
