// Parsing of the value cells Nsight Compute writes into its CSV pages. ncu formats numbers for
// people, not machines: thousands separators ("13,888", "2,612,093,023.26"), and under a
// European locale the separators swap ("13.888", "2.612.093.023,26"). Launch shapes are
// written as "(256, 1, 1)". These helpers turn such cells back into numbers exactly once, in
// one place, so both the raw and the details page readers agree.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace goblin::trace::ncu {

// Which characters a file uses for grouping and for the decimal point.
enum class NumberLocale : uint8_t { English, European };

// What one cell says about the file's locale: a cell like "62.26" or "1,056.5" can only be
// English, "62,26" or "1.056,5" only European; "13,888" or "42" say nothing.
enum class LocaleHint : uint8_t { None, English, European };
LocaleHint locale_hint(std::string_view cell);

// Number in `cell` under `loc` (grouping separators only between digit groups of three);
// nullopt when the cell is not a plain number (empty, text, "(256, 1, 1)", "inf", "nan").
std::optional<double> parse_number(std::string_view cell, NumberLocale loc);

// A whole number within [lo, hi], else nullopt (guards every double → integer conversion:
// values come from untrusted text).
std::optional<int64_t> as_integer(std::optional<double> v, int64_t lo, int64_t hi);

// "(256, 1, 1)" → {256, 1, 1}; nullopt unless it is exactly three non-negative integers that
// fit in 32 bits.
std::optional<std::array<uint32_t, 3>> parse_dim3(std::string_view cell);

}  // namespace goblin::trace::ncu
