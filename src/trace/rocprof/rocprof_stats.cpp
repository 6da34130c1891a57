#include "trace/rocprof/rocprof_stats.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/json.h"

namespace goblin::trace::rocprof {

bool is_stats_header(const Columns& cols) {
  return cols.has("Name") && cols.has("Calls") && cols.has("TotalDurationNs");
}

Status read_stats_rows(CsvReader& csv, const Columns& cols, const std::string& path, Timeline& tl) {
  const int c_name = cols.find({"Name"}), c_calls = cols.find({"Calls"});
  const int c_total = cols.find({"TotalDurationNs"}), c_avg = cols.find({"AverageNs"});
  const int c_pct = cols.find({"Percentage"}), c_min = cols.find({"MinNs"}), c_max = cols.find({"MaxNs"});
  const int c_std = cols.find({"StdDev"});
  RowFields row(tl, path, "stats", cols);
  Json entries = Json::array();
  std::vector<std::string_view> f;
  while (csv.next(f)) {
    row.bind(f, csv.line());
    if (f.size() < cols.size())
      row.warn(W::rocprof_row_short,
               "row has fewer fields than the header (truncated?); missing fields read as absent");
    Json e;
    e["name"] = std::string(row.text(c_name));
    auto put_int = [&](const char* key, int col) {
      if (col < 0) return;
      if (auto v = row.integer(col)) e[key] = *v;
    };
    auto put_num = [&](const char* key, int col) {
      if (col < 0) return;
      if (auto v = row.number(col)) e[key] = *v;
    };
    put_int("calls", c_calls);
    put_int("total_ns", c_total);
    put_num("average_ns", c_avg);
    put_num("percent", c_pct);
    put_int("min_ns", c_min);
    put_int("max_ns", c_max);
    put_num("stddev_ns", c_std);
    entries.push_back(std::move(e));
  }
  std::string key = "stats:" + std::filesystem::path(path).filename().string();
  // Names are profiler text, not guaranteed UTF-8: replace invalid bytes rather than throw.
  tl.meta.extra[key] = entries.dump(-1, ' ', false, Json::error_handler_t::replace);
  tl.warn(W::rocprof_summary_statistics,
          fmt::format("summary statistics file: {} rows kept in metadata under '{}' (aggregates, not timeline events)",
                      entries.size(), key),

          path);
  if (csv.error()) return *csv.error();
  return Status::Ok();
}

}  // namespace goblin::trace::rocprof
