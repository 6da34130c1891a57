// amd-smi CSV reader (`amd-smi metric --csv`, `amd-smi monitor --csv`, with or without --watch).
//
// Facts from amdsmi_cli (FORMATS.md §3): Python csv.DictWriter output, so CRLF; the header is
// the first row's keys and key order is not stable between releases (parse BY NAME); under
// --watch a banner "'CTRL' + 'C' to stop watching output:" comes first and the header is
// re-printed (possibly in another order) before every iteration; missing values are "N/A";
// list values are Python reprs ("['N/A', 'N/A']", "[0, 0]"); values carry no units (MB for
// VRAM, W, °C, MHz, %). `timestamp` (epoch seconds) is present only under --watch.
//
// Columns map onto the normalised SampleTable metrics; everything else numeric keeps its own
// name. Note the traps: "usage" is not GPU utilisation (gfx_activity / gfx is), and "mem" is
// the memory temperature in `amd-smi metric` (next to edge/hotspot) but memory activity % in
// `amd-smi monitor`.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>
#include <map>

#include "core/csv.h"
#include "core/text.h"
#include "trace/readers.h"
#include "trace/telemetry/smi_values.h"

namespace goblin::trace {

namespace {

using smi::is_na;
using smi::to_number;

enum class Role { Skip, Timestamp, Gpu, Xcp, Metric };

struct ColumnPlan {
  Role role = Role::Skip;
  std::string source;  // column name as written
  std::string metric;  // normalised or vendor name
  double scale = 1;
  bool normalised = false;
  int64_t numeric = 0;  // values read (to report all-N/A columns)
};

struct HeaderPlan {
  std::vector<ColumnPlan> cols;
  int gpu = -1, timestamp = -1, xcp = -1;
  int64_t line = -1;
};

bool is_header(const std::vector<std::string_view>& f) {
  if (f.empty()) return false;
  std::string first = ascii_lower(trim_blanks(f[0]));
  if (first == "gpu") return true;
  return first == "timestamp" && f.size() > 1 && ascii_lower(trim_blanks(f[1])) == "gpu";
}

HeaderPlan plan_header(const std::vector<std::string_view>& f, int64_t line) {
  HeaderPlan h;
  h.line = line;
  std::vector<std::string> names;
  for (auto v : f) names.push_back(ascii_lower(trim_blanks(v)));
  auto has = [&](std::string_view n) {
    for (auto& x : names)
      if (x == n) return true;
    return false;
  };
  // `amd-smi metric` prints temperatures as edge/hotspot/mem; `monitor` as *_temperature.
  const bool metric_temps = has("edge") || has("hotspot");
  const bool has_edge = has("edge");
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    ColumnPlan c;
    c.source = std::string(trim_blanks(f[i]));
    auto norm = [&](const char* m, double scale = 1) {
      c.role = Role::Metric;
      c.metric = m;
      c.scale = scale;
      c.normalised = true;
    };
    constexpr double kMiB = 1024.0 * 1024.0;  // amd-smi "MB" is bytes // (1024*1024)
    if (n == "timestamp")
      c.role = Role::Timestamp, h.timestamp = static_cast<int>(i);
    else if (n == "gpu")
      c.role = Role::Gpu, h.gpu = static_cast<int>(i);
    else if (n == "xcp")
      c.role = Role::Xcp, h.xcp = static_cast<int>(i);
    else if (n == "gfx_activity" || n == "gfx")
      norm("gpu_util_pct");
    else if (n == "umc_activity")
      norm("mem_util_pct");
    else if (n == "mem")
      metric_temps ? norm("temp_mem_c") : norm("mem_util_pct");
    else if (n == "used_vram" || n == "vram_used")
      norm("mem_used_bytes", kMiB);
    else if (n == "total_vram" || n == "vram_total")
      norm("mem_total_bytes", kMiB);
    else if (n == "socket_power" || n == "power_usage")
      norm("power_w");
    else if (n == "power_cap" || n == "socket_power_limit" || n == "power_limit")
      norm("power_limit_w");
    else if (n == "edge" || n == "edge_temperature")
      norm("temp_c");
    else if (n == "hotspot" || n == "hotspot_temperature")
      has_edge ? norm("temp_hotspot_c") : norm("temp_c");
    else if (n == "memory_temperature")
      norm("temp_mem_c");
    else if (n == "gfx_0_clk" || n == "gfx_clock" || n == "gfx_clk")
      norm("sm_clock_mhz");
    else if (n == "mem_0_clk" || n == "mem_clock" || n == "mem_clk")
      norm("mem_clock_mhz");
    else if (!n.empty()) {
      c.role = Role::Metric;
      c.metric = std::string(trim_blanks(f[i]));  // vendor-specific metric, own name
    }
    h.cols.push_back(std::move(c));
  }
  return h;
}

class AmdSmiRun {
 public:
  AmdSmiRun(Timeline& tl, const std::string& path) : tl_(tl), path_(path) {}

  void header(const std::vector<std::string_view>& f, int64_t line) {
    finish_block();
    plan_ = plan_header(f, line);
    ++block_;
    if (plan_.gpu < 0) missing_gpu_line_ = line;
  }

  void row(const std::vector<std::string_view>& f, int64_t line) {
    if (f.size() != plan_.cols.size()) {
      tl_.warn(W::telemetry_row_width,
               "amd-smi: row has " + std::string(f.size() < plan_.cols.size() ? "fewer" : "more") +
                   " fields than the header; fields matched by position up to the shorter",
               path_, -1, line);
    }
    auto dev = plan_.gpu >= 0 && static_cast<size_t>(plan_.gpu) < f.size() ? to_number(f[plan_.gpu]) : std::nullopt;
    if (!dev || *dev < 0 || *dev > INT32_MAX || std::floor(*dev) != *dev) {
      tl_.warn(W::telemetry_bad_device, "amd-smi: row skipped: column 'gpu' is not a GPU index", path_, -1, line);
      return;
    }
    int64_t ts = block_ - 1;  // sample index when there is no wall time
    if (plan_.timestamp >= 0) {
      auto t = static_cast<size_t>(plan_.timestamp) < f.size() ? to_number(f[plan_.timestamp]) : std::nullopt;
      if (!t || std::fabs(*t) > 9.2e9) {
        tl_.warn(W::telemetry_bad_timestamp, "amd-smi: row skipped: column 'timestamp' is not epoch seconds", path_, -1,
                 line);
        return;
      }
      ts = static_cast<int64_t>(std::llround(*t * 1e9));
    } else if (!warned_no_time_) {
      warned_no_time_ = true;
      tl_.warn(W::telemetry_no_timestamps,
               "amd-smi: no 'timestamp' column (not --watch output): samples are numbered by header block, so ts_ns "
               "holds a sample index, not time",
               path_);
    }
    std::string suffix;
    if (plan_.xcp >= 0 && static_cast<size_t>(plan_.xcp) < f.size()) {
      auto x = to_number(f[plan_.xcp]);
      if (x && *x > 0 && *x < 1e6) suffix = fmt::format("_xcp{}", static_cast<int64_t>(*x));
    }
    const auto device = static_cast<int32_t>(*dev);
    note_device(device);
    ++rows_;
    for (size_t i = 0; i < f.size() && i < plan_.cols.size(); ++i) {
      ColumnPlan& c = plan_.cols[i];
      if (c.role != Role::Metric) continue;
      std::string_view v = trim_blanks(f[i]);
      if (is_na(v)) continue;
      if (v.front() == '[') {  // Python list repr: one sample per element, name_<index>
        list_values(c, v, ts, device, suffix);
        continue;
      }
      auto num = to_number(v);
      if (!num) {
        // State strings (throttle_status "UNTHROTTLED", perf_level "AUTO") are not metrics;
        // a normalised metric that is not a number is damage worth reporting.
        if (c.normalised)
          tl_.warn(W::telemetry_non_numeric, "amd-smi: column '" + c.source + "' is not a number (value skipped)",
                   path_, -1, line);
        continue;
      }
      ++c.numeric;
      tl_.samples.push(ts, device, tl_.strings.intern(c.metric + suffix), *num * c.scale);
    }
  }

  // Reports normalised metrics that were N/A throughout a block (never a silent zero).
  void finish_block() {
    if (rows_ == 0) return;
    for (const auto& c : plan_.cols) {
      if (c.normalised && c.numeric == 0) {
        tl_.warn(W::telemetry_metric_empty,
                 fmt::format("amd-smi: column '{}' ({}) was N/A or not a number in all {} rows of this block: no "
                             "samples for it",
                             c.source, c.metric, rows_),
                 path_, -1, plan_.line);
      }
    }
    rows_ = 0;
  }

  bool has_header() const { return block_ > 0; }
  int64_t missing_gpu_line() const { return missing_gpu_line_; }

 private:
  void list_values(ColumnPlan& c, std::string_view v, int64_t ts, int32_t device, const std::string& suffix) {
    v.remove_prefix(1);
    if (!v.empty() && v.back() == ']') v.remove_suffix(1);
    int idx = 0;
    while (true) {
      size_t comma = v.find(',');
      std::string_view item = trim_blanks(v.substr(0, comma));
      if (!item.empty() && (item.front() == '\'' || item.front() == '"'))
        item = item.substr(1, item.size() >= 2 ? item.size() - 2 : 0);
      if (auto n = to_number(item)) {
        ++c.numeric;
        // Per list element: the name is built in one reused buffer, not a fresh string.
        name_.clear();
        fmt::format_to(std::back_inserter(name_), "{}_{}{}", c.metric, idx, suffix);
        tl_.samples.push(ts, device, tl_.strings.intern(std::string_view(name_.data(), name_.size())), *n * c.scale);
      }
      ++idx;
      if (comma == std::string_view::npos) break;
      v.remove_prefix(comma + 1);
    }
  }

  void note_device(int32_t id) {
    for (const auto& d : tl_.meta.devices)
      if (d.id == id) return;
    DeviceInfo d;
    d.id = id;
    tl_.meta.devices.push_back(d);
  }

  Timeline& tl_;
  const std::string& path_;
  HeaderPlan plan_;
  int64_t block_ = 0, rows_ = 0;
  int64_t missing_gpu_line_ = -1;
  bool warned_no_time_ = false;
  fmt::memory_buffer name_;  // list_values' sample names
};

}  // namespace

Status read_amd_smi(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto src = open_source(path, opt.io);
  if (!src) return src.error();
  CsvReader csv(std::move(*src));
  AmdSmiRun run(tl, path);
  std::vector<std::string_view> f;
  bool any_line = false;
  while (csv.next(f)) {
    any_line = true;
    if (is_header(f)) {
      run.header(f, csv.line());
      if (run.missing_gpu_line() >= 0) {
        return make_error(ErrorKind::Malformed, "amd-smi CSV header lacks the required column 'gpu'", path,
                          csv.offset(), csv.line());
      }
      continue;
    }
    if (!run.has_header()) {
      // The --watch banner, or anything printed before the first header (warnings).
      std::string_view first = f.empty() ? std::string_view() : trim_blanks(f[0]);
      if (first.find("'CTRL' + 'C'") == std::string_view::npos) {
        tl.warn(W::telemetry_preamble_ignored, "amd-smi: line before the first CSV header ignored", path, csv.offset(),
                csv.line());
      }
      continue;
    }
    if (f.size() == 1 && trim_blanks(f[0]).find("'CTRL' + 'C'") != std::string_view::npos) continue;
    run.row(f, csv.line());
  }
  run.finish_block();
  if (csv.error()) return *csv.error();
  if (!any_line) return make_error(ErrorKind::Malformed, "file is empty: expected amd-smi CSV output", path, 0);
  if (!run.has_header()) {
    return make_error(ErrorKind::Malformed,
                      "no amd-smi CSV header found (expected a line starting with 'gpu,' or 'timestamp,gpu,')", path,
                      0);
  }
  return Status::Ok();
}

}  // namespace goblin::trace
