// Hostile SQLite files, each built here by a few statements: views standing in for tables
// (recursive, or building huge strings), computed columns, triggers, values past the size limit,
// row and step budgets, and paths that look like URI syntax.
#include "core/sqlite_input.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "core/test_support.h"

namespace goblin {
namespace {

std::string make_db(const std::string& name, const std::string& sql) {
  const std::string path =
      (goblin::testing::private_tmp_dir("sqlite_input_" + fmt::format("{}", std::hash<std::string>{}(name))) / name)
          .string();
  EXPECT_EQ(goblin::testing::exec_sql(path, sql), "");
  return path;
}

// Reads every row of `table` through the budgeted reader; the error, if any.
Status read_all(SqliteInput& in, const std::string& table) {
  ASSIGN_OR_RETURN(auto st, in.prepare("SELECT * FROM \"" + table + "\"", "reading " + table));
  while (true) {
    ASSIGN_OR_RETURN(bool row, in.step(st.get(), "reading " + table));
    if (!row) return Status::Ok();
  }
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(SqliteInput, PlainTablesAreListedAndRead) {
  const std::string p = make_db("plain.sqlite",
                                "CREATE TABLE StringIds(id INTEGER, value TEXT);"
                                "INSERT INTO StringIds VALUES (1, 'k');");
  auto in = SqliteInput::open(p, "Test");
  ASSERT_TRUE(in.ok()) << in.error().describe();
  auto t = (*in)->format_tables({"StringIds", "OtherTable"});
  ASSERT_TRUE(t.ok()) << t.error().describe();
  EXPECT_EQ(*t, std::set<std::string>{"StringIds"});
  EXPECT_TRUE(read_all(**in, "StringIds").ok());
}

TEST(SqliteInput, ViewStandingInForATableIsRefusedByName) {
  // A recursive view that never ends, named (in another case) like the format's table.
  const std::string p =
      make_db("view.sqlite",
              "CREATE VIEW stringids AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "
              "SELECT x AS id, printf('%.*c', 50000000, 'x') AS value FROM c;");
  auto in = SqliteInput::open(p, "Test");
  ASSERT_TRUE(in.ok());
  auto t = (*in)->format_tables({"StringIds"});
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().kind, ErrorKind::Malformed);
  EXPECT_TRUE(has(t.error().message, "\"stringids\" is a view")) << t.error().message;
  EXPECT_TRUE(has(t.error().message, "plain table")) << t.error().message;
  EXPECT_EQ(t.error().file, p);
  // Even read directly, views are disabled on the connection.
  EXPECT_FALSE(read_all(**in, "stringids").ok());
}

TEST(SqliteInput, TriggersIndexesComputedColumnsAreRefused) {
  const std::string p1 = make_db("index.sqlite", "CREATE TABLE t(a); CREATE INDEX OPS ON t(a);");
  const std::string p2 =
      make_db("generated.sqlite", "CREATE TABLE OPS(a INTEGER, b TEXT GENERATED ALWAYS AS (printf('%.*c', a, 'x')));");
  const std::string p3 =
      make_db("trigger.sqlite", "CREATE TABLE t(a); CREATE TRIGGER HIP AFTER INSERT ON t BEGIN SELECT 1; END;");
  for (const auto& [p, is] :
       {std::pair{p1, "is an index"}, std::pair{p2, "computed column \"b\""}, std::pair{p3, "is a trigger"}}) {
    auto in = SqliteInput::open(p, "Test");
    ASSERT_TRUE(in.ok());
    auto t = (*in)->format_tables({"OPS", "HIP"});
    ASSERT_FALSE(t.ok()) << p;
    EXPECT_EQ(t.error().kind, ErrorKind::Malformed);
    EXPECT_TRUE(has(t.error().message, is)) << t.error().message;
  }
}

TEST(SqliteInput, ValuePastTheSizeLimitStopsTheRead) {
  const std::string p = make_db("big.sqlite",
                                "CREATE TABLE s(v TEXT); INSERT INTO s VALUES ('small');"
                                "INSERT INTO s VALUES (printf('%.*c', 3000000, 'x'));");
  auto in = SqliteInput::open(p, "Test");
  ASSERT_TRUE(in.ok());
  Status s = read_all(**in, "s");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_TRUE(has(s.error().message, "longer than 1048576 bytes")) << s.error().message;
}

TEST(SqliteInput, RowAndStepBudgets) {
  const std::string p = make_db("rows.sqlite",
                                "CREATE TABLE r(a INTEGER);"
                                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 5000) "
                                "INSERT INTO r SELECT x FROM c;");
  {
    auto in = SqliteInput::open(p, "Test", {.max_rows = 100});
    ASSERT_TRUE(in.ok());
    Status s = read_all(**in, "r");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
    EXPECT_TRUE(has(s.error().message, "more than 100 rows")) << s.error().message;
  }
  {
    auto in = SqliteInput::open(p, "Test", {.max_steps = 5000});
    ASSERT_TRUE(in.ok());
    Status s = read_all(**in, "r");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
    EXPECT_TRUE(has(s.error().message, "stopped after 5000 SQLite steps")) << s.error().message;
  }
  auto in = SqliteInput::open(p, "Test");  // the default budget reads it all
  ASSERT_TRUE(in.ok());
  EXPECT_TRUE(read_all(**in, "r").ok());
}

TEST(SqliteInput, PathsWithUriCharactersAndDamage) {
  const std::string p = make_db("we?ird#name%41.sqlite", "CREATE TABLE HIP(a);");
  auto in = SqliteInput::open(p, "Test");
  ASSERT_TRUE(in.ok()) << in.error().describe();
  auto t = (*in)->format_tables({"HIP"});
  ASSERT_TRUE(t.ok()) << t.error().describe();
  EXPECT_EQ(t->size(), 1u);
  // Not a database: Malformed, not a crash.
  const std::string junk = (goblin::testing::private_tmp_dir("sqlite_junk") / "junk.sqlite").string();
  FILE* f = std::fopen(junk.c_str(), "wb");
  std::fputs("SQLite format 3\0 but nothing after", f);
  std::fclose(f);
  auto j = SqliteInput::open(junk, "Test");
  if (j.ok()) {
    auto n = (*j)->object_names();
    ASSERT_FALSE(n.ok());
    EXPECT_EQ(n.error().kind, ErrorKind::Malformed);
  }
}

}  // namespace
}  // namespace goblin
