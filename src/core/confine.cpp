#include "core/confine.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace goblin {
namespace fs = std::filesystem;

namespace {

Confinement& state() {
  static Confinement c;
  return c;
}

// `p` relative to `root`, which holds it ("." for the root itself).
std::string relative_to(const std::string& p, const std::string& root) {
  return p.size() == root.size() ? "." : p.substr(root.size() + (root.back() == '/' ? 0 : 1));
}

// The root that holds `path` and the path relative to it. Lexically first (the path as the door
// resolved it); then through the real location of whatever exists of it, for a path that reaches a
// root through a link outside it (reading inside a root is allowed however it is named).
bool split_root(const std::vector<std::string>& roots, const std::string& path, std::string& root, std::string& rel) {
  std::error_code ec;
  const fs::path lex = fs::absolute(path, ec).lexically_normal();
  for (const fs::path& cand : {lex, fs::weakly_canonical(lex, ec)}) {
    std::string s = cand.string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    for (const auto& r : roots)
      if (path_beneath(s, r)) {
        root = r;
        rel = relative_to(s, r);
        return true;
      }
  }
  return false;
}

std::string list(const std::vector<std::string>& roots) {
  std::string s;
  for (const auto& r : roots) s += (s.empty() ? "" : ", ") + r;
  return s;
}

// openat2 beneath `root`; on a kernel without openat2 (before 5.6), the same rule checked through
// the real path, then a plain open of that real path.
int open_beneath(const std::string& root, const std::string& rel, uint64_t flags, uint64_t mode = 0) {
  const int rfd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rfd < 0) return -1;
  open_how how{};
  how.flags = flags;
  how.mode = mode;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  int fd = static_cast<int>(::syscall(SYS_openat2, rfd, rel.c_str(), &how, sizeof how));
  int saved = errno;
  if (fd < 0 && saved == EXDEV) {
    // RESOLVE_BENEATH refuses every absolute symlink, even one whose target lies inside the root
    // (a run directory's "latest -> /abs/root/run3"). Such a path is opened by where it really
    // leads, and that open is again beneath the root: a link swapped in meanwhile is refused.
    std::error_code ec;
    const std::string real = fs::canonical(fs::path(root) / rel, ec).string();
    if (!ec && path_beneath(real, root)) {
      fd = static_cast<int>(::syscall(SYS_openat2, rfd, relative_to(real, root).c_str(), &how, sizeof how));
      saved = fd < 0 ? errno : 0;
    } else {
      saved = EXDEV;
    }
  }
  ::close(rfd);
  if (fd < 0 && saved == ENOSYS) {
    std::error_code ec;
    const std::string real = fs::canonical(fs::path(root) / rel, ec).string();
    if (ec) {
      errno = ENOENT;
      return -1;
    }
    if (!path_beneath(real, root)) {
      errno = EXDEV;
      return -1;
    }
    return ::open(real.c_str(), static_cast<int>(flags), static_cast<mode_t>(mode));
  }
  errno = saved;
  return fd;
}

Error refused(const std::string& path, const std::string& why) {
  return make_error(ErrorKind::Usage, why + "; refused", path);
}

}  // namespace

bool path_beneath(const std::string& p, const std::string& root) {
  return p == root || (p.size() > root.size() && p.compare(0, root.size(), root) == 0 &&
                       (root.back() == '/' || p[root.size()] == '/'));
}

ConfinementScope::ConfinementScope(Confinement c) : previous_(state()) {
  auto canon = [](std::vector<std::string>& v) {
    for (auto& r : v) {
      std::error_code ec;
      fs::path p = fs::canonical(r, ec);
      if (!ec) r = p.string();
    }
  };
  canon(c.read_roots);
  canon(c.write_roots);
  state() = std::move(c);
}

ConfinementScope::~ConfinementScope() { state() = std::move(previous_); }

const Confinement& current_confinement() { return state(); }

Result<int> open_for_read(const std::string& path, bool allow_directory) {
  const Confinement& c = state();
  if (!c.active()) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return make_error(ErrorKind::Io, std::string("cannot open: ") + std::strerror(errno), path);
    return fd;
  }
  std::string root, rel;
  if (!split_root(c.read_roots, path, root, rel))
    return refused(path, "is outside the directories this server may read (" + list(c.read_roots) + ")");
  // Non-blocking so that a FIFO is refused instead of waiting for a writer that never comes.
  const int fd = open_beneath(root, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == EXDEV || errno == ELOOP)
      return refused(path, "leads outside " + root + " through a symbolic link (this server reads only beneath " +
                               list(c.read_roots) + ")");
    return make_error(ErrorKind::Io, std::string("cannot open: ") + std::strerror(errno), path);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || (allow_directory && S_ISDIR(st.st_mode)))) {
    ::close(fd);
    return refused(path, S_ISDIR(st.st_mode) ? "is a directory, expected a file"
                                             : "is not a regular file (a FIFO, socket or device)");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

Status check_readable(const std::string& path, bool allow_directory) {
  if (!state().active()) return {};
  ASSIGN_OR_RETURN(const int fd, open_for_read(path, allow_directory));
  ::close(fd);
  return {};
}

Result<int> open_dir_for_write(const std::string& dir) {
  const Confinement& c = state();
  if (!c.active()) {
    const int fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return make_error(ErrorKind::Io, std::string("cannot open the output directory: ") + std::strerror(errno), dir);
    return fd;
  }
  std::string root, rel;
  if (c.write_roots.empty() || !split_root(c.write_roots, dir, root, rel))
    return refused(dir, "is outside the directories this server may write (" + list(c.write_roots) + ")");
  const int fd = open_beneath(root, rel, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EXDEV || errno == ELOOP) return refused(dir, "leads outside " + root + " through a symbolic link");
    return make_error(ErrorKind::Io, std::string("cannot open the output directory: ") + std::strerror(errno), dir);
  }
  return fd;
}

}  // namespace goblin
