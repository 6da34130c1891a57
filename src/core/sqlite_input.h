// Reading an SQLite file goblin did not write (Nsight Systems exports, rocprof results.db), the
// one way every reader and the sniffer do it. An SQLite file is a program as much as data: a
// view named like a table can recurse forever or build a 50 MB string per row, a generated
// column can compute anything, a virtual table can call a module. So the file is
//  - opened through the confinement check (core/confine.h), read-only and `immutable=1` (no
//    journal, WAL or lock files are looked at), with views, triggers, ATTACH and untrusted schema
//    functions disabled;
//  - checked before reading: every table of the format that the file holds must be a plain table
//    (sqlite_master type 'table', not virtual, no generated column); a view, trigger or index
//    standing in for one is refused, naming the file, the object and what was expected;
//  - read under a budget (core/limits.h): value size (SQLITE_LIMIT_LENGTH), rows, SQLite VM
//    steps (a progress handler) and wall time. A limit passed is Malformed (exit 5), never a hang.
#pragma once
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace goblin {

struct SqliteBudget {
  uint64_t max_value_bytes = 0;  // 0: limits::kMaxSqliteValueBytes
  uint64_t max_rows = 0;         // 0: limits::kMaxSqliteRows
  uint64_t max_steps = 0;        // 0: kSqliteStepsBase + kSqliteStepsPerByte x file size
  int64_t max_seconds = 0;       // 0: limits::kMaxSqliteSeconds
};

class SqliteInput {
 public:
  // `what` names the format in every message ("Nsight Systems SQLite").
  static Result<std::unique_ptr<SqliteInput>> open(const std::string& path, std::string what, SqliteBudget budget = {});
  ~SqliteInput();
  SqliteInput(const SqliteInput&) = delete;
  SqliteInput& operator=(const SqliteInput&) = delete;

  sqlite3* db() const { return db_; }
  const std::string& path() const { return path_; }

  // Every schema object's name (tables, views, ...), for sniffing: no object is read.
  Result<std::set<std::string>> object_names();

  // Of the tables the format defines (`defined`), those this file holds; refuses the file when
  // one of those names is a view, trigger, index, virtual table or has generated columns.
  Result<std::set<std::string>> format_tables(std::initializer_list<std::string_view> defined);
  // The same for names known only once the file is listed (rocpd's per-run table suffixes).
  Result<std::set<std::string>> format_tables(const std::vector<std::string>& defined);

  // Prepares `sql` (the reader's own SQL); the statement is finalised with `out`.
  struct StmtDeleter {
    void operator()(sqlite3_stmt* st) const;
  };
  using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;
  Result<Stmt> prepare(const std::string& sql, const std::string& doing);

  // One step: true with a row, false when done; an error when the file is damaged or a limit
  // was passed (rows, steps, time, value size). `doing` says what was being read.
  Result<bool> step(sqlite3_stmt* st, const std::string& doing);

  // Runs `sql`, handing each row to `row(stmt)` until the statement is done; a failed step's
  // message says how many rows were read before it.
  template <class F>
  Status each_row(const std::string& sql, const std::string& doing, F&& row) {
    ASSIGN_OR_RETURN(Stmt st, prepare(sql, doing));
    for (int64_t n = 0;; ++n) {
      Result<bool> more = step(st.get(), n == 0 ? doing : fmt::format("{} after {} rows", doing, n));
      if (!more.ok()) return more.error();
      if (!*more) return Status::Ok();
      row(st.get());
    }
  }

  // The error for the connection's last failure: Malformed for damage (corrupt, truncated, not
  // a database) and for a limit passed (naming it), Io otherwise; damage errors end with the
  // reader's note (set_damage_note: what was kept, say).
  Error error(const std::string& doing) const;
  void set_damage_note(std::string note) { damage_note_ = std::move(note); }

 private:
  SqliteInput() = default;
  static int on_progress(void* self);

  sqlite3* db_ = nullptr;
  std::string path_, what_, damage_note_;
  uint64_t max_value_bytes_ = 0, max_rows_ = 0, max_steps_ = 0;
  uint64_t rows_ = 0, steps_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  int64_t max_seconds_ = 0;
  const char* stopped_ = nullptr;  // the limit the progress handler or the row count stopped at
};

}  // namespace goblin
