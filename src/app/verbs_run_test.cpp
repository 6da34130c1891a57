// The live verbs' door hooks: bench stops on Context::cancelled before its next run, and a door
// that measures itself (the MCP session: Context::measure) answers profile and bench without a
// workload being launched. The runs themselves are tested end to end in src/cli/cli_run_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "app/registry.h"
#include "app/verb.h"
#include "core/test_support.h"

namespace goblin::app {
namespace {

std::string src(const std::string& p) { return std::string(GOBLIN_SOURCE_DIR) + "/" + p; }

TEST(LiveVerbs, BenchStopsWhenCancelledBeforeItsNextRun) {
  const Verb* v = find_verb("bench");
  ASSERT_NE(v, nullptr);
  const auto dir = testing::private_tmp_dir("bench_cancel");
  auto rq = make_request(*v,
                         {{"config", src("workloads/configs/base.yaml")},
                          {"harness", src("src/run/testdata/standin_workload.py")},
                          {"allow_no_gpu", true},
                          {"no_cache", true},
                          {"repeats", 2},
                          {"work_dir", (dir / "work").string()}},
                         kCli, nullptr);
  ASSERT_TRUE(rq.ok()) << rq.error().describe();
  std::atomic<bool> stop{true};
  Context ctx;
  ctx.cancelled = &stop;
  std::vector<std::string> lines;
  ctx.progress = [&](double, const std::string& line) { lines.push_back(line); };
  VerbResult r = v->run(*rq, ctx);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->kind, ErrorKind::Workload);
  EXPECT_NE(r.error->message.find("cancelled after 0 of 2 bench runs"), std::string::npos) << r.error->message;
  EXPECT_TRUE(lines.empty());  // nothing ran
}

TEST(LiveVerbs, ADoorThatMeasuresAnswersProfileAndBench) {
  for (const char* name : {"profile", "bench"}) {
    const Verb* v = find_verb(name);
    ASSERT_NE(v, nullptr);
    auto rq = make_request(*v, {{"config", {{"model_name", "llama"}}}, {"steps", 3}}, kMcp, nullptr);
    ASSERT_TRUE(rq.ok()) << rq.error().describe();
    Context ctx;
    ctx.door = kMcp;
    std::string asked;
    ctx.measure = [&](const std::string& kind, const Request& r) {
      asked = kind;
      EXPECT_EQ(r.integer("steps"), 3);
      EXPECT_TRUE(r.json("config").is_object());
      return VerbResult{Json{{"step_time_s", 0.5}}, std::nullopt, "measured"};
    };
    VerbResult r = v->run(*rq, ctx);
    EXPECT_FALSE(r.error.has_value());
    EXPECT_EQ(asked, std::string(name) == "profile" ? "profile" : "bench");
    EXPECT_EQ(r.human, "measured");
  }
}

}  // namespace
}  // namespace goblin::app
