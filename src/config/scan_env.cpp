// Env files and shell `export` lines: NAME=value, quoted or not, `#` comments.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "config/config_source.h"
#include "core/limits.h"

namespace goblin::config {

Result<SourceScan> scan_env(const std::string& text, const std::string& file) {
  SourceScan out;
  out.format = ConfigFormat::Env;
  size_t pos = 0;
  int64_t line = 0;
  size_t ignored = 0;  // lines that are not VAR=value: the first 20 are named, the rest counted
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    ++line;
    std::string l = text.substr(pos, nl - pos);
    size_t b = l.find_first_not_of(" \t");
    if (b != std::string::npos && l[b] != '#') {
      size_t s = b;
      if (l.compare(s, 7, "export ") == 0) s = l.find_first_not_of(" \t", s + 7);
      size_t eq = l.find('=', s);
      std::string name = eq == std::string::npos ? "" : l.substr(s, eq - s);
      bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      });
      if (ok) {
        size_t vb = eq + 1, ve = l.size();
        while (ve > vb && (l[ve - 1] == '\r' || l[ve - 1] == ' ')) --ve;
        std::string raw = l.substr(vb, ve - vb);
        std::string v = raw;
        if (!v.empty() && (v[0] == '"' || v[0] == '\'')) {
          size_t close = v.find(v[0], 1);
          if (close == std::string::npos)
            return make_error(ErrorKind::Malformed, "unterminated quote in value of " + name, file,
                              static_cast<int64_t>(pos + vb), line);
          ve = vb + close + 1;
          v = v.substr(1, close - 1);
        } else {
          size_t hash = v.find(" #");
          if (hash != std::string::npos) {
            v = v.substr(0, hash);
            ve = vb + hash;
          }
        }
        SourceEntry e;
        e.path = {"env", name};
        e.value = v;
        e.raw = l.substr(vb, ve - vb);
        e.begin = static_cast<int64_t>(pos + vb);
        e.end = static_cast<int64_t>(pos + ve);
        e.line = line;
        e.context = "env";
        out.entries.push_back(e);
        if (out.entries.size() > limits::kMaxConfigNodes)
          return make_error(ErrorKind::Malformed,
                            fmt::format("env file has more than {} variables (goblin's limit for a config file, "
                                        "docs/robustness.md)",
                                        limits::kMaxConfigNodes),
                            file, static_cast<int64_t>(pos), line);
      } else if (l.find("=") == std::string::npos && l.find_first_not_of(" \t\r") != std::string::npos &&
                 l.compare(b, 7, "export ") != 0 && l.compare(b, 4, "set ") != 0) {
        if (++ignored <= 20)
          out.warnings.push_back(make_warning(W::config_env_line_ignored,
                                              fmt::format("{}: line {}: not a VAR=value line; ignored", file, line)));
      }
    }
    pos = nl + 1;
  }
  if (ignored > 20)
    out.warnings.push_back(
        make_warning(W::config_env_line_ignored,
                     fmt::format("{}: {} more lines that are not VAR=value; ignored", file, ignored - 20)));

  SourceAnchor a;
  a.kind = "env_file";
  a.insert_at = static_cast<int64_t>(text.size());
  out.anchors.push_back(a);
  return out;
}

}  // namespace goblin::config
