#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace goblin {

Status check_write_target(const std::string& path) {
  if (path.empty()) return make_error(ErrorKind::Usage, "empty output path");
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
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

Result<AtomicFile> AtomicFile::create(const std::string& path) {
  RETURN_IF_ERROR(check_write_target(path));
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string tmp = (dir / ("." + p.filename().string() + ".goblin-XXXXXX")).string();
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);  // O_CREAT | O_EXCL: never an existing file or link
  if (fd < 0)
    return make_error(ErrorKind::Io, std::string("cannot create a file in its directory: ") + std::strerror(errno),
                      path);
  unsigned mode = 0644;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;  // keep the replaced file's permissions
  return AtomicFile(path, std::move(tmp), fd, mode);
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : path_(std::move(o.path_)), tmp_(std::move(o.tmp_)), fd_(o.fd_), mode_(o.mode_), failure_(std::move(o.failure_)) {
  o.fd_ = -1;
  o.tmp_.clear();
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
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
  if (Status s = check_write_target(path_); !s.ok()) return s;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) return fail(std::string("rename failed: ") + std::strerror(errno));
  tmp_.clear();
  return {};
}

}  // namespace goblin
