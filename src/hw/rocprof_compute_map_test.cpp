// rocprofiler-compute metrics of the real MI350 (gfx950) database mapped onto goblin's metric
// schema: the Nsight Compute classification and diagnosis then run on AMD's counters.
#include "hw/rocprof_compute_map.h"

#include <gtest/gtest.h>

#include "hw/diagnose.h"
#include "hw/knowledge.h"
#include "trace/readers.h"

namespace goblin::hw {
namespace {

const std::string kDb = std::string(GOBLIN_FIXTURES) + "/rocprof_compute/mi350_monte_carlo_pi.db";

TEST(RocprofComputeMap, DataFileParsesAndCitesEveryMetric) {
  auto kn = hw_knowledge();
  ASSERT_TRUE(kn->rocprof_compute_map.ok()) << kn->rocprof_compute_map.error().message;
  ASSERT_GE(kn->rocprof_compute_map->targets.size(), 3u);
  for (const auto& t : kn->rocprof_compute_map->targets)
    for (const auto& s : t.from) EXPECT_FALSE(s.definition.empty()) << s.metric;
}

TEST(RocprofComputeMap, Mi350KernelsGetSpeedOfLightFromAmdMetrics) {
  Timeline tl;
  Status s = trace::read_path(kDb, tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  auto ks = counter_kernels(tl);
  ASSERT_EQ(ks.size(), 7u);
  // Kernel 4 (rocprim): VALU 5.47 %, MFMA 0, SALU 6.02 % → compute SOL 6.02 %; memory: vL1D
  // 10375.1 of 34731.9 GB/s = 29.87 % beats HBM 1016.7 / 4885.5 = 20.81 %.
  const CounterKernel* k4 = nullptr;
  for (const auto& k : ks)
    if (k.key == 4) k4 = &k;
  ASSERT_NE(k4, nullptr);
  ASSERT_NE(k4->get("sm__throughput.avg.pct_of_peak_sustained_elapsed"), nullptr);
  EXPECT_NEAR(*k4->get("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 6.0214, 1e-3);
  EXPECT_NEAR(*k4->get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"), 29.872, 1e-2);
  EXPECT_NEAR(*k4->get("dram__throughput.avg.pct_of_peak_sustained_elapsed"), 20.811, 1e-2);
  EXPECT_NEAR(*k4->get("lts__t_sector_hit_rate.pct"), 89.4547, 1e-3);
  auto rules = load_ncu_rules();
  ASSERT_TRUE(rules.ok());
  auto c = classify_ncu_kernel(*k4, *rules);
  EXPECT_EQ(c.bound, "latency_bound") << c.reason;  // both far below 60 % with a full grid
  // Kernel 1 (rocrand, VALU 53.3 %): compute-side ahead of memory.
  for (const auto& k : ks) {
    if (k.key != 1) continue;
    auto d = diagnose_kernel(k, *rules, 256);
    ASSERT_EQ(d.bottlenecks.size(), 2u);
    EXPECT_EQ(d.bottlenecks[0].category, "compute");
    ASSERT_FALSE(d.bottlenecks[0].evidence.empty());
    EXPECT_NE(d.bottlenecks[0].evidence[0].interpretation.find("from rocprofiler-compute 2.1."), std::string::npos)
        << d.bottlenecks[0].evidence[0].interpretation;
    EXPECT_FALSE(d.bottlenecks[1].evidence.empty());
  }
}

TEST(RocprofComputeMap, KernelsWithoutAmdMetricsAreUnchanged) {
  CounterKernel k;
  k.m["sm__throughput.avg.pct_of_peak_sustained_elapsed"] = 42;
  k.m["2.1.11 VALU Utilization"] = 99;
  EXPECT_EQ(add_schema_metrics(k, *hw_knowledge()->rocprof_compute_map), 0);
  EXPECT_EQ(*k.get("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 42);  // never overwritten
  CounterKernel n;
  n.m["GRBM_GUI_ACTIVE"] = 1;
  EXPECT_EQ(add_schema_metrics(n, *hw_knowledge()->rocprof_compute_map), 0);
  EXPECT_EQ(n.m.size(), 1u);
}


// The diagnosis speaks ROCm on AMD (issue 46; data/ncu_rules.yaml § remedies): every fix of every
// MI350 kernel diagnosed as AMD's names no CUDA graphs, TF32 or SMs; a latency-bound kernel is
// told about HIP graphs on AMD and CUDA graphs on NVIDIA.
TEST(RocprofComputeMap, AmdDiagnosisHasRocmRemedies) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(kDb, tl).ok());
  auto rules = load_ncu_rules();
  ASSERT_TRUE(rules.ok());
  int fixes = 0;
  for (const auto& k : counter_kernels(tl)) {
    auto d = diagnose_kernel(k, *rules, 256, "amd");
    for (const auto& b : d.bottlenecks)
      for (const auto& f : b.fixes) {
        ++fixes;
        for (const char* nvidia_only : {"CUDA graph", "CUDA Graph", "TF32", "tensor core", " SM", "maxrregcount"}) {
          EXPECT_EQ(f.fix.find(nvidia_only), std::string::npos) << f.fix;
          EXPECT_EQ(f.rationale.find(nvidia_only), std::string::npos) << f.rationale;
        }
      }
  }
  EXPECT_GT(fixes, 0);

  CounterKernel lat;  // both speed-of-light figures far below 60 %: latency-bound
  lat.key = 1;
  lat.m["sm__throughput.avg.pct_of_peak_sustained_elapsed"] = 12;
  lat.m["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"] = 9;
  auto all_fixes = [&](const std::string& vendor) {
    std::string t;
    for (const auto& b : diagnose_kernel(lat, *rules, 304, vendor).bottlenecks)
      for (const auto& f : b.fixes) t += f.fix + "\n";
    return t;
  };
  const std::string amd = all_fixes("amd"), nv = all_fixes("nvidia");
  EXPECT_NE(amd.find("HIP graphs"), std::string::npos) << amd;
  EXPECT_EQ(amd.find("CUDA graph"), std::string::npos) << amd;
  EXPECT_NE(nv.find("CUDA graphs"), std::string::npos) << nv;
}

// Every remedy of the data file reads for both vendors, with its source.
TEST(RocprofComputeMap, RemediesCoverBothVendors) {
  auto rules = load_ncu_rules();
  ASSERT_TRUE(rules.ok());
  ASSERT_GE(rules->remedies.size(), 9u);
  for (const auto& [id, by_vendor] : rules->remedies)
    for (const char* v : {"nvidia", "amd"}) {
      const RemedyText* t = rules->remedy(id, v);
      ASSERT_NE(t, nullptr) << id << " " << v;
      EXPECT_EQ(t->source.rfind("https://", 0), 0u) << id;
    }
}

}  // namespace
}  // namespace goblin::hw
