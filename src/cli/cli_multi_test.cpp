// The several-run verbs through the goblin binary: `goblin diff`, `goblin ranks`, and `metrics` /
// `triage` with one path per rank (each result naming its rank), with their exit codes.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/json.h"
#include "core/test_support.h"

namespace {

using Out = goblin::testing::CommandResult;
Out sh(const std::string& cmd) { return goblin::testing::run_command(cmd + " 2>/dev/null"); }
std::string g() { return std::string(GOBLIN_BINARY_DIR) + "/goblin"; }
std::string src(const std::string& p) { return std::string(GOBLIN_SOURCE_DIR) + "/" + p; }
std::string fix(const std::string& p) { return std::string(GOBLIN_FIXTURES) + "/" + p; }
goblin::Json parse(const std::string& s) {
  try {
    return goblin::Json::parse(s);
  } catch (...) {
    ADD_FAILURE() << "not JSON: " << s;
    return nullptr;
  }
}

}  // namespace

TEST(CliDiff, H100PairJsonAndText) {
  const std::string a = src("examples/h100_llama/h100_llama_fp32_eager_w0.json.gz");
  const std::string b = src("examples/h100_llama/h100_llama_bf16_sdpa_w4.json.gz");
  Out o = sh(g() + " diff " + a + " " + b + " --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto j = parse(o.out);
  ASSERT_TRUE(j["ok"].get<bool>());
  const auto& r = j["result"];
  EXPECT_NEAR(r["decomposition"]["sum_s"].get<double>(), r["step_time_change_s"].get<double>(), 1e-8);
  EXPECT_GT(r["speedup"].get<double>(), 3.0);
  Out t = sh(g() + " diff " + a + " " + b + " --top 3");
  ASSERT_EQ(t.code, 0);
  EXPECT_NE(t.out.find("gone ("), std::string::npos) << t.out;
  Out bad = sh(g() + " diff " + a + " /nonexistent.json --json");
  EXPECT_EQ(bad.code, 3);
}

TEST(CliRanks, StragglerDirectoryAndRefusal) {
  Out o = sh(g() + " ranks " + src("examples/ddp_h200/straggler_data") + " --json");
  ASSERT_EQ(o.code, 0) << o.out;
  auto j = parse(o.out);
  EXPECT_EQ(j["result"]["straggler"]["rank"], 1);
  Out t = sh(g() + " ranks " + src("examples/ddp_h200/straggler_data"));
  EXPECT_NE(t.out.find("rank 1 is the straggler"), std::string::npos) << t.out;
  Out r = sh(g() + " ranks " + fix("kineto/nccl_sampled_rank-0.json.gz") + " " +
             fix("kineto/h100_llama_bf16_sdpa_w4.json.gz") + " --json");
  EXPECT_EQ(r.code, 2);
  auto e = parse(r.out);
  EXPECT_NE(e["error"].get<std::string>().find("not one job"), std::string::npos);
}

TEST(CliRanks, MetricsAndTriageSayWhichRank) {
  const std::string r0 = src("examples/ddp_h200/straggler_sleep/rank0.pt.trace.json.gz");
  const std::string r1 = src("examples/ddp_h200/straggler_sleep/rank1.pt.trace.json.gz");
  Out m = sh(g() + " metrics " + r0 + " " + r1 + " --json");
  ASSERT_EQ(m.code, 0) << m.out;
  auto j = parse(m.out);
  ASSERT_EQ(j["result"]["ranks"].size(), 2u);
  EXPECT_EQ(j["result"]["ranks"][1]["rank"], 1);
  EXPECT_EQ(j["result"]["ranks"][1]["rank_from"], "distributedInfo");
  EXPECT_GT(j["result"]["ranks"][0]["metrics"]["step_time_s"].get<double>(), 0);
  const std::string out = goblin::testing::private_tmp_dir("cli_multi_triage").string();
  Out t = sh(g() + " triage " + r0 + " " + r1 + " -o " + out + " --json");
  ASSERT_EQ(t.code, 0) << t.out;
  auto tj = parse(t.out);
  EXPECT_EQ(tj["result"]["ranks"][0]["rank"], 0);
  EXPECT_TRUE(std::filesystem::exists(out + "/rank1/kernel_table.json"));
  // One path: the single-run output, unchanged.
  Out one = sh(g() + " metrics " + r0 + " --json");
  EXPECT_FALSE(parse(one.out)["result"].contains("ranks"));
}

// Issue 47: a folder holding two runs (examples/h100_llama: the before and the after trace) was
// merged into one run with exit 0 (8 steps, one of 23 s). It is refused with exit 2, naming both
// files and the verbs that read several runs.
TEST(CliRun, FolderOfTwoRunsIsRefusedNamingBoth) {
  for (const char* verb : {"metrics", "info"}) {
    Out o = sh(g() + " " + verb + " " + src("examples/h100_llama") + " --json");
    EXPECT_EQ(o.code, 2) << verb << ": " << o.out;
    auto j = parse(o.out);
    ASSERT_TRUE(j.is_object()) << verb;
    EXPECT_FALSE(j["ok"].get<bool>());
    const std::string e = j["error"].is_string() ? j["error"].get<std::string>() : std::string();
    EXPECT_NE(e.find("h100_llama_fp32_eager_w0.json.gz"), std::string::npos) << e;
    EXPECT_NE(e.find("h100_llama_bf16_sdpa_w4.json.gz"), std::string::npos) << e;
    EXPECT_NE(e.find("goblin diff"), std::string::npos) << e;
  }
  // One of them is one run.
  Out one = sh(g() + " metrics " + src("examples/h100_llama/h100_llama_fp32_eager_w0.json.gz") + " --json");
  EXPECT_EQ(one.code, 0);
}
