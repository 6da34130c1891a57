// Hostile Nsight Systems and rocprof SQLite files (issue #35), built from the real exports by a
// few statements: a table swapped for a recursive view or for a view that builds 50 MB per row,
// a computed column, a stored value past the size limit. Each is refused quickly (Malformed,
// naming the file and the object), never read for ever.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>

#include "core/test_support.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

std::string doctored(const std::string& fixture, const std::string& name, const std::string& sql) {
  const auto dir = goblin::testing::private_tmp_dir("nsys_hostile_" + name);
  const std::string path = (dir / (name + ".sqlite")).string();
  std::filesystem::copy_file(std::string(GOBLIN_FIXTURES) + "/" + fixture, path);
  EXPECT_EQ(goblin::testing::exec_sql(path, sql), "");
  return path;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

struct Case {
  const char* fixture;
  const char* name;
  const char* sql;
  const char* message;
};

TEST(SqliteHostile, ViewsComputedColumnsAndHugeValuesAreRefused) {
  const char* nsys = "nsight/nsys_2026_export.sqlite";
  const char* v1 = "rocprof/legacy_rocprof_vecadd_results.db";
  const Case cases[] = {
      {nsys, "recursive_view",
       "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE c(x) AS "
       "(SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x AS start, x+1 AS \"end\" FROM c",
       "\"CUPTI_ACTIVITY_KIND_KERNEL\" is a view"},
      {nsys, "string_view",
       "DROP TABLE StringIds; CREATE VIEW StringIds AS SELECT 1 AS id, printf('%.*c', 50000000, 'x') AS value",
       "\"StringIds\" is a view"},
      {nsys, "computed_column",
       "DROP TABLE StringIds; CREATE TABLE StringIds(id INTEGER, value TEXT GENERATED ALWAYS AS "
       "(printf('%.*c', id, 'x')))",
       "computed column \"value\""},
      {nsys, "huge_value", "INSERT INTO StringIds VALUES (999999, printf('%.*c', 3000000, 'x'))",
       "longer than 1048576 bytes"},
      {v1, "v1_view",
       "DROP TABLE OPS; CREATE VIEW OPS AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "
       "SELECT x AS BeginNs, x AS EndNs FROM c",
       "\"OPS\" is a view"},
  };
  for (const Case& c : cases) {
    const std::string p = doctored(c.fixture, c.name, c.sql);
    Timeline tl;
    const auto t0 = std::chrono::steady_clock::now();
    Status s = read_path(p, tl);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed) << c.name << ": " << s.error().describe();
    EXPECT_TRUE(has(s.error().message, c.message)) << c.name << ": " << s.error().message;
    EXPECT_EQ(s.error().file, p) << c.name;
    EXPECT_LT(secs, 5.0) << c.name;  // refused, not read for ever (a generous bound for a loaded CI)
  }
}

TEST(SqliteHostile, RealExportsStillReadAndAViewBesideTheTablesIsHarmless) {
  // A view under a name the format does not define is not read and does not stop the read.
  const std::string p = doctored("nsight/nsys_2026_export.sqlite", "extra_view",
                                 "CREATE VIEW my_summary AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 "
                                 "FROM c) SELECT x FROM c");
  Timeline tl;
  Status s = read_path(p, tl);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 4u);
  Timeline v1;
  Status s1 = read_path(std::string(GOBLIN_FIXTURES) + "/rocprof/legacy_rocprof_vecadd_results.db", v1);
  ASSERT_TRUE(s1.ok()) << s1.error().describe();
  EXPECT_GT(v1.gpu_ops.count(GpuOpKind::Kernel), 0u);
}

}  // namespace
}  // namespace goblin::trace
