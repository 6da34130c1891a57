// Legacy rocprof CSVs. Column names changed across v1 (results.csv: KernelName, gpu-id, grd,
// wgr, BeginNs...), ROCm 6.0 (GRD/WGR/LDS upper case) and the rocprofv2 file plugin /
// rocprofiler-compute (Dispatch_ID, GPU_ID, Grid_Size, Start_Timestamp...), so every column is
// found by any of its names, case-insensitively. Columns that are not dispatch fields are
// hardware counters (`rocprof -i input.txt` pmc lines).
#include <unordered_set>

#include "core/csv.h"
#include "trace/rocprof/rocprof_fields.h"
#include "trace/rocprof/rocprof_stats.h"
#include "trace/rocprof/rocprof_v1_parts.h"

namespace goblin::trace::rocprof {

namespace {

// Dispatch fields of every known header generation (lower-cased); anything else is a counter.
const std::unordered_set<std::string>& dispatch_fields() {
  static const std::unordered_set<std::string> s = {"index",
                                                    "dispatch_id",
                                                    "kernelname",
                                                    "kernel_name",
                                                    "gpu-id",
                                                    "gpu_id",
                                                    "queue-id",
                                                    "queue_id",
                                                    "queue-index",
                                                    "pid",
                                                    "tid",
                                                    "grd",
                                                    "grid_size",
                                                    "wgr",
                                                    "workgroup_size",
                                                    "lds",
                                                    "lds_per_workgroup",
                                                    "scr",
                                                    "scratch_per_workitem",
                                                    "arch_vgpr",
                                                    "accum_vgpr",
                                                    "vgpr",
                                                    "sgpr",
                                                    "fbar",
                                                    "wave_size",
                                                    "sig",
                                                    "obj",
                                                    "dispatchns",
                                                    "beginns",
                                                    "endns",
                                                    "completens",
                                                    "durationns",
                                                    "start_timestamp",
                                                    "end_timestamp",
                                                    "correlation_id",
                                                    "xcc_index",
                                                    "node",
                                                    "gpu-node"};
  return s;
}

// pandas renames a repeated column "X" to "X_1" (rocprofiler-compute merges pmc passes).
bool is_dedup_of_dispatch_field(const std::string& lower) {
  size_t us = lower.rfind('_');
  if (us == std::string::npos || us + 1 >= lower.size()) return false;
  for (size_t i = us + 1; i < lower.size(); ++i) {
    if (lower[i] < '0' || lower[i] > '9') return false;
  }
  return dispatch_fields().count(lower.substr(0, us)) > 0;
}

}  // namespace

Status read_v1_csv(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto src = open_source(path, opt.io);
  if (!src) return src.error();
  CsvReader csv(std::move(*src));
  std::vector<std::string_view> f;
  if (!csv.next(f)) {
    if (csv.error()) return *csv.error();
    return make_error(ErrorKind::Malformed, "file is empty: expected a rocprof CSV header line", path, 0, 1);
  }
  Columns c(f);
  const int64_t header_line = csv.line();
  if (is_stats_header(c)) return read_stats_rows(csv, c, path, tl);

  const int name = c.find({"KernelName", "Kernel_Name"});
  if (name < 0) {
    return make_error(
        ErrorKind::Malformed,
        "rocprof CSV header lacks the kernel name column 'KernelName' (or 'Kernel_Name'); header: " + header_text(f),
        path, csv.offset(), header_line);
  }
  const int key = c.find({"Dispatch_ID", "Index"});
  const int gpu = c.find({"gpu-id", "GPU_ID"});
  const int queue = c.find({"queue-id", "Queue_ID"});
  const int begin = c.find({"BeginNs", "Start_Timestamp"});
  const int end = c.find({"EndNs", "End_Timestamp"});
  const int grid = c.find({"grd", "Grid_Size"});
  const int wg = c.find({"wgr", "Workgroup_Size"});
  const int lds = c.find({"lds", "LDS_Per_Workgroup"});
  const int vgpr = c.find({"arch_vgpr", "vgpr"});
  const int accum = c.find({"accum_vgpr"});
  const int corr = c.find({"Correlation_ID"});
  std::vector<int> counter_cols;
  for (size_t i = 0; i < c.size(); ++i) {
    std::string l = ascii_lower(c.name(static_cast<int>(i)));
    if (!l.empty() && !dispatch_fields().count(l) && !is_dedup_of_dispatch_field(l))
      counter_cols.push_back(static_cast<int>(i));
  }
  const bool timed = begin >= 0 && end >= 0;
  if (!timed) {
    tl.warn(W::rocprof_no_timestamps,
            "rocprof CSV has no BeginNs/EndNs (or Start_Timestamp/End_Timestamp) columns: dispatches are not "
            "placed on the timeline, only their counters are read",
            path, -1, header_line);
  }

  RowFields row(tl, path, "rocprof results", c);
  while (csv.next(f)) {
    row.bind(f, csv.line());
    if (f.size() < c.size())
      row.warn(W::rocprof_row_short,
               "row has fewer fields than the header (truncated?); missing fields read as absent");
    bool stripped = false;
    StrId kname = tl.strings.intern(strip_kd_suffix(row.text(name), &stripped));
    if (stripped) note_kd_suffix_stripped(tl, path);
    auto dispatch = row.integer(key);
    for (int col : counter_cols) {
      if (row.text(col).empty()) continue;
      if (auto v = row.number(col)) {
        tl.counters.push(dispatch.value_or(kNone), kname, tl.strings.intern(c.name(col)), kNoStr, *v);
      }
    }
    if (!timed) continue;
    auto times = row.times(begin, end, "row skipped: no valid begin/end timestamp");
    if (!times) continue;
    GpuOpRow k;
    k.start_ns = times->first;
    k.dur_ns = times->second - times->first;
    k.name = kname;
    if (auto g = row.integer(gpu)) {
      k.device = static_cast<int32_t>(*g);
      ensure_device(tl, *g);
    }
    if (auto q = row.integer(queue)) k.stream = *q;
    if (auto cr = row.integer(corr); cr && *cr > 0) k.correlation = *cr;  // 0 = not traced
    // grd is the total work-item count (HSA); v1 does not split it per dimension, so the
    // grid and block are stored 1-D: blocks = ceil(grd / wgr).
    auto items = row.integer(grid), group = row.integer(wg);
    if (group && *group > 0 && *group <= UINT32_MAX) k.block = {static_cast<uint32_t>(*group), 1, 1};
    if (items && group) k.grid = {grid_items_to_blocks(*items, *group), 1, 1};
    if (auto v = row.integer(vgpr)) k.registers_per_thread = register_count(*v, row.integer(accum).value_or(0));
    if (auto l = row.integer(lds)) k.shared_mem_bytes = *l;
    tl.gpu_ops.push(k);
  }
  if (csv.error()) return *csv.error();
  return Status::Ok();
}

}  // namespace goblin::trace::rocprof
