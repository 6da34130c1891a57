#include "core/dir_walk.h"

#include <algorithm>

namespace goblin {

std::vector<std::filesystem::path> regular_files_under(const std::filesystem::path& dir, int max_depth) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it.depth() > max_depth) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace goblin
