#include "trace/telemetry/smi_values.h"

#include <charconv>
#include <cmath>
#include <system_error>

#include "core/text.h"

namespace goblin::trace::smi {

std::optional<double> to_number(std::string_view s) {
  s = trim_blanks(s);
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool is_na(std::string_view s) {
  s = trim_blanks(s);
  return s.empty() || s == "N/A" || s == "NA" || s == "n/a";
}

}  // namespace goblin::trace::smi
