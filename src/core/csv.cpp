#include "core/csv.h"

namespace goblin {

namespace {
bool is_space(char c) { return c == ' ' || c == '\t'; }
}  // namespace

CsvReader::CsvReader(std::unique_ptr<ByteSource> src, char delimiter, bool trim)
    : src_(std::move(src)), delim_(delimiter), trim_(trim), buf_(1 << 16) {
  path_ = src_->path();
}

CsvReader CsvReader::from_string(std::string text, char delimiter, bool trim) {
  return CsvReader(make_string_source(std::move(text), "<string>"), delimiter, trim);
}

bool CsvReader::fill() {
  if (eof_) return false;
  auto n = src_->read(buf_.data(), buf_.size());
  if (!n) {
    has_error_ = true;
    error_ = n.error();
    eof_ = true;
    return false;
  }
  if (*n == 0) {
    eof_ = true;
    return false;
  }
  pos_ = 0;
  end_ = *n;
  return true;
}

int CsvReader::peek() {
  if (pos_ == end_ && !fill()) return -1;
  return static_cast<unsigned char>(buf_[pos_]);
}

int CsvReader::get() {
  int c = peek();
  if (c >= 0) {
    ++pos_;
    ++offset_;
    if (c == '\n') ++line_;
  }
  return c;
}

bool CsvReader::next(std::vector<std::string_view>& fields) {
  fields.clear();
  if (offset_ == 0 && peek() == 0xEF) {
    // A UTF-8 byte order mark (Excel, PowerShell, some pandas exports) is not part of the first
    // header name. Its three bytes sit at the start of the first buffer.
    if (end_ - pos_ >= 3 && static_cast<unsigned char>(buf_[pos_ + 1]) == 0xBB &&
        static_cast<unsigned char>(buf_[pos_ + 2]) == 0xBF) {
      pos_ += 3;
      offset_ += 3;
    }
  }
  for (;;) {
    record_.clear();
    spans_.clear();
    // skip blank lines
    int c = peek();
    while (c == '\n' || c == '\r') {
      get();
      c = peek();
    }
    if (c < 0) return false;
    record_line_ = line_;
    ends_in_newline_ = false;
    record_offset_ = offset_;
    bool end_of_record = false;
    while (!end_of_record) {
      size_t start = record_.size();
      bool quoted = false;
      // leading spaces before a quote
      if (trim_) {
        while (peek() >= 0 && is_space(static_cast<char>(peek()))) get();
      }
      if (peek() == '"') {
        quoted = true;
        get();
        for (;;) {
          int ch = get();
          if (ch < 0) {
            has_error_ = true;
            error_ = make_error(ErrorKind::Malformed, "unterminated quoted field (file ends inside quotes)", path_,
                                record_offset_, record_line_);
            spans_.emplace_back(start, record_.size() - start);
            break;
          }
          if (ch == '"') {
            if (peek() == '"') {
              get();
              record_.push_back('"');
              continue;
            }
            break;
          }
          record_.push_back(static_cast<char>(ch));
        }
        if (has_error_) break;
        // anything between closing quote and delimiter is appended verbatim (lenient)
      }
      for (;;) {
        int ch = peek();
        if (ch < 0) {
          end_of_record = true;
          break;
        }
        if (ch == delim_) {
          get();
          break;
        }
        if (ch == '\n' || ch == '\r') {
          get();
          bool lf = ch == '\n';
          if (ch == '\r' && peek() == '\n') get(), lf = true;
          end_of_record = true;
          ends_in_newline_ = lf;
          break;
        }
        record_.push_back(static_cast<char>(ch));
        get();
      }
      size_t len = record_.size() - start;
      if (trim_ && !quoted) {
        while (len > 0 && is_space(record_[start + len - 1])) --len;
      }
      spans_.emplace_back(start, len);
    }
    for (auto& [s, n] : spans_) fields.emplace_back(record_.data() + s, n);
    return !fields.empty() || !has_error_;
  }
}

std::vector<std::string> split_csv_line(std::string_view line, char delim) {
  auto r = CsvReader::from_string(std::string(line), delim);
  std::vector<std::string_view> f;
  std::vector<std::string> out;
  if (r.next(f)) {
    for (auto v : f) out.emplace_back(v);
  }
  return out;
}

}  // namespace goblin
