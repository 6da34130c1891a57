// The one way goblin writes a file: never through a symbolic link, never over something that is
// not a regular file (a device, a FIFO), and never half: the content goes to a temporary file in
// the same directory, every write and the flush are checked, the file is fsynced, then renamed
// over the target. A full disk or a failed write leaves the old file as it was (an empty config
// after `goblin patch -o` on a full disk cannot happen) and the error says what failed.
#pragma once
#include <string>
#include <string_view>

#include "core/status.h"

// See core/confine.h for where a write may land when a front door confines it.

namespace goblin {

class AtomicFile {
 public:
  // Refuses a target that is a symlink or not a regular file; creates the temporary file.
  static Result<AtomicFile> create(const std::string& path);
  AtomicFile(AtomicFile&& o) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();  // not committed: the temporary file is removed, the target untouched

  // Appends; the first failure is kept and returned by commit().
  bool write(std::string_view bytes);
  // The descriptor, for writers that need one (gzdopen); they must not close it.
  int fd() const { return fd_; }
  // fsync, close, rename over the target (which is checked again: still no symlink).
  Status commit();

 private:
  AtomicFile(std::string path, int dir_fd, std::string name, std::string tmp, int fd, unsigned mode)
      : path_(std::move(path)), name_(std::move(name)), tmp_(std::move(tmp)), dir_fd_(dir_fd), fd_(fd), mode_(mode) {}
  // Everything happens relative to the directory's descriptor (core/confine.h: beneath a write
  // root when the door confines), so the directory cannot be swapped for a link midway.
  std::string path_, name_, tmp_;  // tmp_ and name_ are relative to dir_fd_
  int dir_fd_ = -1;
  int fd_ = -1;
  unsigned mode_ = 0644;
  std::string failure_;
};

}  // namespace goblin
