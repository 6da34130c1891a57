// Nsight Systems SQLite export (`nsys export --type sqlite`) into a Timeline, read-only through
// the sqlite3 C API.
//
// nsys creates tables lazily (no NVTX_EVENTS or MEMSET table when nothing was recorded), adds
// columns release after release and leaves "NOT NULL" columns NULL, so every table is optional
// and every column is looked up with PRAGMA table_info before it is selected (absent → NULL).
//
// Mapping:
// - CUPTI_ACTIVITY_KIND_KERNEL → kernels. Name: demangledName, else shortName, else mangledName
//   (StringIds). Shared memory = static + dynamic. graphId 0/NULL → kNone.
// - CUPTI_ACTIVITY_KIND_RUNTIME (+ _DRIVER when present) → runtime. Names lose their ABI suffix
//   ("cudaLaunchKernel_v7000" → "cudaLaunchKernel") so they match Kineto's. is_driver from
//   eventClass 1 (TRACE_PROCESS_EVENT_CUDA_DRIVER) or the DRIVER table; is_sync for
//   *Synchronize calls and for calls that have a SYNCHRONIZATION record (same correlationId).
//   pid = (globalTid >> 24) & 0xFFFFFF, tid = globalTid & 0xFFFFFF.
// - MEMCPY (copyKind → CopyKind; array and unified-memory kinds folded onto their direction),
//   MEMSET → memcpys / memsets, named like nsys stats: "[CUDA memcpy Host-to-Device]".
// - NVTX_EVENTS ranges (push/pop, start/end) and marks (duration 0) → CPU-side annotations;
//   text from `text`, else `textId` → StringIds.
// - TARGET_INFO_GPU → meta.devices; TARGET_INFO_SESSION_START_TIME.utcEpochNs → clock base
//   (timestamps are ns since session start); META_DATA_EXPORT and TARGET_INFO_SYSTEM_ENV →
//   versions ("nsys", "nsys_export_schema", "driver", "cuda_driver").
#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/sqlite_input.h"
#include "core/text.h"
#include "model/runtime_call.h"
#include "trace/readers.h"

namespace goblin::trace {

namespace {

using StmtPtr = SqliteInput::Stmt;

constexpr int kEventClassDriver = 1;  // ENUM_NSYS_EVENT_CLASS: TRACE_PROCESS_EVENT_CUDA_DRIVER

std::string strip_api_version(std::string_view name) {
  // "cudaLaunchKernel_v7000" → "cudaLaunchKernel"; leaves names without the suffix alone.
  size_t p = name.rfind("_v");
  if (p == std::string_view::npos || p + 2 >= name.size()) return std::string(name);
  for (size_t i = p + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return std::string(name);
  return std::string(name.substr(0, p));
}

CopyKind copy_kind(int64_t k) {
  // CUpti_ActivityMemcpyKind (ENUM_CUDA_MEMCPY_OPER): arrays live in device memory.
  switch (k) {
    case 1:
    case 3:
    case 11:
      return CopyKind::HtoD;  // HTOD, HTOA, UVM_HTOD
    case 2:
    case 4:
    case 12:
      return CopyKind::DtoH;  // DTOH, ATOH, UVM_DTOH
    case 5:
    case 6:
    case 7:
    case 8:
    case 13:
      return CopyKind::DtoD;  // ATOA, ATOD, DTOA, DTOD, UVM_DTOD
    case 9:
      return CopyKind::HtoH;
    case 10:
      return CopyKind::PtoP;
    default:
      return CopyKind::Unknown;
  }
}

const char* copy_label(CopyKind k) {
  switch (k) {
    case CopyKind::HtoD:
      return "[CUDA memcpy Host-to-Device]";
    case CopyKind::DtoH:
      return "[CUDA memcpy Device-to-Host]";
    case CopyKind::DtoD:
      return "[CUDA memcpy Device-to-Device]";
    case CopyKind::HtoH:
      return "[CUDA memcpy Host-to-Host]";
    case CopyKind::PtoP:
      return "[CUDA memcpy Peer-to-Peer]";
    case CopyKind::Unknown:
      break;
  }
  return "[CUDA memcpy Unknown]";
}

// NVTX_EVENTS.eventType values (ENUM_NSYS_EVENT_TYPE).
bool nvtx_is_mark(int64_t t) { return t == 34 || t == 65; }
bool nvtx_is_range(int64_t t) { return t == 59 || t == 60 || t == 70 || t == 71; }

class NsysReader {
 public:
  NsysReader(SqliteInput& in, const std::string& path, Timeline& tl) : in_(in), path_(path), tl_(tl) {}

  Status run() {
    if (Status s = list_tables(); !s.ok()) return s;
    if (!has_table("StringIds") && !has_table("CUPTI_ACTIVITY_KIND_KERNEL") && !has_table("TARGET_INFO_GPU"))
      return make_error(ErrorKind::Malformed,
                        "SQLite file is not an Nsight Systems export (no StringIds, CUPTI_ACTIVITY_KIND_* or "
                        "TARGET_INFO_GPU table)",
                        path_);
    // Order: strings first (every name refers to them), sync records before runtime calls
    // (they flag them), metadata last so a damaged event table still leaves the events read.
    for (auto step :
         {&NsysReader::read_strings, &NsysReader::read_sync, &NsysReader::read_kernels, &NsysReader::read_runtime,
          &NsysReader::read_memcpy, &NsysReader::read_memset, &NsysReader::read_nvtx, &NsysReader::read_devices,
          &NsysReader::read_session, &NsysReader::read_versions}) {
      Status s = (this->*step)();
      if (!s.ok()) return s;
    }
    if (!has_table("CUPTI_ACTIVITY_KIND_KERNEL"))
      tl_.warn(W::nsys_no_kernel_table,
               "Nsight Systems export has no CUPTI_ACTIVITY_KIND_KERNEL table (CUDA trace off, or no kernel ran)",
               path_);
    return Status::Ok();
  }

 private:
  // ---- plumbing ------------------------------------------------------------------------------
  Error db_error(const std::string& what) { return in_.error(what); }

  // The tables this reader reads (the export defines many more); each one present must be a
  // plain table, not a view standing in for it (core/sqlite_input.h).
  Status list_tables() {
    ASSIGN_OR_RETURN(
        tables_,
        in_.format_tables({"StringIds", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_KERNEL",
                           "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_MEMCPY",
                           "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS", "TARGET_INFO_GPU",
                           "TARGET_INFO_SESSION_START_TIME", "META_DATA_EXPORT", "TARGET_INFO_SYSTEM_ENV"}));
    return Status::Ok();
  }

  bool has_table(const std::string& t) const { return tables_.count(t) > 0; }

  Status prepare(const std::string& sql, StmtPtr& out, const std::string& what) {
    ASSIGN_OR_RETURN(out, in_.prepare(sql, what));
    return Status::Ok();
  }

  // Column names of `table` (PRAGMA table_info), cached.
  const std::set<std::string>& columns(const std::string& table) {
    auto it = columns_.find(table);
    if (it != columns_.end()) return it->second;
    std::set<std::string>& cols = columns_[table];
    StmtPtr st;
    if (prepare("PRAGMA table_info(\"" + table + "\")", st, "reading columns of " + table).ok()) {
      while (sqlite3_step(st.get()) == SQLITE_ROW)
        if (auto* t = sqlite3_column_text(st.get(), 1)) cols.insert(reinterpret_cast<const char*>(t));
    }
    return cols;
  }

  // SELECT of `wanted` columns from `table`, NULL for those this export lacks; rows are handed
  // to `row(stmt)` with columns in the order asked.
  template <class F>
  Status select(const std::string& table, std::initializer_list<const char*> wanted, F&& row) {
    if (!has_table(table)) return Status::Ok();
    const auto& cols = columns(table);
    std::string sql = "SELECT ";
    bool first = true;
    for (const char* c : wanted) {
      if (!first) sql += ", ";
      first = false;
      sql += cols.count(c) ? "\"" + std::string(c) + "\"" : std::string("NULL");
    }
    sql += " FROM \"" + table + "\"";
    StmtPtr st;
    if (Status s = prepare(sql, st, "reading " + table); !s.ok()) return s;
    for (int64_t n = 0;; ++n) {
      Result<bool> more = in_.step(st.get(), fmt::format("reading {} after {} rows", table, n));
      if (!more.ok()) return more.error();
      if (!*more) return Status::Ok();
      row(st.get());
    }
  }

  static bool is_null(sqlite3_stmt* st, int i) { return sqlite3_column_type(st, i) == SQLITE_NULL; }
  static int64_t i64(sqlite3_stmt* st, int i, int64_t dflt = kNone) {
    return is_null(st, i) ? dflt : sqlite3_column_int64(st, i);
  }
  static std::string_view text(sqlite3_stmt* st, int i) {
    const auto* t = sqlite3_column_text(st, i);
    if (!t) return {};
    return {reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, i))};
  }

  // StringIds id → interned string; kNoStr (and a folded warning) for a dangling id.
  StrId name_of(sqlite3_stmt* st, int i, const char* table) {
    if (is_null(st, i)) return kNoStr;
    auto it = strings_.find(sqlite3_column_int64(st, i));
    if (it != strings_.end()) return it->second;
    tl_.warn(W::nsys_missing_string_id,
             std::string("Nsight Systems SQLite: ") + table + " refers to a StringIds id that does not exist", path_);
    return kNoStr;
  }

  // Start/end of a row; false (with a folded warning) when either is NULL.
  bool times(sqlite3_stmt* st, int i, const char* table, int64_t& start, int64_t& dur) {
    if (is_null(st, i) || is_null(st, i + 1)) {
      tl_.warn(W::nsys_row_missing_times,
               std::string("Nsight Systems SQLite: ") + table + " rows without start/end skipped", path_);
      return false;
    }
    start = sqlite3_column_int64(st, i);
    if (__builtin_sub_overflow(sqlite3_column_int64(st, i + 1), start, &dur)) {
      tl_.warn(W::nsys_row_impossible_times,
               std::string("Nsight Systems SQLite: ") + table + " rows with impossible start/end skipped", path_);
      return false;
    }
    return true;
  }

  static void split_global_tid(int64_t gtid, int64_t& pid, int64_t& tid) {
    if (gtid == kNone) return;
    pid = (gtid >> 24) & 0xFFFFFF;
    tid = gtid & 0xFFFFFF;
  }

  static int32_t device_id(int64_t v) { return v == kNone ? kNone : static_cast<int32_t>(v); }

  // ---- tables --------------------------------------------------------------------------------
  Status read_strings() {
    return select("StringIds", {"id", "value"}, [&](sqlite3_stmt* st) {
      if (!is_null(st, 0)) strings_[sqlite3_column_int64(st, 0)] = tl_.strings.intern(text(st, 1));
    });
  }

  Status read_sync() {
    return select("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", {"correlationId"}, [&](sqlite3_stmt* st) {
      if (!is_null(st, 0)) sync_corr_.insert(sqlite3_column_int64(st, 0));
    });
  }

  Status read_kernels() {
    return select("CUPTI_ACTIVITY_KIND_KERNEL",
                  {"start", "end", "deviceId", "streamId", "correlationId", "demangledName", "shortName", "mangledName",
                   "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "registersPerThread", "staticSharedMemory",
                   "dynamicSharedMemory", "graphId"},
                  [&](sqlite3_stmt* st) {
                    GpuOpRow k;
                    if (!times(st, 0, "CUPTI_ACTIVITY_KIND_KERNEL", k.start_ns, k.dur_ns)) return;
                    k.device = device_id(i64(st, 2));
                    k.stream = i64(st, 3);
                    k.correlation = i64(st, 4);
                    for (int c : {5, 6, 7}) {
                      k.name = name_of(st, c, "CUPTI_ACTIVITY_KIND_KERNEL");
                      if (k.name != kNoStr) break;
                    }
                    for (int a = 0; a < 3; ++a) {
                      k.grid[a] = static_cast<uint32_t>(i64(st, 8 + a, 0));
                      k.block[a] = static_cast<uint32_t>(i64(st, 11 + a, 0));
                    }
                    int64_t regs = i64(st, 14);
                    k.registers_per_thread = regs == kNone ? kNone : static_cast<int32_t>(regs);
                    int64_t s1 = i64(st, 15), s2 = i64(st, 16);
                    if (s1 != kNone || s2 != kNone)
                      k.shared_mem_bytes = (s1 == kNone ? 0 : s1) + (s2 == kNone ? 0 : s2);
                    int64_t g = i64(st, 17);
                    k.graph_id = g <= 0 ? kNone : g;
                    tl_.gpu_ops.push(k);
                  });
  }

  Status read_runtime() {
    for (const char* table : {"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"}) {
      bool driver_table = std::string_view(table) == "CUPTI_ACTIVITY_KIND_DRIVER";
      Status s =
          select(table, {"start", "end", "eventClass", "globalTid", "correlationId", "nameId"}, [&](sqlite3_stmt* st) {
            RuntimeRow r;
            if (!times(st, 0, table, r.start_ns, r.dur_ns)) return;
            r.is_driver = driver_table || i64(st, 2) == kEventClassDriver;
            split_global_tid(i64(st, 3), r.pid, r.tid);
            r.correlation = i64(st, 4);
            StrId raw = name_of(st, 5, table);
            r.name = api_name(raw);
            std::string_view n = tl_.str(r.name);
            r.is_sync = is_sync_call(n) || (r.correlation != kNone && sync_corr_.count(r.correlation));
            tl_.runtime.push(r);
          });
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

  StrId api_name(StrId raw) {
    auto it = api_names_.find(raw);
    if (it != api_names_.end()) return it->second;
    StrId id = tl_.strings.intern(strip_api_version(tl_.str(raw)));
    api_names_.emplace(raw, id);
    return id;
  }

  Status read_memcpy() {
    return select("CUPTI_ACTIVITY_KIND_MEMCPY",
                  {"start", "end", "deviceId", "streamId", "correlationId", "bytes", "copyKind"},
                  [&](sqlite3_stmt* st) {
                    GpuOpRow m;
                    m.kind = GpuOpKind::Memcpy;
                    if (!times(st, 0, "CUPTI_ACTIVITY_KIND_MEMCPY", m.start_ns, m.dur_ns)) return;
                    m.device = device_id(i64(st, 2));
                    m.stream = i64(st, 3);
                    m.correlation = i64(st, 4);
                    m.bytes = i64(st, 5);
                    m.copy_kind = copy_kind(i64(st, 6, 0));
                    m.name = tl_.strings.intern(copy_label(m.copy_kind));
                    tl_.gpu_ops.push(m);
                  });
  }

  Status read_memset() {
    StrId name = tl_.strings.intern("[CUDA memset]");
    return select("CUPTI_ACTIVITY_KIND_MEMSET", {"start", "end", "deviceId", "streamId", "correlationId", "bytes"},
                  [&](sqlite3_stmt* st) {
                    GpuOpRow m;
                    m.kind = GpuOpKind::Memset;
                    if (!times(st, 0, "CUPTI_ACTIVITY_KIND_MEMSET", m.start_ns, m.dur_ns)) return;
                    m.name = name;
                    m.device = device_id(i64(st, 2));
                    m.stream = i64(st, 3);
                    m.correlation = i64(st, 4);
                    m.bytes = i64(st, 5);
                    tl_.gpu_ops.push(m);
                  });
  }

  Status read_nvtx() {
    return select("NVTX_EVENTS", {"start", "end", "eventType", "text", "textId", "globalTid"}, [&](sqlite3_stmt* st) {
      if (is_null(st, 0)) return;
      int64_t type = i64(st, 2);
      bool has_end = !is_null(st, 1);
      // Without eventType (very old exports) a row with an end is a range, without one a mark.
      bool mark = type == kNone ? !has_end : nvtx_is_mark(type);
      bool range = type == kNone ? has_end : nvtx_is_range(type);
      if (!mark && !range) return;  // domain/category/thread-name records carry no time span
      AnnotationRow a;
      a.start_ns = sqlite3_column_int64(st, 0);
      a.dur_ns = 0;
      if (range && has_end && __builtin_sub_overflow(sqlite3_column_int64(st, 1), a.start_ns, &a.dur_ns)) a.dur_ns = 0;
      if (range && !has_end)
        tl_.warn(W::nsys_open_nvtx_range, "Nsight Systems SQLite: NVTX range without an end kept with duration 0",
                 path_);
      a.name = is_null(st, 3) ? name_of(st, 4, "NVTX_EVENTS") : tl_.strings.intern(text(st, 3));
      split_global_tid(i64(st, 5), a.pid, a.tid);
      tl_.annotations.push(a);
    });
  }

  Status read_devices() {
    return select("TARGET_INFO_GPU",
                  {"id", "name", "totalMemory", "smCount", "computeMajor", "computeMinor", "threadsPerWarp"},
                  [&](sqlite3_stmt* st) {
                    DeviceInfo d;
                    d.id = device_id(i64(st, 0));
                    d.name = to_valid_utf8(text(st, 1));  // a name with invalid bytes must still print as JSON
                    d.total_memory_bytes = i64(st, 2);
                    d.num_sms = static_cast<int>(i64(st, 3));
                    d.compute_major = static_cast<int>(i64(st, 4));
                    d.compute_minor = static_cast<int>(i64(st, 5));
                    d.warp_size = static_cast<int>(i64(st, 6));
                    if (d.compute_major >= 0 && d.compute_minor >= 0)
                      d.arch = fmt::format("sm_{}{}", d.compute_major, d.compute_minor);
                    for (const auto& x : tl_.meta.devices)
                      if (x.id == d.id && x.name == d.name) return;  // same GPU from another input
                    tl_.meta.devices.push_back(std::move(d));
                  });
  }

  Status read_session() {
    return select("TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"}, [&](sqlite3_stmt* st) {
      int64_t base = i64(st, 0);
      if (base <= 0) return;  // absent (kNone) or not an epoch
      if (tl_.meta.clock_base_ns == 0) {
        tl_.meta.clock_base_ns = base;
        tl_.meta.clock_is_epoch = true;
      } else if (tl_.meta.clock_base_ns != base) {
        tl_.warn(W::nsys_clock_base_differs,
                 "Nsight Systems SQLite: session start differs from the clock base already set by another input; "
                 "times of this file are relative to its own session start",
                 path_);
      }
    });
  }

  Status read_versions() {
    Status s = select("META_DATA_EXPORT", {"name", "value"}, [&](sqlite3_stmt* st) {
      std::string_view n = text(st, 0);
      if (n == "EXPORT_PRODUCT_VERSION") tl_.meta.versions["nsys"] = to_valid_utf8(text(st, 1));
      if (n == "EXPORT_SCHEMA_VERSION") tl_.meta.versions["nsys_export_schema"] = to_valid_utf8(text(st, 1));
    });
    if (!s.ok()) return s;
    return select("TARGET_INFO_SYSTEM_ENV", {"name", "value"}, [&](sqlite3_stmt* st) {
      std::string_view n = text(st, 0), v = text(st, 1);
      if (n == "NvDriverVersion" && !v.empty()) tl_.meta.versions["driver"] = to_valid_utf8(v);
      if (n == "CudaDriverVersion" && !v.empty()) {
        // CUDA encodes 12.6 as 12060 (1000*major + 10*minor).
        long x = std::strtol(std::string(v).c_str(), nullptr, 10);
        tl_.meta.versions["cuda_driver"] = x > 0 ? fmt::format("{}.{}", x / 1000, (x % 1000) / 10) : to_valid_utf8(v);
      }
    });
  }

  SqliteInput& in_;
  const std::string& path_;
  Timeline& tl_;
  std::set<std::string> tables_;
  std::unordered_map<std::string, std::set<std::string>> columns_;
  std::unordered_map<int64_t, StrId> strings_;
  std::unordered_map<StrId, StrId> api_names_;
  std::unordered_set<int64_t> sync_corr_;
};

}  // namespace

Status read_nsys_sqlite(const std::string& path, Timeline& tl, const ReadOptions&) {
  // Confined, read-only, immutable, bounded (core/sqlite_input.h).
  ASSIGN_OR_RETURN(auto in, SqliteInput::open(path, "Nsight Systems SQLite"));
  in->set_damage_note(" (file corrupt or truncated; events read before the damage are kept)");
  return NsysReader(*in, path, tl).run();
}

}  // namespace goblin::trace
