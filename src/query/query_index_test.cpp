// The query tables' index lookups and derived columns, checked against plain SQLite: every SQL
// example of docs/query.md § Examples gives the rows that the same statement gives through the
// SQLite library on the exported database (what `goblin export --format sqlite` writes), and
// lookups give the rows a full scan gives.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <regex>

#include "analysis/knowledge.h"
#include "query/database.h"
#include "trace/readers.h"

namespace goblin::query {
namespace {

const std::string kFixtures = GOBLIN_FIXTURES;

Timeline read(const std::string& rel) {
  Timeline tl;
  Status s = trace::read_path(kFixtures + "/" + rel, tl);
  EXPECT_TRUE(s.ok()) << s.error().describe();
  return tl;
}

std::unique_ptr<Database> open_db(const std::vector<const Timeline*>& tls) {
  auto k = analysis::analysis_knowledge();
  EXPECT_TRUE(k.ok());
  std::vector<TraceRef> refs;
  for (size_t i = 0; i < tls.size(); ++i) refs.push_back({tls[i], static_cast<int64_t>(i), fmt::format("t{}", i)});
  auto db = Database::open(refs, *k);
  EXPECT_TRUE(db.ok());
  return std::move(*db);
}

struct Rows : RowSink {
  std::vector<std::vector<Value>> rows;
  void columns(const std::vector<std::string>&) override { rows.clear(); }
  bool row(const std::vector<Value>& v) override {
    rows.push_back(v);
    return true;
  }
};

Rows run(Database& db, const std::string& sql, const RunOptions& opt = {}) {
  Rows r;
  Status s = db.run(sql, r, opt);
  EXPECT_TRUE(s.ok()) << sql << ": " << (s.ok() ? "" : s.error().describe());
  return r;
}

// The same statement through the SQLite library on a database file, no goblin in between.
std::vector<std::vector<Value>> run_plain(sqlite3* db, const std::string& sql) {
  std::vector<std::vector<Value>> out;
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql << ": " << sqlite3_errmsg(db);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    std::vector<Value> row;
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(st, c)));
          break;
        case SQLITE_FLOAT:
          row.emplace_back(sqlite3_column_double(st, c));
          break;
        case SQLITE_NULL:
          row.emplace_back(std::monostate{});
          break;
        default:
          row.emplace_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(st, c)),
                                       static_cast<size_t>(sqlite3_column_bytes(st, c))));
      }
    }
    out.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  return out;
}

// Equal values; reals to 1e-9 relative (a sum's terms may come in another order under another plan).
bool same(const Value& a, const Value& b) {
  if (a.index() == 2 && b.index() == 2) {
    const double x = std::get<double>(a), y = std::get<double>(b);
    return std::fabs(x - y) <= 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)});
  }
  return a == b;
}
bool same_rows(const std::vector<std::vector<Value>>& a, const std::vector<std::vector<Value>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size()) return false;
    for (size_t c = 0; c < a[i].size(); ++c)
      if (!same(a[i][c], b[i][c])) return false;
  }
  return true;
}

// docs/query.md § Examples: each "-- title" line, then its statement.
std::vector<std::pair<std::string, std::string>> docs_examples() {
  std::ifstream f(std::string(GOBLIN_SOURCE_DIR) + "/docs/query.md");
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::string head = "### Examples\n\n```sql\n";
  const size_t at = text.find(head);
  EXPECT_NE(at, std::string::npos);
  if (at == std::string::npos) return {};
  const size_t end = text.find("```", at + head.size());
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t p = at + head.size(); p < end;) {
    const size_t eol = std::min(text.find('\n', p), end);
    const std::string line = text.substr(p, eol - p);
    p = eol + 1;
    if (line.rfind("-- ", 0) == 0)
      out.emplace_back(line.substr(3), "");
    else if (!out.empty())
      out.back().second += line + "\n";
  }
  return out;
}

// The traces' tables as `goblin export --format sqlite` writes them, opened by plain SQLite.
struct Exported {
  std::string path;
  sqlite3* db = nullptr;
  explicit Exported(const std::vector<const Timeline*>& tls) {
    auto copy = open_db(tls);
    EXPECT_TRUE(copy->materialize().ok());
    auto image = copy->image();
    EXPECT_TRUE(image.ok());
    path = (std::filesystem::temp_directory_path() / fmt::format("goblin_query_index_{}.db", ::getpid())).string();
    {
      std::ofstream out(path, std::ios::binary);
      out << *image;
    }
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  }
  ~Exported() {
    sqlite3_close(db);
    std::filesystem::remove(path);
  }
};

// Every docs example over the traces, and over their export read by plain SQLite.
void check_examples(const std::vector<const Timeline*>& tls, std::map<std::string, size_t>& rows_seen) {
  auto live = open_db(tls);
  Exported plain(tls);
  const auto examples = docs_examples();
  EXPECT_GE(examples.size(), 8u);
  for (const auto& [title, sql] : examples) {
    Rows got = run(*live, sql);
    auto want = run_plain(plain.db, sql);
    rows_seen[title] += want.size();
    if (sql.find("ORDER BY") == std::string::npos) {  // no order asked: compare as sets of rows
      auto less = [](const std::vector<Value>& a, const std::vector<Value>& b) { return a < b; };
      std::sort(got.rows.begin(), got.rows.end(), less);
      std::sort(want.begin(), want.end(), less);
    }
    EXPECT_TRUE(same_rows(got.rows, want)) << title << ": " << got.rows.size() << " rows, sqlite3 " << want.size();
  }
}

TEST(QueryDocs, ExamplesGiveTheRowsOfSqliteOnTheExport) {
  Timeline h100 = read("kineto/h100_llama_fp32_eager_w0.json.gz");
  Timeline r0 = read("kineto/nccl_sampled_rank-0.json.gz"), r1 = read("kineto/nccl_sampled_rank-1.json.gz");
  std::map<std::string, size_t> rows_seen;
  check_examples({&h100}, rows_seen);
  check_examples({&r0, &r1}, rows_seen);  // two ranks: every lookup spans both traces
  // Each example answers something on these fixtures, except the collectives' one: no fixture
  // holds an NCCL kernel with its collective metadata.
  for (const auto& [title, n] : rows_seen)
    if (title.find("bus bandwidth") == std::string::npos) EXPECT_GT(n, 0u) << title;
}

// A lookup (equality, IN, range; integer, real, text and NULL bounds) gives the rows plain SQLite
// gives by a scan of the exported table (a real INTEGER column: the same affinity rules).
TEST(QueryIndex, LookupsGiveTheRowsOfSqliteOnTheExport) {
  Timeline r0 = read("kineto/nccl_sampled_rank-0.json.gz"), r1 = read("kineto/nccl_sampled_rank-1.json.gz");
  auto db = open_db({&r0, &r1});
  Exported plain({&r0, &r1});
  const std::vector<std::string> where = {
      "external_id = 7195612",
      "external_id IN (7195612, 7195619, 6904339, -3)",
      "id = 7",
      "id = 7.0",
      "id = 7.5",
      "id = '7'",
      "id < 'abc'",
      "id > 2.5 AND id <= 9",
      "id >= 1190",
      "correlation = NULL",
      "rank = 1 AND id < 5",
      "start_ns >= (SELECT min(start_ns) FROM gpu_ops) + 1000000 AND start_ns < (SELECT min(start_ns) FROM gpu_ops) "
      "+ 5000000",
      "step = 552",
  };
  size_t nonempty = 0;
  for (const std::string& w : where) {
    const std::string sql = "SELECT rank, id, external_id FROM gpu_ops WHERE " + w + " ORDER BY rank, id";
    Rows a = run(*db, sql);
    auto b = run_plain(plain.db, sql);
    EXPECT_TRUE(same_rows(a.rows, b)) << w << ": " << a.rows.size() << " rows, sqlite3 " << b.size();
    nonempty += !a.rows.empty();
  }
  EXPECT_GE(nonempty, 9u);
  // The join of the docs runs as a lookup: the inner table is read through its index.
  Rows plan = run(*db,
                  "EXPLAIN QUERY PLAN SELECT count(*) FROM cpu_ops c JOIN gpu_ops g ON g.external_id = c.external_id "
                  "WHERE c.name = 'aten::mm'");
  bool lookup = false;
  for (const auto& row : plan.rows)
    for (const Value& v : row)
      if (v.index() == 3) {
        std::smatch m;
        const std::string& s = std::get<std::string>(v);
        if (std::regex_search(s, m, std::regex(R"(VIRTUAL TABLE INDEX (\d+))")) && (std::stoi(m[1]) & 4)) lookup = true;
      }
  EXPECT_TRUE(lookup);
}

// parent_id: the nearest row before it, in (pid, tid, start, longer first, id) order, whose span
// contains it — checked by that definition, row by row; depth: the parent's + 1.
TEST(QueryNesting, ParentIsTheNearestEnclosingRowOnTheThread) {
  Timeline tl = read("kineto/h100_torch211_export_chrome_trace.json");
  auto db = open_db({&tl});
  Rows r = run(*db, "SELECT id, parent_id, depth FROM cpu_ops ORDER BY id");
  const CpuOpTable& c = tl.cpu_ops;
  ASSERT_EQ(r.rows.size(), c.size());
  std::vector<size_t> order(c.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto end = [&](size_t i) { return c.start_ns[i] + c.dur_ns[i]; };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_tuple(c.pid[a], c.tid[a], c.start_ns[a], -end(a), a) <
           std::make_tuple(c.pid[b], c.tid[b], c.start_ns[b], -end(b), b);
  });
  size_t nested = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    Value want = std::monostate{};
    for (size_t j = k; j-- > 0;) {
      const size_t p = order[j];
      if (c.pid[p] != c.pid[i] || c.tid[p] != c.tid[i]) break;
      if (c.start_ns[p] <= c.start_ns[i] && end(i) <= end(p)) {
        want = static_cast<int64_t>(p);
        break;
      }
    }
    EXPECT_EQ(r.rows[i][1], want) << "cpu op " << i;
    const int64_t depth = want.index() == 0 ? 0 : std::get<int64_t>(r.rows[std::get<int64_t>(want)][2]) + 1;
    EXPECT_EQ(r.rows[i][2], Value(depth)) << "cpu op " << i;
    nested += want.index() != 0;
  }
  EXPECT_GT(nested, 0u);
}

// gpu_ops.step: the step whose window holds the op's start; NULL exactly outside every window.
TEST(QuerySteps, EachGpuOpHasTheStepWhoseWindowHoldsIt) {
  Timeline tl = read("kineto/h100_llama_fp32_eager_w0.json.gz");
  auto db = open_db({&tl});
  auto one = [&](const std::string& sql) { return std::get<int64_t>(run(*db, sql).rows.at(0).at(0)); };
  EXPECT_GT(one("SELECT count(*) FROM gpu_ops WHERE step IS NOT NULL"), 0);
  EXPECT_EQ(one("SELECT count(*) FROM gpu_ops g JOIN steps s ON s.step = g.step "
                "WHERE g.start_ns < s.start_ns OR g.start_ns >= s.start_ns + s.dur_ns"),
            0);
  EXPECT_EQ(one("SELECT count(*) FROM gpu_ops g JOIN steps s ON s.step = g.step"),
            one("SELECT count(*) FROM gpu_ops WHERE step IS NOT NULL"));
  EXPECT_EQ(one("SELECT count(*) FROM gpu_ops g WHERE g.step IS NULL AND EXISTS (SELECT 1 FROM steps s "
                "WHERE g.start_ns >= s.start_ns AND g.start_ns < s.start_ns + s.dur_ns)"),
            0);
}

// The progress callback reports the rows read while a statement runs (here from its start).
TEST(QueryProgress, ReportsRowsReadWhileAStatementRuns) {
  Timeline tl = read("kineto/h100_llama_fp32_eager_w0.json.gz");
  auto db = open_db({&tl});
  RunOptions opt;
  uint64_t last = 0;
  int calls = 0;
  opt.progress = [&](uint64_t rows, double seconds) {
    EXPECT_GE(rows, last);
    EXPECT_GE(seconds, 0.0);
    last = rows;
    ++calls;
  };
  opt.progress_after = std::chrono::milliseconds(0);
  opt.progress_every = std::chrono::milliseconds(0);
  run(*db, "SELECT count(*) FROM gpu_ops a JOIN cpu_ops c ON c.external_id = a.external_id", opt);
  EXPECT_GT(calls, 0);
  EXPECT_GT(last, 0u);
  calls = 0;
  run(*db, "SELECT count(*) FROM gpu_ops");  // no callback: nothing reported
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace goblin::query
