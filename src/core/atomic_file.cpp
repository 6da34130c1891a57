#include "core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/confine.h"
#include "core/random_tag.h"

namespace goblin {

namespace {

// The target, looked at without following a link: absent, or a regular file.
Status check_target_at(int dir_fd, const std::string& name, const std::string& path) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return {};
    return make_error(ErrorKind::Io, std::string("cannot check the output: ") + std::strerror(errno), path);
  }
  if (S_ISLNK(st.st_mode))
    return make_error(ErrorKind::Io,
                      "is a symbolic link; goblin does not write through links (remove it or name the "
                      "real file)",
                      path);
  if (!S_ISREG(st.st_mode))
    return make_error(ErrorKind::Io, "exists and is not a regular file (a directory, device or FIFO); not written",
                      path);
  return {};
}

}  // namespace

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  if (path.empty()) return make_error(ErrorKind::Usage, "empty output path");
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..")
    return make_error(ErrorKind::Usage, "the output names a directory, expected a file", path);
  ASSIGN_OR_RETURN(const int dir_fd, open_dir_for_write(p.has_parent_path() ? p.parent_path().string() : "."));
  if (Status s = check_target_at(dir_fd, name, path); !s.ok()) {
    ::close(dir_fd);
    return s.error();
  }
  std::string tmp = "." + name.substr(0, 200) + ".goblin-" + random_hex_tag();
  // O_EXCL | O_NOFOLLOW: never an existing file or link.
  const int fd = ::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int e = errno;
    ::close(dir_fd);
    return make_error(ErrorKind::Io, std::string("cannot create a file in its directory: ") + std::strerror(e), path);
  }
  unsigned mode = 0644;
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
    mode = st.st_mode & 07777;  // keep the replaced file's permissions
  return AtomicFile(path, dir_fd, name, std::move(tmp), fd, mode);
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : path_(std::move(o.path_)),
      name_(std::move(o.name_)),
      tmp_(std::move(o.tmp_)),
      dir_fd_(o.dir_fd_),
      fd_(o.fd_),
      mode_(o.mode_),
      failure_(std::move(o.failure_)) {
  o.fd_ = -1;
  o.dir_fd_ = -1;
  o.tmp_.clear();
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty() && dir_fd_ >= 0) ::unlinkat(dir_fd_, tmp_.c_str(), 0);
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

bool AtomicFile::write(std::string_view bytes) {
  while (failure_.empty() && !bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      failure_ = std::string("write failed: ") + std::strerror(errno);
      break;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return failure_.empty();
}

Status AtomicFile::commit() {
  auto fail = [&](const std::string& what) {
    return Status(make_error(ErrorKind::Io, what + " (the previous file, if any, is unchanged)", path_));
  };
  if (!failure_.empty()) return fail(failure_);
  if (::fchmod(fd_, mode_) != 0) return fail(std::string("chmod failed: ") + std::strerror(errno));
  if (::fsync(fd_) != 0) return fail(std::string("flush to disk failed: ") + std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return fail(std::string("close failed: ") + std::strerror(errno));
  // A link planted between create() and now is refused too (rename would replace the link itself,
  // not write through it, but the caller asked for a file there and should know).
  RETURN_IF_ERROR(check_target_at(dir_fd_, name_, path_));
  if (::renameat(dir_fd_, tmp_.c_str(), dir_fd_, name_.c_str()) != 0)
    return fail(std::string("rename failed: ") + std::strerror(errno));
  tmp_.clear();
  return {};
}

}  // namespace goblin
