// Cell-level parsing shared by the nvidia-smi query CSV and dmon readers.
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/text.h"
#include "trace/telemetry/nvidia_smi.h"

namespace goblin::trace::nvsmi {

namespace {
// Fixed-width unsigned decimal field; nullopt unless all `n` chars are digits.
std::optional<int64_t> digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Years past 2261 overflow int64 nanoseconds since 1970.
bool valid_date(int64_t y, int64_t m, int64_t d) {
  return y >= 1970 && y <= 2261 && m >= 1 && m <= 12 && d >= 1 && d <= 31;
}
bool valid_time(int64_t h, int64_t mi, int64_t s) { return h <= 23 && mi <= 59 && s <= 60; }
constexpr int64_t kNsPerSec = 1'000'000'000;
}  // namespace

std::optional<int64_t> parse_timestamp(std::string_view t) {
  t = trim_blanks(t);
  // YYYY/MM/DD HH:MM:SS[.fff...]
  if (t.size() < 19 || t[4] != '/' || t[7] != '/' || t[10] != ' ' || t[13] != ':' || t[16] != ':') return std::nullopt;
  auto y = digits(t, 0, 4), mo = digits(t, 5, 2), d = digits(t, 8, 2);
  auto h = digits(t, 11, 2), mi = digits(t, 14, 2), s = digits(t, 17, 2);
  if (!y || !mo || !d || !h || !mi || !s || !valid_date(*y, *mo, *d) || !valid_time(*h, *mi, *s)) return std::nullopt;
  int64_t frac_ns = 0;
  if (t.size() > 19) {
    if (t[19] != '.' || t.size() == 20 || t.size() > 29) return std::nullopt;
    int64_t scale = kNsPerSec;
    for (size_t i = 20; i < t.size(); ++i) {
      if (t[i] < '0' || t[i] > '9') return std::nullopt;
      scale /= 10;
      frac_ns += (t[i] - '0') * scale;
    }
  }
  int64_t secs = days_from_civil(*y, *mo, *d) * 86400 + *h * 3600 + *mi * 60 + *s;
  return secs * kNsPerSec + frac_ns;
}

std::optional<int64_t> parse_dmon_time(std::string_view date, std::string_view time) {
  date = trim_blanks(date);
  time = trim_blanks(time);
  int64_t ns = 0;
  if (!date.empty()) {
    auto y = digits(date, 0, 4), mo = digits(date, 4, 2), d = digits(date, 6, 2);
    if (date.size() != 8 || !y || !mo || !d || !valid_date(*y, *mo, *d)) return std::nullopt;
    ns += days_from_civil(*y, *mo, *d) * 86400 * kNsPerSec;
  }
  if (!time.empty()) {
    auto h = digits(time, 0, 2), mi = digits(time, 3, 2), s = digits(time, 6, 2);
    if (time.size() != 8 || time[2] != ':' || time[5] != ':' || !h || !mi || !s || !valid_time(*h, *mi, *s))
      return std::nullopt;
    ns += (*h * 3600 + *mi * 60 + *s) * kNsPerSec;
  }
  return ns;
}

bool is_unavailable(std::string_view c) {
  c = trim_blanks(c);
  return (c.size() >= 2 && c.front() == '[' && c.back() == ']') || c == "N/A" || c == "-";
}

std::optional<double> parse_value(std::string_view c) {
  c = trim_blanks(c);
  if (c.empty()) return std::nullopt;
  if (c.size() > 2 && c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
    // Bit masks such as clocks_event_reasons.active ("0x0000000000000004").
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(c.data() + 2, c.data() + c.size(), v, 16);
    if (ec != std::errc() || p != c.data() + c.size()) return std::nullopt;
    return static_cast<double>(v);
  }
  if (c.size() >= 2 && c[0] == 'P' && c.find_first_not_of("0123456789", 1) == std::string_view::npos) {
    return std::strtod(std::string(c.substr(1)).c_str(), nullptr);  // pstate "P0".."P15"
  }
  if (c == "Active") return 1.0;  // clocks_event_reasons.* flags
  if (c == "Not Active") return 0.0;
  // Drop a trailing unit ("117.82 W", "2 %", "81559 MiB", "1980 MHz").
  size_t sp = c.find(' ');
  if (sp != std::string_view::npos) {
    std::string_view unit = trim_blanks(c.substr(sp + 1));
    if (unit.empty() || unit.find_first_of("0123456789 ") != std::string_view::npos) return std::nullopt;
    c = c.substr(0, sp);
  }
  double v = 0;
  const char* b = c.data() + (c[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(b, c.data() + c.size(), v);
  if (ec != std::errc() || p != c.data() + c.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int32_t> parse_gpu_index(std::string_view c) {
  c = trim_blanks(c);
  if (c.empty() || c.size() > 6) return std::nullopt;
  int32_t v = 0;
  auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), v);
  if (ec != std::errc() || p != c.data() + c.size() || v < 0) return std::nullopt;
  return v;
}

std::string metric_name(std::string_view f) {
  struct Alias {
    std::string_view field, metric;
  };
  static constexpr Alias kMap[] = {
      {"utilization.gpu", "gpu_util_pct"},
      {"utilization.memory", "mem_util_pct"},
      {"memory.used", "mem_used_bytes"},
      {"memory.total", "mem_total_bytes"},
      {"memory.free", "mem_free_bytes"},
      {"memory.reserved", "mem_reserved_bytes"},
      {"power.draw", "power_w"},
      {"power.limit", "power_limit_w"},
      {"temperature.gpu", "temp_c"},
      {"clocks.current.sm", "sm_clock_mhz"},
      {"clocks.sm", "sm_clock_mhz"},
      {"clocks.current.memory", "mem_clock_mhz"},
      {"clocks.mem", "mem_clock_mhz"},
      {"clocks.memory", "mem_clock_mhz"},
      {"clocks_event_reasons.active", "clocks_event_reasons"},
      {"clocks_throttle_reasons.active", "clocks_event_reasons"},  // the pre-rename spelling
  };
  for (const auto& a : kMap)
    if (a.field == f) return std::string(a.metric);
  return std::string(f);
}

}  // namespace goblin::trace::nvsmi
