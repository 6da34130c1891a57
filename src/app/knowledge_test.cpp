// The knowledge context is loaded once: verbs of one call and later calls share it.
#include "analysis/knowledge.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "app/verb.h"
#include "audit/knowledge.h"
#include "core/data.h"
#include "core/test_support.h"

namespace goblin::app {
namespace {

VerbResult run(const char* name, const Json& args, Context& ctx) {
  const Verb* v = find_verb(name);
  EXPECT_NE(v, nullptr) << name;
  auto rq = make_request(*v, args, kCli, nullptr);
  EXPECT_TRUE(rq.ok()) << name;
  return v->run(*rq, ctx);
}

TEST(KnowledgeContext, LoadedOnceForSeveralVerbsAndCalls) {
  // A data directory of its own (empty: the embedded files) so that this process's cache starts
  // empty whatever ran before in it.
  set_data_dir(testing::private_tmp_dir("knowledge_once").string());
  const int64_t a0 = analysis::analysis_knowledge_loads(), k0 = audit::knowledge_loads();
  const std::string trace = std::string(GOBLIN_FIXTURES) + "/kineto/a100_alexnet_cuda_sync.json.gz";
  Context ctx;
  const std::string out = testing::private_tmp_dir("knowledge_once_triage").string();
  for (const auto& [verb, args] : {std::pair<const char*, Json>{"metrics", {{"path", Json::array({trace})}}},
                                   {"breakdown", {{"path", trace}}},
                                   {"triage", {{"path", Json::array({trace})}, {"out", out}}}}) {
    VerbResult r = run(verb, args, ctx);
    EXPECT_FALSE(r.error.has_value()) << verb << ": " << r.error->describe();
  }
  VerbResult q = run("kb query", Json{{"symptoms", Json::array({"eager attention"})}}, ctx);
  EXPECT_FALSE(q.error.has_value());
  EXPECT_EQ(analysis::analysis_knowledge_loads() - a0, 1);
  EXPECT_EQ(audit::knowledge_loads() - k0, 1);
  // A second call (a new Context, as the MCP server makes per tool call) reuses the process's.
  Context again;
  VerbResult r = run("metrics", Json{{"path", Json::array({trace})}}, again);
  EXPECT_FALSE(r.error.has_value());
  VerbResult q2 = run("kb query", Json{{"symptoms", Json::array({"eager attention"})}}, again);
  EXPECT_FALSE(q2.error.has_value());
  ASSERT_NE(ctx.knowledge, nullptr);
  EXPECT_EQ(again.knowledge, ctx.knowledge);
  EXPECT_EQ(analysis::analysis_knowledge_loads() - a0, 1);
  EXPECT_EQ(audit::knowledge_loads() - k0, 1);
  set_data_dir(GOBLIN_DATA_DIR);
}

TEST(KnowledgeContext, ABrokenDataFileIsReportedWithItsFileAndLine) {
  auto dir = testing::private_tmp_dir("knowledge_broken");
  {
    auto f = testing::private_tmp_dir("knowledge_broken") / "speedup_model.yaml";
    std::FILE* fp = std::fopen(f.c_str(), "w");
    ASSERT_NE(fp, nullptr);
    std::fputs("version: 1\nfactors:\n  gemm_datasheet_fast: {value: 0.8}\n", fp);
    std::fclose(fp);
  }
  set_data_dir(dir.string());
  Context ctx;
  VerbResult q = run("kb query", Json{{"symptoms", Json::array({"eager attention"})}}, ctx);
  ASSERT_TRUE(q.error.has_value());
  EXPECT_EQ(q.error->kind, ErrorKind::Malformed);
  EXPECT_NE(q.error->file.find("speedup_model.yaml"), std::string::npos) << q.error->describe();
  EXPECT_GT(q.error->line, 0);
  // The trace verbs need only the analysis part: an audit data file does not stop them.
  const std::string trace = std::string(GOBLIN_FIXTURES) + "/kineto/a100_alexnet_cuda_sync.json.gz";
  VerbResult m = run("metrics", Json{{"path", Json::array({trace})}}, ctx);
  EXPECT_FALSE(m.error.has_value()) << m.error->describe();
  set_data_dir(GOBLIN_DATA_DIR);
}

}  // namespace
}  // namespace goblin::app
