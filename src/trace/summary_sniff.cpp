#include "trace/summary_sniff.h"

namespace goblin::trace {

namespace {
std::string_view skip_ws(std::string_view p) {
  size_t i = p.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // UTF-8 BOM
  while (i < p.size() && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
  return p.substr(i);
}
}  // namespace

bool sniff_rank_summary(std::string_view p) {
  auto s = skip_ws(p);
  if (s.empty() || s[0] != '{') return false;
  return skip_ws(s.substr(1)).starts_with("\"goblin_rank_summary\"");
}

bool sniff_group_summary(std::string_view p) {
  auto s = skip_ws(p);
  if (s.empty() || s[0] != '{') return false;
  return skip_ws(s.substr(1)).starts_with("\"goblin_group_summary\"");
}

}  // namespace goblin::trace
