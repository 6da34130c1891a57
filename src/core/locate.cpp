#include "core/locate.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace goblin {

namespace fs = std::filesystem;

std::string self_exe_path() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

std::vector<std::string> runtime_roots() {
  std::vector<std::string> roots;
  std::string exe = self_exe_path();
  if (exe.empty()) return roots;
  const fs::path dir = fs::path(exe).parent_path();
  std::error_code ec;
  if (fs::path share = dir.parent_path() / "share" / "goblin"; fs::is_directory(share, ec))
    roots.push_back(share.string());
  // Only a build tree has this file (CMake writes it; install never copies it): its one line is
  // the source directory, read at run time so the binary itself holds no build-tree path.
  if (std::ifstream marker(dir / "goblin-runtime-root"); marker) {
    std::string line;
    std::getline(marker, line);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && fs::is_directory(line, ec)) roots.push_back(line);
  }
  return roots;
}

std::string runtime_file(std::string_view rel) {
  std::error_code ec;
  for (const auto& root : runtime_roots())
    if (fs::path p = fs::path(root) / rel; fs::is_regular_file(p, ec)) return p.string();
  return "";
}

std::string find_tool_script(const std::string& name, const std::string& given) {
  if (!given.empty()) return given;
  std::error_code ec;
  if (const char* e = std::getenv("GOBLIN_TOOLS_DIR"); e && *e)
    if (fs::path p = fs::path(e) / name; fs::is_regular_file(p, ec)) return p.string();
  return runtime_file("tools/" + name);
}

}  // namespace goblin
