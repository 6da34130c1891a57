// Test-only helpers shared by every module's tests (header-only; not part of the library).
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
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

// Runs a shell command line (the tests drive the built goblin binary this way) and returns its
// exit code (-1 when it did not exit normally) and its standard output.
struct CommandResult {
  int code = -1;
  std::string out;
};
inline CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace goblin::testing
