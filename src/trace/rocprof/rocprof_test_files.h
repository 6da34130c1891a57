// Test helpers: fixture paths and throw-away input files for the bad-input cases.
#pragma once
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "model/timeline.h"

namespace goblin::testing {

inline std::string fixture(const std::string& rel) { return std::string(GOBLIN_FIXTURES) + "/" + rel; }

// A fresh directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    path_ =
        std::filesystem::temp_directory_path() / fmt::format("goblin_{}_{}", tag, reinterpret_cast<uintptr_t>(this));

    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& content) const {
    auto p = path_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  std::string copy_fixture(const std::string& rel) const {
    auto to = path_ / std::filesystem::path(rel).filename();
    std::filesystem::copy_file(fixture(rel), to);
    return to.string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// Whether a warning containing `needle` was recorded (folded count in *count).
inline bool has_warning(const Timeline& tl, const std::string& needle, int64_t* count = nullptr,
                        int64_t* line = nullptr) {
  for (const auto& w : tl.warnings) {
    if (w.message.find(needle) != std::string::npos) {
      if (count) *count = w.count;
      if (line) *line = w.line;
      return true;
    }
  }
  return false;
}

}  // namespace goblin::testing
