// SQL over traces: an SQLite connection whose tables (query/tables.h) are virtual tables reading
// the columnar Timelines in place — nothing is copied before the first query answers — and a
// runner that executes one statement under goblin's bounds. The Python module and every door use
// the same two calls: Database::open (Timelines → database) and Database::run (SQL → columns and
// rows).
//
// Safety (docs/query.md § Safety): read-only unless the caller asked for a writable database
// (--db): an authorizer refuses writes to the trace tables, every schema change, ATTACH/DETACH,
// load_extension and PRAGMAs other than a short list of read-only ones (writable_schema never);
// extension loading is off at the connection; SQLite's limits are lowered (core/limits.h); a
// progress handler stops a statement at its deadline. A bad statement is a Usage error with
// SQLite's message and the byte position in the statement (sqlite3_error_offset).
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/status.h"
#include "query/tables.h"

struct sqlite3;

namespace goblin::query {

// Bounds on SQL a user types (docs/query.md § Safety; core/limits.h's input limits are for files
// goblin reads): a statement of at most kMaxQuerySqlBytes, a value (string or blob) of at most
// kMaxQueryValueBytes, at most kMaxQueryColumns columns, expression depth kMaxQueryExprDepth; a
// statement runs at most kDefaultQuerySeconds unless --timeout says otherwise (a recursive CTE
// that never ends is stopped, never a hang). JSON results (the MCP door) hold at most
// kMaxQueryJsonRows rows (the result says it was cut); the CLI's table and CSV stream every row.
inline constexpr int kMaxQuerySqlBytes = 1 << 20;
inline constexpr int kMaxQueryValueBytes = 64 << 20;
inline constexpr int kMaxQueryColumns = 1000;
inline constexpr int kMaxQueryExprDepth = 500;
inline constexpr int64_t kDefaultQuerySeconds = 600;
inline constexpr int64_t kMaxQueryJsonRows = 100'000;
// The values a JSON result holds, in bytes (text as its length, a number or NULL as 8): a short
// statement can make rows of any size (`printf('%.60000c', 'x')` a row), and a JSON result is
// held whole before it is written. Past it the result is cut and says so; the CLI's table and
// CSV stream instead. An agent's (MCP) results are cut far sooner: a model reads them.
inline constexpr int64_t kMaxQueryJsonBytes = 32 << 20;
inline constexpr int64_t kMaxQueryMcpJsonBytes = 1 << 20;

// A result value: NULL, integer, real or text (blobs come back as text).
using Value = std::variant<std::monostate, int64_t, double, std::string>;

struct RunOptions {
  std::chrono::milliseconds timeout{0};  // 0: limits::kDefaultQuerySeconds
  // Called while a statement runs past progress_after, every progress_every: the rows the trace
  // tables have yielded so far and the seconds since the statement started (the CLI's progress
  // line on stderr). Absent: nothing is reported.
  std::function<void(uint64_t rows, double seconds)> progress;
  std::chrono::milliseconds progress_after{3000}, progress_every{500};
};

// Receives a statement's result as it is produced (rows are never all held in memory).
struct RowSink {
  virtual ~RowSink() = default;
  virtual void columns(const std::vector<std::string>& names) = 0;
  // Returns false to stop early (a row cap).
  virtual bool row(const std::vector<Value>& values) = 0;
};

class Database {
 public:
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // An in-memory database whose tables read `traces` (kept alive by the caller) through virtual
  // tables. `writable`: the user's SQL may create and change its own tables (--db); the trace
  // tables are materialized into plain tables first (materialize()).
  static Result<std::unique_ptr<Database>> open(std::vector<TraceRef> traces,
                                                std::shared_ptr<const analysis::AnalysisKnowledge> knowledge);

  // SQL over the run store (`goblin query --store`, docs/query.md § The run store): the store's
  // SQLite file opened read-only, or an empty in-memory database the caller fills with
  // add_table (the copy of a PostgreSQL store). Both under the same authorizer and limits as the
  // trace tables; no statement can write.
  static Result<std::unique_ptr<Database>> open_file_readonly(const std::string& path);
  static Result<std::unique_ptr<Database>> open_empty();
  // Creates table `name` (columns with their SQL types) in the main schema and fills it with
  // `rows` (text values, NULL as nullopt; a column's type affinity converts numbers).
  Status add_table(const std::string& name, const std::vector<std::string>& columns,
                   const std::vector<std::string>& sql_types,
                   const std::vector<std::vector<std::optional<std::string>>>& rows);

  // Copies every trace table into a plain table of the main schema (the virtual tables are
  // dropped), so the database stands alone: what --db and `export --format sqlite` save.
  Status materialize();
  // The whole database as an SQLite file image (sqlite3_serialize), to be written through
  // AtomicFile by the caller. Its header's application_id is kQueryApplicationId, so a later
  // --db knows the file as goblin's own.
  Result<std::string> image();

  // Runs every statement of `sql` in turn (the last one's rows go to `sink`). `writable` lets
  // the statements change the user's own tables (after materialize(); --db).
  Status run(const std::string& sql, RowSink& sink, const RunOptions& opt = {}, bool writable = false);

  // Table `name` whole, column by column, read from the traces without SQL (TableData::scan):
  // the rows and values of `SELECT * FROM name`. Only on trace tables (not a store, not after
  // materialize()).
  Result<std::vector<ColumnData>> scan_table(const std::string& name);

  sqlite3* handle() { return db_; }

 private:
  Database() = default;
  Status guard();  // limits, printf guard, authorizer, progress handler
  sqlite3* db_ = nullptr;
  bool store_ = false;  // a run-store database (open_file_readonly / open_empty): never writable
  std::unique_ptr<TableData> data_;
  bool materialized_ = false;
  bool writable_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::steady_clock::time_point started_, next_report_;
  std::function<void(uint64_t, double)> report_;
  std::chrono::milliseconds report_every_{0};
  friend int authorize(void*, int, const char*, const char*, const char*, const char*);
  friend int progress(void*);
};

// The application_id (SQLite header, offset 68) of the databases goblin query --db and export
// --format sqlite write: "GBLQ".
inline constexpr uint32_t kQueryApplicationId = 0x47424C51;

// Whether `path` may be replaced by a query database: it does not exist, or it is a regular file
// that is an SQLite database carrying kQueryApplicationId. Anything else (another SQLite
// database, a trace, a device, a folder) is refused with a message naming the path, so --db never
// destroys a file goblin did not write.
Status check_replaceable_query_database(const std::string& path);

}  // namespace goblin::query
