#include "core/data.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/io.h"

namespace goblin {

namespace {
std::string& override_dir() {
  static std::string dir = [] {
    const char* e = std::getenv("GOBLIN_DATA_DIR");
    return std::string(e ? e : "");
  }();
  return dir;
}
}  // namespace

void set_data_dir(std::string dir) { override_dir() = std::move(dir); }

const std::string& data_dir_override() { return override_dir(); }

Result<std::string> load_data_file(std::string_view rel) {
  if (!override_dir().empty()) {
    std::filesystem::path p = std::filesystem::path(override_dir()) / std::string(rel);
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return read_all(p.string());
  }
  for (const auto* f = data_detail::kFiles; f->path; ++f) {
    if (rel == f->path) return std::string(f->content);
  }
  return make_error(ErrorKind::NotFound, "no data file data/" + std::string(rel));
}

std::vector<std::string> list_data_files(std::string_view prefix) {
  std::set<std::string> out;
  for (const auto* f = data_detail::kFiles; f->path; ++f) {
    std::string_view p(f->path);
    if (p.substr(0, prefix.size()) == prefix) out.emplace(p);
  }
  if (!override_dir().empty()) {
    std::error_code ec;
    std::filesystem::path root(override_dir());
    for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      std::string rel = std::filesystem::relative(it->path(), root).string();
      if (std::string_view(rel).substr(0, prefix.size()) == prefix) out.insert(rel);
    }
  }
  return {out.begin(), out.end()};
}

std::string data_file_origin(std::string_view rel) {
  if (!override_dir().empty()) {
    std::filesystem::path p = std::filesystem::path(override_dir()) / std::string(rel);
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
  }
  return "embedded:data/" + std::string(rel);
}

}  // namespace goblin
