// rocm-smi reader: the concise human table (`rocm-smi`, between "ROCm System Management
// Interface" banners) and `rocm-smi --csv` (rocm_smi.py formatCsv: a "device,<metric names>"
// header, "card0,..." rows, WARNING: lines before it, several header blocks separated by blank
// lines, column order that changes between releases, commas stripped from values, N/A).
//
// Neither shape has timestamps: each table / header block is one sample, numbered 0, 1, 2...
// in ts_ns (a sample index, not time; a warning says so).
#include <charconv>
#include <cmath>

#include "core/io.h"
#include "core/text.h"
#include "trace/readers.h"
#include "trace/telemetry/smi_values.h"

namespace goblin::trace {

namespace {

bool contains(std::string_view s, std::string_view n) { return s.find(n) != std::string_view::npos; }

// "48.0°C", "110.0W", "1300Mhz", "(1700Mhz)", "0%", "35.0c" → number; nullopt when not numeric.
std::optional<double> value_with_unit(std::string_view s) {
  s = trim_blanks(s);
  if (!s.empty() && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  for (std::string_view unit : {"\xC2\xB0"
                                "C",
                                "Mhz", "MHz", "W", "C", "c", "%", "B"}) {
    if (s.size() > unit.size() && s.substr(s.size() - unit.size()) == unit) {
      s.remove_suffix(unit.size());
      break;
    }
  }
  return smi::to_number(s);
}

using smi::is_na;

// A vendor metric's own name in snake case: "Fan speed (%)" → "fan_speed_pct".
std::string vendor_name(std::string_view header) {
  std::string out;
  for (char ch : header) {
    char c = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
    if (c == '%') {
      if (!out.empty() && out.back() != '_') out += '_';
      out += "pct";
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

struct Metric {
  std::string name;
  bool normalised = false;
};

// rocm-smi --csv column → metric. Names from rocm_smi.py (they differ between releases).
Metric csv_metric(std::string_view header) {
  std::string h = ascii_lower(header);
  auto norm = [](const char* n) { return Metric{n, true}; };
  if (contains(h, "temperature")) {
    if (contains(h, "edge")) return norm("temp_c");
    if (contains(h, "junction")) return norm("temp_hotspot_c");
    if (contains(h, "memory")) return norm("temp_mem_c");
  }
  if (contains(h, "max graphics package power")) return norm("power_limit_w");
  if (contains(h, "graphics package power")) return norm("power_w");  // Current Socket / Average
  if (h == "gpu use (%)") return norm("gpu_util_pct");
  if (contains(h, "memory read/write activity") || h == "gpu memory use (%)") return norm("mem_util_pct");
  if (contains(h, "vram total used memory")) return norm("mem_used_bytes");
  if (contains(h, "vram total memory")) return norm("mem_total_bytes");
  if (h.substr(0, 4) == "sclk") return norm("sm_clock_mhz");
  if (h.substr(0, 4) == "mclk") return norm("mem_clock_mhz");
  return Metric{vendor_name(header), false};
}

// Concise table column → metric (header words as printed, e.g. "Temp", "AvgPwr", "GPU%").
Metric concise_metric(std::string_view word) {
  std::string w = ascii_lower(word);
  auto norm = [](const char* n) { return Metric{n, true}; };
  if (w.substr(0, 4) == "temp") return norm("temp_c");
  if (w == "power" || w == "avgpwr") return norm("power_w");
  if (w == "sclk") return norm("sm_clock_mhz");
  if (w == "mclk") return norm("mem_clock_mhz");
  if (w == "pwrcap") return norm("power_limit_w");
  if (w == "gpu%") return norm("gpu_util_pct");
  if (w == "vram%") return Metric{"vram_used_pct", false};
  if (w == "fan") return Metric{"fan_pct", false};
  return Metric{};  // Node, IDs, Partitions, Perf, model: not metrics
}

// Splits a concise-table line into cells: whitespace separated, but "(...)"/"[...]" groups and
// comma-continued lists ("0x74a0,   50375", "NPS1, SPX, 0") stay one cell.
std::vector<std::string> concise_cells(std::string_view line, bool header) {
  std::vector<std::string> raw;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) break;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    raw.emplace_back(line.substr(i, j - i));
    i = j;
  }
  std::vector<std::string> cells;
  int depth = 0;
  bool join_next = false;
  for (auto& t : raw) {
    // In the header a "(...)" word qualifies the previous one ("Temp (DieEdge)"); "[Model ..."
    // is a column of its own.
    bool qualifier = !t.empty() && t.front() == '(';
    if (!cells.empty() && (depth > 0 || join_next || (header && qualifier))) {
      cells.back() += ' ' + t;
    } else {
      cells.push_back(t);
    }
    for (char c : t) {
      if (c == '(' || c == '[') ++depth;
      if ((c == ')' || c == ']') && depth > 0) --depth;
    }
    join_next = !t.empty() && t.back() == ',';
  }
  return cells;
}

class RocmSmiRun {
 public:
  RocmSmiRun(Timeline& tl, const std::string& path) : tl_(tl), path_(path) {}

  Status read(std::string_view text) {
    int64_t line_no = 0;
    size_t pos = 0;
    bool concise = contains(text.substr(0, 4096), "ROCm System Management Interface");
    while (pos <= text.size()) {
      size_t nl = text.find('\n', pos);
      std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (concise)
        concise_line(line, line_no);
      else
        csv_line(line, line_no);
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
    }
    if (samples_ == 0 && rows_ == 0) {
      return make_error(ErrorKind::Malformed,
                        concise
                            ? "rocm-smi table has no device rows (expected lines under the 'Device ... GPU%' header)"
                            : "no rocm-smi CSV data (expected a 'device,...' header and 'card0,...' rows)",
                        path_, 0);
    }
    tl_.warn(W::telemetry_no_timestamps,
             "rocm-smi output has no timestamps: each table/header block is one sample and ts_ns holds its index, "
             "not time",
             path_);
    return Status::Ok();
  }

 private:
  // ---- rocm-smi --csv ----
  void csv_line(std::string_view line, int64_t n) {
    std::string_view t = trim_blanks(line);
    if (t.empty() || t.substr(0, 8) == "WARNING:" || t.front() == '=') return;
    std::vector<std::string_view> cells = split(t);
    if (ascii_lower(cells[0]) == "device") {
      header_.clear();
      for (size_t i = 1; i < cells.size(); ++i) header_.push_back(csv_metric(cells[i]));
      ++block_;
      return;
    }
    if (block_ == 0) {
      tl_.warn(W::telemetry_preamble_ignored, "rocm-smi: line before the 'device,...' header ignored", path_, -1, n);
      return;
    }
    if (cells.size() != header_.size() + 1) {
      tl_.warn(W::telemetry_row_width,
               "rocm-smi: row has a different number of fields than its header; fields matched by position", path_, -1,
               n);
    }
    auto dev = card_index(cells[0]);
    if (!dev) {
      tl_.warn(W::telemetry_bad_device, "rocm-smi: row skipped: first field is not a device ('card0')", path_, -1, n);
      return;
    }
    ++rows_;
    for (size_t i = 1; i < cells.size() && i - 1 < header_.size(); ++i) push(header_[i - 1], cells[i], *dev, n);
  }

  static std::vector<std::string_view> split(std::string_view t) {
    std::vector<std::string_view> out;
    size_t p = 0;
    while (true) {
      size_t c = t.find(',', p);
      out.push_back(trim_blanks(t.substr(p, c == std::string_view::npos ? std::string_view::npos : c - p)));
      if (c == std::string_view::npos) break;
      p = c + 1;
    }
    return out;
  }

  static std::optional<int32_t> card_index(std::string_view s) {
    s = trim_blanks(s);
    if (s.substr(0, 4) == "card") s.remove_prefix(4);
    int32_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
    return v;
  }

  // ---- concise table ----
  void concise_line(std::string_view line, int64_t n) {
    std::string_view t = trim_blanks(line);
    if (t.empty() || t.front() == '=' || contains(t, "WARNING")) return;
    bool continuation = line.front() == ' ' || line.front() == '\t';
    if (!continuation && (t.substr(0, 6) == "Device" || t.substr(0, 3) == "GPU")) {
      header_.clear();
      for (auto& cell : concise_cells(t, true)) header_.push_back(concise_metric(cell));
      ++block_;
      return;
    }
    if (block_ == 0) return;  // banner text
    if (continuation) {
      // ROCm 6.0/6.1 print the device name on the line under its row.
      if (last_device_ >= 0) name_device(last_device_, std::string(t));
      return;
    }
    auto cells = concise_cells(t, false);
    if (cells.size() != header_.size()) {
      tl_.warn(W::telemetry_row_width_skipped,
               "rocm-smi: table row has " + std::string(cells.size() < header_.size() ? "fewer" : "more") +
                   " cells than the header (row skipped)",
               path_, -1, n);
      return;
    }
    auto dev = card_index(cells[0]);
    if (!dev) {
      tl_.warn(W::telemetry_bad_device, "rocm-smi: table row skipped: first cell is not a device index", path_, -1, n);
      return;
    }
    ++rows_;
    last_device_ = *dev;
    for (size_t i = 1; i < cells.size(); ++i) {
      if (!header_[i].name.empty()) push(header_[i], cells[i], *dev, n);
    }
  }

  void push(const Metric& m, std::string_view cell, int32_t dev, int64_t n) {
    if (m.name.empty() || is_na(cell)) return;
    auto v = value_with_unit(cell);
    if (!v) {
      // Text columns (card series, vendor) are not metrics; a normalised one must be a number.
      if (m.normalised)
        tl_.warn(W::telemetry_non_numeric, "rocm-smi: value for '" + m.name + "' is not a number (skipped)", path_, -1,
                 n);
      return;
    }
    note_device(dev);
    ++samples_;
    tl_.samples.push(block_ - 1, dev, tl_.strings.intern(m.name), *v);
  }

  void note_device(int32_t id) {
    for (const auto& d : tl_.meta.devices)
      if (d.id == id) return;
    DeviceInfo d;
    d.id = id;
    tl_.meta.devices.push_back(d);
  }

  void name_device(int32_t id, std::string name) {
    note_device(id);
    for (auto& d : tl_.meta.devices)
      if (d.id == id) {
        if (d.name.empty()) d.name = std::move(name);
        return;
      }
  }

  Timeline& tl_;
  const std::string& path_;
  std::vector<Metric> header_;
  int64_t block_ = 0, rows_ = 0, samples_ = 0;
  int32_t last_device_ = -1;
};

}  // namespace

Status read_rocm_smi(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  // rocm-smi output is a few KB per sample; reading it whole keeps the table logic simple.
  auto text = read_all(path, opt.io);
  if (!text) return text.error();
  if (trim_blanks(*text).empty())
    return make_error(ErrorKind::Malformed, "file is empty: expected rocm-smi output", path, 0);
  RocmSmiRun run(tl, path);
  return run.read(*text);
}

}  // namespace goblin::trace
