// The SQLite engine (docs/store.md § Engines): goblin's own database file, so it is opened
// read-write (core/sqlite_input.h is for SQLite files goblin did not write). Writers wait on each
// other through a busy timeout; a write transaction starts IMMEDIATE so two writers never both
// hold a read lock and then deadlock on the upgrade (SQLITE_BUSY without waiting).
#include <sqlite3.h>

#include <filesystem>

#include "store/engine.h"

namespace goblin::store {
namespace {

constexpr int kBusyTimeoutMs = 30000;

class SqliteEngine final : public Engine {
 public:
  SqliteEngine(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteEngine() override {
    if (in_tx_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }
  EngineKind kind() const override { return EngineKind::Sqlite; }

  Result<std::vector<Row>> query(const std::string& sql, const std::vector<Value>& params) override {
    std::vector<Row> rows;
    if (params.empty() && sql.find(';') != std::string::npos) {  // a script (schema steps)
      char* msg = nullptr;
      if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
        std::string m = msg ? msg : sqlite3_errmsg(db_);
        sqlite3_free(msg);
        return fail(m);
      }
      return rows;
    }
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &st, nullptr) != SQLITE_OK)
      return fail(sqlite3_errmsg(db_));
    for (size_t i = 0; i < params.size(); ++i) {
      const int n = static_cast<int>(i + 1);
      const Value& v = params[i];
      if (std::holds_alternative<int64_t>(v))
        sqlite3_bind_int64(st, n, std::get<int64_t>(v));
      else if (std::holds_alternative<double>(v))
        sqlite3_bind_double(st, n, std::get<double>(v));
      else if (std::holds_alternative<std::string>(v)) {
        const auto& s = std::get<std::string>(v);
        sqlite3_bind_text(st, n, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      } else
        sqlite3_bind_null(st, n);
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      const int cols = sqlite3_column_count(st);
      Row r(static_cast<size_t>(cols));
      for (int c = 0; c < cols; ++c) {
        if (sqlite3_column_type(st, c) == SQLITE_NULL) continue;
        const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
        r[static_cast<size_t>(c)] = std::string(t, static_cast<size_t>(sqlite3_column_bytes(st, c)));
      }
      rows.push_back(std::move(r));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return fail(sqlite3_errmsg(db_));
    return rows;
  }

  Status begin() override {
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) return fail(sqlite3_errmsg(db_));
    in_tx_ = true;
    return {};
  }
  Status commit() override {
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
      Error e = fail(sqlite3_errmsg(db_));
      rollback();
      return e;
    }
    in_tx_ = false;
    return {};
  }
  void rollback() override {
    if (in_tx_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    in_tx_ = false;
  }
  Result<bool> empty() override {
    ASSIGN_OR_RETURN(auto rows, query("SELECT count(*) FROM sqlite_master", {}));
    return rows.at(0).at(0).value_or("0") == "0";
  }
  Result<bool> has_table(const std::string& table) override {
    ASSIGN_OR_RETURN(auto rows, query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", {table}));
    return !rows.empty();
  }

 private:
  Error fail(const std::string& what) const { return make_error(ErrorKind::Io, "store: " + what, path_); }
  sqlite3* db_;
  std::string path_;
  bool in_tx_ = false;
};

}  // namespace

Result<std::unique_ptr<Engine>> open_sqlite(const std::string& path, bool create) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!create && !fs::exists(path, ec))
    return make_error(ErrorKind::NotFound, "store: no store at this path (goblin store init creates one)", path);
  if (create && fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), ec);
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Error e = make_error(ErrorKind::Io,
                         std::string("store: cannot open: ") + (db ? sqlite3_errmsg(db) : "out of memory"), path);
    sqlite3_close(db);
    return e;
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  // A file that is not SQLite fails here (SQLITE_NOTADB), before anything could write to it.
  auto eng = std::make_unique<SqliteEngine>(db, path);
  auto probe = eng->query("SELECT count(*) FROM sqlite_master", {});
  if (!probe)
    return make_error(ErrorKind::Malformed, "store: not a readable SQLite database (" + probe.error().message + ")",
                      path);
  return std::unique_ptr<Engine>(std::move(eng));
}

}  // namespace goblin::store
