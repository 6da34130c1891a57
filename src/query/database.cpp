#include "query/database.h"

#include <fmt/format.h>
#include <sqlite3.h>
#include <strings.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/io.h"

namespace goblin::query {

namespace {

// ---- the virtual table: one per trace table, reading TableData in place ---------------------

struct VTab {
  sqlite3_vtab base{};
  TableData* data = nullptr;
  size_t table = 0;
};

struct Cursor {
  sqlite3_vtab_cursor base{};
  size_t trace = 0, row = 0, rows = 0;
  // A scan through a list of rows (trace << 40 | row) instead of in table order: an ordered scan
  // (xBestIndex consumed ORDER BY / GROUP BY of one column: TableData::order, read backwards for
  // DESC) or an index lookup (positions [pos, end) of a TableData::index).
  const uint64_t* list = nullptr;
  bool listed = false;
  size_t pos = 0, end = 0;
  bool desc = false;
  void place() {
    const uint64_t v = list[desc ? end - 1 - pos : pos];
    trace = static_cast<size_t>(v >> 40);
    row = static_cast<size_t>(v & ((uint64_t{1} << 40) - 1));
  }
};

VTab* vtab_of(sqlite3_vtab_cursor* c) { return reinterpret_cast<VTab*>(c->pVtab); }

int vt_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err) {
  if (argc < 4) {
    *err = sqlite3_mprintf("goblin table: missing table name");
    return SQLITE_ERROR;
  }
  const std::string want = argv[3];
  const auto& infos = table_infos();
  for (size_t t = 0; t < infos.size(); ++t) {
    if (infos[t].name != want) continue;
    std::string decl = "CREATE TABLE x(";
    for (size_t c = 0; c < infos[t].columns.size(); ++c)
      fmt::format_to(std::back_inserter(decl), "{}{} {}", c ? ", " : "", infos[t].columns[c].name,
                     sql_type_name(infos[t].columns[c].type));
    decl += ")";
    if (int rc = sqlite3_declare_vtab(db, decl.c_str()); rc != SQLITE_OK) return rc;
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    auto* v = new VTab;
    v->data = static_cast<TableData*>(aux);
    v->table = t;
    *out = &v->base;
    return SQLITE_OK;
  }
  *err = sqlite3_mprintf("goblin table: unknown table %s", want.c_str());
  return SQLITE_ERROR;
}

int vt_disconnect(sqlite3_vtab* v) {
  delete reinterpret_cast<VTab*>(v);
  return SQLITE_OK;
}

// idxNum of a plan: the column << 8, and bit 0 an ordered scan (bit 1: DESC) or bit 2 an index lookup on
// the column with the bounds below (their values in argv in this order: =, lower, upper).
constexpr int kOrdered = 1, kDesc = 2, kLookup = 4, kEq = 8, kLower = 16, kLowerStrict = 32, kUpper = 64,
              kUpperStrict = 128;

// The planner's choices: a full scan (the tables are columns in memory: a scan of 5 M rows is
// cheap), or, on an INTEGER column of a model table, an equality or range lookup through the
// column's sorted index (TableData::index). The costs say what the work is: a scan reads every
// row; a lookup is a binary search plus the rows it yields (an equality: equal_rows; a range: a
// quarter of the table per bound, a sixteenth for two, guesses like SQLite's own). So a join on ids
// (external_id, correlation, id, parent_id, ...) runs as lookups, never a nested scan. A lookup
// leaves its constraints to SQLite to check again (omit = 0): the index may return a superset (a
// text or real bound), never fewer rows.
// The rows an equality on a column yields, as the planner is told: one on `id`, a few on an id or
// a time (external_id, correlation, parent_id, start_ns, ...), a tenth of the table on anything
// else (device, stream, tid, rank, depth, step: few distinct values), so the planner never takes
// a lookup on `device` for a selective one.
double equal_rows(const std::string& column, double rows) {
  static const std::array<const char*, 11> kSelective = {
      "external_id", "correlation", "parent_id", "sequence_number", "python_id", "python_parent_id",
      "cpu_op",      "seq",         "start_ns",  "end_ns",          "ts_ns"};
  if (column == "id") return 1;
  for (const char* s : kSelective)
    if (column == s) return std::min(rows + 1, 8.0);
  return rows / 10 + 1;
}

int vt_best_index(sqlite3_vtab* v, sqlite3_index_info* info) {
  auto* t = reinterpret_cast<VTab*>(v);
  double rows = 0;
  for (size_t i = 0; i < t->data->trace_count(); ++i)
    if (!table_infos()[t->table].analysis) rows += static_cast<double>(t->data->rows(t->table, i));
  info->estimatedCost = rows + 10;
  info->estimatedRows = static_cast<sqlite3_int64>(rows + 1);
  const double search = std::log2(rows + 2);
  struct Plan {
    int eq = -1, lower = -1, upper = -1;  // constraint indexes
    double rows = 0;
  };
  int best_col = -1;
  Plan best;
  best.rows = rows + 1;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || !t->data->can_index(t->table, c.iColumn)) continue;
    Plan p;
    switch (c.op) {
      case SQLITE_INDEX_CONSTRAINT_EQ:
        p.eq = i;
        p.rows = equal_rows(table_infos()[t->table].columns[static_cast<size_t>(c.iColumn)].name, rows);
        break;
      case SQLITE_INDEX_CONSTRAINT_GT:
      case SQLITE_INDEX_CONSTRAINT_GE:
      case SQLITE_INDEX_CONSTRAINT_LT:
      case SQLITE_INDEX_CONSTRAINT_LE: {
        const bool lower = c.op == SQLITE_INDEX_CONSTRAINT_GT || c.op == SQLITE_INDEX_CONSTRAINT_GE;
        // The other bound on the same column, when there is one.
        (lower ? p.lower : p.upper) = i;
        for (int j = 0; j < info->nConstraint; ++j) {
          const auto& o = info->aConstraint[j];
          if (j == i || !o.usable || o.iColumn != c.iColumn) continue;
          const bool olower = o.op == SQLITE_INDEX_CONSTRAINT_GT || o.op == SQLITE_INDEX_CONSTRAINT_GE;
          const bool oupper = o.op == SQLITE_INDEX_CONSTRAINT_LT || o.op == SQLITE_INDEX_CONSTRAINT_LE;
          if (lower && oupper && p.upper < 0) p.upper = j;
          if (!lower && olower && p.lower < 0) p.lower = j;
        }
        p.rows = (rows + 1) / (p.lower >= 0 && p.upper >= 0 ? 16 : 4);
        break;
      }
      default:
        continue;
    }
    if (p.rows < best.rows) {
      best = p;
      best_col = c.iColumn;
    }
  }
  if (best_col >= 0) {
    int flags = kLookup | (best_col << 8), argv = 0;
    auto use = [&](int i, int flag) {
      info->aConstraintUsage[i].argvIndex = ++argv;
      info->aConstraintUsage[i].omit = 0;
      flags |= flag;
      const int op = info->aConstraint[i].op;
      if (op == SQLITE_INDEX_CONSTRAINT_GT) flags |= kLowerStrict;
      if (op == SQLITE_INDEX_CONSTRAINT_LT) flags |= kUpperStrict;
    };
    if (best.eq >= 0) {
      use(best.eq, kEq);
    } else {
      if (best.lower >= 0) use(best.lower, kLower);
      if (best.upper >= 0) use(best.upper, kUpper);
    }
    info->idxNum = flags;
    info->estimatedRows = static_cast<sqlite3_int64>(best.rows) + 1;
    info->estimatedCost = search + best.rows;
    return SQLITE_OK;
  }
  // One ORDER BY (or GROUP BY) column the table can scan in order: SQLite then needs no sorter.
  if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn >= 0 &&
      t->data->can_order(t->table, info->aOrderBy[0].iColumn)) {
    info->orderByConsumed = 1;
    info->idxNum = (info->aOrderBy[0].iColumn << 8) | kOrdered | (info->aOrderBy[0].desc ? kDesc : 0);
  }
  return SQLITE_OK;
}

// Where a bound value falls among an index's integer keys. An integer is itself; a real is
// rounded outwards for its bound (x >= 2.5 from 3; x = 2.5: none); NULL matches nothing; a text
// or blob gives no bound (every row: SQLite's own check then decides).
struct Bound {
  enum { Int, None, Any } kind = Any;
  int64_t lo = 0, hi = 0;  // the integers the value lies between (equal for an integer)
};
Bound bound_of(sqlite3_value* v) {
  Bound b;
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      b.kind = Bound::Int;
      b.lo = b.hi = sqlite3_value_int64(v);
      return b;
    case SQLITE_FLOAT: {
      const double x = sqlite3_value_double(v);
      if (std::isnan(x)) return {Bound::None};
      constexpr double kLimit = 9.2e18;  // inside int64 (a bound past it clamps: SQLite re-checks)
      b.kind = Bound::Int;
      b.lo = static_cast<int64_t>(std::clamp(std::floor(x), -kLimit, kLimit));
      b.hi = static_cast<int64_t>(std::clamp(std::ceil(x), -kLimit, kLimit));
      return b;
    }
    case SQLITE_NULL:
      b.kind = Bound::None;
      return b;
    default:
      return b;
  }
}

// The positions [first, last) of an index that an index plan's bounds select.
std::pair<size_t, size_t> lookup(const TableData::ColumnIndex& ix, int flags, sqlite3_value** argv) {
  const auto& k = ix.keys;
  size_t first = 0, last = k.size();
  auto lb = [&](int64_t x) { return static_cast<size_t>(std::lower_bound(k.begin(), k.end(), x) - k.begin()); };
  auto ub = [&](int64_t x) { return static_cast<size_t>(std::upper_bound(k.begin(), k.end(), x) - k.begin()); };
  int arg = 0;
  if (flags & kEq) {
    const Bound b = bound_of(argv[arg++]);
    if (b.kind == Bound::None || (b.kind == Bound::Int && b.lo != b.hi)) return {0, 0};
    if (b.kind == Bound::Int) return {lb(b.lo), ub(b.lo)};
    return {first, last};
  }
  if (flags & kLower) {
    const Bound b = bound_of(argv[arg++]);
    if (b.kind == Bound::None) return {0, 0};
    if (b.kind == Bound::Int) first = (flags & kLowerStrict) ? ub(b.lo) : lb(b.hi);
  }
  if (flags & kUpper) {
    const Bound b = bound_of(argv[arg++]);
    if (b.kind == Bound::None) return {0, 0};
    if (b.kind == Bound::Int) last = (flags & kUpperStrict) ? lb(b.hi) : ub(b.lo);
  }
  return {first, std::max(first, last)};
}

int vt_open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = &(new Cursor)->base;
  return SQLITE_OK;
}

int vt_close(sqlite3_vtab_cursor* c) {
  delete reinterpret_cast<Cursor*>(c);
  return SQLITE_OK;
}

// Moves to the next trace that has rows (from cur.trace on).
void settle(Cursor& cur, VTab& v) {
  const size_t n = v.data->trace_count();
  while (cur.trace < n) {
    cur.rows = v.data->rows(v.table, cur.trace);
    if (cur.row < cur.rows) return;
    ++cur.trace;
    cur.row = 0;
  }
}

int vt_filter(sqlite3_vtab_cursor* c, int idx, const char*, int, sqlite3_value** argv) {
  auto& cur = *reinterpret_cast<Cursor*>(c);
  VTab& v = *vtab_of(c);
  cur.trace = 0;
  cur.row = 0;
  cur.list = nullptr;
  cur.listed = (idx & (kLookup | kOrdered)) != 0;
  cur.desc = false;
  cur.pos = 0;
  if (idx & kLookup) {
    const TableData::ColumnIndex& ix = v.data->index(v.table, idx >> 8);
    const auto [first, last] = lookup(ix, idx, argv);
    cur.list = ix.rows.data() + first;
    cur.end = last - first;
  } else if (idx & kOrdered) {
    const std::vector<uint64_t>& order = v.data->order(v.table, idx >> 8);
    cur.list = order.data();
    cur.end = order.size();
    cur.desc = (idx & kDesc) != 0;
  }
  if (cur.listed) {
    if (cur.pos < cur.end) cur.place();
    return SQLITE_OK;
  }
  settle(cur, v);
  return SQLITE_OK;
}

int vt_next(sqlite3_vtab_cursor* c) {
  auto& cur = *reinterpret_cast<Cursor*>(c);
  ++vtab_of(c)->data->rows_read;
  if (cur.listed) {
    if (++cur.pos < cur.end) cur.place();
    return SQLITE_OK;
  }
  if (++cur.row >= cur.rows) {
    ++cur.trace;
    cur.row = 0;
    settle(cur, *vtab_of(c));
  }
  return SQLITE_OK;
}

int vt_eof(sqlite3_vtab_cursor* c) {
  auto& cur = *reinterpret_cast<Cursor*>(c);
  if (cur.listed) return cur.pos >= cur.end;
  return cur.trace >= vtab_of(c)->data->trace_count();
}

int vt_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  auto& cur = *reinterpret_cast<Cursor*>(c);
  VTab& v = *vtab_of(c);
  v.data->value(v.table, cur.trace, cur.row, col, ctx);
  return SQLITE_OK;
}

int vt_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* id) {
  auto& cur = *reinterpret_cast<Cursor*>(c);
  *id = static_cast<sqlite3_int64>((cur.trace << 40) | cur.row);
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.iVersion = 1;
  m.xCreate = vt_connect;
  m.xConnect = vt_connect;
  m.xBestIndex = vt_best_index;
  m.xDisconnect = vt_disconnect;
  m.xDestroy = vt_disconnect;
  m.xOpen = vt_open;
  m.xClose = vt_close;
  m.xFilter = vt_filter;
  m.xNext = vt_next;
  m.xEof = vt_eof;
  m.xColumn = vt_column;
  m.xRowid = vt_rowid;
  return m;  // no xUpdate: the virtual tables are read-only whatever the authorizer says
}
const sqlite3_module kModule = make_module();

Status exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    return make_error(ErrorKind::Internal, fmt::format("query database: {} ({})", m, sql));
  }
  return {};
}

// PRAGMAs that only read (schema and build information); every other PRAGMA is refused.
constexpr std::array<const char*, 10> kReadPragmas = {"table_info",  "table_xinfo",    "table_list",    "index_list",
                                                      "index_info",  "index_xinfo",    "function_list", "module_list",
                                                      "pragma_list", "compile_options"};

bool is_trace_table(const char* name) {
  if (!name) return false;
  for (const TableInfo& t : table_infos())
    if (strcasecmp(t.name.c_str(), name) == 0) return true;
  return false;
}

// printf()/format() under a bound. SQLite 3.40's printf writes a %c of precision N one character
// at a time, N times, even after the result passed SQLITE_LIMIT_LENGTH: printf('%.*c', 1e9, 'x')
// spends ~4 s of CPU inside one call, where the progress handler cannot stop it (docs/query.md §
// Safety). The builtins are replaced by this guard: it refuses a width or precision over
// kMaxQueryValueBytes before any work, then runs the builtin, unchanged, on a private connection
// of its own (no trace tables, same length limit), so every format means what SQLite documents.
class PrintfGuard {
 public:
  PrintfGuard() {
    if (sqlite3_open_v2(":memory:", &plain_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK)
      plain_ = nullptr;
    if (plain_) sqlite3_limit(plain_, SQLITE_LIMIT_LENGTH, kMaxQueryValueBytes);
  }
  ~PrintfGuard() {
    for (sqlite3_stmt* s : stmts_) sqlite3_finalize(s);
    if (plain_) sqlite3_close_v2(plain_);
  }
  PrintfGuard(const PrintfGuard&) = delete;
  PrintfGuard& operator=(const PrintfGuard&) = delete;

  // The first width or precision in the format (literal digits or a `*` argument) that is over
  // the bound, else -1.
  static int64_t oversized(int argc, sqlite3_value** argv) {
    const auto* f = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    if (!f) return -1;
    int next = 1;  // the argument a `*` reads
    auto number = [&](const char*& p) -> int64_t {
      if (*p == '*') {
        ++p;
        const int64_t v = next < argc ? sqlite3_value_int64(argv[next++]) : 0;
        return v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v;
      }
      int64_t v = 0;
      for (; *p >= '0' && *p <= '9'; ++p) v = v > kMaxQueryValueBytes ? v : v * 10 + (*p - '0');
      return v;
    };
    for (const char* p = f; *p; ++p) {
      if (*p != '%') continue;
      if (*++p == '%') continue;
      while (*p && std::strchr("-+ #!0,", *p)) ++p;
      if (const int64_t w = number(p); w > kMaxQueryValueBytes) return w;
      if (*p == '.') {
        ++p;
        if (const int64_t pr = number(p); pr > kMaxQueryValueBytes) return pr;
      }
      while (*p == 'l') ++p;
      if (!*p) break;
      ++next;  // the conversion's own argument
    }
    return -1;
  }

  void call(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
    if (argc < 1) return sqlite3_result_null(ctx);
    if (const int64_t n = oversized(argc, argv); n >= 0) {
      const std::string m =
          fmt::format("printf: a width or precision of {} is over the limit of {} bytes", n, kMaxQueryValueBytes);
      return sqlite3_result_error(ctx, m.c_str(), -1);
    }
    sqlite3_stmt* st = statement(argc);
    if (!st) return sqlite3_result_error(ctx, "printf: unavailable", -1);
    for (int i = 0; i < argc; ++i) sqlite3_bind_value(st, i + 1, argv[i]);
    if (sqlite3_step(st) == SQLITE_ROW)
      sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
    else
      sqlite3_result_error(ctx, sqlite3_errmsg(plain_), -1);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
  }

 private:
  sqlite3_stmt* statement(int argc) {
    if (!plain_) return nullptr;
    if (static_cast<size_t>(argc) >= stmts_.size()) stmts_.resize(static_cast<size_t>(argc) + 1, nullptr);
    sqlite3_stmt*& st = stmts_[static_cast<size_t>(argc)];
    if (!st) {
      std::string sql = "SELECT printf(";
      for (int i = 1; i <= argc; ++i) fmt::format_to(std::back_inserter(sql), "{}?{}", i > 1 ? "," : "", i);
      sql += ")";
      if (sqlite3_prepare_v2(plain_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) st = nullptr;
    }
    return st;
  }
  sqlite3* plain_ = nullptr;
  std::vector<sqlite3_stmt*> stmts_;
};

void guarded_printf(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  static_cast<PrintfGuard*>(sqlite3_user_data(ctx))->call(ctx, argc, argv);
}

Status install_printf_guard(sqlite3* db) {
  auto* g = new PrintfGuard;
  constexpr int kFlags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  // printf owns the guard (deleted when the connection closes); format, its alias, shares it.
  if (sqlite3_create_function_v2(db, "printf", -1, kFlags, g, guarded_printf, nullptr, nullptr,
                                 [](void* p) { delete static_cast<PrintfGuard*>(p); }) != SQLITE_OK ||
      sqlite3_create_function_v2(db, "format", -1, kFlags, g, guarded_printf, nullptr, nullptr, nullptr) != SQLITE_OK)
    return make_error(ErrorKind::Internal, "cannot register printf()");
  return {};
}

const char* read_only_text(bool store) {
  return store ? "the run store is read-only here"
               : "the database is read-only (give --db FILE to keep a writable copy)";
}

// The reason of the last refusal, for the error message (SQLite says only "not authorized").
thread_local std::string t_refused;

}  // namespace

int authorize(void* self, int action, const char* a1, const char* a2, const char* db_name, const char*) {
  auto* d = static_cast<Database*>(self);
  auto deny = [&](std::string why) {
    t_refused = std::move(why);
    return SQLITE_DENY;
  };
  const bool temp = db_name && strcmp(db_name, "temp") == 0;
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
    case SQLITE_TRANSACTION:
    case SQLITE_SAVEPOINT:
      return SQLITE_OK;
    case SQLITE_FUNCTION:
      if (a2 && strcasecmp(a2, "load_extension") == 0) return deny("load_extension() is refused");
      // fts3_tokenizer(name) returns a pointer into libsqlite3 (an address an attacker can use)
      // and its two-argument form installs a tokenizer from a pointer: refused in both forms.
      if (a2 && strcasecmp(a2, "fts3_tokenizer") == 0) return deny("fts3_tokenizer() is refused");
      return SQLITE_OK;
    case SQLITE_PRAGMA:
      for (const char* p : kReadPragmas)
        if (a1 && strcasecmp(a1, p) == 0) return SQLITE_OK;
      return deny(fmt::format("PRAGMA {} is refused (only schema-reading PRAGMAs run)", a1 ? a1 : ""));
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
      return deny("ATTACH and DETACH are refused");
    case SQLITE_CREATE_VTABLE:
    case SQLITE_DROP_VTABLE:
      return deny("virtual tables cannot be created or dropped");
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
    case SQLITE_DELETE:
      if (!d->writable_) return deny(read_only_text(d->store_));
      if (temp || !is_trace_table(a1) || d->materialized_) return SQLITE_OK;
      return deny(fmt::format("{} is a trace table", a1 ? a1 : ""));
    default:  // CREATE/DROP/ALTER of tables, indexes, views, triggers; ANALYZE; REINDEX
      if (!d->writable_) return deny(read_only_text(d->store_));
      return SQLITE_OK;
  }
}

int progress(void* self) {
  auto* d = static_cast<Database*>(self);
  const auto now = std::chrono::steady_clock::now();
  if (d->report_ && now >= d->next_report_) {
    d->next_report_ = now + d->report_every_;
    d->report_(d->data_ ? d->data_->rows_read : 0, std::chrono::duration<double>(now - d->started_).count());
  }
  return now > d->deadline_ ? 1 : 0;
}

Database::~Database() {
  if (db_) sqlite3_close_v2(db_);
}

Status Database::guard() {
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, nullptr);
  sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, kMaxQueryValueBytes);
  sqlite3_limit(db_, SQLITE_LIMIT_SQL_LENGTH, kMaxQuerySqlBytes);
  sqlite3_limit(db_, SQLITE_LIMIT_COLUMN, kMaxQueryColumns);
  sqlite3_limit(db_, SQLITE_LIMIT_EXPR_DEPTH, kMaxQueryExprDepth);
  sqlite3_limit(db_, SQLITE_LIMIT_ATTACHED, 0);
  RETURN_IF_ERROR(install_printf_guard(db_));
  deadline_ = std::chrono::steady_clock::time_point::max();
  sqlite3_set_authorizer(db_, authorize, this);
  sqlite3_progress_handler(db_, 10000, progress, this);
  return {};
}

Result<std::unique_ptr<Database>> Database::open(std::vector<TraceRef> traces,
                                                 std::shared_ptr<const analysis::AnalysisKnowledge> knowledge) {
  std::unique_ptr<Database> d(new Database);
  d->data_ = std::make_unique<TableData>(std::move(traces), std::move(knowledge));
  if (sqlite3_open_v2(":memory:", &d->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK)
    return make_error(ErrorKind::Internal, "cannot open an in-memory SQLite database");
  if (sqlite3_create_module_v2(d->db_, "goblin", &kModule, d->data_.get(), nullptr) != SQLITE_OK)
    return make_error(ErrorKind::Internal, "cannot register the trace tables");
  for (const TableInfo& t : table_infos())
    RETURN_IF_ERROR(exec(d->db_, fmt::format("CREATE VIRTUAL TABLE temp.{0} USING goblin({0})", t.name)));
  RETURN_IF_ERROR(d->guard());
  return d;
}

Result<std::unique_ptr<Database>> Database::open_file_readonly(const std::string& path) {
  std::unique_ptr<Database> d(new Database);
  d->store_ = true;
  if (sqlite3_open_v2(path.c_str(), &d->db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK)
    return make_error(ErrorKind::Io, fmt::format("cannot open {}: {}", path, d->db_ ? sqlite3_errmsg(d->db_) : "?"),
                      path);
  RETURN_IF_ERROR(exec(d->db_, "PRAGMA query_only = 1"));
  RETURN_IF_ERROR(d->guard());
  return d;
}

Result<std::unique_ptr<Database>> Database::open_empty() {
  std::unique_ptr<Database> d(new Database);
  d->store_ = true;
  if (sqlite3_open_v2(":memory:", &d->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK)
    return make_error(ErrorKind::Internal, "cannot open an in-memory SQLite database");
  RETURN_IF_ERROR(d->guard());
  return d;
}

Status Database::add_table(const std::string& name, const std::vector<std::string>& columns,
                           const std::vector<std::string>& sql_types,
                           const std::vector<std::vector<std::optional<std::string>>>& rows) {
  auto quote = [](const std::string& id) {
    std::string q = "\"";
    for (char c : id) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::string decl = fmt::format("CREATE TABLE main.{} (", quote(name)),
              ins = fmt::format("INSERT INTO main.{} VALUES (", quote(name));
  for (size_t c = 0; c < columns.size(); ++c) {
    fmt::format_to(std::back_inserter(decl), "{}{} {}", c ? ", " : "", quote(columns[c]),
                   c < sql_types.size() ? sql_types[c] : "TEXT");
    ins += c ? ", ?" : "?";
  }
  decl += ")";
  ins += ")";
  sqlite3_set_authorizer(db_, nullptr, nullptr);  // goblin's own statements, not the user's
  Status st = exec(db_, "BEGIN");
  if (st) st = exec(db_, decl);
  sqlite3_stmt* stmt = nullptr;
  if (st && sqlite3_prepare_v2(db_, ins.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
    st = make_error(ErrorKind::Internal, fmt::format("query database: {} ({})", sqlite3_errmsg(db_), ins));
  for (size_t r = 0; st && r < rows.size(); ++r) {
    for (size_t c = 0; c < columns.size(); ++c) {
      const auto& v = c < rows[r].size() ? rows[r][c] : std::nullopt;
      if (v)
        sqlite3_bind_text(stmt, static_cast<int>(c + 1), v->data(), static_cast<int>(v->size()), SQLITE_TRANSIENT);
      else
        sqlite3_bind_null(stmt, static_cast<int>(c + 1));
    }
    if (sqlite3_step(stmt) != SQLITE_DONE)
      st = make_error(ErrorKind::Internal, fmt::format("query database: {} (copying {})", sqlite3_errmsg(db_), name));
    sqlite3_reset(stmt);
  }
  sqlite3_finalize(stmt);
  if (st)
    st = exec(db_, "COMMIT");
  else
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_set_authorizer(db_, authorize, this);
  return st;
}

Status Database::materialize() {
  if (materialized_) return {};
  sqlite3_set_authorizer(db_, nullptr, nullptr);
  RETURN_IF_ERROR(exec(db_, "BEGIN"));
  for (const TableInfo& t : table_infos()) {
    std::string cols;
    for (const ColumnInfo& c : t.columns)
      fmt::format_to(std::back_inserter(cols), "{}{} {}", cols.empty() ? "" : ", ", c.name, sql_type_name(c.type));
    RETURN_IF_ERROR(exec(db_, fmt::format("CREATE TABLE main.{0}({1}); INSERT INTO main.{0} SELECT * FROM temp.{0}; "
                                          "DROP TABLE temp.{0}",
                                          t.name, cols)));
  }
  RETURN_IF_ERROR(exec(db_, "COMMIT"));
  if (data_ && !data_->analysis_error().empty())
    return make_error(ErrorKind::Malformed, "an analysis table could not be computed: " + data_->analysis_error());
  materialized_ = true;
  sqlite3_set_authorizer(db_, authorize, this);
  return {};
}

Result<std::vector<ColumnData>> Database::scan_table(const std::string& name) {
  if (!data_ || materialized_ || store_)
    return make_error(ErrorKind::Usage, "only the trace tables of an unmaterialized database can be read whole");
  auto t = data_->table_index(name);
  if (!t) return make_error(ErrorKind::Usage, fmt::format("no table named '{}'", name));
  std::vector<ColumnData> out = data_->scan(*t);
  if (!data_->analysis_error().empty())
    return make_error(ErrorKind::Malformed, "an analysis table could not be computed: " + data_->analysis_error());
  return out;
}

Result<std::string> Database::image() {
  sqlite3_int64 size = 0;
  // sqlite3_serialize asks PRAGMA page_count, which the authorizer refuses to user SQL.
  sqlite3_set_authorizer(db_, nullptr, nullptr);
  unsigned char* p = sqlite3_serialize(db_, "main", &size, 0);
  sqlite3_set_authorizer(db_, authorize, this);
  if (!p) return make_error(ErrorKind::Internal, "cannot serialize the query database (out of memory?)");
  std::string out(reinterpret_cast<const char*>(p), static_cast<size_t>(size));
  sqlite3_free(p);
  // Marked as goblin's (big-endian, as SQLite stores it): check_replaceable_query_database.
  if (out.size() >= 72)
    for (int i = 0; i < 4; ++i) out[68 + i] = static_cast<char>((kQueryApplicationId >> (24 - 8 * i)) & 0xFF);
  return out;
}

Status check_replaceable_query_database(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(path, ec);
  if (ec || st.type() == std::filesystem::file_type::not_found) return {};
  auto refuse = [&](const std::string& what) {
    return make_error(ErrorKind::Usage,
                      fmt::format("--db {}: the file exists and {}; goblin replaces only a query database it wrote "
                                  "itself (goblin query --db). Remove it or choose another path",
                                  path, what),
                      path);
  };
  if (st.type() != std::filesystem::file_type::regular) return refuse("is not a regular file");
  auto head = read_prefix(path, 72);
  if (!head) return head.error();
  const std::string& h = *head;
  if (h.size() < 72 || h.compare(0, 16, std::string("SQLite format 3\0", 16)) != 0)
    return refuse("is not an SQLite database");
  uint32_t id = 0;
  for (int i = 0; i < 4; ++i) id = (id << 8) | static_cast<unsigned char>(h[68 + i]);
  if (id != kQueryApplicationId) return refuse("is an SQLite database goblin did not write");
  return {};
}

Status Database::run(const std::string& sql, RowSink& sink, const RunOptions& opt, bool writable) {
  writable_ = writable && !store_;
  const auto timeout = opt.timeout.count() > 0 ? opt.timeout : std::chrono::milliseconds(kDefaultQuerySeconds * 1000);
  started_ = std::chrono::steady_clock::now();
  deadline_ = started_ + timeout;
  next_report_ = started_ + opt.progress_after;
  report_every_ = opt.progress_every;
  report_ = opt.progress;
  if (data_) data_->rows_read = 0;
  // The progress line stops with the statement, however it ends.
  struct StopReports {
    std::function<void(uint64_t, double)>& f;
    ~StopReports() { f = nullptr; }
  } stop_reports{report_};
  const char* begin = sql.c_str();
  const char* tail = begin;
  std::vector<Value> row;
  std::vector<std::string> names;
  auto fail = [&](sqlite3_stmt* st, int64_t at) -> Status {
    std::string msg = sqlite3_errmsg(db_);
    const int rc = sqlite3_errcode(db_);
    if (st) sqlite3_finalize(st);
    deadline_ = std::chrono::steady_clock::time_point::max();
    if (rc == SQLITE_INTERRUPT)
      return make_error(ErrorKind::Malformed, fmt::format("query stopped after {:g} s (--timeout)",
                                                          static_cast<double>(timeout.count()) / 1e3));
    if (rc == SQLITE_AUTH && !t_refused.empty()) msg = fmt::format("{}: {}", msg, t_refused);
    t_refused.clear();
    Error e = make_error(ErrorKind::Usage, at >= 0 ? fmt::format("SQL error at byte {}: {}", at, msg)
                                                   : fmt::format("SQL error: {}", msg));
    e.byte_offset = at;
    return e;
  };
  while (*tail) {
    sqlite3_stmt* st = nullptr;
    const char* stmt_start = tail;
    if (sqlite3_prepare_v2(db_, stmt_start, -1, &st, &tail) != SQLITE_OK) {
      const int off = sqlite3_error_offset(db_);
      return fail(st, off >= 0 ? (stmt_start - begin) + off : -1);
    }
    if (!st) continue;  // whitespace or a comment
    const int n = sqlite3_column_count(st);
    if (n > 0) {
      names.clear();
      for (int c = 0; c < n; ++c) names.emplace_back(sqlite3_column_name(st, c));
      sink.columns(names);
    }
    bool more = true;
    for (;;) {
      const int rc = sqlite3_step(st);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return fail(st, -1);
      if (!more) continue;
      row.resize(static_cast<size_t>(n));
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(st, c)) {
          case SQLITE_INTEGER:
            row[c] = static_cast<int64_t>(sqlite3_column_int64(st, c));
            break;
          case SQLITE_FLOAT:
            row[c] = sqlite3_column_double(st, c);
            break;
          case SQLITE_NULL:
            row[c] = std::monostate{};
            break;
          default: {
            const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
            row[c] = std::string(p ? p : "", static_cast<size_t>(sqlite3_column_bytes(st, c)));
          }
        }
      }
      if (!sink.row(row)) {
        more = false;
        break;
      }
    }
    sqlite3_finalize(st);
    if (data_ && !data_->analysis_error().empty())
      return make_error(ErrorKind::Malformed, "an analysis table could not be computed: " + data_->analysis_error());
  }
  deadline_ = std::chrono::steady_clock::time_point::max();
  return {};
}

}  // namespace goblin::query
