// `nvidia-smi dmon` text into Timeline samples.
//
//   #Date        Time         gpu    pwr  gtemp  mtemp     sm    mem ...   mclk   pclk
//   #YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      % ...    MHz    MHz
//    20261122    06:05:40       0    121     32     40      0      0 ...   2619   1980
//
// Two '#' lines (names, then units; dmon repeats them every screenful), space-aligned columns,
// '-' for N/A. The column set depends on the driver and on -s/-o, so columns are found by name:
// gpu → device; Date/Time (-o DT) → timestamp (UTC-naive, as the query CSV); pwr → power_w,
// gtemp → temp_c, sm → gpu_util_pct, mem → mem_util_pct, mclk → mem_clock_mhz, pclk (the
// processor/graphics clock, equal to the SM clock on NVIDIA GPUs) → sm_clock_mhz, fb [MB] →
// mem_used_bytes; every other column keeps its dmon name ("mtemp", "enc", "pviol", ...).
// Without Date/Time, samples are placed 1 s apart (dmon's default interval) in row order.
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "trace/telemetry/nvidia_smi.h"

namespace goblin::trace::nvsmi {

namespace {

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

std::string dmon_metric(std::string_view name) {
  if (name == "pwr") return "power_w";
  if (name == "gtemp") return "temp_c";
  if (name == "sm") return "gpu_util_pct";
  if (name == "mem") return "mem_util_pct";
  if (name == "mclk") return "mem_clock_mhz";
  if (name == "pclk") return "sm_clock_mhz";
  if (name == "fb") return "mem_used_bytes";
  return std::string(name);
}

}  // namespace

Status parse_dmon(std::string_view text, const std::string& path, Timeline& tl) {
  std::vector<std::string> names;
  std::vector<StrId> metrics;
  std::vector<double> scale;
  int date_col = -1, time_col = -1, gpu_col = -1;
  bool units_next = false;
  std::map<int32_t, int64_t> rows_per_dev;
  int64_t rows = 0;
  size_t pos = 0;
  int64_t line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    int64_t off = static_cast<int64_t>(pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    auto tok = split_ws(line);
    if (tok.empty()) continue;
    if (tok[0].starts_with("#")) {
      // "#Date Time gpu ..." or "# gpu pwr ..." (older drivers put a space after '#').
      if (tok[0] == "#")
        tok.erase(tok.begin());
      else
        tok[0].remove_prefix(1);
      if (units_next) {  // the units line: fb/bar1 are in MB (MiB)
        for (size_t i = 0; i < tok.size() && i < names.size(); ++i)
          if (tok[i] == "MB" && metrics[i] != kNoStr && tl.str(metrics[i]).ends_with("_bytes")) scale[i] = 1 << 20;
        units_next = false;
        continue;
      }
      std::vector<std::string> fresh(tok.begin(), tok.end());
      if (fresh == names) {  // header repeated every screenful
        units_next = true;
        continue;
      }
      if (!names.empty() && rows > 0)
        tl.warn(W::telemetry_header_changed,
                "nvidia-smi dmon: column set changed mid-file; following rows read with the new header", path, off,
                line_no);
      names = std::move(fresh);
      metrics.assign(names.size(), kNoStr);
      scale.assign(names.size(), 1.0);
      date_col = time_col = gpu_col = -1;
      for (size_t i = 0; i < names.size(); ++i) {
        const std::string& n = names[i];
        if (n == "Date")
          date_col = static_cast<int>(i);
        else if (n == "Time")
          time_col = static_cast<int>(i);
        else if (n == "gpu" || n == "Idx")
          gpu_col = static_cast<int>(i);
        else
          metrics[i] = tl.strings.intern(dmon_metric(n));
        if (n == "fb") scale[i] = 1 << 20;  // MB, also when the units line is missing
      }
      if (date_col < 0 && time_col < 0)
        tl.warn(W::telemetry_no_timestamps,
                "nvidia-smi dmon without Date/Time columns (-o DT): samples placed 1 s apart in row order", path, off,
                line_no);
      units_next = true;
      continue;
    }
    units_next = false;
    if (names.empty()) {
      return make_error(ErrorKind::Malformed,
                        "nvidia-smi dmon: data before the '#' header line (expected \"# gpu pwr ...\" first)", path,
                        off, line_no);
    }
    if (tok.size() != names.size()) {
      tl.warn(W::telemetry_row_width_skipped,
              fmt::format("nvidia-smi dmon: row has {} of {} columns (truncated?); skipped", tok.size(), names.size()),
              path, off, line_no);
      continue;
    }
    int32_t dev = kNone;
    if (gpu_col >= 0) {
      auto v = parse_gpu_index(tok[gpu_col]);
      if (!v) {
        tl.warn(W::telemetry_bad_device, "nvidia-smi dmon: row skipped, gpu column is not a GPU number", path, off,
                line_no);
        continue;
      }
      dev = *v;
    }
    int64_t ts;
    if (date_col >= 0 || time_col >= 0) {
      auto t = parse_dmon_time(date_col >= 0 ? tok[date_col] : std::string_view{},
                               time_col >= 0 ? tok[time_col] : std::string_view{});
      if (!t) {
        tl.warn(W::telemetry_bad_timestamp, "nvidia-smi dmon: row skipped, Date/Time is not \"YYYYMMDD HH:MM:SS\"",
                path, off, line_no);
        continue;
      }
      ts = *t;
    } else {
      ts = rows_per_dev[dev]++ * 1'000'000'000LL;
    }
    ++rows;
    for (size_t i = 0; i < tok.size(); ++i) {
      if (metrics[i] == kNoStr) continue;
      if (is_unavailable(tok[i])) {
        tl.warn(W::telemetry_unavailable_reading, "nvidia-smi dmon: unavailable readings ('-') skipped", path, off,
                line_no);
        continue;
      }
      auto v = parse_value(tok[i]);
      if (!v) {
        tl.warn(
            W::telemetry_non_numeric,
            fmt::format("nvidia-smi dmon: column {} ({}): expected a number, got text; value skipped", i + 1, names[i]),

            path, off, line_no);
        continue;
      }
      tl.samples.push(ts, dev, metrics[i], *v * scale[i]);
    }
  }
  if (names.empty()) return make_error(ErrorKind::Malformed, "nvidia-smi dmon: no '#' header line found", path, 0, 1);
  if (rows == 0) tl.warn(W::telemetry_no_samples, "nvidia-smi dmon output has a header but no samples", path);
  return Status::Ok();
}

}  // namespace goblin::trace::nvsmi
