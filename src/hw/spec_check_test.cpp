// specs --detect's check of the database against the device, on what an H200 reported
// (tests/fixtures/kernel_exploits/h200: nvidia-smi's query and cudaGetDeviceProperties through
// tools/device_props.py, device run of 2026-11-29).
#include "hw/spec_check.h"

#include <gtest/gtest.h>

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
