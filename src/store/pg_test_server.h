// A real PostgreSQL server for the store's tests and benchmark (docs/store.md § Tests): initdb into
// a temporary directory, pg_ctl start listening on a Unix socket in that directory only (no TCP),
// stopped and removed at exit. initdb refuses root, so as root the server runs as the `postgres`
// user (Debian's package creates it) through runuser. Header-only: used by store_tests and
// bench_store, never by goblin itself.
#pragma once
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/io.h"

namespace goblin::store::testing {

class PgTestServer {
 public:
  // The server's bin directory, or "" when PostgreSQL's server binaries are not installed.
  static std::string bin_dir() {
    for (const char* v : {"17", "16", "15", "14", "13"}) {
      const std::string d = fmt::format("/usr/lib/postgresql/{}/bin", v);
      if (std::filesystem::exists(d + "/initdb") && std::filesystem::exists(d + "/pg_ctl")) return d;
    }
    return "";
  }

  // Starts the server (once per process); "" and `why` set when it could not.
  static PgTestServer& get() {
    static PgTestServer s;
    return s;
  }
  bool ok() const { return ok_; }
  const std::string& why() const { return why_; }
  // A URL of a fresh database on the server.
  std::string fresh_database_url() {
    const std::string db = fmt::format("goblin_t{}_{}", getpid(), ++n_);
    run(fmt::format("{}/createdb -h {} -U goblin {}", bin_, sock_, db));
    return url(db);
  }
  std::string url(const std::string& db) const {
    return fmt::format("postgresql:///{}?host={}&user=goblin", db, sock_);
  }

  // Ends a server session (a backend's process id), as a server restart or an administrator's
  // pg_terminate_backend would: the client's connection is broken from then on.
  bool terminate_backend(const std::string& pid) {
    return run(fmt::format("{}/psql -q -h {} -U goblin -d postgres -c \"SELECT pg_terminate_backend({})\" >/dev/null",
                           bin_, sock_, std::stoll(pid))) == 0;
  }

  ~PgTestServer() {
    if (!dir_.empty()) {
      if (ok_) run(fmt::format("{}/pg_ctl -D {}/data -m immediate -w stop >/dev/null 2>&1", bin_, dir_), true);
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

 private:
  PgTestServer() {
    bin_ = bin_dir();
    if (bin_.empty()) {
      why_ =
          "PostgreSQL server binaries not installed (/usr/lib/postgresql/*/bin/initdb; scripts/bootstrap installs "
          "them)";
      return;
    }
    char tmpl[] = "/tmp/goblin_pg_XXXXXX";
    if (!mkdtemp(tmpl)) {
      why_ = "cannot make a temporary directory";
      return;
    }
    dir_ = tmpl;
    sock_ = dir_ + "/sock";
    std::filesystem::create_directories(sock_);
    as_root_ = geteuid() == 0;
    if (as_root_ && run(fmt::format("chown -R postgres {}", dir_), false) != 0) {
      why_ = "running as root and cannot hand the directory to user postgres";
      return;
    }
    if (run(fmt::format("{}/initdb -D {}/data -U goblin -A trust --no-sync >{}/initdb.log 2>&1", bin_, dir_, dir_)) !=
        0) {
      why_ = fmt::format("initdb failed (see {}/initdb.log)", dir_);
      return;
    }
    {
      // A Unix socket in our directory only (no TCP); fsync off: a test server's data is thrown away.
      const std::string conf = dir_ + "/data/postgresql.conf";
      auto text = read_all(conf);
      if (!text || !write_file(conf, *text + fmt::format("listen_addresses = ''\nunix_socket_directories = '{}'\n"
                                                         "fsync = off\n",
                                                         sock_))
                        .ok()) {
        why_ = "cannot write postgresql.conf";
        return;
      }
      if (as_root_) run(fmt::format("chown postgres {}", conf), false);
    }
    if (run(fmt::format("{}/pg_ctl -D {}/data -w -l {}/server.log start >/dev/null 2>&1", bin_, dir_, dir_)) != 0) {
      why_ = fmt::format("pg_ctl start failed (see {}/server.log)", dir_);
      return;
    }
    ok_ = true;
  }
  int run(const std::string& cmd, bool as_server = true) const {
    const std::string full = as_root_ && as_server ? "runuser -u postgres -- sh -c '" + cmd + "'" : cmd;
    return std::system(full.c_str());
  }

  std::string bin_, dir_, sock_, why_;
  bool ok_ = false, as_root_ = false;
  int n_ = 0;
};

}  // namespace goblin::store::testing
