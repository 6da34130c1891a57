// Where goblin may read and write when a front door serves a caller it does not trust (the MCP
// server; the HTTP API next). The CLI sets nothing: every path is its user's own.
//
// Checking only the path a caller names is not enough: a directory inside a root may hold a
// symlink to a file outside it, which a reader then opens while walking the directory. So the
// check sits where files are opened, not where arguments are parsed: every read goblin does goes
// through open_for_read, every write through AtomicFile, and with roots set both resolve the path
// with openat2(RESOLVE_BENEATH) against the root that contains it. A symlink anywhere along the
// path that leaves the root fails there, whatever depth it is at, and a FIFO, socket or device is
// refused without blocking on it (it is opened non-blocking and checked before any read).
#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin {

struct Confinement {
  std::vector<std::string> read_roots;   // absolute, canonical directories
  std::vector<std::string> write_roots;  // ditto; empty with read_roots set: nothing may be written
  bool active() const { return !read_roots.empty() || !write_roots.empty(); }
};

// Sets the process's confinement for as long as the scope lives (a door sets it once, for its
// whole life; tests nest scopes). Roots are made canonical here.
class ConfinementScope {
 public:
  explicit ConfinementScope(Confinement c);
  ~ConfinementScope();
  ConfinementScope(const ConfinementScope&) = delete;
  ConfinementScope& operator=(const ConfinementScope&) = delete;

 private:
  Confinement previous_;
};

const Confinement& current_confinement();

// Whether the absolute, normalised `path` is `root` or lies below it ("/" holds everything).
bool path_beneath(const std::string& path, const std::string& root);

// Opens `path` read-only (O_CLOEXEC). Confined: the path must lie beneath a read root with every
// symlink along it resolving beneath that root, and be a regular file (or, with allow_directory,
// a directory). Unconfined: a plain open, FIFOs included (`goblin info <(zcat t.json.gz)`).
// The caller owns the descriptor.
Result<int> open_for_read(const std::string& path, bool allow_directory = false);

// For libraries that open the path themselves (SQLite): the same check, descriptor closed.
Status check_readable(const std::string& path, bool allow_directory = false);

// The directory a file is written into, as an O_PATH descriptor the writer creates and renames
// relative to (so the directory cannot be swapped for a link between the check and the write).
// Confined: it must lie beneath a write root, every symlink along it staying beneath.
Result<int> open_dir_for_write(const std::string& dir);

}  // namespace goblin
