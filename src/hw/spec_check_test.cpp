// specs --detect's check of the database against the device, on what an H200 reported
// (tests/fixtures/kernel_exploits/h200: nvidia-smi's query and cudaGetDeviceProperties through
// tools/device_props.py, device run of 2026-11-29).
#include "hw/spec_check.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/io.h"
#include "hw/knowledge.h"

using namespace goblin;

namespace {

std::string fx(const std::string& rel) { return std::string(GOBLIN_FIXTURES) + "/kernel_exploits/h200/" + rel; }

std::vector<hw::DeviceValue> h200_values() {
  auto v = hw::nvidia_smi_values(*read_all(fx("nvsmi_values.csv")));
  auto p = hw::device_props_values(Json::parse(*read_all(fx("device_props.json"))));
  v.insert(v.end(), p.begin(), p.end());
  return v;
}

std::set<std::string> keys(const Json& rows) {
  std::set<std::string> s;
  for (const auto& r : rows) s.insert(r["key"].get<std::string>());
  return s;
}

}  // namespace

TEST(SpecCheck, TheH200AgreesWithItsDatabaseEntry) {
  auto g = hw::hw_knowledge()->gpu("H200");
  ASSERT_TRUE(g.ok());
  Json c = hw::check_specs_against_device(*g, h200_values());
  EXPECT_EQ(c["unresolved"], 0) << c.dump(1);
  EXPECT_EQ(keys(c["agree"]), (std::set<std::string>{"sm_count", "l2_cache", "memory_size", "boost_clock", "tdp",
                                                     "warp_size", "shared_mem_per_sm", "registers_per_sm"}));
  // What no device query reports stays with its documents.
  EXPECT_TRUE(keys(c["documents_only"]).count("memory_bandwidth"));
  EXPECT_NE(hw::spec_check_human(c).find("documents only"), std::string::npos);
}

TEST(SpecCheck, AnotherGpusEntryIsContradicted) {
  // The H100's values against the H200 device: memory and L2 differ, and are named.
  auto g = hw::hw_knowledge()->gpu("H100-SXM");
  ASSERT_TRUE(g.ok());
  Json c = hw::check_specs_against_device(*g, h200_values());
  EXPECT_EQ(keys(c["contradicted"]), (std::set<std::string>{"memory_size", "l2_cache"}));
  EXPECT_EQ(c["unresolved"], 2);
  const std::string h = hw::spec_check_human(c);
  EXPECT_NE(h.find("CONTRADICTED  l2_cache         database 50 MB, device 62914560 bytes"), std::string::npos) << h;
}

TEST(SpecCheck, ParsersTakeTheDeviceTheyAreAskedFor) {
  auto v =
      hw::nvidia_smi_values("NVIDIA H200, 143771, 1980, 3201, 700.00\nNVIDIA H100, 81559, 1980, 2619, 700.00\n", 1);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].key, "memory_size");
  EXPECT_NEAR(v[0].value, 81559.0 / 1024, 1e-9);
  EXPECT_TRUE(hw::nvidia_smi_values("garbage", 0).empty() || hw::nvidia_smi_values("garbage", 0).size() < 3);
  EXPECT_TRUE(
      hw::device_props_values(Json::parse(R"({"devices": [{"index": 0, "multi_processor_count": 132}]})"), 1).empty());
}

// AMD: what amd-smi static and rocminfo print, in the formats of their own documentation
// (tests/fixtures/amd_tools/, origins in tests/fixtures/README.md).
namespace {

std::string amd(const std::string& rel) { return *read_all(std::string(GOBLIN_FIXTURES) + "/amd_tools/" + rel); }

std::map<std::string, double> by_key(const std::vector<hw::DeviceValue>& v) {
  std::map<std::string, double> m;
  for (const auto& d : v) m[d.key] = d.value;
  return m;
}

}  // namespace

TEST(SpecCheck, RocminfoValuesOfTheGpuAgent) {
  // ROCm's own rocminfo example on an MI300X (gfx941): a CPU agent first, then the GPU.
  const std::string txt = amd("rocminfo_mi300x.txt");
  auto v = hw::rocminfo_values(txt, 0);
  auto m = by_key(v);
  EXPECT_EQ(m, (std::map<std::string, double>{{"sm_count", 304},
                                              {"warp_size", 64},
                                              {"boost_clock", 1800},
                                              {"infinity_cache", 256},
                                              {"memory_size", 134201344.0 / 1024 / 1024},
                                              {"shared_mem_per_sm", 64}}));
  for (const auto& d : v)
    if (d.key == "sm_count") EXPECT_EQ(d.source, "rocminfo (Compute Unit)");
  EXPECT_TRUE(hw::rocminfo_values(txt, 1).empty());  // one GPU agent
  // Against the MI300X entry: the counts, caches and LDS agree; this sample's 1800 MHz clock and
  // 128 GiB pool are contradictions, named as such.
  auto g = hw::hw_knowledge()->gpu("MI300X");
  ASSERT_TRUE(g.ok());
  Json c = hw::check_specs_against_device(*g, v);
  EXPECT_EQ(keys(c["agree"]), (std::set<std::string>{"sm_count", "warp_size", "infinity_cache", "shared_mem_per_sm"}));
  EXPECT_EQ(keys(c["contradicted"]), (std::set<std::string>{"boost_clock", "memory_size"}));
  EXPECT_EQ(c["sources"], Json::array({"rocminfo"}));
  EXPECT_NE(hw::spec_check_human(c).find("CONTRADICTED  boost_clock      database 2100 MHz, device 1800 MHz"),
            std::string::npos)
      << hw::spec_check_human(c);
}

TEST(SpecCheck, AmdSmiStaticValuesOfOneGpu) {
  // amd-smi's README example (four MI300A APUs after four CPU sockets): GPU 1's block only.
  const std::string txt = amd("amd_smi_static_mi300a.txt");
  auto m = by_key(hw::amd_smi_values(txt, 1));
  EXPECT_EQ(m, (std::map<std::string, double>{{"tdp", 550}, {"memory_size", 64289.0 / 1024}, {"infinity_cache", 256}}));
  EXPECT_TRUE(hw::amd_smi_values(txt, 7).empty());
  // The ASIC block of the changelog's MI308X (a CPX partition: 20 CUs of one XCD).
  auto a = hw::amd_smi_values(amd("amd_smi_static_asic_mi308x.txt"), 0);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].key, "sm_count");
  EXPECT_EQ(a[0].value, 20);
  EXPECT_EQ(a[0].source, "amd-smi static (ASIC NUM_COMPUTE_UNITS)");
  EXPECT_TRUE(hw::amd_smi_values("GPU: 0\n    VRAM:\n        SIZE: N/A\n", 0).empty());
}
