#include "core/script_text.h"

#include <fmt/format.h>

#include <cctype>

#include "core/escape.h"
#include "core/text.h"

namespace goblin {
namespace {

// A C1 control (U+0080..U+009F) starts at byte i: in UTF-8, 0xC2 followed by 0x80..0x9F.
bool c1_control_at(std::string_view s, size_t i) {
  return static_cast<unsigned char>(s[i]) == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
         static_cast<unsigned char>(s[i + 1]) <= 0x9F;
}

}  // namespace

std::string sh_word(std::string_view s) {
  bool plain = !s.empty();
  for (char c : s)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) ||
                      std::string_view("/._-+:=@%,").find(c) != std::string_view::npos);
  if (plain) return std::string(s);
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

std::string yaml_scalar(std::string_view s) {
  std::string q = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c == '\n') {
      q += "\\n";
    } else if (c == '\t') {
      q += "\\t";
    } else if (c == '\r') {
      q += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      fmt::format_to(std::back_inserter(q), "\\x{:02x}", c);
    } else if (c1_control_at(s, i)) {
      // A C1 control (U+0080..U+009F): YAML does not allow it raw in a stream.
      fmt::format_to(std::back_inserter(q), "\\u{:04x}", static_cast<unsigned char>(s[i + 1]));
      ++i;
    } else {
      q += static_cast<char>(c);
    }
  }
  return q + "\"";
}

namespace {

// The first control character of `s` (C0 incl. newline and tab, DEL, C1 in UTF-8), or npos.
size_t first_control(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return i;
    if (c1_control_at(s, i)) return i;
  }
  return std::string_view::npos;
}

}  // namespace

Status script_line(std::string_view what, std::string_view s) {
  if (const size_t at = first_control(s); at != std::string_view::npos)
    return make_error(ErrorKind::Usage,
                      fmt::format("the {} holds a control character (byte 0x{:02x} at offset {}), which a generated "
                                  "script or list cannot hold as one line: rename it",
                                  what, static_cast<unsigned char>(s[at]), at),
                      plain_text(s, 512));
  if (first_invalid_utf8(s))
    return make_error(ErrorKind::Usage,
                      fmt::format("the {} is not valid UTF-8, which a generated manifest cannot hold: rename it", what),
                      plain_text(s, 512));
  return Status::Ok();
}

Status sbatch_value(std::string_view what, std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' || c == '\\' || c == '#' || c == '%' || c == '`' || c == '$')
      return make_error(ErrorKind::Usage,
                        fmt::format("the {} cannot be written in an #SBATCH directive: byte 0x{:02x} at offset {} "
                                    "(only printable ASCII without spaces, quotes, backslash, '#', '%', '$' or '`')",
                                    what, c, i),
                        plain_text(s, 512));
  }
  return Status::Ok();
}

}  // namespace goblin
