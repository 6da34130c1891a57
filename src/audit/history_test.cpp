// The audit history store: create, migrate from schema 1, a corrupt file set aside with a clear
// message and a fresh store beside it (nothing deleted), calibration by rule and of a new range.
#include "audit/history.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "core/io.h"
#include "core/test_support.h"

using namespace goblin;
using namespace goblin::audit;
namespace fs = std::filesystem;

namespace {
HistoryRecord rec(double lo, double hi, double measured, std::vector<std::string> rules, std::string held) {
  HistoryRecord r;
  r.workload = "w";
  r.gpu = "NVIDIA H100 80GB HBM3";
  r.runner_kind = "live";
  r.rules = std::move(rules);
  r.predicted_low = lo;
  r.predicted_high = hi;
  r.measured = measured;
  r.prediction_held = std::move(held);
  r.prediction_method = "speedup_models";
  return r;
}
}  // namespace

TEST(History, CreateAddReadCalibrate) {
  auto dir = goblin::testing::private_tmp_dir("history_create");
  std::string path = (dir / "sub" / "history.sqlite").string();  // the directory is created
  auto h = HistoryStore::open(path);
  ASSERT_TRUE(h.ok()) << h.error().describe();
  EXPECT_EQ(h->schema_version(), HistoryStore::current_schema());
  EXPECT_TRUE(h->recovered().empty());
  HistoryRecord r = rec(2.0, 4.0, 5.4, {"precision.bf16_amp_over_fp32", "attention.sdpa_over_eager"}, "exceeded");
  r.environment = {{"driver", "580.159.04"}, {"pytorch", "2.11.0+cu130"}};
  r.ci_low = 5.0;
  r.ci_high = 5.5;
  r.significant = true;
  ASSERT_TRUE(h->add(r).ok());
  ASSERT_TRUE(h->add(rec(2.0, 4.0, 3.0, {"precision.bf16_amp_over_fp32"}, "held")).ok());
  auto all = h->all();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].rules.size(), 2u);
  EXPECT_EQ((*all)[0].environment["driver"], "580.159.04");
  EXPECT_EQ((*all)[0].significant, true);
  EXPECT_DOUBLE_EQ(*(*all)[0].ci_low, 5.0);
  auto cal = h->calibration();
  ASSERT_TRUE(cal.ok());
  ASSERT_EQ(cal->size(), 2u);
  EXPECT_EQ((*cal)[1].rule_id, "precision.bf16_amp_over_fp32");
  EXPECT_EQ((*cal)[1].audits, 2);
  EXPECT_EQ((*cal)[1].held, 1);
  EXPECT_EQ((*cal)[1].exceeded, 1);
  // Two matching audits: fewer than the three calibration needs, range unchanged.
  Calibrated c = h->calibrate({"precision.bf16_amp_over_fp32"}, "NVIDIA H100 80GB HBM3", 2.0, 4.0);
  EXPECT_FALSE(c.changed);
  EXPECT_EQ(c.matching_audits, 2);
  // A third one above its range: widened (one held, so not all on one side).
  ASSERT_TRUE(h->add(rec(2.0, 4.0, 6.0, {"precision.bf16_amp_over_fp32"}, "exceeded")).ok());
  c = h->calibrate({"precision.bf16_amp_over_fp32"}, "NVIDIA H100 80GB HBM3", 2.0, 4.0);
  EXPECT_TRUE(c.changed);
  EXPECT_EQ(c.action, "widened");
  EXPECT_DOUBLE_EQ(c.low, 2.0);
  EXPECT_NEAR(c.high, 6.0, 1e-9);  // covers 6.0 measured against the same midpoint
  // Another GPU's history does not count.
  EXPECT_FALSE(h->calibrate({"precision.bf16_amp_over_fp32"}, "AMD Instinct MI300X", 2.0, 4.0).changed);
}

TEST(History, ShiftWhenAlwaysAbove) {
  auto dir = goblin::testing::private_tmp_dir("history_shift");
  auto h = HistoryStore::open((dir / "h.sqlite").string());
  ASSERT_TRUE(h.ok());
  for (double m : {5.2, 5.4, 5.6}) ASSERT_TRUE(h->add(rec(2.0, 4.5, m, {"optim.fused_adamw"}, "exceeded")).ok());
  Calibrated c = h->calibrate({"optim.fused_adamw"}, "", 2.0, 4.5);
  EXPECT_EQ(c.action.rfind("shifted", 0), 0u) << c.reason;
  EXPECT_GT(c.low, 2.0);
  EXPECT_GE(c.high, 5.6 - 1e-9);
  EXPECT_NE(c.reason.find("above their range"), std::string::npos);
}

// A schema-1 file made by hand (the first shipped schema) migrates in place; its rows stay.
TEST(History, MigratesSchema1) {
  auto dir = goblin::testing::private_tmp_dir("history_migrate");
  std::string path = (dir / "h.sqlite").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* v1 =
      "CREATE TABLE audits (id INTEGER PRIMARY KEY, created TEXT NOT NULL, workload TEXT, config_path TEXT, gpu TEXT,"
      " runner_kind TEXT, environment TEXT, predicted_low REAL, predicted_high REAL, measured REAL, ci_low REAL,"
      " ci_high REAL, prediction_held TEXT);"
      "CREATE TABLE audit_rules (audit_id INTEGER NOT NULL REFERENCES audits(id), rule_id TEXT NOT NULL,"
      " PRIMARY KEY (audit_id, rule_id));"
      "INSERT INTO audits (created, workload, gpu, environment, predicted_low, predicted_high, measured,"
      " prediction_held) VALUES ('2026-11-22T09:44:00Z', 'base', 'NVIDIA H100 80GB HBM3', '{}', 1.77, 2.96, 5.44,"
      " 'exceeded');"
      "INSERT INTO audit_rules VALUES (1, 'precision.bf16_amp_over_fp32');"
      "PRAGMA user_version = 1; PRAGMA application_id = 396049;";
  ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto h = HistoryStore::open(path);
  ASSERT_TRUE(h.ok()) << h.error().describe();
  EXPECT_EQ(h->schema_version(), HistoryStore::current_schema());
  auto all = h->all();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_DOUBLE_EQ(*(*all)[0].measured, 5.44);
  EXPECT_EQ((*all)[0].round, 1);  // the new column's default
  EXPECT_EQ((*all)[0].rules, std::vector<std::string>{"precision.bf16_amp_over_fp32"});
  ASSERT_TRUE(h->add(rec(2, 4, 3, {"x"}, "held")).ok());  // and it takes new rows
}

// Not a database: set aside (kept byte for byte), a fresh store at the same path, a message
// naming both files.
TEST(History, CorruptFileSetAsideFreshStore) {
  auto dir = goblin::testing::private_tmp_dir("history_corrupt");
  std::string path = (dir / "history.sqlite").string();
  const std::string junk = "this is not an SQLite file, but somebody's notes\n";
  ASSERT_TRUE(write_file(path, junk).ok());
  auto h = HistoryStore::open(path);
  ASSERT_TRUE(h.ok()) << h.error().describe();
  ASSERT_FALSE(h->recovered().empty());
  EXPECT_NE(h->recovered().find("not a readable SQLite database"), std::string::npos) << h->recovered();
  EXPECT_NE(h->recovered().find("kept it as"), std::string::npos);
  EXPECT_EQ(h->schema_version(), HistoryStore::current_schema());
  int aside = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("history.sqlite.corrupt-", 0) == 0) {
      ++aside;
      EXPECT_EQ(*read_all(e.path().string()), junk);  // nothing lost
    }
  EXPECT_EQ(aside, 1);
  ASSERT_TRUE(h->add(rec(2, 4, 3, {"x"}, "held")).ok());
  // A valid SQLite file of another application is not ours either: set aside too.
  std::string other = (dir / "other.sqlite").string();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto o = HistoryStore::open(other);
  ASSERT_TRUE(o.ok());
  EXPECT_NE(o->recovered().find("foreign tables"), std::string::npos) << o->recovered();
}
