#include "app/store_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "store/engine.h"
#include "store/schema.h"

namespace goblin::app {

namespace {

// PostgreSQL's information_schema data_type → the SQLite column type of the copy (its affinity
// turns the engine's text form back into numbers).
std::string sqlite_type(const std::string& pg) {
  if (pg == "integer" || pg == "bigint" || pg == "smallint") return "INTEGER";
  if (pg == "double precision" || pg == "real" || pg == "numeric") return "REAL";
  return "TEXT";
}

std::string sql_identifier(const std::string& id) {
  std::string q = "\"";
  for (char c : id) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

Result<std::unique_ptr<query::Database>> copy_postgres(store::Engine& pg) {
  ASSIGN_OR_RETURN(auto db, query::Database::open_empty());
  RETURN_IF_ERROR(pg.query("START TRANSACTION READ ONLY"));
  ASSIGN_OR_RETURN(const auto tables,
                   pg.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                            "AND table_type = 'BASE TABLE' ORDER BY 1"));
  // Only goblin's own tables are copied: a schema shared with other applications may hold any
  // table (one of 1,500 columns is more than an SQLite copy takes), which is not the store's.
  const auto& ours = store::table_names();
  for (const store::Row& t : tables) {
    if (t.empty() || !t[0]) continue;
    const std::string& name = *t[0];
    if (std::find(ours.begin(), ours.end(), name) == ours.end()) continue;
    ASSIGN_OR_RETURN(const auto cols, pg.query("SELECT column_name, data_type FROM information_schema.columns WHERE "
                                               "table_schema = current_schema() AND table_name = ? ORDER BY "
                                               "ordinal_position",
                                               {name}));
    std::vector<std::string> names, types;
    for (const store::Row& c : cols) {
      names.push_back(c.size() > 0 && c[0] ? *c[0] : "");
      types.push_back(sqlite_type(c.size() > 1 && c[1] ? *c[1] : ""));
    }
    std::string select = "SELECT ";
    for (size_t i = 0; i < names.size(); ++i)
      fmt::format_to(std::back_inserter(select), "{}{}", i ? ", " : "", sql_identifier(names[i]));
    fmt::format_to(std::back_inserter(select), " FROM {}", sql_identifier(name));
    ASSIGN_OR_RETURN(const auto rows, pg.query(select));
    RETURN_IF_ERROR(db->add_table(name, names, types, rows));
  }
  pg.rollback();
  return db;
}

}  // namespace

Result<std::unique_ptr<query::Database>> open_store_database(const std::string& url) {
  ASSIGN_OR_RETURN(const store::StoreUrl u, store::parse_store_url(url));
  if (u.kind == store::EngineKind::Sqlite) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(u.path, ec))
      return make_error(ErrorKind::NotFound, fmt::format("no run store at {}", u.redacted), u.path);
    return query::Database::open_file_readonly(u.path);
  }
  ASSIGN_OR_RETURN(auto pg, store::open_postgres(u.conninfo, u.redacted));
  return copy_postgres(*pg);
}

}  // namespace goblin::app
