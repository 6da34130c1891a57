// Legacy rocprof entry point: SQLite, JSON or CSV decided from the first bytes.
#include "trace/readers.h"
#include "trace/rocprof/rocprof_v1_parts.h"

namespace goblin::trace {

Status read_rocprof_v1(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto prefix = read_prefix(path, 64);
  if (!prefix) return prefix.error();
  std::string_view p = *prefix;
  if (p.empty()) return make_error(ErrorKind::Malformed, "file is empty: expected legacy rocprof output", path, 0);
  if (p.substr(0, 15) == "SQLite format 3") return rocprof::read_v1_db(path, tl);
  size_t i = 0;
  while (i < p.size() && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
  if (i < p.size() && p[i] == '{') return rocprof::read_v1_json(path, tl, opt);
  return rocprof::read_v1_csv(path, tl, opt);
}

namespace rocprof {
void note_kd_suffix_stripped(Timeline& tl, const std::string& path) {
  tl.warn(W::rocprof_kd_suffix_stripped, "kernel names: code-object suffix ' [clone .kd]' / ' (.kd)' stripped", path);
}
}  // namespace rocprof

}  // namespace goblin::trace
