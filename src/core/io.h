// Input plumbing shared by every reader: open a path, inflate gzip as a stream (never the
// whole file in memory), guard against gzip bombs, and report positions in the decompressed
// stream so errors can name a byte offset.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace goblin {

struct IoLimits {
  // Refuse to inflate more than this many bytes from one file.
  uint64_t max_inflated_bytes = 64ull << 30;
  // Past `bomb_check_after` inflated bytes, a compression ratio above this is treated as a
  // gzip bomb (real traces compress 5-30x; a bomb compresses ~1000x).
  double max_ratio = 500.0;
  uint64_t bomb_check_after = 256ull << 20;
};

// A forward-only stream of bytes (decompressed if the file was gzip).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `cap` bytes into buf. Returns bytes read; 0 means end of stream.
  virtual Result<size_t> read(char* buf, size_t cap) = 0;
  // Bytes delivered so far (decompressed offset).
  virtual uint64_t position() const = 0;
  virtual bool compressed() const = 0;
  // Size of the underlying file on disk.
  virtual uint64_t file_size() const = 0;
  // Bytes of the file on disk consumed so far (= position() unless compressed); with file_size()
  // it estimates the decompressed size.
  virtual uint64_t raw_position() const { return position(); }
  const std::string& path() const { return path_; }

 protected:
  std::string path_;
};

bool looks_gzip(std::string_view prefix);

// Opens `path`; gzip (detected by magic bytes, not extension) is inflated transparently,
// concatenated gzip members included. A FIFO, pipe or device (`<(zcat t.gz)`) is read once, whole,
// up to limits::kMaxStreamBytes, and served from memory: it cannot be rewound.
Result<std::unique_ptr<ByteSource>> open_source(const std::string& path, const IoLimits& limits = {});

// A ByteSource over text already in memory, reporting `name` as its path. make_string_source
// keeps the text; make_view_source reads the caller's text without a copy (it must outlive the
// source).
std::unique_ptr<ByteSource> make_string_source(std::string text, std::string name);
std::unique_ptr<ByteSource> make_view_source(std::string_view text, std::string name);

// True for a path that exists and is neither a regular file nor a directory (FIFO, /dev/fd/N of a
// pipe, character device): such a path can be read only once.
bool is_stream_path(const std::string& path);

// Reads the whole (decompressed) content; for small inputs (CSV, YAML, configs). More than
// `limits.max_inflated_bytes` (on disk or inflated) is refused with a Malformed error.
Result<std::string> read_all(const std::string& path, const IoLimits& limits = {});

// First `n` decompressed bytes (for format sniffing).
Result<std::string> read_prefix(const std::string& path, size_t n);

Status write_file(const std::string& path, std::string_view content);

}  // namespace goblin
