// Safety for file arguments at the doors that act for someone else (the MCP server for a model,
// the HTTP API for a web caller): every path a call is given must resolve — after symlinks —
// inside one of the server's --root directories. Results show paths relative to their root and
// pass through the config redactor (tokens, home paths, bucket URIs) before they leave the process.
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"

namespace goblin::app {

struct Verb;

class Roots {
 public:
  // Canonicalises each directory (must exist). Empty list: the working directory.
  static Result<Roots> make(const std::vector<std::string>& dirs);
  // The real path of `arg` (absolute, or relative to each root in turn) when it exists and lies
  // inside a root; otherwise a Usage error naming the argument and the roots.
  Result<std::string> resolve(const std::string& arg, const std::string& what) const;
  // `abs` relative to the root holding it (unchanged when none does).
  std::string display(const std::string& abs) const;
  const std::vector<std::string>& dirs() const { return dirs_; }

 private:
  std::vector<std::string> dirs_;  // canonical, no trailing slash
};

// Every string in `j` (keys kept): root prefixes made relative, then secrets redacted.
void scrub(Json& j, const Roots& roots);
std::string scrub_text(const std::string& s, const Roots& roots);

// A verb's path arguments resolved inside `roots` (a JSON document given inline is left alone). A
// workspace argument (FieldKind::WorkDir) must lie under `work_root`, the one place the server
// writes, given relative to it or as a path inside the roots.
Result<Json> confine_path_args(const Verb& v, const Json& args, const Roots& roots, const std::string& work_root);

}  // namespace goblin::app
