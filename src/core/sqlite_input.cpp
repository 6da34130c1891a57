#include "core/sqlite_input.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cctype>
#include <filesystem>
#include <map>

#include "core/confine.h"
#include "core/limits.h"

namespace goblin {

namespace {

// SQLite's URI form of a path: "file:" + the path with every byte outside [A-Za-z0-9-._~/]
// percent-encoded ('?', '#' and '%' in a file name would otherwise be read as URI syntax).
std::string file_uri(const std::string& path, const char* params) {
  static const char* hex = "0123456789ABCDEF";
  std::string u = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      u += static_cast<char>(c);
    } else {
      u += '%';
      u += hex[c >> 4];
      u += hex[c & 15];
    }
  }
  return u + "?" + params;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string col_text(sqlite3_stmt* st, int i) {
  const auto* t = sqlite3_column_text(st, i);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, i)))
           : std::string();
}

constexpr int kProgressEvery = 1000;  // VM steps between two progress-handler calls

}  // namespace

void SqliteInput::StmtDeleter::operator()(sqlite3_stmt* st) const { sqlite3_finalize(st); }

SqliteInput::~SqliteInput() { sqlite3_close(db_); }

Result<std::unique_ptr<SqliteInput>> SqliteInput::open(const std::string& path, std::string what, SqliteBudget budget) {
  RETURN_IF_ERROR(check_readable(path));  // SQLite opens the path itself: confined first
  std::unique_ptr<SqliteInput> in(new SqliteInput());
  in->path_ = path;
  in->what_ = std::move(what);
  std::error_code ec;
  const uint64_t bytes = std::filesystem::file_size(path, ec);
  in->max_value_bytes_ = budget.max_value_bytes ? budget.max_value_bytes : limits::kMaxSqliteValueBytes;
  in->max_rows_ = budget.max_rows ? budget.max_rows : limits::kMaxSqliteRows;
  in->max_steps_ =
      budget.max_steps ? budget.max_steps : limits::kSqliteStepsBase + limits::kSqliteStepsPerByte * (ec ? 0 : bytes);
  in->max_seconds_ = budget.max_seconds ? budget.max_seconds : limits::kMaxSqliteSeconds;
  in->deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(in->max_seconds_);

  // immutable=1: the file is a finished export that nobody writes while we read; SQLite then
  // takes no lock and reads no -journal/-wal file beside it (which a hostile directory could hold).
  const std::string uri = file_uri(path, "immutable=1");
  int rc = sqlite3_open_v2(uri.c_str(), &in->db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    const int c = rc & 0xff;
    const bool damaged = c == SQLITE_CORRUPT || c == SQLITE_NOTADB || c == SQLITE_FORMAT;
    return make_error(damaged ? ErrorKind::Malformed : ErrorKind::Io,
                      "cannot open as SQLite: " + std::string(in->db_ ? sqlite3_errmsg(in->db_) : sqlite3_errstr(rc)),
                      path);
  }
  sqlite3* db = in->db_;
  // What the file may make SQLite do (sqlite.org/security.html, "untrusted database files").
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, static_cast<int>(std::min<uint64_t>(in->max_value_bytes_, 1u << 30)));
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_progress_handler(db, kProgressEvery, &SqliteInput::on_progress, in.get());
  return in;
}

int SqliteInput::on_progress(void* p) {
  auto* self = static_cast<SqliteInput*>(p);
  self->steps_ += kProgressEvery;
  if (self->steps_ > self->max_steps_) {
    self->stopped_ = "steps";
    return 1;
  }
  // The clock is read every 64 calls (~64,000 steps, well under a millisecond).
  if ((self->steps_ / kProgressEvery) % 64 == 0 && std::chrono::steady_clock::now() > self->deadline_) {
    self->stopped_ = "time";
    return 1;
  }
  return 0;
}

Error SqliteInput::error(const std::string& doing) const {
  const std::string head = what_ + ": " + doing + ": ";
  const std::string_view stopped = stopped_ ? stopped_ : "";
  if (stopped == "rows")
    return make_error(ErrorKind::Malformed,
                      head + "more than " + fmt::format("{}", max_rows_) +
                          " rows in one file (the limit); rows read before it were kept",
                      path_);
  if (stopped == "steps")
    return make_error(ErrorKind::Malformed,
                      head + "stopped after " + fmt::format("{}", max_steps_) +
                          " SQLite steps (the limit for this file's size): a table that does not end or damage; "
                          "rows read before it were kept",
                      path_);
  if (stopped == "time")
    return make_error(ErrorKind::Malformed,
                      head + "stopped after " + fmt::format("{}", max_seconds_) +
                          " s (the time limit for one SQLite file); rows read before it were kept",
                      path_);
  const int code = sqlite3_errcode(db_) & 0xff;
  if (code == SQLITE_TOOBIG)
    return make_error(ErrorKind::Malformed,
                      head + "a string, blob or row longer than " + fmt::format("{}", max_value_bytes_) +
                          " bytes (the limit for one value); rows read before it were kept",
                      path_);
  const bool damaged = code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == SQLITE_IOERR || code == SQLITE_FORMAT;
  return make_error(damaged ? ErrorKind::Malformed : ErrorKind::Io,
                    head + sqlite3_errmsg(db_) + (damaged ? damage_note_ : std::string()), path_);
}

Result<SqliteInput::Stmt> SqliteInput::prepare(const std::string& sql, const std::string& doing) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    sqlite3_finalize(st);
    return error(doing);
  }
  return Stmt(st);
}

Result<bool> SqliteInput::step(sqlite3_stmt* st, const std::string& doing) {
  const int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    if (++rows_ > max_rows_) {
      stopped_ = "rows";
      return error(doing);
    }
    return true;
  }
  if (rc == SQLITE_DONE) return false;
  return error(doing);
}

Result<std::set<std::string>> SqliteInput::object_names() {
  ASSIGN_OR_RETURN(Stmt st, prepare("SELECT name FROM sqlite_master", "listing tables"));
  std::set<std::string> names;
  while (true) {
    ASSIGN_OR_RETURN(bool row, step(st.get(), "listing tables"));
    if (!row) break;
    names.insert(col_text(st.get(), 0));
  }
  return names;
}

Result<std::set<std::string>> SqliteInput::format_tables(std::initializer_list<std::string_view> defined) {
  return format_tables(std::vector<std::string>(defined.begin(), defined.end()));
}

Result<std::set<std::string>> SqliteInput::format_tables(const std::vector<std::string>& defined) {
  std::map<std::string, std::string> wanted;  // lower-case name → the format's spelling
  for (const std::string& d : defined) wanted.emplace(lower(d), d);
  auto refuse = [&](const std::string& name, const std::string& is) -> Error {
    return make_error(ErrorKind::Malformed,
                      what_ + ": \"" + name + "\" is " + is +
                          ", where the format defines a plain table of that name; " +
                          "the file is not read (a view or computed column can run without end or build huge values)",
                      path_);
  };
  std::set<std::string> present;
  {
    ASSIGN_OR_RETURN(Stmt st, prepare("SELECT type, name, sql FROM sqlite_master", "listing tables"));
    while (true) {
      ASSIGN_OR_RETURN(bool row, step(st.get(), "listing tables"));
      if (!row) break;
      const std::string type = col_text(st.get(), 0), name = col_text(st.get(), 1);
      auto it = wanted.find(lower(name));
      if (it == wanted.end()) continue;
      if (type != "table") return refuse(name, (type == "index" ? "an " : "a ") + type);
      std::string sql = lower(col_text(st.get(), 2));
      sql.erase(0, sql.find_first_not_of(" \t\r\n"));
      if (sql.rfind("create virtual", 0) == 0) return refuse(name, "a virtual table");
      present.insert(it->second);
    }
  }
  for (const std::string& t : present) {
    // hidden: 0 a column, 1 a virtual table's hidden column, 2/3 a generated column.
    ASSIGN_OR_RETURN(Stmt st, prepare("PRAGMA table_xinfo(\"" + t + "\")", "reading the columns of " + t));
    while (true) {
      ASSIGN_OR_RETURN(bool row, step(st.get(), "reading the columns of " + t));
      if (!row) break;
      if (sqlite3_column_int64(st.get(), 6) != 0)
        return refuse(t, "a table with the computed column \"" + col_text(st.get(), 1) + "\"");
    }
  }
  return present;
}

}  // namespace goblin
