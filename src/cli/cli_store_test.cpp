// --store on the live verbs (profile, bench, trace; recorded by app::run_verb like every verb):
// each run lands in the store, read back with `goblin store show`. Live runs use the CPU stand-in
// workload (src/run/testdata/standin_workload.py: train.py's contract, no torch, no GPU).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/json.h"
#include "core/test_support.h"

namespace fs = std::filesystem;

namespace {

using Out = goblin::testing::CommandResult;
Out sh(const std::string& cmd) { return goblin::testing::run_command(cmd + " 2>/dev/null"); }
std::string goblin_bin() { return std::string(GOBLIN_BINARY_DIR) + "/goblin"; }
std::string src(const std::string& p) { return std::string(GOBLIN_SOURCE_DIR) + "/" + p; }
std::string standin() { return src("src/run/testdata/standin_workload.py"); }
std::string tmpdir(const std::string& name) { return goblin::testing::private_tmp_dir("clistore_" + name).string(); }

goblin::Json parse(const std::string& s) {
  try {
    return goblin::Json::parse(s);
  } catch (...) {
    ADD_FAILURE() << "not JSON: " << s;
    return nullptr;
  }
}

// The stored run the call's envelope names, read back through `goblin store show`.
goblin::Json stored(const Out& o, const std::string& url) {
  EXPECT_EQ(o.code, 0) << o.out;
  auto j = parse(o.out);
  if (!j.is_object() || !j["result"].contains("stored_run")) {
    ADD_FAILURE() << "no stored_run in " << o.out.substr(0, 400);
    return nullptr;
  }
  EXPECT_TRUE(j["result"]["stored_run"]["added"].get<bool>());
  const auto id = j["result"]["stored_run"]["id"].get<int64_t>();
  Out show = sh(fmt::format("{} store show {} --store {} --json", goblin_bin(), id, url));
  EXPECT_EQ(show.code, 0) << show.out;
  return parse(show.out)["result"];
}

}  // namespace

TEST(CliStore, BenchRecordsItsResult) {
  const std::string dir = tmpdir("bench"), url = "sqlite://" + dir + "/runs.db";
  Out o =
      sh(fmt::format("GOBLIN_CACHE_DIR={}/cache {} bench {} --workload {} --allow-no-gpu --steps 3 --warmup 1 "
                     "--repeats 2 --json --store {} --experiment exp-b --trial t1 --tag nightly",
                     dir, goblin_bin(), src("workloads/configs/base.yaml"), standin(), url));
  auto run = stored(o, url);
  ASSERT_TRUE(run.is_object());
  EXPECT_EQ(run["verb"], "bench");
  EXPECT_EQ(run["source"], "verb");
  EXPECT_EQ(run["experiment_id"], "exp-b");
  EXPECT_EQ(run["trial_id"], "t1");
  EXPECT_EQ(run["tags"], goblin::Json({"nightly"}));
  EXPECT_GT(run["metrics"]["step_time_s"].get<double>(), 0.0);
  EXPECT_EQ(run["inputs"][0]["path"], src("workloads/configs/base.yaml"));
}

TEST(CliStore, ProfileRecordsItsRunFolder) {
  const std::string dir = tmpdir("profile"), url = "sqlite://" + dir + "/runs.db";
  Out o =
      sh(fmt::format("{} profile {} --workload {} --allow-no-gpu --steps 3 --warmup 1 -o {}/run --json --store {} "
                     "--experiment exp-p",
                     goblin_bin(), src("workloads/configs/base.yaml"), standin(), dir, url));
  auto run = stored(o, url);
  ASSERT_TRUE(run.is_object());
  EXPECT_EQ(run["verb"], "profile");
  EXPECT_EQ(run["source"], "verb");
  EXPECT_EQ(run["experiment_id"], "exp-p");
  EXPECT_GT(run["metrics"]["step_time_s"].get<double>(), 0.0);
  bool has_run_json = false;
  for (const auto& a : run["artifacts"]) has_run_json |= a["name"] == "run.json";
  EXPECT_TRUE(has_run_json);
  // The same folder added again is the same run (a no-op).
  Out again = sh(fmt::format("{} store add {}/run --store {} --experiment exp-p --json", goblin_bin(), dir, url));
  EXPECT_EQ(again.code, 0) << again.out;
  Out ls = sh(fmt::format("{} store ls --store {} --json", goblin_bin(), url));
  EXPECT_EQ(parse(ls.out)["result"]["total"], 1) << ls.out;
}

TEST(CliStore, TraceSummaryRecordsWithItsInput) {
  const std::string dir = tmpdir("trace"), url = "sqlite://" + dir + "/runs.db";
  const std::string trace = src("examples/h100_llama/h100_llama_fp32_eager_w0.json.gz");
  Out o = sh(
      fmt::format("{} trace --summary {} --json --store {} --workload llama-8b --trial tr", goblin_bin(), trace, url));
  auto run = stored(o, url);
  ASSERT_TRUE(run.is_object());
  EXPECT_EQ(run["verb"], "trace");
  EXPECT_EQ(run["workload"], "llama-8b");
  EXPECT_EQ(run["trial_id"], "tr");
  ASSERT_EQ(run["inputs"].size(), 1u);
  EXPECT_EQ(run["inputs"][0]["path"], trace);
  EXPECT_EQ(run["inputs"][0]["sha256"].get<std::string>().size(), 64u);
}

TEST(CliStore, OverlapRecordsWithBothTraces) {
  const std::string dir = tmpdir("overlap"), url = "sqlite://" + dir + "/runs.db";
  const std::string off = src("examples/h100_cudagraphs/graph_off_compile_default.json.gz"),
                    on = src("examples/h100_cudagraphs/graph_on_reduce_overhead.json.gz");
  Out o = sh(fmt::format("{} overlap {} {} --json --store {} --experiment exp-o", goblin_bin(), off, on, url));
  auto run = stored(o, url);
  ASSERT_TRUE(run.is_object());
  EXPECT_EQ(run["verb"], "overlap");
  EXPECT_EQ(run["experiment_id"], "exp-o");
  ASSERT_EQ(run["inputs"].size(), 2u);
  EXPECT_EQ(run["inputs"][0]["path"], off);
  EXPECT_EQ(run["inputs"][1]["path"], on);
}

TEST(CliStore, NoStoreNamedRecordsNothing) {
  const std::string trace = src("examples/h100_llama/h100_llama_fp32_eager_w0.json.gz");
  Out o = sh(fmt::format("env -u GOBLIN_STORE {} trace --summary {} --json", goblin_bin(), trace));
  ASSERT_EQ(o.code, 0) << o.out;
  EXPECT_FALSE(parse(o.out)["result"].contains("stored_run"));
}
