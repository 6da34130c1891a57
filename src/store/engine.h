// The store's engine interface (docs/store.md § Engines): the few operations the store needs from a
// SQL database, implemented once for SQLite (sqlite_engine.cpp) and once for PostgreSQL
// (pg_engine.cpp). Statements are written once with `?` placeholders and bound values only: no
// user value is ever spliced into SQL text. The PostgreSQL engine renumbers `?` to `$n`.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/status.h"

namespace goblin::store {

// A bound parameter: NULL, an integer, a number or text.
using Value = std::variant<std::monostate, int64_t, double, std::string>;
// A result cell: NULL or the engine's text form of the value.
using Cell = std::optional<std::string>;
using Row = std::vector<Cell>;

enum class EngineKind { Sqlite, Postgres };

class Engine {
 public:
  virtual ~Engine() = default;
  virtual EngineKind kind() const = 0;
  // Runs a statement (or, without parameters, several separated by `;`) and returns its rows.
  virtual Result<std::vector<Row>> query(const std::string& sql, const std::vector<Value>& params = {}) = 0;
  // One transaction: everything between begin() and commit() lands, or (rollback, a crash, a
  // lost connection) none of it does.
  virtual Status begin() = 0;
  virtual Status commit() = 0;
  virtual void rollback() = 0;
  // Whether the database holds any table at all (an empty database may be initialised).
  virtual Result<bool> empty() = 0;
  // Whether `table` exists.
  virtual Result<bool> has_table(const std::string& table) = 0;
  // Whether the connection still answers (PostgreSQL: a round trip; a server restart or a
  // terminated backend makes it false). A store pool drops a connection that is not alive.
  virtual bool alive() { return true; }
  // The server-side session (PostgreSQL: the backend's process id; SQLite: empty), so a pool's
  // reuse and replacement of connections can be observed.
  virtual std::string session() const { return ""; }
};

// A parsed store URL. `redacted` is the URL as output may show it (no password).
struct StoreUrl {
  EngineKind kind = EngineKind::Sqlite;
  std::string path;      // SQLite: the database file
  std::string conninfo;  // PostgreSQL: the libpq connection URI
  std::string redacted;
};

// sqlite:///abs/path.db (absolute), sqlite://relative.db (relative to the working directory), a
// bare path ending in .db/.sqlite (SQLite), postgresql://... or postgres://... (a libpq URI,
// e.g. postgresql:///goblin?host=/run/postgresql). Anything else is a Usage error.
Result<StoreUrl> parse_store_url(const std::string& url);

// Opens the engine for a URL. SQLite: the file is created when `create` (its folder too), WAL
// journal, a busy timeout so concurrent writers wait instead of failing.
Result<std::unique_ptr<Engine>> open_sqlite(const std::string& path, bool create);
Result<std::unique_ptr<Engine>> open_postgres(const std::string& conninfo, const std::string& redacted);

}  // namespace goblin::store
