// Test-only helpers shared by every module's tests (header-only; not part of the library).
#pragma once
#include <fmt/format.h>
#include <sqlite3.h>
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
      path = std::filesystem::temp_directory_path() / fmt::format("goblin_test_{}", ::getpid());
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

// Runs `sql` on the SQLite database at `path` (created when missing): "" when it succeeded, else
// SQLite's message (tests build and doctor databases with it: EXPECT_EQ(exec_sql(p, sql), "")).
inline std::string exec_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "cannot open";
    sqlite3_close(db);
    return why;
  }
  char* err = nullptr;
  std::string why;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) why = err ? err : "sqlite3_exec failed";
  sqlite3_free(err);
  sqlite3_close(db);
  return why;
}

}  // namespace goblin::testing
