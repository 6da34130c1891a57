// nvidia-smi query CSV (`--query-gpu=... --format=csv[,noheader][,nounits] [-l/-lms N]`) into
// Timeline samples, and the read_nvidia_smi() entry point (dmon text goes to
// nvidia_smi_dmon.cpp).
//
// - One row per GPU per sample; the `index` column is the device (else uuid/pci.bus_id in order
//   of appearance, with a warning). Every numeric column becomes one sample (ts, device,
//   metric, value) under the normalised names of SampleTable (nvsmi::metric_name):
//   utilization.gpu → gpu_util_pct, memory.used [MiB] → mem_used_bytes (×2^20), power.draw →
//   power_w, ...; other columns keep their field name ("pstate" as a number, P0 → 0;
//   clocks_event_reasons as the bit mask).
// - Timestamps are local time without a zone; read UTC-naive (see nvidia_smi.h).
// - [N/A], [Not Supported], [Unknown Error]: the reading is skipped and counted (one folded
//   warning). Text in a numeric column: skipped, warned with its line and column.
// - `name` → meta.devices, `driver_version` → meta.versions["driver"].
// - noheader: columns are only mapped when the row matches one of the known query orders
//   below field by field; otherwise nothing is guessed and the file is rejected.
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "core/csv.h"
#include "core/io.h"
#include "trace/readers.h"
#include "trace/telemetry/nvidia_smi.h"

namespace goblin::trace {
namespace nvsmi {

namespace {

enum class Role { Timestamp, Index, Name, DeviceKey, Driver, Text, Metric };

struct Column {
  std::string field;  // "utilization.gpu"
  std::string unit;   // "%", "MiB"; empty when the header has none
  Role role = Role::Metric;
  StrId metric = kNoStr;
  double scale = 1;
};

// Query fields whose values are text by nature (not metrics).
constexpr std::string_view kTextFields[] = {
    "serial",       "gpu_serial",     "vbios_version",     "compute_mode",         "persistence_mode",
    "display_mode", "display_active", "accounting.mode",   "mig.mode.current",     "mig.mode.pending",
    "inforom.img",  "inforom.oem",    "gom.current",       "driver_model.current", "addressing_mode",
    "compute_cap",  "pci.device_id",  "pci.sub_device_id", "pci.domain",           "pci.bus",
    "pci.device"};

Column describe(std::string_view cell, Timeline& tl) {
  Column c;
  size_t br = cell.find(" [");
  c.field = std::string(cell.substr(0, br));
  if (br != std::string_view::npos && cell.back() == ']')
    c.unit = std::string(cell.substr(br + 2, cell.size() - br - 3));
  const std::string& f = c.field;
  if (f == "timestamp")
    c.role = Role::Timestamp;
  else if (f == "index")
    c.role = Role::Index;
  else if (f == "name" || f == "gpu_name")
    c.role = Role::Name;
  else if (f == "uuid" || f == "gpu_uuid" || f == "pci.bus_id" || f == "gpu_bus_id")
    c.role = Role::DeviceKey;
  else if (f == "driver_version")
    c.role = Role::Driver;
  else {
    for (auto t : kTextFields)
      if (f == t) c.role = Role::Text;
  }
  if (c.role == Role::Metric) {
    std::string m = metric_name(f);
    // nvidia-smi reports memory in MiB (with or without the unit in the header).
    if (m.ends_with("_bytes") && (c.unit.empty() || c.unit == "MiB")) c.scale = 1024.0 * 1024.0;
    c.metric = tl.strings.intern(m);
  }
  return c;
}

bool is_field_name(std::string_view s) {
  size_t br = s.find(" [");
  std::string_view name = s.substr(0, br);
  if (name.empty()) return false;
  if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_')) return false;
  for (char ch : name)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '.'))
      return false;
  return br == std::string_view::npos || s.back() == ']';
}

bool looks_like_header(const std::vector<std::string_view>& f) {
  if (f.empty() || parse_timestamp(f[0])) return false;
  for (auto c : f)
    if (!is_field_name(c)) return false;
  return true;
}

// Query orders we know well enough to read a `noheader` file: the order FORMATS.md documents
// (17 fields, what goblin asks for) and the 11-field training-monitor order of the H100
// fixture. A headerless row must match one field by field.
struct Layout {
  const char* what;
  const char* header;
};
constexpr Layout kKnownLayouts[] = {
    {"the 17-field query goblin documents (timestamp, index, name, pci.bus_id, driver_version, pstate, ...)",
     "timestamp, index, name, pci.bus_id, driver_version, pstate, temperature.gpu, utilization.gpu [%], "
     "utilization.memory [%], memory.total [MiB], memory.used [MiB], memory.free [MiB], power.draw [W], "
     "power.limit [W], clocks.current.sm [MHz], clocks.current.memory [MHz], clocks_event_reasons.active"},
    {"the 11-field training-monitor query (timestamp, index, name, utilization.gpu, ...)",
     "timestamp, index, name, utilization.gpu [%], utilization.memory [%], memory.used [MiB], memory.total [MiB], "
     "power.draw [W], clocks.current.sm [MHz], clocks.current.memory [MHz], temperature.gpu"},
};

bool cell_fits(const Column& c, std::string_view v) {
  switch (c.role) {
    case Role::Timestamp:
      return parse_timestamp(v).has_value();
    case Role::Index:
      return !v.empty() && v.find_first_not_of("0123456789") == std::string_view::npos;
    case Role::Name:
      return !v.empty() && !parse_value(v);
    case Role::DeviceKey:
      return v.find(':') != std::string_view::npos || v.starts_with("GPU-");
    case Role::Driver:
      return !v.empty() && v.find_first_not_of("0123456789.") == std::string_view::npos;
    case Role::Text:
      return true;
    case Role::Metric:
      if (c.field == "pstate") return v.starts_with("P") || is_unavailable(v);
      if (c.field.starts_with("clocks_event_reasons.active")) return v.starts_with("0x") || is_unavailable(v);
      return is_unavailable(v) || parse_value(v).has_value();
  }
  return false;
}

class QueryReader {
 public:
  QueryReader(const std::string& path, Timeline& tl) : path_(path), tl_(tl) {}

  Status run(std::string_view text) {
    CsvReader csv = CsvReader::from_string(std::string(text), ',', /*trim=*/true);
    std::vector<std::string_view> f;
    if (!csv.next(f)) return make_error(ErrorKind::Malformed, "nvidia-smi CSV: file is empty", path_, 0);
    if (looks_like_header(f)) {
      header_.assign(f.begin(), f.end());
      for (auto c : f) cols_.push_back(describe(c, tl_));
      find_key_columns();
    } else if (Status s = adopt_known_layout(f, csv.line()); !s.ok()) {
      return s;
    } else {
      find_key_columns();
      row(f, csv.line(), csv.offset());
    }
    while (csv.next(f)) {
      if (csv.error()) break;
      if (f.size() == header_.size() && std::equal(f.begin(), f.end(), header_.begin())) continue;  // repeated header
      row(f, csv.line(), csv.offset());
    }
    if (const Error* e = csv.error()) {
      Error err = *e;
      err.file = path_;
      err.message = fmt::format("nvidia-smi CSV: {}; kept the {} rows before it", err.message, rows_);
      return err;
    }
    if (rows_ == 0) tl_.warn(W::telemetry_no_samples, "nvidia-smi CSV has a header but no samples", path_, -1, 1);
    return Status::Ok();
  }

 private:
  Status adopt_known_layout(const std::vector<std::string_view>& f, int64_t line) {
    for (const auto& l : kKnownLayouts) {
      std::vector<std::string> names;
      for (auto& n : split_csv_line(l.header)) {
        size_t a = n.find_first_not_of(' ');
        names.push_back(a == std::string::npos ? n : n.substr(a));
      }
      if (names.size() != f.size()) continue;
      std::vector<Column> cols;
      bool fits = true;
      for (size_t i = 0; i < names.size() && fits; ++i) {
        cols.push_back(describe(names[i], tl_));
        fits = cell_fits(cols.back(), f[i]);
      }
      if (!fits) continue;
      cols_ = std::move(cols);
      header_ = std::move(names);
      tl_.warn(W::telemetry_guessed_header,
               fmt::format("nvidia-smi CSV has no header line (noheader): its {} columns match, value by value, {} "
                           "and are read as such; keep the header (--format=csv) to be certain",
                           f.size(), l.what),
               path_, 0, line);
      return Status::Ok();
    }
    return make_error(ErrorKind::Malformed,
                      fmt::format("nvidia-smi CSV has no header line and its {} columns match no known --query-gpu "
                                  "order, so the columns are unknown and nothing was read; re-run nvidia-smi with "
                                  "--format=csv (without noheader)",
                                  f.size()),
                      path_, 0, line);
  }

  void find_key_columns() {
    for (size_t i = 0; i < cols_.size(); ++i) {
      if (cols_[i].role == Role::Timestamp) ts_col_ = static_cast<int>(i);
      if (cols_[i].role == Role::Index) index_col_ = static_cast<int>(i);
      if (cols_[i].role == Role::DeviceKey && key_col_ < 0) key_col_ = static_cast<int>(i);
    }
    if (ts_col_ < 0)
      tl_.warn(W::telemetry_no_timestamps,
               "nvidia-smi CSV has no timestamp column: samples of each GPU placed 1 s apart in row order", path_);
    if (index_col_ < 0 && key_col_ >= 0)
      tl_.warn(W::telemetry_no_device_index,
               "nvidia-smi CSV has no index column: devices numbered in order of first appearance of " +
                   cols_[key_col_].field,
               path_);
    if (index_col_ < 0 && key_col_ < 0)
      tl_.warn(W::telemetry_no_device, "nvidia-smi CSV has no index, uuid or pci.bus_id column: samples have no device",
               path_);
  }

  void row(const std::vector<std::string_view>& f, int64_t line, int64_t off) {
    size_t usable = f.size();
    if (f.size() > cols_.size()) {
      tl_.warn(W::telemetry_row_width_skipped, "nvidia-smi CSV: row with more fields than the header skipped", path_,
               off, line);
      return;
    }
    if (f.size() < cols_.size()) {
      // A row cut short (nvidia-smi stopped mid-write): its last cell may be partial.
      tl_.warn(W::telemetry_row_short,
               fmt::format("nvidia-smi CSV: row has {} of {} fields (truncated); its last field was dropped", f.size(),
                           cols_.size()),
               path_, off, line);
      usable = f.empty() ? 0 : f.size() - 1;
    }
    auto cell = [&](int i) { return i >= 0 && static_cast<size_t>(i) < usable ? f[i] : std::string_view{}; };

    int32_t dev = kNone;
    if (index_col_ >= 0) {
      auto v = parse_gpu_index(cell(index_col_));
      if (!v) {
        tl_.warn(W::telemetry_bad_device, "nvidia-smi CSV: row skipped, index is not a GPU number", path_, off, line);
        return;
      }
      dev = *v;
    } else if (key_col_ >= 0 && !cell(key_col_).empty()) {
      auto [it, fresh] = key_to_dev_.try_emplace(std::string(cell(key_col_)), static_cast<int32_t>(key_to_dev_.size()));
      dev = it->second;
    }

    int64_t ts;
    if (ts_col_ >= 0) {
      auto t = parse_timestamp(cell(ts_col_));
      if (!t) {
        tl_.warn(W::telemetry_bad_timestamp,
                 "nvidia-smi CSV: row skipped, timestamp is not \"YYYY/MM/DD HH:MM:SS.mmm\"", path_, off, line);
        return;
      }
      ts = *t;
    } else {
      ts = per_device_rows_[dev]++ * 1'000'000'000LL;
    }
    ++rows_;

    for (size_t i = 0; i < usable; ++i) {
      const Column& c = cols_[i];
      std::string_view v = f[i];
      switch (c.role) {
        case Role::Name:
          note_device(dev, v);
          break;
        case Role::Driver:
          if (!v.empty() && !is_unavailable(v)) tl_.meta.versions["driver"] = std::string(v);
          break;
        case Role::Metric: {
          if (v.empty() || is_unavailable(v)) {
            tl_.warn(W::telemetry_unavailable_reading,
                     "nvidia-smi CSV: unavailable readings skipped ([N/A], [Not Supported], [Unknown Error])", path_,
                     off, line);
            break;
          }
          auto x = parse_value(v);
          if (!x) {
            tl_.warn(W::telemetry_non_numeric,
                     fmt::format("nvidia-smi CSV: column {} ({}): expected a number, got text; value skipped", i + 1,
                                 c.field),

                     path_, off, line);
            break;
          }
          double val = *x * c.scale;
          tl_.samples.push(ts, dev, c.metric, val);
          if (tl_.str(c.metric) == "mem_total_bytes" && val >= 0 && val < 9e18)
            note_memory(dev, static_cast<int64_t>(val));
          break;
        }
        default:
          break;
      }
    }
  }

  DeviceInfo* device(int32_t id) {
    if (id == kNone) return nullptr;
    for (auto& d : tl_.meta.devices)
      if (d.id == id) return &d;
    DeviceInfo d;
    d.id = id;
    tl_.meta.devices.push_back(d);
    return &tl_.meta.devices.back();
  }
  void note_device(int32_t id, std::string_view name) {
    if (name.empty() || is_unavailable(name)) return;
    if (DeviceInfo* d = device(id); d && d->name.empty()) d->name = std::string(name);
  }
  void note_memory(int32_t id, int64_t bytes) {
    if (DeviceInfo* d = device(id); d && d->total_memory_bytes == kNone) d->total_memory_bytes = bytes;
  }

  const std::string& path_;
  Timeline& tl_;
  std::vector<std::string> header_;
  std::vector<Column> cols_;
  int ts_col_ = -1, index_col_ = -1, key_col_ = -1;
  std::map<std::string, int32_t> key_to_dev_;
  std::map<int32_t, int64_t> per_device_rows_;
  int64_t rows_ = 0;
};

}  // namespace

Status parse_query_csv(std::string_view text, const std::string& path, Timeline& tl) {
  return QueryReader(path, tl).run(text);
}

Status parse(std::string_view text, const std::string& path, Timeline& tl) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return make_error(ErrorKind::Malformed, "nvidia-smi output: file is empty", path, 0);
  if (text[first] == '#') return parse_dmon(text, path, tl);
  return parse_query_csv(text, path, tl);
}

}  // namespace nvsmi

Status read_nvidia_smi(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  // nvidia-smi logs are small (a day at 200 ms for 8 GPUs is ~100 MB); read whole.
  auto text = read_all(path, opt.io);
  if (!text) return text.error();
  return nvsmi::parse(*text, path, tl);
}

}  // namespace goblin::trace
