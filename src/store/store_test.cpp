// The run store's suite, run on SQLite and on a real PostgreSQL server the test starts itself
// (pg_test_server.h): round trip, idempotent adds, filters, trends, the gate, calibration, removal,
// concurrent writers in several processes, a writer killed mid-transaction, refused stores (not
// SQLite, a newer schema, foreign tables) left byte-identical, SQL-injection strings stored as
// data, and credentials never in messages.
#include "store/store.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/io.h"
#include "core/test_support.h"
#include "store/import.h"
#include "store/pg_test_server.h"

namespace goblin::store {
namespace {

namespace fs = std::filesystem;

RunRecord sample(const std::string& key, double step_s, const std::string& workload = "llama") {
  RunRecord r;
  r.content_key = sha256_hex(key);
  r.verb = "metrics";
  r.source = "verb";
  r.workload = workload;
  r.gpu = "NVIDIA H100 80GB HBM3";
  r.linkage["experiment_id"] = "exp1";
  r.linkage["trial_id"] = "t1";
  r.linkage["base_image"] = "rocm/pytorch:7.0";
  r.tags = {"nightly"};
  r.metrics["step_time_s"] = step_s;
  r.metrics["tokens_per_sec"] = 1000 / step_s;
  r.inputs.push_back({"/data/trace.json.gz", sha256_hex("trace" + key), 123});
  r.artifacts.push_back({"result.json", sha256_hex("{}" + key), 2, "{}"});
  r.artifacts.push_back({"shared.md", sha256_hex("shared"), 6, "shared"});
  r.steps = {{"ProfilerStep#1", step_s, step_s * 0.9}, {"ProfilerStep#2", step_s, std::nullopt}};
  r.categories = {{"gemm", 0.5, 60.0}, {"elementwise", 0.2, 25.0}};
  r.kernels = {{"sm90_gemm", "gemm", 0.4, 50.0, 10}, {"vectorized_elementwise", "elementwise", 0.1, 12.5, 99}};
  r.waste = {{"useful_gpu", 0.1}, {"memory_headroom", std::nullopt}};
  AuditRoundRow a;
  a.round = 1, a.rules = {"precision.bf16_amp_over_fp32", "attention.sdpa_over_eager"}, a.gpu = r.gpu;
  a.method = "speedup_models", a.held = "held", a.predicted_low = 2.0, a.predicted_high = 3.0, a.measured = 2.5;
  a.ci_low = 2.4, a.ci_high = 2.6, a.significant = true;
  r.audit_rounds = {a};
  r.iterations = {{0, "naive", 93.2, 13.9, "TFLOP/s", false, true}, {1, "tiles", 622.9, 92.6, "TFLOP/s", true, true}};
  r.ranks = {{0, "NVIDIA H200", 0.066, 4, 64}, {1, "NVIDIA H200", std::nullopt, 4, 64}};
  return r;
}

std::string file_hash(const std::string& p) {
  auto f = hash_file(p);
  return f ? f->sha256 : "";
}

class StoreSuite : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      dir_ = fs::temp_directory_path() /
             fs::path(fmt::format("goblin_store_{}_{}", getpid(),
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name()));
      fs::remove_all(dir_);
      fs::create_directories(dir_);
      url_ = "sqlite://" + (dir_ / "runs.db").string();
    } else {
      auto& pg = testing::PgTestServer::get();
      if (!pg.ok()) GTEST_SKIP() << "PostgreSQL tests skipped: " << pg.why();
      url_ = pg.fresh_database_url();
    }
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  Store open() {
    auto s = Store::open(url_, true);
    EXPECT_TRUE(s.ok()) << (s ? "" : s.error().describe());
    return std::move(*s);
  }
  fs::path dir_;
  std::string url_;
};

TEST_P(StoreSuite, RoundTripKeepsEveryTable) {
  Store s = open();
  EXPECT_EQ(s.schema_version(), Store::current_schema());
  auto out = s.add(sample("a", 1.0));
  ASSERT_TRUE(out.ok()) << out.error().describe();
  EXPECT_TRUE(out->added);
  auto r = s.get(out->run_id);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->verb, "metrics");
  EXPECT_EQ(r->linkage.at("experiment_id"), "exp1");
  EXPECT_EQ(r->linkage.at("base_image"), "rocm/pytorch:7.0");
  EXPECT_EQ(r->linkage.at("server_flags"), "unknown");  // never blank
  EXPECT_EQ(r->pytorch, "unknown");
  EXPECT_DOUBLE_EQ(r->metrics.at("step_time_s"), 1.0);
  ASSERT_EQ(r->steps.size(), 2u);
  EXPECT_FALSE(r->steps[1].busy_s.has_value());
  ASSERT_EQ(r->kernels.size(), 2u);
  EXPECT_EQ(r->kernels[1].count, 99);
  ASSERT_EQ(r->audit_rounds.size(), 1u);
  EXPECT_EQ(r->audit_rounds[0].rules.size(), 2u);
  EXPECT_EQ(r->audit_rounds[0].significant, std::optional<bool>(true));
  ASSERT_EQ(r->iterations.size(), 2u);
  EXPECT_TRUE(r->iterations[1].masked);
  EXPECT_EQ(r->ranks.size(), 2u);
  EXPECT_EQ(r->waste.size(), 2u);
  EXPECT_EQ(r->artifacts.size(), 2u);
  EXPECT_EQ(r->tags, std::vector<std::string>{"nightly"});
  auto art = s.artifact(sha256_hex("shared"));
  ASSERT_TRUE(art.ok());
  EXPECT_EQ(art->value_or(""), "shared");
}

TEST_P(StoreSuite, SameRunTwiceIsANoOp) {
  Store s = open();
  auto a = s.add(sample("a", 1.0));
  auto b = s.add(sample("a", 1.0));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(b->added);
  EXPECT_EQ(a->run_id, b->run_id);
  EXPECT_EQ(*s.count({}), 1);
}

TEST_P(StoreSuite, FiltersTrendAndGate) {
  Store s = open();
  const double noise[] = {1.00, 1.02, 0.99, 1.01, 0.98, 1.00, 1.03, 0.97, 1.01, 0.99};
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(s.add(sample(fmt::format("n{}", i), noise[i])).ok());
  ASSERT_TRUE(s.add(sample("other", 5.0, "bert")).ok());
  RunFilter f;
  f.workload = "llama";
  EXPECT_EQ(*s.count(f), 10);
  f.limit = 3;
  auto page = s.list(f);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 3u);
  EXPECT_GT((*page)[0].id, (*page)[1].id);  // newest first
  EXPECT_EQ((*page)[0].tags, std::vector<std::string>{"nightly"});
  auto t = s.trend("llama", "step_time_s", 1000);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->size(), 10u);
  EXPECT_DOUBLE_EQ(t->front().value, 1.00);  // oldest first
  GateOptions o;
  o.workload = "llama";
  auto g = gate(s, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->verdict, "pass") << g->reason;
  ASSERT_TRUE(s.add(sample("slow", 1.30)).ok());
  g = gate(s, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->verdict, "regression") << g->reason;
  EXPECT_TRUE(g->regression);
  o.metric = "tokens_per_sec";  // higher is better: the slow run is worse too
  g = gate(s, o);
  EXPECT_TRUE(g->regression) << g->reason;
  o.workload = "none";
  g = gate(s, o);
  EXPECT_EQ(g->verdict, "insufficient_data");
}

// Two baseline runs said "pass, noise floor 0.00 %"; a baseline of two configurations said "noise
// floor 248 %" with no warning. Below three baseline runs the gate says not enough data; a spread
// baseline is named in warnings.
TEST_P(StoreSuite, GateNeedsThreeBaselineRunsAndWarnsOfAMixedBaseline) {
  Store s = open();
  for (double v : {1.0, 1.01, 1.5}) ASSERT_TRUE(s.add(sample(fmt::format("few{}", v), v)).ok());
  GateOptions o;
  o.workload = "llama";
  auto g = gate(s, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->verdict, "insufficient_data") << g->reason;
  EXPECT_NE(g->reason.find("not enough data"), std::string::npos) << g->reason;
  EXPECT_EQ(gate_to_json(*g)["min_baseline_runs"], 3);
  for (double v : {0.04, 0.14, 0.041, 0.139}) ASSERT_TRUE(s.add(sample(fmt::format("mixed{}", v), v)).ok());
  g = gate(s, o);
  ASSERT_TRUE(g.ok());
  ASSERT_FALSE(g->warnings.empty()) << g->reason;
  EXPECT_NE(g->warnings[0].find("may mix"), std::string::npos) << g->reason;
  EXPECT_GT(g->baseline_cv_pct, 10);
}

// A step time of -5 s or 0 s was stored and `gate` said pass. The store refuses it; a store that
// holds one already (written before) makes the gate say invalid for it, never pass.
TEST_P(StoreSuite, ImpossibleStepTimesAreRefusedAndNeverPass) {
  Store s = open();
  for (double bad : {-5.0, 0.0, std::nan("")}) {
    auto a = s.add(sample(fmt::format("bad{}", bad), bad));
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_EQ(a.error().kind, ErrorKind::Malformed);
    EXPECT_NE(a.error().message.find("impossible"), std::string::npos) << a.error().message;
  }
  RunRecord neg_rank = sample("negrank", 1.0);
  neg_rank.ranks[0].step_time_s = -1.0;
  EXPECT_FALSE(s.add(neg_rank).ok());
  EXPECT_EQ(*s.count(RunFilter{}), 0);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(s.add(sample(fmt::format("ok{}", i), 1.0 + 0.01 * i)).ok());
  auto newest = s.add(sample("newest", 1.0));
  ASSERT_TRUE(newest.ok());
  if (GetParam() != "sqlite") return;  // the doctored row below is written with SQLite directly
  const std::string db = url_.substr(std::string("sqlite://").size());
  ASSERT_EQ(goblin::testing::exec_sql(db, fmt::format("UPDATE run_metrics SET value = -5 WHERE run_id = {} AND name = "
                                                      "'step_time_s'",
                                                      newest->run_id)),
            "");
  GateOptions o;
  o.workload = "llama";
  auto g = gate(s, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->verdict, "invalid") << g->reason;
  EXPECT_FALSE(g->regression);
  EXPECT_NE(g->reason.find("impossible"), std::string::npos);
}

// A trace's steps and the workload's own timer differ by a few percent on the same run: the gate
// compares the newest run with baseline runs of its own source and says which it left out; with no
// baseline of that source it says the sources are mixed.
TEST_P(StoreSuite, GateComparesStepTimesOfOneSource) {
  Store s = open();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s.add(sample(fmt::format("trace{}", i), 1.00 + 0.001 * i)).ok());
  RunRecord timed = sample("bench0", 1.05);  // the workload's timer: 5 % above the traces' steps
  timed.verb = "bench";
  auto first_bench = s.add(timed);
  ASSERT_TRUE(first_bench.ok());
  GateOptions o;
  o.workload = "llama";
  auto only = gate(s, o);  // the newest is a bench run with no bench baseline: mixed, and said so
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->source, "workload_timer");
  EXPECT_NE(only->sources_note.find("mixed"), std::string::npos) << only->reason;
  for (double v : {1.051, 1.052, 1.0505}) {  // the last is the newest, inside its baseline's spread
    RunRecord b = sample(fmt::format("bench{}", v), v);
    b.verb = "bench";
    ASSERT_TRUE(s.add(b).ok());
  }
  auto g = gate(s, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->baseline_runs.size(), 3u) << g->reason;  // the three earlier bench runs, no trace run
  EXPECT_NE(g->sources_note.find("left out"), std::string::npos) << g->reason;
  EXPECT_EQ(g->verdict, "pass") << g->reason;
  EXPECT_EQ(gate_to_json(*g)["source"], "workload_timer");
  EXPECT_EQ(figure_source("metrics"), "trace_steps");
}

// `store add` read /dev/zero until bad_alloc and recorded a result past its 256 MiB limit: the
// file's type and size are checked before a byte is read.
TEST(StoreImport, SpecialFilesAndFilesPastTheLimitAreRefusedBeforeReading) {
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    auto r = record_from_path(dev, {});
    ASSERT_FALSE(r.ok()) << dev;
    EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos) << r.error().message;
  }
  const fs::path big = fs::temp_directory_path() / fmt::format("goblin_big_{}.json", getpid());
  { std::ofstream(big) << "{\"step_time_s\": 1.0, \"pad\": \""; }
  fs::resize_file(big, (256ull << 20) + (14ull << 20));  // 270 MiB, sparse: nothing is written
  auto r = record_from_path(big.string(), {});
  fs::remove(big);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
  EXPECT_NE(r.error().message.find("larger than the 268435456-byte limit"), std::string::npos) << r.error().message;
}

TEST_P(StoreSuite, CalibrationPerRuleAndGpu) {
  Store s = open();
  RunRecord a = sample("c1", 1.0), b = sample("c2", 1.0);
  b.audit_rounds[0].held = "missed";
  b.audit_rounds[0].measured = 1.5;
  ASSERT_TRUE(s.add(a).ok() && s.add(b).ok());
  auto c = s.calibration();
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 2u);
  EXPECT_EQ((*c)[0].rule_id, "attention.sdpa_over_eager");
  EXPECT_EQ((*c)[0].audits, 2);
  EXPECT_EQ((*c)[0].held, 1);
  EXPECT_EQ((*c)[0].missed, 1);
  ASSERT_TRUE((*c)[0].median_measured_over_mid.has_value());
  EXPECT_NEAR(*(*c)[0].median_measured_over_mid, (1.0 + 0.6) / 2, 1e-9);
}

TEST_P(StoreSuite, RemoveKeepsSharedArtifacts) {
  Store s = open();
  auto a = s.add(sample("a", 1.0));
  auto b = s.add(sample("b", 1.0));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(s.remove(a->run_id).ok());
  EXPECT_EQ(s.remove(a->run_id).error().kind, ErrorKind::NotFound);
  EXPECT_EQ(*s.count({}), 1);
  EXPECT_TRUE(s.artifact(sha256_hex("shared")).ok());                  // still used by b
  EXPECT_FALSE(s.artifact(sha256_hex(std::string("{}") + "a")).ok());  // a's own: gone
}

TEST_P(StoreSuite, InjectionStringsAreData) {
  Store s = open();
  const std::string evil = "x'); DROP TABLE runs; --";
  RunRecord r = sample("evil", 1.0, "w' OR '1'='1");
  r.linkage["experiment_id"] = evil;
  r.linkage["trial_id"] = "t\"; DELETE FROM runs; --";
  r.tags = {"' OR 1=1 --", "?"};
  ASSERT_TRUE(s.add(r).ok());
  ASSERT_TRUE(s.add(sample("plain", 1.0)).ok());
  RunFilter f;
  f.experiment_id = evil;
  EXPECT_EQ(*s.count(f), 1);
  f = {};
  f.workload = "w' OR '1'='1";
  EXPECT_EQ(*s.count(f), 1);
  f = {};
  f.tag = "' OR 1=1 --";
  auto l = s.list(f);
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ(l->front().linkage.at("trial_id"), "t\"; DELETE FROM runs; --");
  EXPECT_EQ(*s.count({}), 2);
}

TEST_P(StoreSuite, ConcurrentWritersLoseNothing) {
  { Store s = open(); }
  constexpr int kProcs = 4, kRuns = 15;
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int bad = 0;
      auto s = Store::open(url_);
      if (!s) _exit(2);
      for (int i = 0; i < kRuns; ++i)
        if (!s->add(sample(fmt::format("{}/{}", p, i), 1.0 + i)).ok()) ++bad;
      // The same run from every process: stored once.
      if (!s->add(sample("everyone", 1.0)).ok()) ++bad;
      _exit(bad == 0 ? 0 : 1);  // _exit: no static destructors (the test server) in the child
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) {
    int st = 0;
    waitpid(k, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "writer " << k << " status " << st;
  }
  Store s = open();
  EXPECT_EQ(*s.count({}), kProcs * kRuns + 1);
}

TEST_P(StoreSuite, WriterKilledMidTransactionLeavesTheStoreWhole) {
  { Store s = open(); }
  RunRecord big = sample("big", 1.0);
  for (int i = 0; i < 60000; ++i) big.kernels.push_back({fmt::format("k{}", i), "gemm", 1e-6, 0.0, 1});
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto s = Store::open(url_);
    if (!s) _exit(2);
    (void)!write(fds[1], "x", 1);
    (void)s->add(big);
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(fds[0], &c, 1), 1);
  usleep(150 * 1000);
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  close(fds[0]), close(fds[1]);
  Store s = open();
  auto n = s.count({});
  ASSERT_TRUE(n.ok()) << n.error().describe();
  if (*n == 1) {  // the writer finished before the kill: then every row is there
    auto r = s.get(s.list({})->front().id);
    EXPECT_EQ(r->kernels.size(), big.kernels.size());
  } else {
    EXPECT_EQ(*n, 0);
  }
  EXPECT_TRUE(s.add(sample("after", 1.0)).ok());
}

TEST_P(StoreSuite, NewerSchemaIsRefusedAndLeftAlone) {
  { Store s = open(); }
  std::unique_ptr<Engine> e;
  auto u = parse_store_url(url_);
  ASSERT_TRUE(u.ok());
  if (u->kind == EngineKind::Sqlite)
    e = open_sqlite(u->path, false).value();
  else
    e = open_postgres(u->conninfo, u->redacted).value();
  ASSERT_TRUE(e->query("UPDATE goblin_store SET value = '99' WHERE key = 'schema_version'", {}).ok());
  e.reset();
  const std::string before = u->kind == EngineKind::Sqlite ? file_hash(u->path) : "";
  auto s = Store::open(url_, true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("newer"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("not changed"), std::string::npos);
  if (u->kind == EngineKind::Sqlite) EXPECT_EQ(file_hash(u->path), before);
}

TEST_P(StoreSuite, ForeignDatabaseIsRefused) {
  auto u = parse_store_url(url_);
  ASSERT_TRUE(u.ok());
  std::unique_ptr<Engine> e;
  if (u->kind == EngineKind::Sqlite)
    e = open_sqlite(u->path, true).value();
  else
    e = open_postgres(u->conninfo, u->redacted).value();
  ASSERT_TRUE(e->query("CREATE TABLE payroll (name TEXT)", {}).ok());
  e.reset();
  auto s = Store::open(url_, true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("not a goblin run store"), std::string::npos) << s.error().message;
}

// Where goblin reads a table, a view or a trigger runs the database's own SQL: a recursive view
// named run_tags spun `goblin store ls` and every dashboard worker for ever. Refused at open,
// naming the object, with the store left as it was.
TEST_P(StoreSuite, ViewOrTriggerWhereATableIsRefused) {
  const bool sqlite = GetParam() == "sqlite";
  const char* view = sqlite ? "CREATE VIEW run_tags (run_id, tag) AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                              "SELECT n + 1 FROM r) SELECT n, 't' FROM r"
                            : "CREATE VIEW run_tags (run_id, tag) AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL "
                              "SELECT n + 1 FROM r) SELECT n::bigint, 't'::text FROM r";
  const char* trigger = sqlite ? "CREATE TRIGGER spin AFTER INSERT ON runs BEGIN SELECT 1; END"
                               : "CREATE FUNCTION spin() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';"
                                 "CREATE TRIGGER spin AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION spin()";
  for (const auto& [sql, named] : {std::pair{view, "view named 'run_tags'"}, {trigger, "trigger named 'spin'"}}) {
    { Store s = open(); }
    auto u = parse_store_url(url_);
    ASSERT_TRUE(u.ok());
    {
      auto e = sqlite ? open_sqlite(u->path, false) : open_postgres(u->conninfo, u->redacted);
      ASSERT_TRUE(e.ok());
      if (sql == view) {
        ASSERT_TRUE((*e)->query(sqlite ? "PRAGMA foreign_keys=OFF" : "SELECT 1", {}).ok());
        ASSERT_TRUE((*e)->query("DROP TABLE run_tags", {}).ok());
      }
      auto made = (*e)->query(sql, {});
      ASSERT_TRUE(made.ok()) << made.error().describe();
    }
    auto s = Store::open(url_, false);
    ASSERT_FALSE(s.ok()) << sql;
    EXPECT_NE(s.error().message.find(named), std::string::npos) << s.error().message;
    // Start again from a fresh store for the next object.
    if (sqlite) {
      fs::remove(u->path);
    } else {
      url_ = testing::PgTestServer::get().fresh_database_url();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, StoreSuite, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& i) { return i.param; });

// ---- engine-independent --------------------------------------------------------------------

TEST(StoreUrl, Forms) {
  EXPECT_EQ(parse_store_url("sqlite:///abs/runs.db")->path, "/abs/runs.db");
  EXPECT_EQ(parse_store_url("sqlite://rel/runs.db")->path, "rel/runs.db");
  EXPECT_EQ(parse_store_url("runs.db")->kind, EngineKind::Sqlite);
  EXPECT_EQ(parse_store_url("postgresql:///goblin?host=/run/postgresql")->kind, EngineKind::Postgres);
  EXPECT_EQ(parse_store_url("mysql://x").error().kind, ErrorKind::Usage);
  EXPECT_EQ(parse_store_url("").error().kind, ErrorKind::Usage);
}

TEST(StoreUrl, PasswordsNeverInMessages) {
  for (const std::string url : {"postgresql://bob:s3cretpw@/goblin?host=/nonexistent_goblin_sock",
                                "postgresql:///goblin?host=/nonexistent_goblin_sock&password=s3cretpw",
                                // Characters that ended the scan early and left the rest in clear.
                                "postgresql://bob:s3cretpw;x@/goblin?host=/nonexistent_goblin_sock",
                                "postgresql://bob:a'b,c\"d<e#f?g h;s3cretpw@/goblin?host=/nonexistent_goblin_sock",
                                "postgresql://bob:s3cretpw x@/goblin?host=/nonexistent_goblin_sock"}) {
    auto u = parse_store_url(url);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(u->redacted.find("s3cretpw"), std::string::npos) << u->redacted;
    auto s = Store::open(url);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().describe().find("s3cretpw"), std::string::npos) << s.error().describe();
  }
}

TEST(StoreSqlite, NotSqliteIsRefusedAndUnchanged) {
  const fs::path p = fs::temp_directory_path() / fmt::format("goblin_notdb_{}.db", getpid());
  ASSERT_TRUE(write_file(p.string(), std::string(8192, 'x')).ok());
  const std::string before = file_hash(p.string());
  auto s = Store::open("sqlite://" + p.string(), true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("not a readable SQLite database"), std::string::npos) << s.error().message;
  EXPECT_EQ(file_hash(p.string()), before);
  fs::remove(p);
}

TEST(StoreSqlite, MissingStoreWithoutCreateIsNotFound) {
  auto s = Store::open("sqlite:///nonexistent_goblin_dir/runs.db");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::NotFound);
}

TEST(StoreImport, KernelWorkspaceIterations) {
  auto r = record_from_path(GOBLIN_SOURCE_DIR "/tests/fixtures/kernel_opt/softmax", {});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->verb, "kernel");
  EXPECT_FALSE(r->iterations.empty());
  EXPECT_FALSE(r->artifacts.empty());
  auto again = record_from_path(GOBLIN_SOURCE_DIR "/tests/fixtures/kernel_opt/softmax", {});
  EXPECT_EQ(r->content_key, again->content_key);
  Linkage l;
  l.experiment_id = "exp9";
  EXPECT_NE(record_from_path(GOBLIN_SOURCE_DIR "/tests/fixtures/kernel_opt/softmax", l)->content_key, r->content_key);
}

TEST(StoreImport, UnknownFolderIsAUsageError) {
  auto r = record_from_path(GOBLIN_SOURCE_DIR "/data", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Usage);
}

TEST(StoreSha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  Sha256 h;
  for (int i = 0; i < 1000; ++i) h.update(std::string(1000, 'a'));
  EXPECT_EQ(h.hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace goblin::store
