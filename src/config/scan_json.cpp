// JSON scanner: a hand-written walk over the text (after a strict parse has validated it) so each
// value keeps its byte span and each object is an insertion anchor.
#include <fmt/format.h>

#include <cctype>

#include "config/config_source.h"
#include "core/limits.h"

namespace goblin::config {

namespace {

struct JsonScanner {
  const std::string& text;
  SourceScan& out;
  LineIndex lines{text};
  size_t i = 0;
  size_t nodes = 0;  // values walked; past limits::kMaxConfigNodes the scan stops

  void ws() {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  }
  std::string string_lit() {  // at '"'; returns decoded
    size_t b = i++;
    while (i < text.size() && text[i] != '"') {
      if (text[i] == '\\') ++i;
      ++i;
    }
    ++i;
    try {
      return Json::parse(text.substr(b, i - b)).get<std::string>();
    } catch (...) {
      return text.substr(b + 1, i - b - 2);
    }
  }
  int64_t line_of(int64_t off) const { return lines.line(off); }
  int indent_of(size_t off) {
    const auto ls = static_cast<size_t>(lines.starts()[lines.line(static_cast<int64_t>(off)) - 1]);
    int n = 0;
    while (ls + n < text.size() && text[ls + n] == ' ') ++n;
    return n;
  }
  // The walk recurses once per nesting level: scan_json refuses documents nested deeper than
  // limits::kMaxConfigDepth before it starts.
  void value(std::vector<std::string>& path) {
    ws();
    if (i >= text.size() || ++nodes > limits::kMaxConfigNodes) return;
    char c = text[i];
    if (c == '{') {
      SourceAnchor a;
      a.kind = "json_object";
      a.path = path;
      a.insert_at = static_cast<int64_t>(i + 1);
      a.line = line_of(static_cast<int64_t>(i));
      ++i;
      ws();
      a.empty = i < text.size() && text[i] == '}';
      a.indent = indent_of(i) > indent_of(a.insert_at - 1) ? indent_of(i) : indent_of(a.insert_at - 1) + 2;
      if (a.line == line_of(static_cast<int64_t>(i))) a.indent = indent_of(a.insert_at - 1) + 2;
      out.anchors.push_back(a);
      while (i < text.size() && text[i] != '}' && nodes <= limits::kMaxConfigNodes) {
        ws();
        if (i >= text.size() || text[i] != '"') return;
        std::string key = string_lit();
        ws();
        if (i < text.size() && text[i] == ':') ++i;
        path.push_back(key);
        value(path);
        path.pop_back();
        ws();
        if (i < text.size() && text[i] == ',') ++i;
        ws();
      }
      ++i;
    } else if (c == '[') {
      ++i;
      int idx = 0;
      ws();
      while (i < text.size() && text[i] != ']' && nodes <= limits::kMaxConfigNodes) {
        path.push_back(fmt::format("{}", idx++));
        value(path);
        path.pop_back();
        ws();
        if (i < text.size() && text[i] == ',') ++i;
        ws();
      }
      ++i;
    } else {
      size_t b = i;
      Json v;
      if (c == '"') {
        v = string_lit();
      } else {
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i])) && text[i] != ',' &&
               text[i] != '}' && text[i] != ']')
          ++i;
        try {
          v = Json::parse(text.substr(b, i - b));
        } catch (...) {
        }
      }
      if (path.empty()) return;
      SourceEntry e;
      e.path = path;
      e.value = v;
      e.begin = static_cast<int64_t>(b);
      e.end = static_cast<int64_t>(i);
      e.raw = text.substr(b, i - b);
      e.line = line_of(e.begin);
      e.context = "json";
      out.entries.push_back(std::move(e));
    }
  }
};

}  // namespace

Result<SourceScan> scan_json(const std::string& text, const std::string& file) {
  SourceScan out;
  out.format = ConfigFormat::Json;
  ASSIGN_OR_RETURN(auto parsed_or, parse_json_text(text, file, "JSON", limits::kMaxConfigDepth));
  const Json& parsed = parsed_or;
  if (!parsed.is_object()) return make_error(ErrorKind::Malformed, "expected a JSON object of config keys", file, 0, 1);
  JsonScanner s{text, out};
  std::vector<std::string> path;
  s.value(path);
  if (s.nodes > limits::kMaxConfigNodes)
    return make_error(ErrorKind::Malformed,
                      fmt::format("config has more than {} values (goblin's limit for a config file, "
                                  "docs/robustness.md)",
                                  limits::kMaxConfigNodes),

                      file, static_cast<int64_t>(s.i), s.line_of(static_cast<int64_t>(s.i)));
  return out;
}

}  // namespace goblin::config
