#include "core/escape.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace goblin {

namespace {

size_t longest_backtick_run(std::string_view s) {
  size_t best = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

std::string_view cut(std::string_view s, size_t max_bytes, bool& was_cut) {
  was_cut = max_bytes > 0 && s.size() > max_bytes;
  if (!was_cut) return s;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // not inside a character
  return s.substr(0, n);
}

}  // namespace

std::string md_text(std::string_view raw, size_t max_bytes) {
  bool was_cut = false;
  const std::string_view s = cut(raw, max_bytes, was_cut);
  std::string out;
  out.reserve(s.size() + 16);
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c == '|' || c == '\\' || c == '`' || c == '*' || c == '[' || c == ']' || c == '~') {
      // What can start emphasis, code, a link or an image, a strike-through, an escape, or end a
      // table cell. With `[` and `]` escaped, `(`, `)` and `!` cannot form a link or an image, so
      // they stay as they are and the text stays readable.
      out += '\\';
      out += c;
    } else if (c == '_') {
      // Inside a word (precision_path) it is not emphasis in CommonMark; at an edge it may be.
      const bool inside = i > 0 && i + 1 < s.size() && word(s[i - 1]) && word(s[i + 1]);
      out += inside ? "_" : "\\_";
    } else if (c == '#' && i == 0) {
      out += "\\#";  // a heading only where a line starts
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      // A control character (ESC of an escape sequence): shown, never sent to a terminal or
      // renderer raw. Backslash-x is literal text in Markdown.
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  if (was_cut) out += "...";
  return to_valid_utf8(out);
}

std::string plain_text(std::string_view raw, size_t max_bytes) {
  bool was_cut = false;
  const std::string s = to_valid_utf8(cut(raw, max_bytes, was_cut));
  std::string out;
  out.reserve(s.size() + 3);
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      out += '?';
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9F) {
      out += '?';  // a C1 control (U+0080..U+009F), two bytes in UTF-8
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (was_cut) out += "...";
  return out;
}

std::string terminal_text(std::string_view raw) {
  // The common case (no control character, valid UTF-8) is returned as it is.
  bool clean = true;
  for (size_t i = 0; i < raw.size() && clean; ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    clean = !((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c == 0xC2);
  }
  if (clean && !first_invalid_utf8(raw)) return std::string(raw);
  const std::string s = to_valid_utf8(raw);
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || c == '\t') {
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", c);
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9F) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned char>(s[i + 1]));
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string csv_text(std::string_view s) {
  if (!s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos) return "'" + std::string(s);
  return std::string(s);
}

std::string md_code(std::string_view s) {
  std::string body(s);
  for (char& c : body)
    if (c == '\n' || c == '\r') c = ' ';
  const std::string fence(longest_backtick_run(body) + 1, '`');
  // A span that starts or ends with a backtick needs a space between it and the fence.
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return to_valid_utf8(fence + (pad ? " " : "") + body + (pad ? " " : "") + fence);
}

std::string md_fence(std::string_view body, std::string_view lang) {
  const std::string fence(std::max<size_t>(3, longest_backtick_run(body) + 1), '`');
  std::string out = fence + std::string(lang) + "\n" + std::string(body);
  if (!out.empty() && out.back() != '\n') out += '\n';
  return to_valid_utf8(out + fence + "\n");
}

bool is_web_link(std::string_view url) {
  const std::string lower = ascii_lower(std::string(url.substr(0, 8)));
  if (lower.rfind("https://", 0) != 0 && lower.rfind("http://", 0) != 0) return false;
  // No whitespace, quotes, angle brackets or parentheses: nothing that ends the link early or
  // opens an attribute.
  return std::none_of(url.begin(), url.end(), [](char c) {
    return static_cast<unsigned char>(c) <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '(' ||
           c == ')' || c == '\\' || c == '`';
  });
}

std::string md_link(std::string_view label, std::string_view url) {
  if (!is_web_link(url)) return md_text(url.empty() ? label : url);
  return "[" + md_text(label) + "](" + std::string(url) + ")";
}

std::string html_text(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return to_valid_utf8(out);
}

std::string html_link(std::string_view label, std::string_view url) {
  if (!is_web_link(url)) return html_text(url.empty() ? label : url);
  return "<a href=\"" + html_text(url) + "\" rel=\"noopener noreferrer\">" + html_text(label) + "</a>";
}

}  // namespace goblin
