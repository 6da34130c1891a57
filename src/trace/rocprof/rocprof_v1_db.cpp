// Legacy rocprof results.db (SQLite, written by tblextr.py): tables HIP (API calls), OPS (GPU
// ops: kernels and barriers), COPY (async copies) and KERN (kernel index → name, often empty).
// Every row has an "Index"; an OPS/COPY row's Index equals the Index of the HIP call that
// launched it (hipLaunchKernel 8 → OPS 8), so Index is the correlation id.
#include <sqlite3.h>

#include <functional>
#include <memory>

#include "core/sqlite_input.h"
#include "model/runtime_call.h"
#include "trace/rocprof/rocprof_fields.h"
#include "trace/rocprof/rocprof_v1_parts.h"

namespace goblin::trace::rocprof {

namespace {

std::string_view col_text(sqlite3_stmt* st, int i) {
  const auto* t = sqlite3_column_text(st, i);
  return t ? std::string_view(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, i)))
           : std::string_view();
}

int64_t col_int(sqlite3_stmt* st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? kNone : sqlite3_column_int64(st, i);
}

// Runs `sql`; calls on_row per row. Errors name the table so the user knows what is damaged.
Status each_row(SqliteInput& in, const std::string& path, const std::string& sql, const char* table,
                const std::function<void(sqlite3_stmt*)>& on_row) {
  sqlite3* db = in.db();
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    return make_error(
        ErrorKind::Malformed,
        std::string("rocprof results.db: table ") + table + " lacks expected columns (" + sqlite3_errmsg(db) + ")",
        path);
  }
  SqliteInput::Stmt st(raw);
  while (true) {
    Result<bool> more = in.step(raw, std::string("reading table ") + table);
    if (!more.ok()) {
      Error e = more.error();
      e.kind = ErrorKind::Malformed;  // whatever stopped the table, the file is what is wrong
      return e;
    }
    if (!*more) return Status::Ok();
    on_row(raw);
  }
}

}  // namespace

Status read_v1_db(const std::string& path, Timeline& tl) {
  // Confined, read-only, immutable, bounded; HIP/OPS/COPY must be plain tables (core/sqlite_input.h).
  ASSIGN_OR_RETURN(auto in, SqliteInput::open(path, "rocprof results.db"));
  in->set_damage_note(" (rows read before the damage were kept)");
  ASSIGN_OR_RETURN(const auto tables, in->format_tables({"HIP", "OPS", "COPY", "KERN"}));
  auto has_table = [&](const char* t) { return tables.count(t) > 0; };
  // NULL or negative BeginNs/EndNs: the row cannot be placed on the timeline.
  auto times_ok = [&](sqlite3_stmt* st) {
    if (valid_times(col_int(st, 0), col_int(st, 1))) return true;
    tl.warn(W::rocprof_bad_times, "rocprof results.db: row with a missing or negative BeginNs/EndNs skipped", path);
    return false;
  };
  bool any = false;
  Status first_error;
  auto keep = [&](const Status& s) {
    if (!s.ok() && first_error.ok()) first_error = s;
  };
  if (has_table("HIP")) {
    any = true;
    keep(each_row(*in, path, "SELECT BeginNs, EndNs, pid, tid, Name, \"Index\" FROM HIP ORDER BY BeginNs", "HIP",
                  [&](sqlite3_stmt* st) {
                    RuntimeRow r;
                    if (!times_ok(st)) return;
                    r.start_ns = col_int(st, 0);
                    r.dur_ns = col_int(st, 1) - r.start_ns;
                    r.pid = col_int(st, 2);
                    r.tid = col_int(st, 3);
                    std::string_view name = col_text(st, 4);
                    r.name = tl.strings.intern(name);
                    r.correlation = col_int(st, 5);
                    r.is_sync = is_sync_call(name);
                    tl.runtime.push(r);
                  }));
  }
  if (has_table("OPS")) {
    any = true;
    keep(each_row(*in, path,
                  "SELECT BeginNs, EndNs, \"dev-id\", \"stream-id\", Name, \"Index\" FROM OPS ORDER BY BeginNs", "OPS",
                  [&](sqlite3_stmt* st) {
                    GpuOpRow k;
                    if (!times_ok(st)) return;
                    k.start_ns = col_int(st, 0);
                    k.dur_ns = col_int(st, 1) - k.start_ns;
                    int64_t dev = col_int(st, 2);
                    if (dev >= 0 && dev <= INT32_MAX) k.device = static_cast<int32_t>(dev), ensure_device(tl, dev);
                    k.stream = col_int(st, 3);
                    bool stripped = false;
                    k.name = tl.strings.intern(strip_kd_suffix(col_text(st, 4), &stripped));
                    if (stripped) note_kd_suffix_stripped(tl, path);
                    k.correlation = col_int(st, 5);
                    tl.gpu_ops.push(k);
                  }));
  }
  if (has_table("COPY")) {
    any = true;
    keep(each_row(*in, path,
                  "SELECT BeginNs, EndNs, \"dev-id\", \"stream-id\", Name, \"Index\" FROM COPY ORDER BY BeginNs",
                  "COPY", [&](sqlite3_stmt* st) {
                    GpuOpRow m;
                    m.kind = GpuOpKind::Memcpy;
                    if (!times_ok(st)) return;
                    m.start_ns = col_int(st, 0);
                    m.dur_ns = col_int(st, 1) - m.start_ns;
                    int64_t dev = col_int(st, 2);
                    if (dev >= 0 && dev <= INT32_MAX) m.device = static_cast<int32_t>(dev), ensure_device(tl, dev);
                    m.stream = col_int(st, 3);
                    std::string_view name = col_text(st, 4);
                    m.name = tl.strings.intern(name);
                    m.copy_kind = copy_kind_from_text(name);
                    m.correlation = col_int(st, 5);
                    tl.gpu_ops.push(m);
                  }));
  }
  if (!any) {
    return make_error(ErrorKind::Malformed, "SQLite file has none of rocprof's tables HIP, OPS, COPY", path);
  }
  return first_error;
}

}  // namespace goblin::trace::rocprof
