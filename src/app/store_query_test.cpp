// `goblin query --store` (app/store_query.h): SQL over a SQLite run store (its file, read-only)
// and a PostgreSQL one (copied inside a READ ONLY transaction), with the same answers and the same
// refusal of every write.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "app/verb.h"
#include "core/test_support.h"
#include "store/engine.h"
#include "store/pg_test_server.h"

namespace goblin::app {
namespace {

const std::string kTrace = std::string(GOBLIN_FIXTURES) + "/kineto/a100_alexnet_cuda_sync.json.gz";

VerbResult call(const char* name, const Json& args) {
  const Verb* v = find_verb(name);
  EXPECT_NE(v, nullptr) << name;
  auto rq = make_request(*v, args, kCli, nullptr);
  EXPECT_TRUE(rq.ok()) << name;
  Context ctx;
  return run_verb(*v, *rq, ctx);
}

// Records two runs in the store at `url`, then checks what SQL over it answers and refuses.
void check_store(const std::string& url) {
  ASSERT_FALSE(call("store init", {{"store", url}}).error);
  // Two runs (an identical result is stored once: a second verb makes the second run).
  for (const char* verb : {"metrics", "breakdown"}) {
    VerbResult r = call(
        verb,
        {{"path", kTrace}, {"store", url}, {"workload", verb == std::string("metrics") ? "alexnet" : "alexnet-b"}});
    ASSERT_FALSE(r.error) << r.error->describe();
  }
  VerbResult q =
      call("query", {{"store", url}, {"sql", "SELECT verb, workload FROM runs ORDER BY workload"}, {"format", "json"}});
  ASSERT_FALSE(q.error) << q.error->describe();
  EXPECT_EQ(q.result["rows"], Json::parse(R"([["metrics", "alexnet"], ["breakdown", "alexnet-b"]])"));
  // Numbers stay numbers (a PostgreSQL copy holds them by their column's type).
  VerbResult n = call("query", {{"store", url}, {"sql", "SELECT sum(id), typeof(id) FROM runs"}, {"format", "json"}});
  ASSERT_FALSE(n.error) << n.error->describe();
  EXPECT_EQ(n.result["rows"][0][0], 3);
  EXPECT_EQ(n.result["rows"][0][1], "integer");
  for (const char* bad : {"DELETE FROM runs", "DROP TABLE runs", "CREATE TABLE x(a)",
                          "ATTACH DATABASE '/tmp/x.db' AS x", "PRAGMA journal_mode = DELETE"}) {
    VerbResult w = call("query", {{"store", url}, {"sql", bad}, {"format", "json"}});
    ASSERT_TRUE(w.error) << bad;
    EXPECT_EQ(w.error->kind, ErrorKind::Usage) << bad;
    EXPECT_NE(w.error->message.find("not authorized"), std::string::npos) << w.error->message;
  }
  VerbResult after = call("query", {{"store", url}, {"sql", "SELECT count(*) FROM runs"}, {"format", "json"}});
  ASSERT_FALSE(after.error);
  EXPECT_EQ(after.result["rows"][0][0], 2);
  // Traces and --store together is a usage error; a store that is not there is not created.
  VerbResult both = call("query", {{"store", url}, {"path", {kTrace}}, {"sql", "SELECT 1"}});
  ASSERT_TRUE(both.error);
  EXPECT_EQ(both.error->kind, ErrorKind::Usage);
}

TEST(StoreQuery, SqliteStoreIsReadInPlaceReadOnly) {
  auto dir = testing::private_tmp_dir("store_query");
  check_store("sqlite://" + (dir / "runs.db").string());
  VerbResult missing = call("query", {{"store", "sqlite://" + (dir / "none.db").string()}, {"sql", "SELECT 1"}});
  ASSERT_TRUE(missing.error);
  EXPECT_EQ(missing.error->kind, ErrorKind::NotFound);
  EXPECT_FALSE(std::filesystem::exists(dir / "none.db"));
}

TEST(StoreQuery, PostgresStoreIsCopiedReadOnly) {
  auto& pg = store::testing::PgTestServer::get();
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL tests skipped: " << pg.why();
  check_store(pg.fresh_database_url());
}

// A short statement can make rows of any size; through MCP (a model reads the result) the rows
// are cut at 1 MiB of values, elsewhere at 32 MiB, and the result says so.
TEST(StoreQuery, AgentResultsAreCutAtOneMebibyte) {
  const Verb* v = find_verb("query");
  ASSERT_NE(v, nullptr);
  const Json args = {{"path", {kTrace}},
                     {"sql",
                      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000) "
                      "SELECT printf('%.*c', 60000, 'x') FROM c"},
                     {"format", "json"}};
  Context ctx;
  VerbResult mcp = app::call(*v, args, kMcp, ctx);
  ASSERT_FALSE(mcp.error) << mcp.error->describe();
  EXPECT_TRUE(mcp.result["truncated"].get<bool>());
  EXPECT_LE(mcp.result.dump().size(), size_t{1100000});
  EXPECT_NE(mcp.result["truncated_note"].get<std::string>().find("1048576 bytes"), std::string::npos);
  VerbResult cli = call("query", args);
  ASSERT_FALSE(cli.error) << cli.error->describe();
  EXPECT_EQ(cli.result["row_count"], 559);  // 60,000 bytes a row: 559 fit in 32 MiB
}

// A PostgreSQL schema shared with another application may hold any table: one of 1,500 columns
// (more than an SQLite copy's statement takes) broke every `query --store`. Only goblin's tables
// are copied, so the store's SQL works and the foreign table is simply not there.
TEST(StoreQuery, PostgresForeignWideTableIsNotCopied) {
  auto& pg = store::testing::PgTestServer::get();
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL tests skipped: " << pg.why();
  const std::string url = pg.fresh_database_url();
  ASSERT_FALSE(call("store init", {{"store", url}}).error);
  {
    auto u = store::parse_store_url(url);
    ASSERT_TRUE(u.ok());
    auto e = store::open_postgres(u->conninfo, u->redacted);
    ASSERT_TRUE(e.ok()) << e.error().describe();
    std::string cols;
    for (int i = 0; i < 1500; ++i) cols += fmt::format("{}c{} INTEGER", i ? ", " : "", i);
    ASSERT_TRUE((*e)->query(fmt::format("CREATE TABLE wide ({})", cols), {}).ok());
    ASSERT_TRUE((*e)->query("INSERT INTO wide (c0) VALUES (1)", {}).ok());
  }
  VerbResult q = call("query", {{"store", url}, {"sql", "SELECT count(*) FROM runs"}, {"format", "json"}});
  ASSERT_FALSE(q.error) << q.error->describe();
  EXPECT_EQ(q.result["rows"][0][0], 0);
  VerbResult w = call("query", {{"store", url}, {"sql", "SELECT c0 FROM wide"}, {"format", "json"}});
  ASSERT_TRUE(w.error);
  EXPECT_NE(w.error->message.find("no such table"), std::string::npos) << w.error->message;
}

}  // namespace
}  // namespace goblin::app
