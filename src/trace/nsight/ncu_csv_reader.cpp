// Nsight Compute CSV reader: `ncu --csv --page raw` and `ncu --csv --page details`.
//
// What lands in the Timeline (the contract `diagnose` and `roofline` read):
// - Counters, one CounterTable row per profiled kernel and numeric metric, kernel_key = ncu's
//   "ID" column (the profiling result number), kernel_name = "Kernel Name":
//     * raw page: counter = the column header, i.e. NCU's own metric name verbatim
//       ("gpu__time_duration.sum", "dram__bytes_read.sum", "launch__grid_size"); unit = the
//       units row under the header ("ns", "%", "byte"; kNoStr when empty).
//     * details page: counter = "<Section Name>/<Metric Name>", e.g.
//       "GPU Speed Of Light Throughput/Duration", unit = "Metric Unit". Section display names
//       keep metrics with the same label in different sections apart.
//   Numbers are read with their grouping separators ("13,888" → 13888); a file written under a
//   European locale ("13.888", "62,26") is recognised from its unambiguous cells first.
// - Launch shape: the "Block Size"/"Grid Size" columns ("(256, 1, 1)") become the counters
//   "Block Size.x|y|z" (unit "thread") and "Grid Size.x|y|z" (unit "block"), once per kernel,
//   because ncu's launch__block_size/launch__grid_size metrics are products and lose the shape.
// - Rule rows of the details page → Timeline::rules (section id, rule, type, description,
//   estimated speedup).
// - Devices: "Device" and "CC" columns plus device__attribute_display_name,
//   _multiprocessor_count, _warp_size, _total_memory → meta.devices.
// Other text values ("PolicySpread", "CachePreferNone") are not numbers: skipped with one folded
// warning. The kernels table is left alone: ncu serialises and replays each kernel, so its
// results have no place on a timeline.
//
// The whole file is read into memory (ncu CSVs are megabytes, not gigabytes) because the
// header must be found past free-form application output, which a CSV tokenizer could
// misread (an unbalanced quote in a log line would swallow the header).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/csv.h"
#include "core/io.h"
#include "trace/nsight/ncu_csv.h"
#include "trace/nsight/ncu_values.h"
#include "trace/readers.h"

namespace goblin::trace {

namespace {

using ncu::NumberLocale;

constexpr int64_t kMaxSmall = 1 << 30;  // bound for device ids, SM counts, compute capability

struct HeaderPos {
  size_t offset = 0;
  int64_t line = 1;  // 1-based line of the header in the file
};

// The header is the first line that starts with the "ID" column and names "Kernel Name";
// everything before it is ==PROF== chatter and the application's stdout.
std::optional<HeaderPos> find_header(std::string_view text) {
  size_t pos = 0;
  int64_t line = 1;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view l = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if ((l.starts_with("\"ID\",") || l.starts_with("ID,")) && l.find("Kernel Name") != std::string_view::npos)
      return HeaderPos{pos, line};
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line;
  }
  return std::nullopt;
}

// Identity columns every ncu CSV starts with; everything else on the raw page is a metric.
constexpr std::string_view kIdentity[] = {"ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                          "Stream", "Block Size", "Grid Size",    "Device",    "CC"};

struct Columns {
  int id = -1, kernel = -1, block = -1, grid = -1, device = -1, cc = -1;
  // details page
  int section = -1, metric = -1, unit = -1, value = -1;
  int rule = -1, rule_type = -1, rule_desc = -1, speedup_type = -1, speedup = -1;
  // raw page: every non-identity column
  std::vector<int> metrics;
  bool details() const { return metric >= 0 && value >= 0; }
};

Columns map_columns(const std::vector<std::string>& h) {
  Columns c;
  for (int i = 0; i < static_cast<int>(h.size()); ++i) {
    const std::string& n = h[i];
    if (n == "ID")
      c.id = i;
    else if (n == "Kernel Name")
      c.kernel = i;
    else if (n == "Block Size")
      c.block = i;
    else if (n == "Grid Size")
      c.grid = i;
    else if (n == "Device")
      c.device = i;
    else if (n == "CC")
      c.cc = i;
    else if (n == "Section Name")
      c.section = i;
    else if (n == "Metric Name")
      c.metric = i;
    else if (n == "Metric Unit")
      c.unit = i;
    else if (n == "Metric Value")
      c.value = i;
    else if (n == "Rule Name")
      c.rule = i;
    else if (n == "Rule Type")
      c.rule_type = i;
    else if (n == "Rule Description")
      c.rule_desc = i;
    else if (n == "Estimated Speedup Type")
      c.speedup_type = i;
    else if (n == "Estimated Speedup")
      c.speedup = i;
    if (std::find(std::begin(kIdentity), std::end(kIdentity), n) == std::end(kIdentity)) c.metrics.push_back(i);
  }
  return c;
}

std::string_view field(const std::vector<std::string_view>& f, int i) {
  return i >= 0 && i < static_cast<int>(f.size()) ? f[i] : std::string_view{};
}

class NcuReader {
 public:
  NcuReader(std::string_view body, const std::string& path, HeaderPos hdr, Timeline& tl)
      : body_(body), path_(path), hdr_(hdr), tl_(tl) {}

  Status run() {
    CsvReader csv(make_view_source(body_, path_));  // no copy of the text
    std::vector<std::string_view> f;
    if (!csv.next(f)) return bad("header line could not be read", 0, hdr_.line);
    header_.assign(f.begin(), f.end());
    cols_ = map_columns(header_);
    if (cols_.id < 0 || cols_.kernel < 0) return bad("header lacks the \"ID\" or \"Kernel Name\" column", 0, hdr_.line);
    if (!cols_.details() && (cols_.section >= 0 || cols_.metric >= 0))
      return bad("details-page header without \"Metric Name\"/\"Metric Value\" columns", 0, hdr_.line);
    locale_ = detect_locale();
    units_.assign(header_.size(), kNoStr);

    bool first = true;
    while (csv.next(f)) {
      if (csv.error()) break;  // a record cut by the end of the file: reported below
      int64_t line = hdr_.line + csv.line() - 1;
      int64_t off = static_cast<int64_t>(hdr_.offset) + csv.offset();
      if (first && !cols_.details() && field(f, cols_.id).empty()) {
        // Row 2 of the raw page: units, with the identity columns empty.
        for (size_t i = 0; i < f.size() && i < units_.size(); ++i)
          if (!f[i].empty()) units_[i] = tl_.strings.intern(f[i]);
        first = false;
        continue;
      }
      first = false;
      if (cols_.details())
        read_details_row(f, line, off);
      else
        read_raw_row(f, line, off);
    }
    flush_devices();
    if (const Error* e = csv.error()) {
      Error err = *e;
      err.file = path_;
      err.byte_offset = static_cast<int64_t>(hdr_.offset) + (e->byte_offset < 0 ? 0 : e->byte_offset);
      err.line = e->line < 0 ? -1 : hdr_.line + e->line - 1;
      err.message =
          fmt::format("Nsight Compute CSV: {}; kept the {} kernels read before it", err.message, kernels_.size());
      return err;
    }
    if (kernels_.empty())
      tl_.warn(W::ncu_no_kernels, "Nsight Compute CSV has a header but no profiled kernels", path_, -1, hdr_.line);
    if (truncated_rows_ > 0) {
      return make_error(ErrorKind::Malformed,
                        fmt::format("Nsight Compute CSV: {} row(s) have fewer fields than the header (file "
                                    "truncated?); their last field was dropped, the rest kept",
                                    truncated_rows_),
                        path_, first_truncated_off_, first_truncated_line_);
    }
    return Status::Ok();
  }

 private:
  Error bad(std::string msg, int64_t off, int64_t line) {
    return make_error(ErrorKind::Malformed, "Nsight Compute CSV: " + msg, path_,
                      static_cast<int64_t>(hdr_.offset) + off, line);
  }

  // Decides the number locale from the first cells that can only be read one way.
  NumberLocale detect_locale() {
    CsvReader csv(make_view_source(body_, path_));  // no copy of the text
    std::vector<std::string_view> f;
    csv.next(f);  // header
    bool english = false, european = false;
    int rows = 0;
    while (csv.next(f) && !csv.error() && rows < 10000) {
      ++rows;
      auto look = [&](std::string_view cell) {
        auto h = ncu::locale_hint(cell);
        if (h == ncu::LocaleHint::English) english = true;
        if (h == ncu::LocaleHint::European) european = true;
      };
      look(field(f, cols_.cc));
      if (cols_.details()) {
        look(field(f, cols_.value));
        look(field(f, cols_.speedup));
      } else {
        for (int i : cols_.metrics) look(field(f, i));
      }
      if (english || european) break;
    }
    if (english && european)
      tl_.warn(W::ncu_mixed_number_format,
               "Nsight Compute CSV mixes English and European number formats; read as English", path_);
    return european && !english ? NumberLocale::European : NumberLocale::English;
  }

  // Kernel id and name of a data row; false (with a warning) when the ID is not a number.
  bool kernel_of(const std::vector<std::string_view>& f, int64_t line, int64_t off, int64_t& key, StrId& name) {
    auto id = ncu::as_integer(ncu::parse_number(field(f, cols_.id), locale_), 0, int64_t{1} << 53);
    if (!id) {
      tl_.warn(W::ncu_row_bad_id,
               "Nsight Compute CSV: row skipped, \"ID\" is not a kernel number (expected an integer such as \"0\")",
               path_, static_cast<int64_t>(hdr_.offset) + off, line);
      return false;
    }
    key = *id;
    name = tl_.strings.intern(field(f, cols_.kernel));
    auto dev = ncu::as_integer(ncu::parse_number(field(f, cols_.device), locale_), 0, kMaxSmall);
    cur_device_ = dev ? static_cast<int32_t>(*dev) : 0;  // files without "Device" profiled one GPU
    if (kernels_.insert(key).second) first_row_of_kernel(f, key, name);
    return true;
  }

  void first_row_of_kernel(const std::vector<std::string_view>& f, int64_t key, StrId name) {
    auto dims = [&](int col, const char* prefix, const char* unit) {
      auto v = field(f, col);
      if (v.empty()) return;
      auto d = ncu::parse_dim3(v);
      if (!d) {
        tl_.warn(W::ncu_bad_launch_shape,
                 std::string("Nsight Compute CSV: \"") + prefix + "\" is not a \"(x, y, z)\" triple; launch shape lost",
                 path_);
        return;
      }
      static const char* axis[] = {".x", ".y", ".z"};
      StrId u = tl_.strings.intern(unit);
      for (int k = 0; k < 3; ++k)
        tl_.counters.push(key, name, tl_.strings.intern(std::string(prefix) + axis[k]), u, (*d)[k]);
    };
    dims(cols_.block, "Block Size", "thread");
    dims(cols_.grid, "Grid Size", "block");
    // Compute capability ("9.0").
    DeviceInfo& d = device(cur_device_);
    auto cc = field(f, cols_.cc);
    size_t dot = cc.find_first_of(".,");
    if (dot != std::string_view::npos && d.compute_major < 0) {
      auto maj = ncu::as_integer(ncu::parse_number(cc.substr(0, dot), locale_), 0, kMaxSmall);
      auto min = ncu::as_integer(ncu::parse_number(cc.substr(dot + 1), locale_), 0, kMaxSmall);
      if (maj && min) {
        d.compute_major = static_cast<int>(*maj);
        d.compute_minor = static_cast<int>(*min);
      }
    }
  }

  DeviceInfo& device(int32_t id) {
    auto [it, fresh] = devices_.try_emplace(id);
    if (fresh) it->second.id = id;
    return it->second;
  }

  // device__attribute_* values that describe the GPU rather than the kernel.
  void note_device_attribute(std::string_view name, std::string_view text, std::optional<double> v) {
    DeviceInfo& d = device(cur_device_);
    if (name == "device__attribute_display_name") {
      if (d.name.empty()) d.name = std::string(text);
      return;
    }
    if (name == "device__attribute_total_memory") {
      if (auto bytes = ncu::as_integer(v, 0, int64_t{1} << 62)) d.total_memory_bytes = *bytes;
      return;
    }
    auto small = ncu::as_integer(v, 0, kMaxSmall);
    if (!small) return;
    if (name == "device__attribute_multiprocessor_count") {
      d.num_sms = static_cast<int>(*small);
    } else if (name == "device__attribute_warp_size") {
      d.warp_size = static_cast<int>(*small);
    } else if (name == "device__attribute_compute_capability_major") {
      d.compute_major = static_cast<int>(*small);
    } else if (name == "device__attribute_compute_capability_minor") {
      d.compute_minor = static_cast<int>(*small);
    }
  }

  void note_short_row(size_t got, int64_t line, int64_t off) {
    if (truncated_rows_++ == 0) {
      first_truncated_line_ = line;
      first_truncated_off_ = static_cast<int64_t>(hdr_.offset) + off;
    }
    tl_.warn(W::ncu_row_short,
             fmt::format("Nsight Compute CSV: row has {} of {} fields (truncated?); its last field was dropped", got,
                         header_.size()),
             path_, static_cast<int64_t>(hdr_.offset) + off, line);
  }

  void skip_text(std::string_view what, int64_t line, int64_t off) {
    tl_.warn(W::ncu_non_numeric_metric,
             "Nsight Compute CSV: non-numeric metric values skipped (first: " + std::string(what) + ")", path_,
             static_cast<int64_t>(hdr_.offset) + off, line);
  }

  void read_raw_row(const std::vector<std::string_view>& f, int64_t line, int64_t off) {
    int64_t key;
    StrId kname;
    if (!kernel_of(f, line, off, key, kname)) return;
    // A short row was cut mid-file or at its end: its last cell may be a partial number.
    size_t usable = f.size();
    if (f.size() < header_.size()) {
      note_short_row(f.size(), line, off);
      usable = f.empty() ? 0 : f.size() - 1;
    }
    for (int i : cols_.metrics) {
      if (static_cast<size_t>(i) >= usable) break;
      std::string_view cell = f[i];
      if (cell.empty()) continue;  // metric not collected for this kernel
      auto v = ncu::parse_number(cell, locale_);
      const std::string& name = header_[i];
      if (name.starts_with("device__attribute_")) note_device_attribute(name, cell, v);
      if (!v) {
        if (name != "device__attribute_display_name") skip_text(name + " = \"" + std::string(cell) + "\"", line, off);
        continue;
      }
      tl_.counters.push(key, kname, counter_id(i), units_[i], *v);
    }
  }

  StrId counter_id(int col) {
    if (counter_ids_.size() < header_.size()) counter_ids_.assign(header_.size(), kNoStr);
    if (counter_ids_[col] == kNoStr) counter_ids_[col] = tl_.strings.intern(header_[col]);
    return counter_ids_[col];
  }

  void read_details_row(const std::vector<std::string_view>& f, int64_t line, int64_t off) {
    int64_t key;
    StrId kname;
    if (!kernel_of(f, line, off, key, kname)) return;
    std::string_view rule = field(f, cols_.rule);
    if (!rule.empty()) {
      RuleResultRow r;
      r.kernel_key = key;
      r.kernel_name = kname;
      r.section = tl_.strings.intern(field(f, cols_.section));
      r.rule = tl_.strings.intern(rule);
      r.type = tl_.strings.intern(field(f, cols_.rule_type));
      r.description = tl_.strings.intern(field(f, cols_.rule_desc));
      r.speedup_type = tl_.strings.intern(field(f, cols_.speedup_type));
      auto sp = field(f, cols_.speedup);
      if (auto v = ncu::parse_number(sp, locale_))
        r.est_speedup_pct = *v;
      else if (!sp.empty())
        skip_text("Estimated Speedup = \"" + std::string(sp) + "\"", line, off);
      tl_.rules.push(r);
      return;
    }
    // Metric rows have 16 fields against a 20-column header (no rule columns): only a row that
    // ends before "Metric Value" is damaged.
    if (static_cast<int>(f.size()) <= cols_.value) {
      note_short_row(f.size(), line, off);
      return;
    }
    std::string_view section = field(f, cols_.section), metric = field(f, cols_.metric);
    std::string_view cell = field(f, cols_.value);
    if (metric.empty() || cell.empty()) return;
    auto v = ncu::parse_number(cell, locale_);
    if (section == "Launch Statistics" && metric == "# SMs")
      if (auto n = ncu::as_integer(v, 0, kMaxSmall)) device(cur_device_).num_sms = static_cast<int>(*n);
    if (!v) {
      skip_text(std::string(section) + "/" + std::string(metric) + " = \"" + std::string(cell) + "\"", line, off);
      return;
    }
    std::string name;
    name.reserve(section.size() + 1 + metric.size());
    name.append(section).append("/").append(metric);
    StrId unit = field(f, cols_.unit).empty() ? kNoStr : tl_.strings.intern(field(f, cols_.unit));
    tl_.counters.push(key, kname, tl_.strings.intern(name), unit, *v);
  }

  // Adds what was learned about each GPU to meta.devices, filling gaps in an existing entry
  // (another input may already have described the same device).
  void flush_devices() {
    for (auto& entry : devices_) {
      DeviceInfo& d = entry.second;
      const int32_t id = entry.first;
      if (d.compute_major >= 0 && d.arch.empty()) d.arch = fmt::format("sm_{}{}", d.compute_major, d.compute_minor);

      auto it = std::find_if(tl_.meta.devices.begin(), tl_.meta.devices.end(),
                             [&](const DeviceInfo& x) { return x.id == id; });
      if (it == tl_.meta.devices.end()) {
        tl_.meta.devices.push_back(d);
        continue;
      }
      if (it->name.empty()) it->name = d.name;
      if (it->arch.empty()) it->arch = d.arch;
      if (it->compute_major < 0) it->compute_major = d.compute_major, it->compute_minor = d.compute_minor;
      if (it->num_sms < 0) it->num_sms = d.num_sms;
      if (it->warp_size < 0) it->warp_size = d.warp_size;
      if (it->total_memory_bytes == kNone) it->total_memory_bytes = d.total_memory_bytes;
    }
  }

  std::string_view body_;
  const std::string& path_;
  HeaderPos hdr_;
  Timeline& tl_;
  std::vector<std::string> header_;
  Columns cols_;
  NumberLocale locale_ = NumberLocale::English;
  std::vector<StrId> units_, counter_ids_;
  std::unordered_set<int64_t> kernels_;
  std::map<int32_t, DeviceInfo> devices_;
  int32_t cur_device_ = 0;
  int64_t truncated_rows_ = 0, first_truncated_line_ = -1, first_truncated_off_ = -1;
};

}  // namespace

Status parse_ncu_csv(std::string_view text, const std::string& path, Timeline& tl) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return make_error(ErrorKind::Malformed, "Nsight Compute CSV: file is empty", path, 0);
  auto hdr = find_header(text);
  if (!hdr) {
    return make_error(ErrorKind::Malformed,
                      "Nsight Compute CSV: no header line found (expected a line starting with \"ID\" and naming "
                      "\"Kernel Name\", as written by `ncu --csv --page raw|details`)",
                      path, 0, 1);
  }
  return NcuReader(text.substr(hdr->offset), path, *hdr, tl).run();
}

Status read_ncu_csv(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto text = read_all(path, opt.io);
  if (!text) return text.error();
  return parse_ncu_csv(*text, path, tl);
}

}  // namespace goblin::trace
