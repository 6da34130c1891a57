// rocpd: the SQLite database rocprofv3 writes by default since ROCm 7.0 (`--output-format rocpd`),
// read into a Timeline through SqliteInput (read-only, immutable, views off, bounded).
//
// Schema: ROCm/rocprofiler-sdk source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql (schema_version
// 3; commit 50c89cbde07fa1890f7b3167bef29297bdae608e), written by source/lib/output/generateRocpd.cpp
// (commit ac2b8768c38c37caabae23bbd70fd238152a2643). Every table name carries the run's suffix,
// "_" + its UUID with '-' → '_' (rocpd_kernel_dispatch_0194e3a1_...); the unsuffixed names
// (rocpd_kernel_dispatch, kernels, regions, ...) are views over them. Views are never run here
// (core/sqlite_input.h), so the suffixed tables are read, one run (suffix) after the other; a
// database merged from several runs holds several suffixes. Ids refer within one run only.
//
// What the writer stores (generateRocpd.cpp): rocpd_info_agent.id = the agent's node id,
// logical_index its logical node id (the device number of rocprofv3's JSON and CSV output);
// rocpd_info_queue/stream.id = the HSA queue / HIP stream handle; rocpd_info_process.id = the OS
// pid, rocpd_info_thread.id = the OS tid; rocpd_event.stack_id = the internal correlation id,
// rocpd_event.correlation_id = the external one; a region's category (rocpd_event.category_id →
// rocpd_string) is its buffer-tracing kind ("HIP_RUNTIME_API", "HSA_CORE_API", "MARKER_CORE_API").
//
// Mapping (the same as the rocprofv3 JSON reader's, so one run gives one set of figures):
// - rocpd_kernel_dispatch → kernels: name = kernel symbol display_name (formatted_kernel_name),
//   device = the agent's logical index, stream = the HIP stream when not 0 else the HSA queue,
//   grid in work-groups, LDS = group_segment_size.
// - rocpd_region: MARKER_* categories → annotations (roctx), the others → runtime calls
//   (is_driver for HSA_*, is_sync for *Synchronize*).
// - rocpd_memory_copy → memcpys (direction from the operation name, device from the agent that
//   moves the data, as the JSON reader).
// - rocpd_pmc_event + rocpd_info_pmc → counters keyed by dispatch id.
// - rocpd_info_agent GPUs → meta.devices (gfx arch, marketing name, CU count, wave size from
//   extdata); rocpd_metadata schema_version → versions["rocpd_schema"].
// - rocpd_memory_allocate, rocpd_sample: counted, not analysed (no timeline table).
// Statements stream row by row; only the small id tables (strings, agents, symbols, processes,
// threads) are held in memory beside the Timeline.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/sqlite_input.h"
#include "core/text.h"
#include "model/runtime_call.h"
#include "trace/readers.h"
#include "trace/rocprof/rocpd.h"
#include "trace/rocprof/rocprof_fields.h"

namespace goblin::trace {

using namespace rocprof;

namespace {

using StmtPtr = SqliteInput::Stmt;

constexpr const char* kWhat = "rocpd";
constexpr int64_t kSchemaVersion = 3;

// Every table of the rocpd schema (rocpd_tables.sql); a name is one of these plus a run suffix.
const std::vector<std::string>& table_bases() {
  static const std::vector<std::string> bases = [] {
    std::vector<std::string> b = {"rocpd_metadata",
                                  "rocpd_string",
                                  "rocpd_info_node",
                                  "rocpd_info_process",
                                  "rocpd_info_thread",
                                  "rocpd_info_agent",
                                  "rocpd_info_queue",
                                  "rocpd_info_stream",
                                  "rocpd_info_pmc",
                                  "rocpd_info_code_object",
                                  "rocpd_info_kernel_symbol",
                                  "rocpd_track",
                                  "rocpd_event",
                                  "rocpd_arg",
                                  "rocpd_pmc_event",
                                  "rocpd_region",
                                  "rocpd_sample",
                                  "rocpd_kernel_dispatch",
                                  "rocpd_memory_copy",
                                  "rocpd_memory_allocate"};
    // Longest first, so a name is split at its own base and not at a shorter one it starts with.
    std::sort(b.begin(), b.end(), [](const std::string& x, const std::string& y) { return x.size() > y.size(); });
    return b;
  }();
  return bases;
}

// The tables one run cannot be read without; the others are read when present.
constexpr const char* kRequired[] = {"rocpd_kernel_dispatch", "rocpd_string", "rocpd_info_agent",
                                     "rocpd_info_kernel_symbol", "rocpd_event"};

// base + suffix when `name` is a rocpd table name: the suffix is empty or "_" + [0-9A-Fa-f_]+.
bool split_name(const std::string& name, std::string& base, std::string& suffix) {
  for (const std::string& b : table_bases()) {
    if (!name.starts_with(b)) continue;
    std::string_view rest = std::string_view(name).substr(b.size());
    if (rest.empty()) {
      base = b;
      suffix.clear();
      return true;
    }
    if (rest.size() < 2 || rest[0] != '_') return false;
    for (char c : rest.substr(1))
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != '_') return false;
    base = b;
    suffix = std::string(rest);
    return true;
  }
  return false;
}

class RocpdReader {
 public:
  // `only`: read that process's rows alone (one rank of a several-process database).
  RocpdReader(SqliteInput& in, const std::string& path, Timeline& tl,
              std::optional<trace::RocpdProcess> only = std::nullopt)
      : in_(in), path_(path), tl_(tl), only_(only) {}

  // Every process of every run, (node, OS pid), sorted.
  Result<std::vector<trace::RocpdProcess>> processes() {
    RETURN_IF_ERROR(list_runs());
    for (const auto& [suffix, bases] : runs_) {
      suffix_ = suffix;
      bases_ = &bases;
      RETURN_IF_ERROR(read_processes());
    }
    std::vector<trace::RocpdProcess> out;
    for (const auto& [node, pid] : processes_) out.push_back({node, pid});
    return out;
  }

  Status run() {
    RETURN_IF_ERROR(list_runs());
    if (runs_.empty())
      return make_error(ErrorKind::Malformed,
                        "rocpd: no rocpd_kernel_dispatch table (nor any rocpd table of schema version 3): not a "
                        "rocpd database goblin reads",
                        path_);
    for (const auto& [suffix, bases] : runs_) {
      for (const char* req : kRequired)
        if (!bases.count(req))
          return make_error(ErrorKind::Malformed,
                            fmt::format("rocpd: the database has no table {}{} (a rocpd database of another kind or "
                                        "schema; goblin reads schema version {})",
                                        req, suffix, kSchemaVersion),
                            path_);
    }
    for (const auto& [suffix, bases] : runs_) {
      suffix_ = suffix;
      bases_ = &bases;
      RETURN_IF_ERROR(read_run());
    }
    if (processes_.size() > 1)
      tl_.warn(
          W::rocpd_several_processes,
          fmt::format("rocpd: {} processes in one database are read as one timeline (`goblin ranks` reads one rank per "
                      "process)",
                      processes_.size()),
          path_);
    for (const auto& [what, n] : not_analysed_)
      tl_.warn(W::rocprof_domain_not_analysed,
               fmt::format("rocpd: {} {} rows read but not analysed (goblin has no timeline table for them)", n, what),
               path_);
    return Status::Ok();
  }

 private:
  // ---- plumbing ------------------------------------------------------------------------------
  // Groups the rocpd tables by run suffix. Each name the reader may read must be a plain table
  // (SqliteInput::format_tables); the unsuffixed views the writer adds are left alone.
  Status list_runs() {
    std::vector<std::string> names;
    {
      ASSIGN_OR_RETURN(StmtPtr st, in_.prepare("SELECT type, name FROM sqlite_master", "listing tables"));
      while (true) {
        ASSIGN_OR_RETURN(bool row, in_.step(st.get(), "listing tables"));
        if (!row) break;
        std::string type = col_text(st.get(), 0), name = col_text(st.get(), 1), base, suffix;
        if (!split_name(name, base, suffix)) continue;
        if (suffix.empty() && type == "view") continue;  // the writer's views over the runs
        names.push_back(name);
      }
    }
    ASSIGN_OR_RETURN(std::set<std::string> tables, in_.format_tables(names));
    for (const std::string& name : tables) {
      std::string base, suffix;
      if (split_name(name, base, suffix)) runs_[suffix].insert(base);
    }
    // A run is a suffix with a kernel dispatch or metadata table; other suffixes are noise.
    for (auto it = runs_.begin(); it != runs_.end();) {
      if (!it->second.count("rocpd_kernel_dispatch") && !it->second.count("rocpd_metadata"))
        it = runs_.erase(it);
      else
        ++it;
    }
    return Status::Ok();
  }

  // Valid UTF-8 always: an agent's or a symbol's name with invalid bytes reaches JSON output
  // (nlohmann's dump throws on invalid UTF-8), so its bad bytes become U+FFFD here.
  static std::string col_text(sqlite3_stmt* st, int i) {
    const auto* t = sqlite3_column_text(st, i);
    if (!t) return {};
    return to_valid_utf8({reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, i))});
  }
  static bool is_null(sqlite3_stmt* st, int i) { return sqlite3_column_type(st, i) == SQLITE_NULL; }
  static int64_t i64(sqlite3_stmt* st, int i, int64_t dflt = kNone) {
    return is_null(st, i) ? dflt : sqlite3_column_int64(st, i);
  }

  bool has(const char* base) const { return bases_->count(base) > 0; }
  std::string table(const char* base) const { return fmt::format("\"{}{}\"", base, suffix_); }

  // Fails, naming the table and column, when `base` lacks a column this reader selects (a newer
  // or older schema than version 3).
  Status need_columns(const char* base, std::initializer_list<const char*> cols) {
    std::set<std::string> have;
    const std::string t = fmt::format("{}{}", base, suffix_);
    ASSIGN_OR_RETURN(StmtPtr st, in_.prepare(fmt::format("PRAGMA table_info(\"{}\")", t), "reading columns of " + t));
    while (true) {
      ASSIGN_OR_RETURN(bool row, in_.step(st.get(), "reading columns of " + t));
      if (!row) break;
      have.insert(col_text(st.get(), 1));
    }
    for (const char* c : cols)
      if (!have.count(c))
        return make_error(ErrorKind::Malformed,
                          fmt::format("rocpd: table {} has no column \"{}\" (a rocpd schema other than version {})", t,
                                      c, kSchemaVersion),
                          path_);
    return Status::Ok();
  }

  template <class F>
  Status each_row(const std::string& sql, const std::string& doing, F&& row) {
    return in_.each_row(sql, doing, std::forward<F>(row));
  }

  StrId str(sqlite3_stmt* st, int i) {
    if (is_null(st, i)) return kNoStr;
    auto it = strings_.find(sqlite3_column_int64(st, i));
    if (it != strings_.end()) return it->second;
    tl_.warn(W::rocpd_missing_string, "rocpd: a row refers to a rocpd_string id that does not exist", path_);
    return kNoStr;
  }

  int32_t device_of(int64_t agent) {
    auto it = agent_device_.find(agent);
    if (it != agent_device_.end()) return it->second;
    tl_.warn(W::rocprof_bad_agent, "rocpd: a row names an agent id missing from rocpd_info_agent", path_);
    return static_cast<int32_t>(kNone);
  }

  // Start and end; false (a folded warning) when either is absent or negative.
  bool times(sqlite3_stmt* st, int i, const char* base, int64_t& start, int64_t& dur) {
    if (is_null(st, i) || is_null(st, i + 1) || !valid_times(i64(st, i), i64(st, i + 1))) {
      tl_.warn(W::rocprof_bad_times, fmt::format("rocpd: {} rows without valid start/end skipped", base), path_);
      return false;
    }
    start = sqlite3_column_int64(st, i);
    dur = sqlite3_column_int64(st, i + 1) - start;
    return true;
  }

  // ---- one run -------------------------------------------------------------------------------
  Status read_run() {
    strings_.clear();
    agent_device_.clear();
    symbols_.clear();
    pids_.clear();
    tids_.clear();
    keep_.clear();
    run_processes_ = 0;
    RETURN_IF_ERROR(read_processes());
    // One process asked for: a run without it adds nothing (not even its agents as devices).
    if (only_ && keep_.empty()) return Status::Ok();
    for (auto step :
         {&RocpdReader::read_metadata, &RocpdReader::read_strings, &RocpdReader::read_threads,
          &RocpdReader::read_agents, &RocpdReader::read_symbols, &RocpdReader::read_kernels, &RocpdReader::read_regions,
          &RocpdReader::read_copies, &RocpdReader::read_counters, &RocpdReader::count_unread})
      RETURN_IF_ERROR((this->*step)());
    return Status::Ok();
  }

  Status read_metadata() {
    if (!has("rocpd_metadata")) return Status::Ok();
    RETURN_IF_ERROR(need_columns("rocpd_metadata", {"tag", "value"}));
    return each_row(fmt::format("SELECT tag, value FROM {}", table("rocpd_metadata")), "reading rocpd_metadata",
                    [&](sqlite3_stmt* st) {
                      if (col_text(st, 0) != "schema_version") return;
                      const std::string v = col_text(st, 1);
                      tl_.meta.versions["rocpd_schema"] = v;
                      if (v != fmt::format("{}", kSchemaVersion))
                        tl_.warn(W::rocpd_schema_version,
                                 fmt::format("rocpd: schema_version {} (goblin reads version {})", v, kSchemaVersion),
                                 path_);
                    });
  }

  Status read_strings() {
    RETURN_IF_ERROR(need_columns("rocpd_string", {"id", "string"}));
    return each_row(
        fmt::format("SELECT id, string FROM {}", table("rocpd_string")), "reading rocpd_string", [&](sqlite3_stmt* st) {
          if (is_null(st, 0)) return;
          const auto* t = sqlite3_column_text(st, 1);
          std::string_view s =
              t ? std::string_view(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, 1)))
                : std::string_view();
          strings_[sqlite3_column_int64(st, 0)] = tl_.strings.intern(s);
        });
  }

  // rocpd_info_process.id → OS pid (the writer uses the pid as the id; the schema allows others).
  Status read_processes() {
    if (!has("rocpd_info_process")) return Status::Ok();
    RETURN_IF_ERROR(need_columns("rocpd_info_process", {"id", "nid", "pid"}));
    return each_row(fmt::format("SELECT id, nid, pid FROM {}", table("rocpd_info_process")),
                    "reading rocpd_info_process", [&](sqlite3_stmt* st) {
                      pids_[i64(st, 0)] = i64(st, 2);
                      ++run_processes_;
                      const bool wanted = !only_ || (only_->node == i64(st, 1) && only_->pid == i64(st, 2));
                      if (!wanted) return;
                      keep_.push_back(i64(st, 0));
                      processes_.insert({i64(st, 1), i64(st, 2)});
                    });
  }

  // " WHERE <alias>.pid IN (...)" when one process is read out of a run that holds others too;
  // empty when every row of the run is wanted. The ids are integers read from the database.
  std::string process_filter(const char* alias) const {
    if (!only_ || keep_.empty() || static_cast<int64_t>(keep_.size()) == run_processes_) return {};
    return fmt::format(" WHERE {}.pid IN ({})", alias, fmt::join(keep_, ","));
  }

  Status read_threads() {
    if (!has("rocpd_info_thread")) return Status::Ok();
    RETURN_IF_ERROR(need_columns("rocpd_info_thread", {"id", "tid"}));
    return each_row(fmt::format("SELECT id, tid FROM {}", table("rocpd_info_thread")), "reading rocpd_info_thread",
                    [&](sqlite3_stmt* st) { tids_[i64(st, 0)] = i64(st, 1); });
  }

  // GPU agents become devices, numbered by logical index as rocprofv3's JSON and CSV do. CU count
  // and wave size live in extdata (the agent record as JSON); a damaged extdata leaves them unknown.
  Status read_agents() {
    RETURN_IF_ERROR(
        need_columns("rocpd_info_agent", {"id", "type", "logical_index", "name", "product_name", "extdata"}));
    const std::string sql = fmt::format(
        "SELECT id, type, logical_index, name, product_name, "
        "CASE WHEN json_valid(extdata) THEN json_extract(extdata, '$.cu_count') END, "
        "CASE WHEN json_valid(extdata) THEN json_extract(extdata, '$.wave_front_size') END FROM {}",
        table("rocpd_info_agent"));
    return each_row(sql, "reading rocpd_info_agent", [&](sqlite3_stmt* st) {
      const int64_t id = i64(st, 0), node = i64(st, 2);
      if (is_null(st, 0) || node < 0 || node > INT32_MAX) return;
      agent_device_[id] = static_cast<int32_t>(node);
      if (col_text(st, 1) != "GPU") return;
      ensure_device(tl_, node);
      const std::string name = col_text(st, 3), product = col_text(st, 4);
      for (auto& d : tl_.meta.devices) {
        if (d.id != node) continue;
        d.arch = name;
        d.name = product.empty() ? name : product;
        d.num_sms = static_cast<int>(std::clamp<int64_t>(i64(st, 5, -1), -1, INT32_MAX));
        d.warp_size = static_cast<int>(std::clamp<int64_t>(i64(st, 6, -1), -1, INT32_MAX));
      }
    });
  }

  // display_name is formatted_kernel_name (what rocprofv3's CSV prints); kernel_name without its
  // ".kd" when that is empty.
  Status read_symbols() {
    RETURN_IF_ERROR(need_columns("rocpd_info_kernel_symbol", {"id", "kernel_name", "display_name"}));
    return each_row(fmt::format("SELECT id, kernel_name, display_name FROM {}", table("rocpd_info_kernel_symbol")),
                    "reading rocpd_info_kernel_symbol", [&](sqlite3_stmt* st) {
                      std::string name = col_text(st, 2);
                      if (name.empty()) {
                        name = col_text(st, 1);
                        if (name.ends_with(".kd")) name.resize(name.size() - 3);
                      }
                      symbols_[i64(st, 0)] = tl_.strings.intern(name);
                    });
  }

  StrId symbol(int64_t kernel_id) {
    auto it = symbols_.find(kernel_id);
    if (it != symbols_.end()) return it->second;
    tl_.warn(W::rocprof_missing_kernel_symbol,
             "rocpd: kernel dispatch names a kernel_id missing from rocpd_info_kernel_symbol", path_);
    StrId id = tl_.strings.intern(fmt::format("kernel_id {}", kernel_id));
    symbols_[kernel_id] = id;
    return id;
  }

  // The event's correlation ids: stack_id the internal one, correlation_id the external one.
  std::string event_join(const char* alias) const {
    return has("rocpd_event") ? fmt::format("LEFT JOIN {} E ON E.id = {}.event_id", table("rocpd_event"), alias)
                              : std::string();
  }

  Status read_kernels() {
    RETURN_IF_ERROR(need_columns(
        "rocpd_kernel_dispatch",
        {"start", "end", "agent_id", "queue_id", "stream_id", "kernel_id", "group_segment_size", "workgroup_size_x",
         "workgroup_size_y", "workgroup_size_z", "grid_size_x", "grid_size_y", "grid_size_z", "event_id"}));
    RETURN_IF_ERROR(need_columns("rocpd_event", {"id", "stack_id", "correlation_id", "category_id"}));
    if (!process_filter("K").empty()) RETURN_IF_ERROR(need_columns("rocpd_kernel_dispatch", {"pid"}));
    const std::string sql = fmt::format(
        "SELECT K.start, K.end, K.agent_id, K.queue_id, K.stream_id, K.kernel_id, K.group_segment_size, "
        "K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z, K.grid_size_x, K.grid_size_y, K.grid_size_z, "
        "E.stack_id, E.correlation_id FROM {} K {}{}",
        table("rocpd_kernel_dispatch"), event_join("K"), process_filter("K"));
    return each_row(sql, "reading rocpd_kernel_dispatch", [&](sqlite3_stmt* st) {
      GpuOpRow k;
      if (!times(st, 0, "rocpd_kernel_dispatch", k.start_ns, k.dur_ns)) return;
      k.device = device_of(i64(st, 2));
      const int64_t queue = i64(st, 3), stream = i64(st, 4);
      k.stream = stream > 0 ? stream : queue;  // HIP stream when recorded, else the HSA queue
      k.name = symbol(i64(st, 5));
      if (i64(st, 6) >= 0) k.shared_mem_bytes = i64(st, 6);
      for (int d = 0; d < 3; ++d) {
        const int64_t wg = std::max<int64_t>(i64(st, 7 + d, 0), 0), grid = i64(st, 10 + d, 0);
        k.block[d] = wg > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(wg);
        k.grid[d] = grid_items_to_blocks(grid, wg);
      }
      const int64_t internal = i64(st, 13), external = i64(st, 14);
      k.correlation = internal > 0 ? internal : kNone;
      k.external_id = external > 0 ? external : kNone;
      tl_.gpu_ops.push(k);
    });
  }

  int64_t mapped(const std::unordered_map<int64_t, int64_t>& m, int64_t id) const {
    auto it = m.find(id);
    return it != m.end() ? it->second : id;
  }

  Status read_regions() {
    if (!has("rocpd_region")) return Status::Ok();
    RETURN_IF_ERROR(need_columns("rocpd_region", {"start", "end", "pid", "tid", "name_id", "event_id"}));
    const std::string sql = fmt::format(
        "SELECT R.start, R.end, R.pid, R.tid, R.name_id, E.category_id, E.stack_id, E.correlation_id FROM {} R {}{}",
        table("rocpd_region"), event_join("R"), process_filter("R"));
    std::unordered_map<StrId, std::pair<bool, bool>> kinds;  // category → (marker, driver)
    std::unordered_map<StrId, bool> sync;
    return each_row(sql, "reading rocpd_region", [&](sqlite3_stmt* st) {
      int64_t start = 0, dur = 0;
      if (!times(st, 0, "rocpd_region", start, dur)) return;
      const StrId cat = is_null(st, 5) ? kNoStr : str(st, 5);
      auto kit = kinds.find(cat);
      if (kit == kinds.end()) {
        std::string_view c = cat == kNoStr ? std::string_view() : tl_.str(cat);
        kit = kinds.emplace(cat, std::make_pair(c.starts_with("MARKER_"), c.starts_with("HSA_"))).first;
      }
      const int64_t pid = mapped(pids_, i64(st, 2)), tid = mapped(tids_, i64(st, 3));
      const StrId name = str(st, 4);
      if (kit->second.first) {
        AnnotationRow a;
        a.start_ns = start;
        a.dur_ns = dur;
        a.name = name;
        a.pid = pid;
        a.tid = tid;
        tl_.annotations.push(a);
        return;
      }
      RuntimeRow r;
      r.start_ns = start;
      r.dur_ns = dur;
      r.name = name;
      r.pid = pid;
      r.tid = tid;
      r.is_driver = kit->second.second;
      auto sit = sync.find(name);
      if (sit == sync.end()) sit = sync.emplace(name, name != kNoStr && is_sync_call(tl_.str(name))).first;
      r.is_sync = sit->second;
      const int64_t internal = i64(st, 6), external = i64(st, 7);
      r.correlation = internal > 0 ? internal : kNone;
      r.external_id = external > 0 ? external : kNone;
      tl_.runtime.push(r);
    });
  }

  Status read_copies() {
    if (!has("rocpd_memory_copy")) return Status::Ok();
    RETURN_IF_ERROR(need_columns("rocpd_memory_copy", {"start", "end", "name_id", "dst_agent_id", "src_agent_id",
                                                       "size", "stream_id", "event_id"}));
    if (!process_filter("M").empty()) RETURN_IF_ERROR(need_columns("rocpd_memory_copy", {"pid"}));
    const std::string sql = fmt::format(
        "SELECT M.start, M.end, M.name_id, M.dst_agent_id, M.src_agent_id, M.size, M.stream_id, E.stack_id, "
        "E.correlation_id FROM {} M {}{}",
        table("rocpd_memory_copy"), event_join("M"), process_filter("M"));
    return each_row(sql, "reading rocpd_memory_copy", [&](sqlite3_stmt* st) {
      GpuOpRow m;
      m.kind = GpuOpKind::Memcpy;
      if (!times(st, 0, "rocpd_memory_copy", m.start_ns, m.dur_ns)) return;
      m.name = str(st, 2);
      m.copy_kind = m.name == kNoStr ? CopyKind::Unknown : copy_kind_from_text(tl_.str(m.name));
      const bool from_src =
          m.copy_kind == CopyKind::DtoH || m.copy_kind == CopyKind::DtoD || m.copy_kind == CopyKind::PtoP;
      if (from_src && !is_null(st, 4))
        m.device = device_of(i64(st, 4));
      else if (!is_null(st, 3))
        m.device = device_of(i64(st, 3));
      m.bytes = i64(st, 5);
      m.stream = i64(st, 6);
      const int64_t internal = i64(st, 7), external = i64(st, 8);
      m.correlation = internal > 0 ? internal : kNone;
      m.external_id = external > 0 ? external : kNone;
      tl_.gpu_ops.push(m);
    });
  }

  // Counter collection: one rocpd_pmc_event row per counter value of a dispatch (its event).
  Status read_counters() {
    if (!has("rocpd_pmc_event") || !has("rocpd_info_pmc")) return Status::Ok();
    RETURN_IF_ERROR(need_columns("rocpd_pmc_event", {"event_id", "pmc_id", "value"}));
    RETURN_IF_ERROR(need_columns("rocpd_info_pmc", {"id", "name", "units"}));
    RETURN_IF_ERROR(need_columns("rocpd_kernel_dispatch", {"dispatch_id", "kernel_id", "event_id"}));
    if (!process_filter("K").empty()) RETURN_IF_ERROR(need_columns("rocpd_kernel_dispatch", {"pid"}));
    const std::string sql = fmt::format(
        "SELECT K.dispatch_id, K.kernel_id, I.name, I.units, P.value FROM {} P JOIN {} I ON I.id = P.pmc_id "
        "LEFT JOIN {} K ON K.event_id = P.event_id{}",
        table("rocpd_pmc_event"), table("rocpd_info_pmc"), table("rocpd_kernel_dispatch"), process_filter("K"));
    return each_row(sql, "reading rocpd_pmc_event", [&](sqlite3_stmt* st) {
      const std::string unit = col_text(st, 3);
      tl_.counters.push(i64(st, 0), is_null(st, 1) ? kNoStr : symbol(i64(st, 1)), tl_.strings.intern(col_text(st, 2)),
                        unit.empty() ? kNoStr : tl_.strings.intern(unit), sqlite3_column_double(st, 4));
    });
  }

  // Tables goblin has no timeline table for: counted so the user hears they were not analysed.
  Status count_unread() {
    for (const char* base : {"rocpd_memory_allocate", "rocpd_sample"}) {
      if (!has(base)) continue;
      RETURN_IF_ERROR(each_row(fmt::format("SELECT count(*) FROM {}", table(base)), fmt::format("counting {}", base),
                               [&](sqlite3_stmt* st) {
                                 if (i64(st, 0, 0) > 0) not_analysed_[base] += i64(st, 0, 0);
                               }));
    }
    return Status::Ok();
  }

  SqliteInput& in_;
  const std::string& path_;
  Timeline& tl_;
  std::map<std::string, std::set<std::string>> runs_;  // suffix → bases present
  std::string suffix_;
  const std::set<std::string>* bases_ = nullptr;
  std::unordered_map<int64_t, StrId> strings_, symbols_;
  std::unordered_map<int64_t, int32_t> agent_device_;
  std::unordered_map<int64_t, int64_t> pids_, tids_;
  std::set<std::pair<int64_t, int64_t>> processes_;  // (node, pid) over all runs (the wanted one)
  std::optional<trace::RocpdProcess> only_;
  std::vector<int64_t> keep_;  // this run's rocpd_info_process ids to read
  int64_t run_processes_ = 0;  // this run's processes
  std::map<std::string, int64_t> not_analysed_;
};

}  // namespace

Status read_rocpd(const std::string& path, Timeline& tl, const ReadOptions&) {
  // Confined, read-only, immutable, bounded (core/sqlite_input.h).
  ASSIGN_OR_RETURN(auto in, SqliteInput::open(path, "rocpd SQLite"));
  in->set_damage_note(" (file corrupt or truncated; rows read before the damage are kept)");
  return RocpdReader(*in, path, tl).run();
}

Result<std::vector<RocpdProcess>> rocpd_processes(const std::string& path) {
  ASSIGN_OR_RETURN(auto in, SqliteInput::open(path, "rocpd SQLite"));
  Timeline scratch;
  return RocpdReader(*in, path, scratch).processes();
}

Status read_rocpd_process(const std::string& path, const RocpdProcess& only, Timeline& tl) {
  ASSIGN_OR_RETURN(auto in, SqliteInput::open(path, "rocpd SQLite"));
  in->set_damage_note(" (file corrupt or truncated; rows read before the damage are kept)");
  return RocpdReader(*in, path, tl, only).run();
}

}  // namespace goblin::trace
