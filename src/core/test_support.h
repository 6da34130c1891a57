// Test-only helpers shared by every module's tests (header-only; not part of the library).
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace goblin::testing {

// A fresh, empty directory private to this test process: ctest runs tests of one binary in
// parallel processes, and CI may run two checkouts at once, so a fixed /tmp name races.
// Removed again when the process exits normally.
inline std::filesystem::path private_tmp_dir(const std::string& name) {
  struct Root {
    std::filesystem::path path;
    Root() {
      path = std::filesystem::temp_directory_path() / ("goblin_test_" + std::to_string(::getpid()));
      std::filesystem::remove_all(path);
      std::filesystem::create_directories(path);
    }
    ~Root() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static Root root;
  auto d = root.path / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace goblin::testing
