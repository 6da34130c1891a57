#include "app/door_text.h"

#include <fmt/format.h>

#include <cctype>
#include <utility>
#include <vector>

namespace goblin::app {

namespace {

bool flag_char(char c) {
  return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-';
}

// The CLI spellings of a field: its --name, and every long name its `cli` spec lists.
std::vector<std::string> flags_of(const Field& f) {
  std::vector<std::string> out = {cli_flag(f)};
  size_t at = 0;
  while (at < f.cli.size()) {
    size_t end = f.cli.find(',', at);
    if (end == std::string::npos) end = f.cli.size();
    const std::string s = f.cli.substr(at, end - at);
    if (s.rfind("--", 0) == 0) out.push_back(s);
    at = end + 1;
  }
  return out;
}

// Options a JSON door's caller cannot pass: the server's own, or the CLI's alone. Each says what
// the caller can do instead (the door's words; the first entry that matches wins).
struct Outside {
  std::string_view flag, mcp, other;
};
constexpr Outside kOutside[] = {
    {"--allow-live", "live runs (this server's operator allows them)", "live runs (not offered here)"},
    {"--replay", "replay recordings (this server's operator names them)", "replay recordings (not offered here)"},
    {"--root", "the server's roots", "the server's roots"},
    {"--out", "the folder this server writes into", "the folder the server writes into"},
    {"--store", "the server's run store", "the server's run store"},
    {"--json", "the structured result", "the structured result"},
    {"--no-cache", "a fresh measurement", "a fresh measurement"},
    {"--harness", "goblin's installation", "goblin's installation"},
    {"--script", "a config (the workload it names)", "a config"},
    {"--db", "the query tables of the given traces", "the query tables of the given traces"},
};

}  // namespace

std::string door_text(const Verb& v, std::string_view text, Door door) {
  if (door == kCli) return std::string(text);
  std::string s(text);
  // The CLI's pointers to its own listings.
  const std::string listing = door == kMcp ? "tools/list gives its arguments" : "its arguments are listed by the door";
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"`goblin verbs` lists its fields", listing},
                                 {"goblin verbs lists its doors", "it is a command-line verb"}})
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const bool starts = s.compare(i, 2, "--") == 0 &&
                        (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '-')) &&
                        i + 2 < s.size() && std::islower(static_cast<unsigned char>(s[i + 2]));
    if (!starts) {
      out += s[i++];
      continue;
    }
    size_t end = i + 2;
    while (end < s.size() && flag_char(s[end])) ++end;
    const std::string flag = s.substr(i, end - i);
    std::string with;
    for (const Field& f : v.request) {
      if (!(f.doors & door)) continue;
      for (const auto& x : flags_of(f))
        if (x == flag) with = "`" + f.name + "`";
      if (!with.empty()) break;
    }
    if (with.empty())
      for (const auto& o : kOutside)
        if (o.flag == flag) with = std::string(door == kMcp ? o.mcp : o.other);
    if (with.empty()) {
      // Not a flag of this verb or a known option (the name of another program's flag, such as
      // `ncu --csv`): kept as written.
      out += flag;
      i = end;
      continue;
    }
    // "--gpu ID", "--bench FILE": the metavariable goes with the flag.
    size_t next = end;
    if (next + 2 < s.size() && s[next] == ' ' && std::isupper(static_cast<unsigned char>(s[next + 1])) &&
        std::isupper(static_cast<unsigned char>(s[next + 2]))) {
      size_t m = next + 1;
      while (m < s.size() && (std::isupper(static_cast<unsigned char>(s[m])) || s[m] == '_')) ++m;
      if (m == s.size() || !std::isalnum(static_cast<unsigned char>(s[m]))) next = m;
    }
    out += with;
    i = next;
  }
  return out;
}

}  // namespace goblin::app
