// YAML scanner: yaml-cpp parses, marks give each scalar its byte span so a patch can edit it.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string_view>

#include "config/config_source.h"
#include "core/limits.h"
#include "core/text.h"

namespace goblin::config {

namespace {

std::vector<int64_t> line_starts(const std::string& text) {
  std::vector<int64_t> s{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') s.push_back(static_cast<int64_t>(i + 1));
  return s;
}

int64_t line_end(const std::string& text, int64_t off) {
  size_t e = text.find('\n', static_cast<size_t>(off));
  return e == std::string::npos ? static_cast<int64_t>(text.size()) : static_cast<int64_t>(e);
}

// End of a YAML scalar that starts at `b`: matching quote, else up to " #" or end of line.
int64_t yaml_scalar_end(const std::string& text, int64_t b) {
  int64_t le = line_end(text, b);
  if (b < le && (text[b] == '"' || text[b] == '\'')) {
    char q = text[b];
    for (int64_t i = b + 1; i < le; ++i) {
      if (q == '"' && text[i] == '\\') {
        ++i;
        continue;
      }
      if (text[i] == q) {
        if (q == '\'' && i + 1 < le && text[i + 1] == '\'') {
          ++i;
          continue;
        }
        return i + 1;
      }
    }
    return le;
  }
  int64_t e = le;
  for (int64_t i = b; i < le; ++i)
    if (text[i] == '#' && i > b && (text[i - 1] == ' ' || text[i - 1] == '\t')) {
      e = i;
      break;
    }
  while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\r')) --e;
  return e;
}

Json yaml_scalar_value(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted: a string
  std::string l = ascii_lower(s);
  if (l == "true" || l == "yes" || l == "on") return true;
  if (l == "false" || l == "no" || l == "off") return false;
  if (l == "null" || l == "~" || l.empty()) return nullptr;
  try {
    size_t pos = 0;
    long long v = std::stoll(s, &pos);
    if (pos == s.size()) return static_cast<int64_t>(v);
  } catch (...) {
  }
  try {
    size_t pos = 0;
    double v = std::stod(s, &pos);
    if (pos == s.size()) return v;
  } catch (...) {
  }
  return s;
}

// Where the first YAML document ends: at the line of the next `---` (a new document) or `...`
// (end of document) marker after its content, else at the end of the text. A marker at column 0
// always ends a document, even inside a block scalar (YAML 1.2, 9.1.2). `more` is set when
// another document with content follows.
int64_t first_document_end(const std::string& text, bool* more) {
  *more = false;
  bool content = false;  // the first document has begun (its `---` or its first node)
  int64_t end = static_cast<int64_t>(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    const size_t le = nl == std::string::npos ? text.size() : nl;
    const std::string_view line(text.data() + pos, le - pos);
    auto marker = [&](std::string_view m) {
      return line.substr(0, 3) == m && (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
    };
    const size_t first = line.find_first_not_of(" \t\r");
    const bool blank = first == std::string_view::npos || line[first] == '#';
    if (marker("---")) {
      if (content) {
        end = static_cast<int64_t>(pos);
        break;
      }
      content = true;
    } else if (marker("...")) {
      if (content) {
        end = static_cast<int64_t>(pos);
        break;
      }
    } else if (!blank && !(line[0] == '%' && !content)) {
      content = true;
    }
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  // Anything but blanks, comments and markers after the end is another document.
  size_t pos2 = static_cast<size_t>(end);
  while (pos2 < text.size() && !*more) {
    size_t nl = text.find('\n', pos2);
    const size_t le = nl == std::string::npos ? text.size() : nl;
    const std::string_view line(text.data() + pos2, le - pos2);
    const size_t first = line.find_first_not_of(" \t\r");
    const bool marker_only = line.substr(0, 3) == "---" || line.substr(0, 3) == "...";
    if (first != std::string_view::npos && line[first] != '#' && line[0] != '%' &&
        !(marker_only && line.find_first_not_of(" \t\r", 3) == std::string_view::npos))
      *more = true;
    if (nl == std::string::npos) break;
    pos2 = nl + 1;
  }
  return end;
}

struct YamlScanner {
  const std::string& text;
  std::vector<int64_t> starts;
  SourceScan& out;
  // Nodes walked, aliases expanded: a "billion laughs" document stops at limits::kMaxConfigNodes.
  size_t nodes = 0;
  bool too_many = false, too_deep = false;
  int64_t stop_line = -1;

  int64_t offset(const YAML::Mark& m) const {
    if (m.line < 0 || static_cast<size_t>(m.line) >= starts.size()) return -1;
    return starts[m.line] + m.column;
  }

  // Returns the last line (1-based) covered by the node.
  int64_t walk(const YAML::Node& n, std::vector<std::string>& path) {
    int64_t last = n.Mark().line + 1;
    if (too_many || too_deep) return last;
    if (++nodes > limits::kMaxConfigNodes) {
      too_many = true;
      stop_line = last;
      return last;
    }
    if (path.size() > static_cast<size_t>(limits::kMaxConfigDepth)) {
      too_deep = true;
      stop_line = last;
      return last;
    }
    if (n.IsMap()) {
      SourceAnchor a;
      a.kind = "yaml_block";
      a.path = path;
      int64_t off = offset(n.Mark());
      a.flow = off >= 0 && off < static_cast<int64_t>(text.size()) && text[off] == '{';
      a.indent = -1;
      for (auto it = n.begin(); it != n.end(); ++it) {
        std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
        if (a.indent < 0) a.indent = it->first.Mark().column;
        path.push_back(key);
        last = std::max(last, static_cast<int64_t>(it->first.Mark().line + 1));
        last = std::max(last, walk(it->second, path));
        path.pop_back();
      }
      if (a.indent < 0) a.indent = static_cast<int>(path.size()) * 2;
      a.line = last;
      a.insert_at = last - 1 < static_cast<int64_t>(starts.size()) ? line_end(text, starts[last - 1]) : text.size();
      out.anchors.push_back(a);
    } else if (n.IsSequence()) {
      int i = 0;
      for (auto it = n.begin(); it != n.end(); ++it, ++i) {
        path.push_back(fmt::format("{}", i));
        last = std::max(last, walk(*it, path));
        path.pop_back();
      }
    } else if (n.IsScalar() || n.IsNull()) {
      if (path.empty()) return last;
      SourceEntry e;
      e.path = path;
      e.value = n.IsNull() ? Json() : yaml_scalar_value(n);
      e.begin = offset(n.Mark());
      e.line = n.Mark().line + 1;
      if (e.begin >= 0 && n.IsScalar()) {
        char c0 = e.begin < static_cast<int64_t>(text.size()) ? text[e.begin] : '\n';
        if (c0 == '|' || c0 == '>') {  // block scalar: not editable in place
          e.end = e.begin;
          e.literal = true;
        } else {
          e.end = yaml_scalar_end(text, e.begin);
        }
      } else if (e.begin >= 0) {
        e.end = e.begin;
      }
      e.raw = e.begin >= 0 && e.end >= e.begin ? text.substr(e.begin, e.end - e.begin) : n.Scalar();
      e.context = "yaml";
      out.entries.push_back(std::move(e));
    }
    return last;
  }
};

}  // namespace

Result<SourceScan> scan_yaml(const std::string& text, const std::string& file) {
  SourceScan out;
  out.format = ConfigFormat::Yaml;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, "YAML: " + e.msg, file, -1, e.mark.line >= 0 ? e.mark.line + 1 : -1);
  }
  // The root block inserts at the end of the document that was read: with several documents
  // (`---`), yaml-cpp reads the first, so a new key goes before the second.
  bool more = false;
  const int64_t doc_end = first_document_end(text, &more);
  if (more)
    out.warnings.push_back(make_warning(W::config_several_yaml_documents,
                                        file + ": holds more than one YAML document (---); only the first is read, and "
                                               "a patch edits only the first"));
  if (root.IsNull()) {
    SourceAnchor a;
    a.kind = "yaml_block";
    a.insert_at = doc_end;
    a.line = 1;
    out.anchors.push_back(a);
    return out;
  }
  if (!root.IsMap())
    return make_error(ErrorKind::Malformed, "expected a mapping of config keys at the top level", file, -1,
                      root.Mark().line + 1);
  YamlScanner s{text, line_starts(text), out};
  std::vector<std::string> path;
  s.walk(root, path);
  if (s.too_many)
    return make_error(ErrorKind::Malformed,
                      fmt::format("YAML expands to more than {} nodes once its aliases (*name) are followed; "
                                  "goblin's limit for a config file (docs/robustness.md) — an alias bomb?",
                                  limits::kMaxConfigNodes),
                      file, -1, s.stop_line);
  if (s.too_deep)
    return make_error(ErrorKind::Malformed,
                      fmt::format("YAML nested deeper than {} levels (goblin's limit for a config file, "
                                  "docs/robustness.md)",
                                  limits::kMaxConfigDepth),

                      file, -1, s.stop_line);
  for (auto& a : out.anchors)
    if (a.path.empty()) {
      a.insert_at = doc_end;
      a.indent = 0;
    }
  return out;
}

}  // namespace goblin::config
