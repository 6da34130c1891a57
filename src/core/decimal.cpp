#include "core/decimal.h"

#include <limits>

namespace goblin {

std::optional<int64_t> parse_decimal_scaled(std::string_view s, int scale) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    neg = s[i] == '-';
    ++i;
  }
  // Collect significant digits and the decimal exponent of the last one.
  uint64_t mant = 0;
  int exp10 = 0;            // value = mant * 10^exp10
  bool any_digit = false;
  bool mant_full = false;   // digits beyond 19 significant ones only shift the exponent
  auto take = [&](int d, bool after_point) {
    any_digit = true;
    if (!mant_full) {
      if (mant > (std::numeric_limits<uint64_t>::max() - 9) / 10) {
        mant_full = true;
      } else {
        mant = mant * 10 + static_cast<uint64_t>(d);
        if (after_point) --exp10;
        return;
      }
    }
    // mantissa is full: the digit is dropped, an integer digit still scales the value
    if (!after_point) ++exp10;
  };
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') take(s[i++] - '0', false);
  if (i < s.size() && s[i] == '.') {
    ++i;
    bool frac_digit = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      take(s[i++] - '0', true);
      frac_digit = true;
    }
    if (!frac_digit && !any_digit) return std::nullopt;
  }
  if (!any_digit) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
      eneg = s[i] == '-';
      ++i;
    }
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return std::nullopt;
    int e = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (e < 100000) e = e * 10 + (s[i] - '0');
      ++i;
    }
    exp10 += eneg ? -e : e;
  }
  if (i != s.size()) return std::nullopt;

  int shift = exp10 + scale;  // result = mant * 10^shift
  if (mant == 0) return 0;
  unsigned __int128 v = mant;
  if (shift >= 0) {
    for (int k = 0; k < shift; ++k) {
      v *= 10;
      if (v > static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()) + 1) return std::nullopt;
    }
  } else {
    int div_digits = -shift;
    if (div_digits > 38) return 0;
    unsigned __int128 p = 1;
    for (int k = 0; k < div_digits; ++k) p *= 10;
    unsigned __int128 q = v / p;
    unsigned __int128 r = v % p;
    // Half away from zero (digits beyond 19 significant ones are ignored: sub-ns noise).
    v = q + (r >= p / 2 ? 1 : 0);
  }
  const auto max = static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max());
  if (!neg && v > max) return std::nullopt;
  if (neg && v > max + 1) return std::nullopt;
  return neg ? static_cast<int64_t>(-static_cast<__int128>(v)) : static_cast<int64_t>(v);
}

}  // namespace goblin
