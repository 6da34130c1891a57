// Safety for file arguments: the server acts for a model on the user's machine, so every path a
// tool is given must resolve — after symlinks — inside one of the --root directories. Results
// show paths relative to their root and pass through the config redactor (tokens, home paths,
// bucket URIs) before they leave the process.
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"

namespace goblin::mcp {

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

}  // namespace goblin::mcp
