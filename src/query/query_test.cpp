// SQL over real fixtures checked against goblin's own analyses, the safety bounds, and slices read
// back by goblin.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "analysis/category_breakdown.h"
#include "analysis/knowledge.h"
#include "analysis/triage_artifacts.h"
#include "core/test_support.h"
#include "query/database.h"
#include "query/output.h"
#include "query/slice.h"
#include "trace/readers.h"

namespace goblin::query {
namespace {

const std::string kFixtures = GOBLIN_FIXTURES;

std::shared_ptr<const analysis::AnalysisKnowledge> kn() {
  auto k = analysis::analysis_knowledge();
  EXPECT_TRUE(k.ok());
  return *k;
}

Timeline read(const std::string& rel) {
  Timeline tl;
  Status s = trace::read_path(kFixtures + "/" + rel, tl);
  EXPECT_TRUE(s.ok()) << s.error().describe();
  return tl;
}

struct Rows : RowSink {
  std::vector<std::string> cols;
  std::vector<std::vector<Value>> rows;
  void columns(const std::vector<std::string>& n) override {
    cols = n;
    rows.clear();
  }
  bool row(const std::vector<Value>& v) override {
    rows.push_back(v);
    return true;
  }
};

std::unique_ptr<Database> open_db(const std::vector<const Timeline*>& tls) {
  std::vector<TraceRef> refs;
  for (size_t i = 0; i < tls.size(); ++i) refs.push_back({tls[i], static_cast<int64_t>(i), fmt::format("t{}", i)});
  auto db = Database::open(refs, kn());
  EXPECT_TRUE(db.ok());
  return std::move(*db);
}

Rows run(Database& db, const std::string& sql, Status* status = nullptr) {
  Rows r;
  Status s = db.run(sql, r);
  if (status)
    *status = s;
  else
    EXPECT_TRUE(s.ok()) << s.error().describe();
  return r;
}

int64_t as_int(const Value& v) { return std::get<int64_t>(v); }
std::string as_str(const Value& v) { return std::get<std::string>(v); }

const char* kH100 = "kineto/h100_llama_fp32_eager_w0.json.gz";

TEST(Query, CategoryTimeEqualsBreakdown) {
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  Rows r = run(*db, "SELECT category, family, sum(dur_ns), count(*) FROM gpu_ops GROUP BY 1, 2");
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> sql;
  for (const auto& row : r.rows) sql[{as_str(row[0]), as_str(row[1])}] = {as_int(row[2]), as_int(row[3])};
  analysis::CategoryBreakdown b = analysis::category_breakdown(tl, kn()->taxonomy);
  ASSERT_EQ(sql.size(), b.rows.size());
  for (const analysis::CategoryRow& c : b.rows) {
    auto it = sql.find({c.category, c.family});
    ASSERT_NE(it, sql.end()) << c.category << "/" << c.family;
    EXPECT_EQ(it->second.first, c.time_ns) << c.category;
    EXPECT_EQ(it->second.second, c.count) << c.category;
  }
  // The analysis table says the same.
  Rows cats = run(*db, "SELECT sum(time_ns) FROM categories");
  EXPECT_EQ(as_int(cats.rows[0][0]), b.total_op_ns);
}

TEST(Query, TopKernelsEqualTriage) {
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  Rows r = run(*db, "SELECT name, total_ns, launches FROM kernels ORDER BY total_ns DESC LIMIT 10");
  analysis::TriageOptions opt;
  auto rep = analysis::run_triage(tl, *kn(), opt);
  ASSERT_TRUE(rep.ok());
  ASSERT_EQ(r.rows.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(as_str(r.rows[i][0]), rep->kernels.rows[i].name);
    EXPECT_EQ(as_int(r.rows[i][1]), rep->kernels.rows[i].total_ns);
    EXPECT_EQ(as_int(r.rows[i][2]), rep->kernels.rows[i].launches);
  }
}

TEST(Query, SeveralTracesHaveRankColumns) {
  Timeline a = read("kineto/nccl_sampled_rank-0.json.gz"), b = read("kineto/nccl_sampled_rank-1.json.gz");
  auto db = open_db({&a, &b});
  Rows r = run(*db, "SELECT rank, count(*) FROM gpu_ops GROUP BY rank ORDER BY rank");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(as_int(r.rows[0][1]), static_cast<int64_t>(a.gpu_ops.size()));
  EXPECT_EQ(as_int(r.rows[1][1]), static_cast<int64_t>(b.gpu_ops.size()));
  Rows c = run(*db, "SELECT count(*) FROM collectives WHERE bus_bw_gbps > 0");
  EXPECT_GE(as_int(c.rows[0][0]), 0);
}

TEST(Query, BadStatementGivesMessageAndPosition) {
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  Status s;
  run(*db, "SELECT name FROM gpu_ops WHERE nosuchcolumn > 1", &s);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Usage);
  EXPECT_NE(s.error().message.find("no such column: nosuchcolumn"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().byte_offset, 31);  // "nosuchcolumn" starts at byte 31
  run(*db, "SELECT 1; SELEC 2", &s);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("syntax error"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().byte_offset, 10);
}

TEST(Query, ReadOnlyRefusesWritesAttachExtensionsAndPragmas) {
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  for (const char* sql :
       {"INSERT INTO gpu_ops(name) VALUES ('x')", "DELETE FROM steps", "CREATE TABLE t(x)", "CREATE TEMP TABLE t(x)",
        "ATTACH DATABASE '/tmp/goblin_query_attach.db' AS a", "SELECT load_extension('/tmp/libx.so')",
        "PRAGMA writable_schema = ON", "PRAGMA journal_mode = WAL", "DROP TABLE gpu_ops"}) {
    Status s;
    run(*db, sql, &s);
    EXPECT_FALSE(s.ok()) << sql;
  }
  EXPECT_FALSE(std::filesystem::exists("/tmp/goblin_query_attach.db"));
  // Reading PRAGMAs run.
  Rows r = run(*db, "PRAGMA table_info(gpu_ops)");
  EXPECT_GT(r.rows.size(), 10u);
}

// fts3_tokenizer('simple') returned the address of libsqlite3's tokenizer module (a pointer an
// attacker can aim with), and its two-argument form installs a tokenizer from a pointer.
TEST(Query, RefusesFts3TokenizerInBothForms) {
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  for (const char* sql : {"SELECT hex(fts3_tokenizer('simple'))", "SELECT fts3_tokenizer('x', X'4141414141414141')",
                          "SELECT FTS3_TOKENIZER('porter')"}) {
    Status s;
    Rows r = run(*db, sql, &s);
    ASSERT_FALSE(s.ok()) << sql << " returned " << r.rows.size() << " rows";
    EXPECT_NE(s.error().message.find("not authorized to use function"), std::string::npos) << s.error().message;
  }
}

// `query --db FILE` replaced an existing SQLite database or any file. Only a database goblin wrote
// itself (its application_id) may be replaced; anything else is refused before a byte is written.
TEST(Query, DbReplacesOnlyGoblinsOwnQueryDatabase) {
  auto dir = testing::private_tmp_dir("query_db_replace");
  const std::string theirs = (dir / "app.db").string(), text = (dir / "notes.txt").string(),
                    ours = (dir / "ours.db").string();
  ASSERT_EQ(testing::exec_sql(theirs, "CREATE TABLE users(name); INSERT INTO users VALUES ('alice')"), "");
  std::ofstream(text) << "precious\n";
  for (const std::string& p : {theirs, text, dir.string(), std::string("/dev/null")}) {
    Status s = check_replaceable_query_database(p);
    ASSERT_FALSE(s.ok()) << p;
    EXPECT_EQ(s.error().kind, ErrorKind::Usage);
    EXPECT_NE(s.error().message.find("goblin replaces only a query database it wrote"), std::string::npos);
  }
  EXPECT_TRUE(check_replaceable_query_database((dir / "absent.db").string()).ok());
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  ASSERT_TRUE(db->materialize().ok());
  auto image = db->image();
  ASSERT_TRUE(image.ok());
  std::ofstream(ours, std::ios::binary) << *image;
  EXPECT_TRUE(check_replaceable_query_database(ours).ok());
  EXPECT_EQ(testing::exec_sql(ours, "SELECT count(*) FROM gpu_ops"), "");  // still a valid database
}

// CSV cells a spreadsheet would run as formulas (CWE-1236) are written with a leading '; numbers
// are numbers. The table for a terminal shows control characters of a name escaped.
TEST(QueryOutput, CsvFormulaCellsAreTextAndTheTableShowsControlsEscaped) {
  std::string csv;
  CsvSink c([&](std::string_view b) { csv += b; });
  c.columns({"name", "n"});
  for (const char* v :
       {"=HYPERLINK(\"http://e.x/?\"&A1,\"open\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx", "\rx", "plain"})
    c.row({Value(std::string(v)), Value(int64_t{-5})});
  EXPECT_EQ(csv,
            "name,n\n\"'=HYPERLINK(\"\"http://e.x/?\"\"&A1,\"\"open\"\")\",-5\n'+cmd|' /C calc'!A0,-5\n'-2+3,-5\n"
            "'@SUM(A1),-5\n'\tx,-5\n\"'\rx\",-5\nplain,-5\n");
  std::string table;
  TableSink t([&](std::string_view b) { table += b; });
  t.columns({"name"});
  t.row(
      {Value(std::string("aten::mm\x1b]0;pwned\x07\x1b[2J\xc2\x9b"
                         "31m\nnext"))});
  t.finish();
  EXPECT_EQ(table.find('\x1b'), std::string::npos) << table;
  EXPECT_EQ(table.find('\x07'), std::string::npos);
  EXPECT_EQ(table.find("\xc2\x9b"), std::string::npos);
  EXPECT_NE(table.find("aten::mm\\x1b]0;pwned\\x07\\x1b[2J\\u009b31m\\nnext"), std::string::npos) << table;
}

TEST(Query, WritableAfterMaterialize) {
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  ASSERT_TRUE(db->materialize().ok());
  Rows none;
  ASSERT_TRUE(
      db->run("CREATE TABLE mine AS SELECT name, dur_ns FROM gpu_ops WHERE dur_ns > 100000", none, {}, true).ok());
  Status s = db->run("ATTACH DATABASE ':memory:' AS a", none, {}, true);
  EXPECT_FALSE(s.ok());
  s = db->run("PRAGMA writable_schema = ON", none, {}, true);
  EXPECT_FALSE(s.ok());
  auto image = db->image();
  ASSERT_TRUE(image.ok());
  auto dir = testing::private_tmp_dir("query_db");
  const std::string p = (dir / "t.db").string();
  std::ofstream(p, std::ios::binary) << *image;
  EXPECT_EQ(testing::exec_sql(p, "SELECT count(*) FROM mine; SELECT count(*) FROM kernels"), "");
}

TEST(Query, TimeoutStopsARunawayStatement) {
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  Rows r;
  RunOptions opt;
  opt.timeout = std::chrono::milliseconds(200);
  Status s = db->run("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c", r, opt);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("--timeout"), std::string::npos);
}

// A huge %c precision runs inside one printf call, where the progress handler cannot stop it
// (SQLite 3.40 writes it a character at a time): the guard refuses it before any work, and
// printf/format still mean what SQLite documents for everything else.
TEST(Query, PrintfRefusesAHugeWidthOrPrecision) {
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  for (const char* sql : {"SELECT printf('%.*c', 1e9, 'x')", "SELECT format('%.*c', 1000000000, 'x')",
                          "SELECT printf('%5000000000d', 1)", "SELECT printf('%s %.*c', 'a', -2000000000, 'x')"}) {
    Status s;
    run(*db, sql, &s);
    ASSERT_FALSE(s.ok()) << sql;
    EXPECT_NE(s.error().message.find("over the limit of 67108864 bytes"), std::string::npos) << s.error().message;
  }
  Rows r = run(*db,
               "SELECT printf('%.*c', 3, 'x'), printf('%5.2f|%-4d|%s|%%', 3.14159, 7, 'ok'), format('%d', 42), "
               "printf(NULL), printf('%s', NULL), printf('%q', 'it''s'), length(printf('%.*c', 1000000, 'y'))");
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(as_str(r.rows[0][0]), "xxx");
  EXPECT_EQ(as_str(r.rows[0][1]), " 3.14|7   |ok|%");
  EXPECT_EQ(as_str(r.rows[0][2]), "42");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.rows[0][3]));
  EXPECT_EQ(as_str(r.rows[0][4]), "");
  EXPECT_EQ(as_str(r.rows[0][5]), "it''s");
  EXPECT_EQ(as_int(r.rows[0][6]), 1000000);
}

// A short statement can make rows of any size: a JSON result (held whole before it is written)
// stops at its byte limit and says why, whatever max_rows allows.
TEST(Query, JsonResultStopsAtItsByteLimit) {
  Timeline tl = read(kH100);
  auto db = open_db({&tl});
  const char* sql =
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 500) SELECT x, printf('%.*c', 10000, 'x') "
      "FROM c";
  JsonSink small(kMaxQueryJsonRows, 1 << 20);
  ASSERT_TRUE(db->run(sql, small, {}).ok());
  const Json r = small.result();
  EXPECT_TRUE(r["truncated"].get<bool>());
  EXPECT_EQ(r["row_count"], 104);  // 104 rows of 10,008 bytes fit in 1 MiB, the 105th does not
  EXPECT_NE(r["truncated_note"].get<std::string>().find("1048576 bytes"), std::string::npos);
  JsonSink rows(10);
  ASSERT_TRUE(db->run(sql, rows, {}).ok());
  EXPECT_EQ(rows.result()["row_count"], 10);
  EXPECT_NE(rows.result()["truncated_note"].get<std::string>().find("max_rows"), std::string::npos);
  JsonSink all(kMaxQueryJsonRows);
  ASSERT_TRUE(db->run(sql, all, {}).ok());
  EXPECT_FALSE(all.result()["truncated"].get<bool>());
  EXPECT_FALSE(all.result().contains("truncated_note"));
}

TEST(Query, DocsListEveryTableAndColumn) {
  std::ifstream f(std::string(GOBLIN_SOURCE_DIR) + "/docs/query.md");
  std::string doc((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(doc.find(schema_markdown()), std::string::npos)
      << "docs/query.md's tables differ from `goblin query --schema`: paste its output between the markers";
}

// Per-step figures (wall, busy, compute, idle) of the complete steps of a timeline.
std::map<std::string, std::vector<int64_t>> step_figures(const Timeline& tl) {
  std::map<std::string, std::vector<int64_t>> m;
  analysis::CategoryBreakdown b = analysis::category_breakdown(tl, kn()->taxonomy);
  for (const auto& w : b.step_breakdowns)
    if (!w.partial) m[w.name] = {w.wall_ns, w.busy_ns, w.compute_ns, w.idle_ns};
  return m;
}

TEST(Slice, StepsReadBackWithTheSameFigures) {
  Timeline tl = read(kH100);
  SliceSpec spec;
  auto all = step_figures(tl);
  ASSERT_GE(all.size(), 3u);
  // The middle steps of the trace, by number.
  std::vector<int64_t> nums;
  const analysis::StepDetection det = analysis::find_steps(tl);
  for (size_t i = 0; i < det.steps.size(); ++i) nums.push_back(step_number(det.steps[i].name, i));
  spec.steps = {{nums[1], nums[2]}};
  auto w = slice_window(tl, spec);
  ASSERT_TRUE(w.ok());
  auto dir = testing::private_tmp_dir("query_slice");
  const std::string out = (dir / "slice.json.gz").string();
  auto st = write_kineto_slice({{&tl, 0, *w, {}, {}}}, out);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_GT(st->flows, 0);
  Timeline back;
  ASSERT_TRUE(trace::read_path(out, back).ok());
  EXPECT_LT(back.gpu_ops.size(), tl.gpu_ops.size());
  auto got = step_figures(back);
  ASSERT_EQ(got.size(), 2u);
  for (const auto& [name, fig] : got) {
    ASSERT_TRUE(all.count(name)) << name;
    EXPECT_EQ(fig, all[name]) << name;
  }
  EXPECT_EQ(back.meta.devices.size(), tl.meta.devices.size());
}

TEST(Slice, MergedRanksEachGetAProcess) {
  Timeline a = read("kineto/nccl_sampled_rank-0.json.gz"), b = read("kineto/nccl_sampled_rank-1.json.gz");
  SliceSpec spec;
  spec.from_ms = 0;
  auto wa = slice_window(a, spec), wb = slice_window(b, spec);
  ASSERT_TRUE(wa.ok() && wb.ok());
  auto dir = testing::private_tmp_dir("query_merge");
  const std::string out = (dir / "merged.json").string();
  auto st = write_kineto_slice({{&a, 0, *wa, {}, {}}, {&b, 1, *wb, {}, {}}}, out);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  Timeline back;
  ASSERT_TRUE(trace::read_path(out, back).ok());
  EXPECT_EQ(back.gpu_ops.size(), a.gpu_ops.size() + b.gpu_ops.size());
  // The collectives' nccl:<name> ranges keep their tensors (they size the roofline's all-reduces).
  auto with_dims = [](const Timeline& t) {
    size_t n = 0;
    for (StrId d : t.annotations.input_dims) n += d != kNoStr;
    return n;
  };
  EXPECT_EQ(with_dims(back), with_dims(a) + with_dims(b));
  EXPECT_EQ(with_dims(back), 20u);
  std::ifstream f(out);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto j = Json::parse(text);
  std::set<int64_t> pids;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name") pids.insert(e["pid"].get<int64_t>());
  EXPECT_EQ(pids, (std::set<int64_t>{0, 1}));
}

// Two ranks whose traces count from different epoch bases (baseTimeNanoseconds): the merged slice
// puts both on the earliest base, so an event keeps its wall-clock time — rank 1's kernel, started
// 2.5 ms after rank 0's in real time, is 2.5 ms after it in the merged trace, though its own file
// says it started first. A rank without an epoch base leaves the clocks unaligned, and says so.
TEST(Slice, MergedRanksAreAlignedOnTheirEpochBases) {
  auto dir = testing::private_tmp_dir("query_merge_clock");
  auto write = [&](const std::string& name, const std::string& base, int64_t ts_us, int rank) {
    const std::string p = (dir / name).string();
    std::ofstream(p) << fmt::format(
        R"({{"schemaVersion": 1, "distributedInfo": {{"rank": {0}, "world_size": 2}},{1}
"traceEvents": [
{{"ph": "X", "cat": "kernel", "name": "k_rank{0}", "pid": 0, "tid": 7, "ts": {2}, "dur": 10,
  "args": {{"device": 0, "stream": 7, "correlation": 1}}}}]}})",
        rank, base.empty() ? "" : " \"baseTimeNanoseconds\": " + base + ",", ts_us);
    Timeline tl;
    Status st = trace::read_path(p, tl);
    EXPECT_TRUE(st.ok()) << st.error().describe();
    return tl;
  };
  const int64_t b0 = 1'700'000'000'003'000'000, b1 = 1'700'000'000'000'000'000;  // rank 1's base 3 ms earlier
  Timeline a = write("r0.json", fmt::format("{}", b0), 1000, 0);                 // 1.0 ms after its base
  Timeline b = write("r1.json", fmt::format("{}", b1), 6500, 1);  // 6.5 ms after its own: 2.5 ms after rank 0's kernel
  ASSERT_TRUE(a.meta.clock_is_epoch && b.meta.clock_is_epoch);
  ASSERT_EQ(a.meta.clock_base_ns, b0);
  SliceSpec spec;
  spec.from_ms = 0;
  auto merge = [&](const Timeline& x, const Timeline& y, const std::string& out) {
    auto wx = slice_window(x, spec), wy = slice_window(y, spec);
    EXPECT_TRUE(wx.ok() && wy.ok());
    auto st = write_kineto_slice({{&x, 0, *wx, {}, {}}, {&y, 1, *wy, {}, {}}}, out);
    EXPECT_TRUE(st.ok()) << st.error().describe();
    return st.ok() ? st->clocks_aligned : false;
  };
  const std::string out = (dir / "merged.json").string();
  EXPECT_TRUE(merge(a, b, out));
  Timeline back;
  ASSERT_TRUE(trace::read_path(out, back).ok());
  EXPECT_EQ(back.meta.clock_base_ns, b1);  // the earliest base
  ASSERT_EQ(back.gpu_ops.size(), 2u);
  std::map<std::string, int64_t> start;
  for (size_t i = 0; i < back.gpu_ops.size(); ++i)
    start[std::string(back.str(back.gpu_ops.name[i]))] = back.gpu_ops.start_ns[i];
  ASSERT_EQ(start.size(), 2u);
  // Wall-clock time of each kernel: base + start, the same before and after the merge.
  EXPECT_EQ(b1 + start["k_rank0"], b0 + a.gpu_ops.start_ns[0]);
  EXPECT_EQ(b1 + start["k_rank1"], b1 + b.gpu_ops.start_ns[0]);
  EXPECT_EQ(start["k_rank1"] - start["k_rank0"], 2'500'000);

  // Rank 1 without an epoch base: nothing to align on; the times are kept as read, and said so.
  Timeline c = write("r1_nobase.json", "", 6500, 1);
  ASSERT_FALSE(c.meta.clock_is_epoch);
  const std::string out2 = (dir / "unaligned.json").string();
  EXPECT_FALSE(merge(a, c, out2));
  std::ifstream f(out2);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("baseTimeNanoseconds"), std::string::npos);
}

TEST(Slice, StepRangeParsing) {
  EXPECT_EQ(*parse_step_range("5-7"), (std::pair<int64_t, int64_t>{5, 7}));
  EXPECT_EQ(*parse_step_range("3"), (std::pair<int64_t, int64_t>{3, 3}));
  EXPECT_FALSE(parse_step_range("7-5").ok());
  EXPECT_FALSE(parse_step_range("x").ok());
  EXPECT_FALSE(parse_step_range("").ok());
}

}  // namespace
}  // namespace goblin::query

namespace goblin::query {
namespace {

const std::string kGoblin = std::string(GOBLIN_BINARY_DIR) + "/goblin";
const std::string kTrace = std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz";

TEST(QueryCli, BadStatementExitsNonZeroWithMessageAndPosition) {
  auto r = testing::run_command(kGoblin + " query " + kTrace + " 'SELECT nosuch FROM gpu_ops' 2>&1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("SQL error at byte 7: no such column: nosuch"), std::string::npos) << r.out;
  auto j = testing::run_command(kGoblin + " query " + kTrace + " 'SELECT nosuch FROM gpu_ops' --json");
  EXPECT_EQ(j.code, 2);
  auto env = Json::parse(j.out);
  EXPECT_EQ(env["ok"], false);
  EXPECT_EQ(env["error_detail"]["byte_offset"], 7) << j.out;
}

TEST(QueryCli, SqlFromStdinAndCsv) {
  auto r = testing::run_command("echo 'SELECT count(*) AS n FROM steps;' | " + kGoblin + " query " + kTrace +
                                " --format csv");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "n\n4\n");
}

TEST(QueryCli, ExportedSliceHasOnlyTheRequestedSteps) {
  auto dir = testing::private_tmp_dir("query_cli_export");
  const std::string out = (dir / "slice.json.gz").string();
  auto e = testing::run_command(kGoblin + " export " + kTrace + " --steps 2-3 -o " + out + " --json");
  ASSERT_EQ(e.code, 0) << e.out;
  auto q = testing::run_command(kGoblin + " query " + out + " 'SELECT step FROM steps WHERE partial = 0' --format csv");
  EXPECT_EQ(q.out, "step\n2\n3\n");
  // The query tables as files.
  const std::string db = (dir / "t.db").string();
  auto s = testing::run_command(kGoblin + " export " + kTrace + " --format sqlite -o " + db);
  ASSERT_EQ(s.code, 0) << s.out;
  EXPECT_EQ(testing::exec_sql(db, "SELECT count(*) FROM gpu_ops; SELECT count(*) FROM kernels"), "");
  // Its own database is replaced; any other file is refused and left as it was.
  EXPECT_EQ(testing::run_command(kGoblin + " export " + kTrace + " --format sqlite -o " + db).code, 0);
  const std::string other = (dir / "notes.txt").string();
  { std::ofstream(other) << "keep me\n"; }
  auto refused = testing::run_command(kGoblin + " export " + kTrace + " --format sqlite -o " + other + " 2>&1");
  EXPECT_NE(refused.code, 0) << refused.out;
  EXPECT_NE(refused.out.find(other), std::string::npos) << refused.out;
  std::ifstream kept(other);
  std::string line;
  std::getline(kept, line);
  EXPECT_EQ(line, "keep me");
  auto c = testing::run_command(kGoblin + " export " + kTrace + " --format csv -o " + (dir / "csv").string());
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "csv" / "gpu_ops.csv"));
}

// A slice holds exactly the steps asked for, none partial (the next step's annotations are not
// carried over, annotations crossing the window are trimmed), and keeps the trace's metadata
// events and top-level keys so a viewer names its tracks.
TEST(QueryCli, ExportedSliceKeepsTrackNamesAndNoCutStep) {
  auto dir = testing::private_tmp_dir("query_cli_export_meta");
  const std::string out = (dir / "slice.json.gz").string();
  auto e = testing::run_command(kGoblin + " export " + kTrace + " --steps 2-3 -o " + out);
  ASSERT_EQ(e.code, 0) << e.out;
  auto m = testing::run_command(kGoblin + " metrics " + out + " --json");
  ASSERT_EQ(m.code, 0) << m.out;
  const Json steps = Json::parse(m.out)["result"]["steps"];
  ASSERT_EQ(steps.size(), 2u) << steps.dump(1);
  EXPECT_EQ(steps[0]["name"], "ProfilerStep#2");
  EXPECT_EQ(steps[1]["name"], "ProfilerStep#3");
  for (const auto& s : steps) EXPECT_FALSE(s["partial"].get<bool>()) << s.dump();
  auto meta_of = [](const std::string& path) {
    auto text = read_all(path);
    EXPECT_TRUE(text.ok());
    const Json d = Json::parse(text.ok() ? *text : std::string("{}"));
    std::multiset<std::string> names;
    for (const auto& ev : d.value("traceEvents", Json::array()))
      if (ev.value("ph", "") == "M") names.insert(ev.value("name", "") + "/" + ev["args"].dump());
    return std::pair{d, names};
  };
  const auto [src, src_meta] = meta_of(kTrace);
  const auto [got, got_meta] = meta_of(out);
  EXPECT_EQ(src_meta.size(), 60u);  // process/thread names, sort indexes, labels
  EXPECT_EQ(got_meta, src_meta);
  for (const char* k : {"displayTimeUnit", "deviceProperties", "trace_id", "schemaVersion"}) {
    ASSERT_TRUE(got.contains(k)) << k;
    EXPECT_EQ(got[k], src[k]) << k;
  }
}

}  // namespace
}  // namespace goblin::query
