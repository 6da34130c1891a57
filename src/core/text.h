// Small ASCII text helpers shared by readers and analyses (no locale: profiler output and
// rule data are ASCII where these are used).
#pragma once
#include <string>
#include <string_view>

namespace goblin {

// `s` with A-Z turned into a-z; every other byte as it is.
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

}  // namespace goblin
