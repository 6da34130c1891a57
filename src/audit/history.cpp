// The audit history store: schema, migrations, calibration (docs/audit.md § History).
#include "audit/history.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "core/clock.h"

namespace fs = std::filesystem;

namespace goblin::audit {
namespace {

constexpr int kApplicationId = 0x0060B11;  // PRAGMA application_id of a goblin history file

// Migration i takes schema i to i + 1 (PRAGMA user_version). Never edit a shipped step: add one.
const char* const kMigrations[] = {
    // 0 -> 1: audits and the rules each applied.
    "CREATE TABLE audits ("
    " id INTEGER PRIMARY KEY, created TEXT NOT NULL, workload TEXT, config_path TEXT, gpu TEXT,"
    " runner_kind TEXT, environment TEXT, predicted_low REAL, predicted_high REAL,"
    " measured REAL, ci_low REAL, ci_high REAL, prediction_held TEXT);"
    "CREATE TABLE audit_rules (audit_id INTEGER NOT NULL REFERENCES audits(id), rule_id TEXT NOT NULL,"
    " PRIMARY KEY (audit_id, rule_id));",
    // 1 -> 2: how the range was made, significance, the round of a multi-round audit, calibration.
    "ALTER TABLE audits ADD COLUMN prediction_method TEXT;"
    "ALTER TABLE audits ADD COLUMN significant INTEGER;"
    "ALTER TABLE audits ADD COLUMN round INTEGER NOT NULL DEFAULT 1;"
    "ALTER TABLE audits ADD COLUMN calibration TEXT;"
    "CREATE INDEX audit_rules_by_rule ON audit_rules(rule_id);",
};
constexpr int kSchema = static_cast<int>(sizeof kMigrations / sizeof kMigrations[0]);

struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

Error db_error(sqlite3* db, const std::string& what, const std::string& path) {
  return make_error(ErrorKind::Io, "audit history: " + what + ": " + (db ? sqlite3_errmsg(db) : "no database"), path);
}

Result<int> pragma_int(sqlite3* db, const char* sql, const std::string& path) {
  Stmt st;
  if (sqlite3_prepare_v2(db, sql, -1, &st.s, nullptr) != SQLITE_OK) return db_error(db, sql, path);
  if (sqlite3_step(st.s) != SQLITE_ROW) return db_error(db, sql, path);
  return sqlite3_column_int(st.s, 0);
}

// Opens and checks an existing/new file; an error when it is not a usable goblin history.
Result<sqlite3*> open_checked(const std::string& path, int* version) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    Error e = db_error(db, "cannot open", path);
    sqlite3_close(db);
    return e;
  }
  sqlite3_busy_timeout(db, 5000);
  auto fail = [&](Error e) -> Result<sqlite3*> {
    sqlite3_close(db);
    return e;
  };
  {
    Stmt st;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st.s, nullptr) != SQLITE_OK ||
        sqlite3_step(st.s) != SQLITE_ROW)
      return fail(db_error(db, "not a readable SQLite database", path));
    std::string r = reinterpret_cast<const char*>(sqlite3_column_text(st.s, 0));
    if (r != "ok") return fail(make_error(ErrorKind::Malformed, "audit history: integrity check failed: " + r, path));
  }
  auto app = pragma_int(db, "PRAGMA application_id", path);
  auto ver = pragma_int(db, "PRAGMA user_version", path);
  if (!app || !ver) return fail(app ? ver.error() : app.error());
  if (*app != 0 && *app != kApplicationId)
    return fail(make_error(ErrorKind::Malformed, "audit history: an SQLite file of another application", path));
  if (*app == 0 && *ver == 0) {
    auto n = pragma_int(db, "SELECT count(*) FROM sqlite_master", path);
    if (!n) return fail(n.error());
    if (*n > 0)
      return fail(make_error(ErrorKind::Malformed, "audit history: an SQLite file with foreign tables", path));
  }
  *version = *ver;
  return db;
}

std::optional<double> col_opt(sqlite3_stmt* s, int i) {
  if (sqlite3_column_type(s, i) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(s, i);
}
std::string col_str(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

}  // namespace

std::string default_history_path() {
  if (const char* e = std::getenv("GOBLIN_HISTORY"); e && *e) return e;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/goblin/history.sqlite";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/share/goblin/history.sqlite";
}

HistoryStore::~HistoryStore() {
  if (db_) sqlite3_close(db_);
}
HistoryStore::HistoryStore(HistoryStore&& o) noexcept
    : db_(o.db_), path_(std::move(o.path_)), recovered_(std::move(o.recovered_)) {
  o.db_ = nullptr;
}
HistoryStore& HistoryStore::operator=(HistoryStore&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close(db_);
    db_ = o.db_;
    o.db_ = nullptr;
    path_ = std::move(o.path_);
    recovered_ = std::move(o.recovered_);
  }
  return *this;
}

int HistoryStore::current_schema() { return kSchema; }

Result<HistoryStore> HistoryStore::open(const std::string& path) {
  HistoryStore h;
  h.path_ = path;
  std::error_code ec;
  if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), ec);
  int version = 0;
  auto db = open_checked(path, &version);
  if (!db) {
    if (version > kSchema) return db.error();
    // Keep the damaged file beside the new one; never delete it.
    std::string stamp = now_iso8601();
    std::replace(stamp.begin(), stamp.end(), ':', '-');
    std::string aside = path + ".corrupt-" + stamp;
    for (int n = 2; fs::exists(aside, ec); ++n) aside = path + ".corrupt-" + stamp + "-" + fmt::to_string(n);
    fs::rename(path, aside, ec);
    if (ec)
      return make_error(ErrorKind::Io, db.error().message + "; and it cannot be moved aside (" + ec.message() + ")",
                        path);
    for (const char* sfx : {"-journal", "-wal", "-shm"}) fs::rename(path + sfx, aside + sfx, ec);
    h.recovered_ = db.error().message + " (" + path + "); kept it as " + aside + " and started a fresh history";
    db = open_checked(path, &version);
    if (!db) return db.error();
  }
  h.db_ = *db;
  if (version > kSchema)
    return make_error(ErrorKind::Environment,
                      "audit history: schema " + fmt::to_string(version) + " is newer than this goblin's (" +
                          fmt::to_string(kSchema) + "); use a newer goblin or --history PATH",
                      path);
  for (int v = version; v < kSchema; ++v) {
    std::string sql = std::string("BEGIN;") + kMigrations[v] + "PRAGMA user_version = " + fmt::to_string(v + 1) +
                      "; PRAGMA application_id = " + fmt::to_string(kApplicationId) + "; COMMIT;";
    char* err = nullptr;
    if (sqlite3_exec(h.db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string m = err ? err : "?";
      sqlite3_free(err);
      sqlite3_exec(h.db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return make_error(ErrorKind::Io, "audit history: migration to schema " + fmt::to_string(v + 1) + ": " + m, path);
    }
  }
  return h;
}

int HistoryStore::schema_version() const {
  auto v = pragma_int(db_, "PRAGMA user_version", path_);
  return v ? *v : -1;
}

Result<int64_t> HistoryStore::add(const HistoryRecord& r) {
  Stmt st;
  const char* sql =
      "INSERT INTO audits (created, workload, config_path, gpu, runner_kind, environment, predicted_low, "
      "predicted_high, measured, ci_low, ci_high, prediction_held, prediction_method, significant, round, "
      "calibration) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  if (sqlite3_prepare_v2(db_, sql, -1, &st.s, nullptr) != SQLITE_OK) return db_error(db_, "insert", path_);
  int i = 1;
  auto text = [&](const std::string& v) { sqlite3_bind_text(st.s, i++, v.c_str(), -1, SQLITE_TRANSIENT); };
  auto real = [&](const std::optional<double>& v) {
    if (v && std::isfinite(*v))
      sqlite3_bind_double(st.s, i++, *v);
    else
      sqlite3_bind_null(st.s, i++);
  };
  text(r.created.empty() ? now_iso8601() : r.created);
  text(r.workload);
  text(r.config_path);
  text(r.gpu);
  text(r.runner_kind);
  text(r.environment.dump());
  real(r.predicted_low);
  real(r.predicted_high);
  real(r.measured);
  real(r.ci_low);
  real(r.ci_high);
  text(r.prediction_held);
  text(r.prediction_method);
  if (r.significant)
    sqlite3_bind_int(st.s, i++, *r.significant ? 1 : 0);
  else
    sqlite3_bind_null(st.s, i++);
  sqlite3_bind_int(st.s, i++, r.round);
  text(r.calibration);
  if (sqlite3_step(st.s) != SQLITE_DONE) return db_error(db_, "insert", path_);
  int64_t id = sqlite3_last_insert_rowid(db_);
  for (const auto& rule : r.rules) {
    Stmt rs;
    if (sqlite3_prepare_v2(db_, "INSERT OR IGNORE INTO audit_rules (audit_id, rule_id) VALUES (?, ?)", -1, &rs.s,
                           nullptr) != SQLITE_OK)
      return db_error(db_, "insert rule", path_);
    sqlite3_bind_int64(rs.s, 1, id);
    sqlite3_bind_text(rs.s, 2, rule.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(rs.s) != SQLITE_DONE) return db_error(db_, "insert rule", path_);
  }
  return id;
}

Result<std::vector<HistoryRecord>> HistoryStore::all() const {
  std::vector<HistoryRecord> out;
  Stmt st;
  const char* sql =
      "SELECT id, created, workload, config_path, gpu, runner_kind, environment, predicted_low, predicted_high, "
      "measured, ci_low, ci_high, prediction_held, prediction_method, significant, round, calibration "
      "FROM audits ORDER BY id";
  if (sqlite3_prepare_v2(db_, sql, -1, &st.s, nullptr) != SQLITE_OK) return db_error(db_, "read", path_);
  std::map<int64_t, size_t> by_id;
  while (sqlite3_step(st.s) == SQLITE_ROW) {
    HistoryRecord r;
    r.created = col_str(st.s, 1);
    r.workload = col_str(st.s, 2);
    r.config_path = col_str(st.s, 3);
    r.gpu = col_str(st.s, 4);
    r.runner_kind = col_str(st.s, 5);
    r.environment = Json::parse(col_str(st.s, 6), nullptr, false);
    if (r.environment.is_discarded()) r.environment = Json::object();
    r.predicted_low = col_opt(st.s, 7);
    r.predicted_high = col_opt(st.s, 8);
    r.measured = col_opt(st.s, 9);
    r.ci_low = col_opt(st.s, 10);
    r.ci_high = col_opt(st.s, 11);
    r.prediction_held = col_str(st.s, 12);
    r.prediction_method = col_str(st.s, 13);
    if (sqlite3_column_type(st.s, 14) != SQLITE_NULL) r.significant = sqlite3_column_int(st.s, 14) != 0;
    r.round = sqlite3_column_int(st.s, 15);
    r.calibration = col_str(st.s, 16);
    by_id[sqlite3_column_int64(st.s, 0)] = out.size();
    out.push_back(std::move(r));
  }
  Stmt rs;
  if (sqlite3_prepare_v2(db_, "SELECT audit_id, rule_id FROM audit_rules ORDER BY audit_id, rule_id", -1, &rs.s,
                         nullptr) != SQLITE_OK)
    return db_error(db_, "read rules", path_);
  while (sqlite3_step(rs.s) == SQLITE_ROW) {
    auto it = by_id.find(sqlite3_column_int64(rs.s, 0));
    if (it != by_id.end()) out[it->second].rules.push_back(col_str(rs.s, 1));
  }
  return out;
}

// The history's rounds as calibration reads them (audit/calibration.h).
Result<std::vector<PastPrediction>> HistoryStore::past_predictions() const {
  ASSIGN_OR_RETURN(auto recs, all());
  std::vector<PastPrediction> out;
  out.reserve(recs.size());
  for (auto& r : recs)
    out.push_back({std::move(r.gpu), std::move(r.rules), r.predicted_low, r.predicted_high, r.measured,
                   std::move(r.prediction_held)});
  return out;
}

Result<std::vector<RuleCalibration>> HistoryStore::calibration() const { return calibration_by_rule(*this); }

Calibrated HistoryStore::calibrate(const std::vector<std::string>& rules, const std::string& gpu, double low,
                                   double high, int min_audits) const {
  return audit::calibrate(*this, rules, gpu, low, high, min_audits);
}

}  // namespace goblin::audit
