#include "core/locate.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace goblin {

namespace fs = std::filesystem;

std::string self_exe_path() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

std::string find_tool_script(const std::string& name, const std::string& given, const std::string& source_dir) {
  if (!given.empty()) return given;
  std::vector<fs::path> cands;
  if (const char* e = std::getenv("GOBLIN_TOOLS_DIR")) cands.push_back(fs::path(e) / name);
  if (std::string exe = self_exe_path(); !exe.empty()) {
    fs::path dir = fs::path(exe).parent_path();
    cands.push_back(dir / "tools" / name);
    cands.push_back(dir.parent_path() / "tools" / name);
    cands.push_back(dir.parent_path() / "share" / "goblin" / "tools" / name);
  }
  if (!source_dir.empty()) cands.push_back(fs::path(source_dir) / "tools" / name);
  std::error_code ec;
  for (const auto& c : cands)
    if (fs::is_regular_file(c, ec)) return c.string();
  return "";
}

}  // namespace goblin
