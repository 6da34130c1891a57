#include "trace/rocprof/rocprof_fields.h"

#include <charconv>
#include <cmath>

#include "core/decimal.h"

namespace goblin::trace::rocprof {

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
}  // namespace

Columns::Columns(const std::vector<std::string_view>& header) {
  names_.reserve(header.size());
  for (size_t i = 0; i < header.size(); ++i) {
    std::string_view h = trim_blanks(header[i]);
    if (i == 0 && h.substr(0, 3) == "\xEF\xBB\xBF") h.remove_prefix(3);  // UTF-8 BOM
    names_.emplace_back(h);
    index_.emplace(ascii_lower(h), static_cast<int>(i));  // emplace keeps the first duplicate
  }
}

int Columns::find(std::initializer_list<std::string_view> names) const {
  for (auto n : names) {
    auto it = index_.find(ascii_lower(n));
    if (it != index_.end()) return it->second;
  }
  return -1;
}

std::optional<int64_t> parse_int(std::string_view s) {
  s = trim_blanks(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    // Integral values written as floats ("16384.000000", "65536.0") are still integers.
    auto d = parse_number(s);
    return d ? whole_int64(*d) : std::nullopt;
  }
  return v;
}

std::optional<double> parse_number(std::string_view s) {
  s = trim_blanks(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> parse_agent(std::string_view s) {
  s = trim_blanks(s);
  for (std::string_view prefix : {"Agent ", "GPU ", "CPU "}) {
    if (s.substr(0, prefix.size()) == prefix) {
      s.remove_prefix(prefix.size());
      break;
    }
  }
  auto v = parse_int(s);
  if (!v || *v < 0) return std::nullopt;
  return v;
}

CopyKind copy_kind_from_text(std::string_view s) {
  std::string l = ascii_lower(s);
  auto has = [&](std::string_view n) { return l.find(n) != std::string::npos; };
  if (has("host_to_device") || has("hosttodevice") || has("htod")) return CopyKind::HtoD;
  if (has("device_to_host") || has("devicetohost") || has("dtoh")) return CopyKind::DtoH;
  if (has("device_to_device") || has("devicetodevice") || has("dtod")) return CopyKind::DtoD;
  if (has("host_to_host") || has("hosttohost") || has("htoh")) return CopyKind::HtoH;
  if (has("peer")) return CopyKind::PtoP;
  return CopyKind::Unknown;
}

std::string_view strip_kd_suffix(std::string_view name, bool* stripped) {
  bool did = false;
  for (std::string_view suffix : {" [clone .kd]", " (.kd)"}) {
    if (ends_with(name, suffix)) {
      name.remove_suffix(suffix.size());
      did = true;
      break;
    }
  }
  if (stripped) *stripped = did;
  return name;
}

uint32_t grid_items_to_blocks(int64_t grid_items, int64_t workgroup) {
  if (grid_items <= 0 || workgroup <= 0) return 0;
  int64_t blocks = grid_items / workgroup + (grid_items % workgroup != 0 ? 1 : 0);  // no overflow near INT64_MAX
  return blocks > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(blocks);
}

void ensure_device(Timeline& tl, int64_t id) {
  if (id < 0 || id > INT32_MAX) return;
  for (const auto& d : tl.meta.devices) {
    if (d.id == id) return;
  }
  DeviceInfo d;
  d.id = static_cast<int32_t>(id);
  tl.meta.devices.push_back(std::move(d));
}

std::string_view RowFields::text(int col) const {
  if (col < 0 || !fields_ || static_cast<size_t>(col) >= fields_->size()) return {};
  return (*fields_)[static_cast<size_t>(col)];
}

std::optional<int64_t> RowFields::integer(int col) {
  std::string_view t = trim_blanks(text(col));
  if (t.empty()) return std::nullopt;
  auto v = parse_int(t);
  if (!v) warn(W::rocprof_bad_value, "column '" + cols_.name(col) + "' is not an integer (value ignored)");
  return v;
}

std::optional<double> RowFields::number(int col) {
  std::string_view t = trim_blanks(text(col));
  if (t.empty()) return std::nullopt;
  auto v = parse_number(t);
  if (!v) warn(W::rocprof_bad_value, "column '" + cols_.name(col) + "' is not a number (value ignored)");
  return v;
}

std::optional<std::pair<int64_t, int64_t>> RowFields::times(int start_col, int end_col, std::string_view skip_warning) {
  auto start = integer(start_col), end = integer(end_col);
  if (!start || !end || !valid_times(*start, *end)) {
    warn(W::rocprof_bad_times, std::string(skip_warning));
    return std::nullopt;
  }
  return std::pair{*start, *end};
}

std::string header_text(const std::vector<std::string_view>& header) {
  std::string out;
  for (size_t i = 0; i < header.size(); ++i) {
    if (i) out += ',';
    out += header[i];
    if (out.size() > 200) {
      out.resize(200);
      out += "...";
      break;
    }
  }
  return out;
}

}  // namespace goblin::trace::rocprof
