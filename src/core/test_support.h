// Test-only helpers shared by every module's tests (header-only; not part of the library).
#pragma once
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/json.h"

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

// Walks `j` and checks every element of every warnings-like array (a key "warnings" or one ending
// in "_warnings", at any depth) against `catalogue`, the list `goblin --list-warnings --json` prints
// (its result.warnings): each must be an object whose "id" the catalogue lists, with the
// catalogue's severity and a string message (the one shape of model/warning_json.h). Walking
// generically means a new verb or a new key is covered without naming it. Returns the problems;
// `checked` counts the elements seen.
inline std::vector<std::string> uncatalogued_warnings(const Json& j, const Json& catalogue, size_t& checked,
                                                      const std::string& at = "$") {
  std::vector<std::string> bad;
  auto check = [&](const Json& w, const std::string& where) {
    ++checked;
    if (!w.is_object() || !w.contains("id") || !w["id"].is_string() || !w.contains("message") ||
        !w["message"].is_string()) {
      bad.push_back(fmt::format("{}: not a warning object {{id, severity, message}}: {}", where, w.dump()));
      return;
    }
    for (const Json& c : catalogue)
      if (c["id"] == w["id"]) {
        if (!w.contains("severity") || w["severity"] != c["severity"])
          bad.push_back(fmt::format("{}: severity {} is not the catalogue's {}", where,
                                    w.value("severity", Json()).dump(), c["severity"].dump()));
        return;
      }
    bad.push_back(fmt::format("{}: id {} is not in goblin --list-warnings", where, w["id"].dump()));
  };
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string where = fmt::format("{}.{}", at, it.key());
      const bool listy = it.key() == "warnings" || it.key().ends_with("_warnings");
      if (listy && it.value().is_array()) {
        for (size_t i = 0; i < it.value().size(); ++i) check(it.value()[i], fmt::format("{}[{}]", where, i));
        continue;
      }
      for (auto& b : uncatalogued_warnings(it.value(), catalogue, checked, where)) bad.push_back(std::move(b));
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      for (auto& b : uncatalogued_warnings(j[i], catalogue, checked, fmt::format("{}[{}]", at, i)))
        bad.push_back(std::move(b));
  }
  return bad;
}

}  // namespace goblin::testing
