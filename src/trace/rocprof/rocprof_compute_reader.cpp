// rocprofiler-compute (Omniperf) SQLite database into a Timeline, read-only through SqliteInput.
//
// The database (`rocprof-compute analyze ... --output-format db`, schema_version 1.3.0 in the
// fixture) holds one workload per run: compute_workload (system info, roofline benchmark and
// profiling config as JSON), compute_kernel (kernel names), compute_dispatch (per-dispatch start,
// end, GPU), compute_metric_definition (every metric of the analysis: id such as "2.1.11", name,
// AMD's description, panel table, unit) and compute_kernel_metric_value (per kernel and metric,
// one value per statistic: "Avg", "Value", "Peak", "Pct of Peak", "Peak (Empirical)", ...).
//
// Mapping:
// - compute_dispatch → kernels (name from compute_kernel, device = gpu_id, correlation = dispatch_id).
// - compute_kernel_metric_value → counters keyed by kernel_uuid: counter "<id> <name>" for the
//   "Avg"/"Value" statistic, "<id> <name> [<statistic>]" for the others; unit from the definition.
//   goblin's metric schema is derived from these in hw (data/rocprof_compute_metrics.yaml).
// - compute_workload.sys_info_extdata → a device (gpu_arch, gpu_model, cu_per_gpu, wave_size);
//   roofline_bench_extdata (the empirical peaks rocprofiler-compute measured) is kept verbatim in
//   meta.extra["rocprof_compute_roofline_bench"]; compute_metadata → versions.
#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>

#include "core/sqlite_input.h"
#include "trace/readers.h"
#include "trace/rocprof/rocprof_fields.h"

namespace goblin::trace {

using namespace rocprof;

namespace {

using StmtPtr = SqliteInput::Stmt;

class ComputeReader {
 public:
  ComputeReader(SqliteInput& in, const std::string& path, Timeline& tl) : in_(in), path_(path), tl_(tl) {}

  Status run() {
    ASSIGN_OR_RETURN(tables_,
                     in_.format_tables({"compute_workload", "compute_metadata", "compute_kernel", "compute_dispatch",
                                        "compute_metric_definition", "compute_kernel_metric_value"}));
    for (const char* t :
         {"compute_workload", "compute_kernel", "compute_metric_definition", "compute_kernel_metric_value"})
      if (!tables_.count(t))
        return make_error(ErrorKind::Malformed,
                          fmt::format("rocprofiler-compute database has no table {} (another kind of database, or a "
                                      "schema goblin does not read)",
                                      t),
                          path_);
    for (auto step : {&ComputeReader::read_metadata, &ComputeReader::read_workload, &ComputeReader::read_kernels,
                      &ComputeReader::read_dispatches, &ComputeReader::read_values})
      RETURN_IF_ERROR((this->*step)());
    return Status::Ok();
  }

 private:
  static std::string col_text(sqlite3_stmt* st, int i) {
    const auto* t = sqlite3_column_text(st, i);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, i)))
             : std::string();
  }
  static bool is_null(sqlite3_stmt* st, int i) { return sqlite3_column_type(st, i) == SQLITE_NULL; }
  static int64_t i64(sqlite3_stmt* st, int i, int64_t dflt = kNone) {
    return is_null(st, i) ? dflt : sqlite3_column_int64(st, i);
  }

  Status need_columns(const char* table, std::initializer_list<const char*> cols) {
    std::set<std::string> have;
    ASSIGN_OR_RETURN(StmtPtr st, in_.prepare(fmt::format("PRAGMA table_info(\"{}\")", table),
                                             fmt::format("reading columns of {}", table)));
    while (true) {
      ASSIGN_OR_RETURN(bool row, in_.step(st.get(), fmt::format("reading columns of {}", table)));
      if (!row) break;
      have.insert(col_text(st.get(), 1));
    }
    for (const char* c : cols)
      if (!have.count(c))
        return make_error(ErrorKind::Malformed,
                          fmt::format("rocprofiler-compute database: table {} has no column \"{}\" (a schema goblin "
                                      "does not read)",
                                      table, c),
                          path_);
    return Status::Ok();
  }

  template <class F>
  Status each_row(const std::string& sql, const std::string& doing, F&& row) {
    return in_.each_row(sql, doing, std::forward<F>(row));
  }

  Status read_metadata() {
    if (!tables_.count("compute_metadata")) return Status::Ok();
    RETURN_IF_ERROR(need_columns("compute_metadata", {"compute_version", "schema_version"}));
    return each_row("SELECT compute_version, schema_version FROM compute_metadata", "reading compute_metadata",
                    [&](sqlite3_stmt* st) {
                      tl_.meta.versions["rocprofiler_compute"] = col_text(st, 0);
                      tl_.meta.versions["rocprofiler_compute_schema"] = col_text(st, 1);
                    });
  }

  // One device per workload's system info; the empirical roofline peaks kept as JSON text.
  Status read_workload() {
    RETURN_IF_ERROR(need_columns("compute_workload", {"sys_info_extdata", "roofline_bench_extdata"}));
    const std::string sql =
        "SELECT CASE WHEN json_valid(sys_info_extdata) THEN json_extract(sys_info_extdata, '$.gpu_arch') END, "
        "CASE WHEN json_valid(sys_info_extdata) THEN json_extract(sys_info_extdata, '$.gpu_model') END, "
        "CASE WHEN json_valid(sys_info_extdata) THEN json_extract(sys_info_extdata, '$.cu_per_gpu') END, "
        "CASE WHEN json_valid(sys_info_extdata) THEN json_extract(sys_info_extdata, '$.wave_size') END, "
        "CASE WHEN json_valid(roofline_bench_extdata) THEN json(roofline_bench_extdata) END, "
        "CASE WHEN json_valid(sys_info_extdata) THEN json_extract(sys_info_extdata, '$.rocm_version') END "
        "FROM compute_workload";
    return each_row(sql, "reading compute_workload", [&](sqlite3_stmt* st) {
      if (tl_.meta.devices.empty()) {
        DeviceInfo d;
        d.id = 0;
        d.arch = col_text(st, 0);
        const std::string model = col_text(st, 1);
        d.name = model.empty() ? d.arch : fmt::format("AMD Instinct {}", model);
        d.num_sms = static_cast<int>(std::clamp<int64_t>(i64(st, 2, -1), -1, INT32_MAX));
        d.warp_size = static_cast<int>(std::clamp<int64_t>(i64(st, 3, -1), -1, INT32_MAX));
        tl_.meta.devices.push_back(std::move(d));
      }
      if (!is_null(st, 4)) tl_.meta.extra["rocprof_compute_roofline_bench"] = col_text(st, 4);
      if (!is_null(st, 5)) tl_.meta.versions["rocm"] = col_text(st, 5);
    });
  }

  Status read_kernels() {
    RETURN_IF_ERROR(need_columns("compute_kernel", {"kernel_uuid", "kernel_name"}));
    return each_row("SELECT kernel_uuid, kernel_name FROM compute_kernel", "reading compute_kernel",
                    [&](sqlite3_stmt* st) { names_[i64(st, 0)] = tl_.strings.intern(col_text(st, 1)); });
  }

  StrId name_of(int64_t kernel) {
    auto it = names_.find(kernel);
    if (it != names_.end()) return it->second;
    StrId id = tl_.strings.intern(fmt::format("kernel_uuid {}", kernel));
    names_[kernel] = id;
    return id;
  }

  Status read_dispatches() {
    if (!tables_.count("compute_dispatch")) return Status::Ok();
    RETURN_IF_ERROR(
        need_columns("compute_dispatch", {"kernel_uuid", "dispatch_id", "gpu_id", "start_timestamp", "end_timestamp"}));
    return each_row("SELECT kernel_uuid, dispatch_id, gpu_id, start_timestamp, end_timestamp FROM compute_dispatch",
                    "reading compute_dispatch", [&](sqlite3_stmt* st) {
                      if (is_null(st, 3) || is_null(st, 4) || !valid_times(i64(st, 3), i64(st, 4))) {
                        tl_.warn(W::rocprof_bad_times,
                                 "rocprofiler-compute: dispatches without valid start/end skipped", path_);
                        return;
                      }
                      GpuOpRow k;
                      k.start_ns = i64(st, 3);
                      k.dur_ns = i64(st, 4) - k.start_ns;
                      k.name = name_of(i64(st, 0));
                      const int64_t gpu = i64(st, 2);
                      k.device = gpu >= 0 && gpu <= INT32_MAX ? static_cast<int32_t>(gpu) : static_cast<int32_t>(kNone);
                      k.correlation = i64(st, 1);
                      tl_.gpu_ops.push(k);
                    });
  }

  Status read_values() {
    RETURN_IF_ERROR(need_columns("compute_metric_definition", {"metric_uuid", "name", "metric_id", "unit"}));
    RETURN_IF_ERROR(need_columns("compute_kernel_metric_value", {"metric_uuid", "kernel_uuid", "value_name", "value"}));
    const std::string sql =
        "SELECT V.kernel_uuid, D.metric_id, D.name, V.value_name, D.unit, V.value FROM compute_kernel_metric_value V "
        "JOIN compute_metric_definition D ON D.metric_uuid = V.metric_uuid";
    fmt::memory_buffer name;
    return each_row(sql, "reading compute_kernel_metric_value", [&](sqlite3_stmt* st) {
      if (is_null(st, 5)) return;  // a statistic the analysis left empty (a peak of a latency)
      const std::string stat = col_text(st, 3), unit = col_text(st, 4);
      name.clear();
      if (stat.empty() || stat == "Avg" || stat == "Value")
        fmt::format_to(std::back_inserter(name), "{} {}", col_text(st, 1), col_text(st, 2));
      else
        fmt::format_to(std::back_inserter(name), "{} {} [{}]", col_text(st, 1), col_text(st, 2), stat);
      const int64_t kernel = i64(st, 0);
      tl_.counters.push(kernel, name_of(kernel), tl_.strings.intern(std::string_view(name.data(), name.size())),
                        unit.empty() ? kNoStr : tl_.strings.intern(unit), sqlite3_column_double(st, 5));
    });
  }

  SqliteInput& in_;
  const std::string& path_;
  Timeline& tl_;
  std::set<std::string> tables_;
  std::unordered_map<int64_t, StrId> names_;
};

}  // namespace

Status read_rocprof_compute(const std::string& path, Timeline& tl, const ReadOptions&) {
  ASSIGN_OR_RETURN(auto in, SqliteInput::open(path, "rocprofiler-compute SQLite"));
  in->set_damage_note(" (file corrupt or truncated; rows read before the damage are kept)");
  return ComputeReader(*in, path, tl).run();
}

}  // namespace goblin::trace
