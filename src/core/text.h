// Small ASCII text helpers shared by readers and analyses (no locale: profiler output and
// rule data are ASCII where these are used).
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace goblin {

// `s` with A-Z turned into a-z; every other byte as it is.
// Numbers as text for reports and messages: fixed decimals ("%.*f") and significant digits
// ("%.*g"). One pair for every module instead of a local helper in each.
inline std::string format_fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }
inline std::string format_sig(double v, int digits) { return fmt::format("{:.{}g}", v, digits); }

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// `s` without leading spaces/tabs and trailing spaces/tabs/CRs (a CSV cell, a line of a CRLF
// file).
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Byte offset of the first byte that is not well-formed UTF-8 (overlong forms, surrogates and
// code points past U+10FFFF included), or nullopt when all of `s` is valid. User files that
// reach JSON output must be valid UTF-8, so parsers check this up front and name the spot.
inline std::optional<size_t> first_invalid_utf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4, cp = c & 0x07;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return i;
    i += len;
  }
  return std::nullopt;
}

// `s` with every byte that does not start well-formed UTF-8 replaced by U+FFFD (one per byte, as
// the WHATWG decoder does), so any text can reach JSON output; valid text is returned unchanged.
inline std::string to_valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  while (!s.empty()) {
    const auto bad = first_invalid_utf8(s);
    if (!bad) {
      out.append(s);
      break;
    }
    out.append(s.substr(0, *bad));
    out.append("\xEF\xBF\xBD");
    s.remove_prefix(*bad + 1);
  }
  return out;
}

}  // namespace goblin
