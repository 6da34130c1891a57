// JAX traces and several-process rocpd databases through the goblin binary: info, metrics, triage
// and roofline on our own H100 JAX recordings (tests/fixtures/jax), and `goblin ranks` giving one
// rank per process of a rocpd database (tests/fixtures/rocpd/two_process_gfx950.rocpd.db.gz).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "core/io.h"
#include "core/json.h"
#include "core/test_support.h"

namespace {

using Out = goblin::testing::CommandResult;
Out sh(const std::string& cmd) { return goblin::testing::run_command(cmd + " 2>/dev/null"); }
std::string g() { return std::string(GOBLIN_BINARY_DIR) + "/goblin"; }
std::string jax(const std::string& n) {
  return std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/jax/" + n + ".trace.json.gz";
}
goblin::Json parse(const std::string& s) {
  try {
    return goblin::Json::parse(s);
  } catch (...) {
    ADD_FAILURE() << "not JSON: " << s;
    return nullptr;
  }
}

}  // namespace

TEST(CliJax, InfoSaysJaxAndCountsKernels) {
  Out o = sh(g() + " info " + jax("transformer") + " --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto j = parse(o.out)["result"];
  EXPECT_EQ(j["format"], "jax");
  EXPECT_EQ(j["events"]["kernels"], 816);
}

TEST(CliJax, MetricsFindTheFourStepsAndCategoriseTheKernels) {
  for (const char* name : {"transformer", "dataparallel"}) {
    Out o = sh(g() + " metrics " + jax(name) + " --json");
    ASSERT_EQ(o.code, 0) << o.out;
    auto r = parse(o.out)["result"];
    ASSERT_TRUE(r["steps"].is_array()) << r.dump();
    size_t steps = 0;
    for (const auto& s : r["steps"]) steps += s["name"].get<std::string>().starts_with("ProfilerStep#");
    EXPECT_EQ(steps, 4u) << name;
    EXPECT_GT(r["step_time_s"].get<double>(), 0.0);
    // The XLA rules of data/taxonomy.yaml name every top kernel's family but a small share.
    double unknown = 0, total = 0;
    for (const auto& k : r["top_kernels"]) {
      total += k["pct_time"].get<double>();
      if (k["family"] == "unknown" || k["family"] == "") unknown += k["pct_time"].get<double>();
    }
    EXPECT_GT(total, 0.0);
    EXPECT_LT(unknown, 10.0) << r["top_kernels"].dump(1);
  }
}

TEST(CliJax, TriageWritesItsArtifacts) {
  const auto dir = goblin::testing::private_tmp_dir("cli_jax_triage");
  Out o = sh(g() + " triage " + jax("transformer") + " -o " + (dir / "t").string() + " --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto r = parse(o.out)["result"];
  EXPECT_GT(r["gpu_ops"].get<int64_t>(), 800);
  EXPECT_TRUE(std::filesystem::exists(dir / "t" / "kernel_table.json"));
}

TEST(CliJax, EveryKernelFamilyByTheXlaRules) {
  // Family and category of each kernel kind (the taxonomy through `goblin query`'s gpu_ops).
  Out o = sh(g() + " query " + jax("transformer") +
             " \"SELECT name, category, family FROM gpu_ops WHERE kind = 'kernel' AND name IN ('kern', "
             "'loop_add_fusion_11', 'input_reduce_fusion_8', 'gemm_fusion_dot_17', 'triton_softmax_1', "
             "'wrapped_concatenate') GROUP BY name ORDER BY name\" --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto rows = parse(o.out)["result"]["rows"];
  std::map<std::string, std::pair<std::string, std::string>> got;
  for (const auto& r : rows) {
    if (r.is_array())
      got[r[0]] = {r[1], r[2]};
    else
      got[r["name"]] = {r["category"], r["family"]};
  }
  EXPECT_EQ(got.size(), 6u) << o.out;
  EXPECT_EQ(got["kern"], (std::pair<std::string, std::string>{"triton", "Pallas"}));
  EXPECT_EQ(got["loop_add_fusion_11"], (std::pair<std::string, std::string>{"elementwise", "XLA"}));
  EXPECT_EQ(got["input_reduce_fusion_8"], (std::pair<std::string, std::string>{"reduction", "XLA"}));
  EXPECT_EQ(got["gemm_fusion_dot_17"], (std::pair<std::string, std::string>{"gemm", "XLA Triton"}));
  EXPECT_EQ(got["triton_softmax_1"], (std::pair<std::string, std::string>{"softmax", "XLA Triton"}));
  EXPECT_EQ(got["wrapped_concatenate"], (std::pair<std::string, std::string>{"elementwise", "XLA"}));
}

TEST(CliJax, RooflineRunsWithTheGpuNamed) {
  // The trace names no GPU model ("/device:GPU:0"): --gpu gives the peaks.
  Out o = sh(g() + " roofline " + jax("transformer") + " --gpu H100-SXM --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto r = parse(o.out)["result"];
  EXPECT_TRUE(r.contains("unmodelled_share")) << r.dump();
}

TEST(CliRanksRocpd, OneRankPerProcessOfTheDatabase) {
  const auto dir = goblin::testing::private_tmp_dir("cli_rocpd_ranks");
  auto text = goblin::read_all(std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/rocpd/two_process_gfx950.rocpd.db.gz");
  ASSERT_TRUE(text.ok());
  const std::string db = (dir / "two.rocpd.db").string();
  std::ofstream(db, std::ios::binary) << *text;
  Out o = sh(g() + " ranks " + db + " --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto r = parse(o.out)["result"];
  ASSERT_EQ(r["ranks"].size(), 2u) << r.dump();
  EXPECT_NE(r["ranks"][0]["label"].get<std::string>().find("#pid908"), std::string::npos);
  EXPECT_NE(r["ranks"][1]["label"].get<std::string>().find("#pid909"), std::string::npos);
}
