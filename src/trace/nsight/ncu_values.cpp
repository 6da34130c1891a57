#include "trace/nsight/ncu_values.h"

#include <charconv>
#include <cmath>
#include <string>

namespace goblin::trace::ncu {

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Splits a number cell into sign, integer part and optional fraction/exponent, checking that
// grouping separators (if any) sit between groups of exactly three digits.
bool normalise(std::string_view s, char group, char point, std::string& out) {
  out.clear();
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) out.push_back(s[i++]);
  size_t int_start = i;
  size_t digits_in_group = 0;
  bool grouped = false, first_group = true;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (is_digit(c)) {
      out.push_back(c);
      ++digits_in_group;
    } else if (c == group) {
      // A separator must follow 1-3 digits (first group) or exactly 3, and be followed by a digit.
      if (digits_in_group == 0 || digits_in_group > 3 || (!first_group && digits_in_group != 3)) return false;
      if (i + 1 >= s.size() || !is_digit(s[i + 1])) return false;
      grouped = true;
      first_group = false;
      digits_in_group = 0;
    } else {
      break;
    }
  }
  if (i == int_start) return false;
  if (grouped && digits_in_group != 3) return false;
  if (i < s.size() && s[i] == point) {
    out.push_back('.');
    ++i;
    size_t frac_start = i;
    while (i < s.size() && is_digit(s[i])) out.push_back(s[i++]);
    if (i == frac_start) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    out.push_back('e');
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) out.push_back(s[i++]);
    size_t exp_start = i;
    while (i < s.size() && is_digit(s[i])) out.push_back(s[i++]);
    if (i == exp_start) return false;
  }
  return i == s.size();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
}  // namespace

LocaleHint locale_hint(std::string_view cell) {
  cell = trim(cell);
  size_t commas = 0, dots = 0;
  for (char c : cell) {
    if (c == ',')
      ++commas;
    else if (c == '.')
      ++dots;
    else if (!is_digit(c) && c != '-' && c != '+')
      return LocaleHint::None;
  }
  if (commas && dots) {
    // The last separator is the decimal point.
    return cell.find_last_of(".,") == cell.rfind('.') ? LocaleHint::English : LocaleHint::European;
  }
  if (dots > 1) return LocaleHint::European;
  if (commas > 1) return LocaleHint::English;
  // One separator: followed by exactly three digits is ambiguous ("13,888", "1.056").
  char sep = dots ? '.' : (commas ? ',' : 0);
  if (!sep) return LocaleHint::None;
  size_t after = cell.size() - cell.find(sep) - 1;
  if (after == 3) return LocaleHint::None;
  return sep == '.' ? LocaleHint::English : LocaleHint::European;
}

std::optional<double> parse_number(std::string_view cell, NumberLocale loc) {
  cell = trim(cell);
  if (cell.empty()) return std::nullopt;
  char group = loc == NumberLocale::English ? ',' : '.';
  char point = loc == NumberLocale::English ? '.' : ',';
  std::string norm;
  if (!normalise(cell, group, point, norm)) return std::nullopt;
  const char* b = norm.data() + (norm[0] == '+' ? 1 : 0);
  double v = 0;
  auto [p, ec] = std::from_chars(b, norm.data() + norm.size(), v);
  if (ec != std::errc() || p != norm.data() + norm.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> as_integer(std::optional<double> v, int64_t lo, int64_t hi) {
  // Compare in double before converting: converting an out-of-range double is undefined.
  if (!v || !(*v >= static_cast<double>(lo) && *v <= static_cast<double>(hi)) || *v != std::floor(*v))
    return std::nullopt;
  return static_cast<int64_t>(*v);
}

std::optional<std::array<uint32_t, 3>> parse_dim3(std::string_view cell) {
  cell = trim(cell);
  if (cell.size() < 7 || cell.front() != '(' || cell.back() != ')') return std::nullopt;
  cell = cell.substr(1, cell.size() - 2);
  std::array<uint32_t, 3> out{};
  for (int k = 0; k < 3; ++k) {
    size_t comma = cell.find(',');
    if ((k < 2) != (comma != std::string_view::npos)) return std::nullopt;
    std::string_view part = trim(cell.substr(0, comma));
    if (part.empty()) return std::nullopt;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), out[k]);
    if (ec != std::errc() || p != part.data() + part.size()) return std::nullopt;
    cell = comma == std::string_view::npos ? std::string_view{} : cell.substr(comma + 1);
  }
  return out;
}

}  // namespace goblin::trace::ncu
