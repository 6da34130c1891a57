// Streaming CSV (RFC 4180 plus what profilers actually write): quoted fields with "" escapes
// and embedded newlines, CRLF or LF, a missing final newline, ragged rows. Tracks the line and
// byte offset of each row so readers can point at bad data.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/io.h"

namespace goblin {

class CsvReader {
 public:
  // delimiter ',' by default; `trim` strips spaces around unquoted fields (nvidia-smi writes
  // ", " separators).
  explicit CsvReader(std::unique_ptr<ByteSource> src, char delimiter = ',', bool trim = false);
  // From text already in memory (tests, small files).
  static CsvReader from_string(std::string text, char delimiter = ',', bool trim = false);

  // Next record into `fields` (views valid until the next call). Returns false at end of input
  // or on error (check error()). Blank lines are skipped.
  bool next(std::vector<std::string_view>& fields);
  // 1-based line where the last returned record started.
  int64_t line() const { return record_line_; }
  // Lines the last record spans: more than 1 only when a quoted field holds newlines (or a quote
  // was never closed and swallowed the lines after it).
  int64_t lines_spanned() const { return line_ - record_line_ + (ends_in_newline_ ? 0 : 1); }
  // Byte offset where the last returned record started.
  int64_t offset() const { return record_offset_; }
  const Error* error() const { return has_error_ ? &error_ : nullptr; }
  const std::string& path() const { return path_; }

 private:
  bool fill();
  int peek();
  int get();

  std::unique_ptr<ByteSource> src_;
  std::string path_;
  char delim_;
  bool trim_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  int64_t line_ = 1, offset_ = 0;
  int64_t record_line_ = 0, record_offset_ = 0;
  bool ends_in_newline_ = false;
  std::string record_;  // unescaped bytes of the current record
  std::vector<std::pair<size_t, size_t>> spans_;
  bool has_error_ = false;
  Error error_;
};

// Splits one line on `delim` honouring quotes (for tiny inline uses, e.g. headers).
std::vector<std::string> split_csv_line(std::string_view line, char delim = ',');

}  // namespace goblin
