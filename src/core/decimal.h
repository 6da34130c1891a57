// Exact decimal-text → integer-nanosecond conversion. Kineto writes microseconds as text with
// three decimals ("4470243533393.883"); going through a double loses nanoseconds at epoch
// scale (2^53 ns ≈ 104 days), so we scale the digits themselves.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

namespace goblin {

// Parses a JSON number (optional '-', digits, optional fraction, optional exponent) given in
// units of 10^-scale_exp10... concretely: returns round(value * 10^scale) as int64, rounding
// half away from zero. nullopt for non-numbers, NaN/inf text, or results beyond int64.
std::optional<int64_t> parse_decimal_scaled(std::string_view text, int scale);

// Microsecond text → nanoseconds (scale 3).
inline std::optional<int64_t> parse_us_to_ns(std::string_view text) { return parse_decimal_scaled(text, 3); }

// A double that holds a whole number inside int64's range, as int64 ("16384.0" read as a float);
// nullopt otherwise. The range is checked before the cast: casting an out-of-range double (a
// fuzzed 1e94) is undefined behaviour.
inline std::optional<int64_t> whole_int64(double d) {
  if (!(std::fabs(d) < 9.2e18) || std::floor(d) != d) return std::nullopt;
  return static_cast<int64_t>(d);
}

}  // namespace goblin
