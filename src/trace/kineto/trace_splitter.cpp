#include "trace/kineto/trace_splitter.h"

#include <array>
#include <cstring>

namespace goblin::kineto {

namespace {

// Bytes that change the splitter's state outside strings; everything else (digits, letters,
// punctuation, whitespace) is skipped in a tight loop.
constexpr std::array<bool, 256> make_structural() {
  std::array<bool, 256> t{};
  t['"'] = t['{'] = t['}'] = t['['] = t[']'] = true;
  return t;
}
constexpr auto kStructural = make_structural();

bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool ends_scalar(char c) { return c == ',' || c == '}' || c == ']' || is_ws(c); }

}  // namespace

TraceSplitter::TraceSplitter(Handler& handler, std::string path) : handler_(handler), path_(std::move(path)) {}

Status TraceSplitter::fail(std::string message, uint64_t offset) {
  state_ = State::Failed;
  return make_error(ErrorKind::Malformed, std::move(message), path_, static_cast<int64_t>(offset));
}

// Drops bytes nobody needs any more: everything before the unit being scanned (or before the
// scan position when no unit is open).
void TraceSplitter::compact() {
  const bool open_unit = state_ == State::KeyString || state_ == State::Value || state_ == State::Event;
  size_t keep_from = open_unit ? unit_start_ : pos_;
  if (keep_from == 0) return;
  std::memmove(buf_.data(), buf_.data() + keep_from, len_ - keep_from);
  len_ -= keep_from;
  pos_ -= keep_from;
  unit_start_ = open_unit ? unit_start_ - keep_from : 0;
  base_ += keep_from;
}

Status TraceSplitter::feed(const char* data, size_t n) {
  if (state_ == State::Failed) return make_error(ErrorKind::Internal, "splitter used after an error", path_);
  compact();
  if (buf_.size() < len_ + n + kSplitterPadding) {
    // Grow geometrically so a large event spread over many tiny chunks stays linear.
    size_t want = std::max(len_ + n + kSplitterPadding, buf_.size() + buf_.size() / 2);
    buf_.resize(want);
  }
  std::memcpy(buf_.data() + len_, data, n);
  len_ += n;
  return run();
}

bool TraceSplitter::skip_ws() {
  while (pos_ < len_ && is_ws(buf_[pos_])) ++pos_;
  return pos_ < len_;
}

bool TraceSplitter::scan_value() {
  const char* b = buf_.data();
  const size_t n = len_;
  size_t i = pos_;
  if (kind_ == ValueKind::Scalar) {
    while (i < n && !ends_scalar(b[i])) ++i;
    pos_ = i;
    return i < n;
  }
  for (;;) {
    if (in_string_) {
      // Find the closing quote with memchr (vectorised); a quote preceded by an odd run of
      // backslashes is escaped. The run cannot reach past the opening quote.
      for (;;) {
        const void* q = i < n ? std::memchr(b + i, '"', n - i) : nullptr;
        if (!q) {
          pos_ = n;
          return false;
        }
        size_t qi = static_cast<size_t>(static_cast<const char*>(q) - b);
        size_t bs = 0;
        while (qi - bs > 0 && b[qi - bs - 1] == '\\') ++bs;
        i = qi + 1;
        if ((bs & 1) == 0) break;
      }
      in_string_ = false;
      if (kind_ == ValueKind::String || depth_ == 0) {
        pos_ = i;
        return true;
      }
    }
    while (i < n && !kStructural[static_cast<unsigned char>(b[i])]) ++i;
    if (i >= n) {
      pos_ = n;
      return false;
    }
    char c = b[i++];
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (--depth_ == 0) {  // '}' or ']'
      pos_ = i;
      return true;
    } else if (depth_ < 0) {
      // Unbalanced close: hand the text to the parser, which reports it precisely.
      pos_ = i;
      return true;
    }
  }
}

Status TraceSplitter::run() {
  for (;;) {
    switch (state_) {
      case State::Start: {
        if (base_ == 0 && pos_ == 0) {
          // A UTF-8 byte-order mark may arrive split over reads: wait for all three bytes.
          size_t m = std::min<size_t>(len_, 3);
          if (std::memcmp(buf_.data(), "\xEF\xBB\xBF", m) == 0) {
            if (len_ < 3) return Status::Ok();
            pos_ = 3;
          }
        }
        if (!skip_ws()) return Status::Ok();
        char c = buf_[pos_];
        if (c == '{') {
          state_ = State::Key;
        } else if (c == '[') {
          bare_array_ = saw_events_ = true;
          state_ = State::EventsSep;
        } else {
          return fail("not a Chrome trace: expected '{' or '[' at the start of the JSON document, found '" +
                          std::string(1, c) + "'",
                      abs(pos_));
        }
        ++pos_;
        break;
      }
      case State::Key: {
        if (!skip_ws()) return Status::Ok();
        char c = buf_[pos_];
        if (c == ',') {
          ++pos_;
        } else if (c == '}') {
          ++pos_;
          state_ = State::Done;
        } else if (c == '"') {
          unit_start_ = pos_++;
          kind_ = ValueKind::String;
          in_string_ = true;
          depth_ = 0;
          state_ = State::KeyString;
        } else {
          return fail("expected a quoted key or '}' in the top-level object, found '" + std::string(1, c) + "'",
                      abs(pos_));
        }
        break;
      }
      case State::KeyString: {
        if (!scan_value()) return Status::Ok();
        key_.assign(buf_.data() + unit_start_ + 1, pos_ - unit_start_ - 2);
        state_ = State::Colon;
        break;
      }
      case State::Colon: {
        if (!skip_ws()) return Status::Ok();
        if (buf_[pos_] != ':') return fail("expected ':' after top-level key \"" + key_ + "\"", abs(pos_));
        ++pos_;
        state_ = State::ValueStart;
        break;
      }
      case State::ValueStart: {
        if (!skip_ws()) return Status::Ok();
        char c = buf_[pos_];
        if (key_ == "traceEvents" && c == '[') {
          saw_events_ = true;
          ++pos_;
          state_ = State::EventsSep;
          break;
        }
        unit_start_ = pos_;
        depth_ = 0;
        in_string_ = false;
        if (c == '{' || c == '[') {
          kind_ = ValueKind::Container;
        } else if (c == '"') {
          kind_ = ValueKind::String;
          in_string_ = true;
          ++pos_;
        } else if (c == ',' || c == '}' || c == ']' || c == ':') {
          return fail("missing value for top-level key \"" + key_ + "\"", abs(pos_));
        } else {
          kind_ = ValueKind::Scalar;
        }
        state_ = State::Value;
        break;
      }
      case State::Value: {
        if (!scan_value()) return Status::Ok();
        handler_.on_top_level(key_, std::string_view(buf_.data() + unit_start_, pos_ - unit_start_), abs(unit_start_));
        state_ = State::Key;
        break;
      }
      case State::EventsSep: {
        if (!skip_ws()) return Status::Ok();
        char c = buf_[pos_];
        if (c == ',') {
          ++pos_;
        } else if (c == ']') {
          ++pos_;
          state_ = bare_array_ ? State::Done : State::Key;
        } else {
          // Normally '{'; any other element is scanned the same way and rejected by the parser.
          unit_start_ = pos_;
          depth_ = 0;
          in_string_ = false;
          if (c == '{' || c == '[') {
            kind_ = ValueKind::Container;
          } else if (c == '"') {
            kind_ = ValueKind::String;
            in_string_ = true;
            ++pos_;
          } else {
            kind_ = ValueKind::Scalar;
          }
          state_ = State::Event;
        }
        break;
      }
      case State::Event: {
        if (!scan_value()) return Status::Ok();
        ++events_;
        handler_.on_event(std::string_view(buf_.data() + unit_start_, pos_ - unit_start_), abs(unit_start_));
        state_ = State::EventsSep;
        break;
      }
      case State::Done: {
        if (!skip_ws()) return Status::Ok();
        if (!trailing_noted_) {
          trailing_noted_ = true;
          handler_.on_note("ignored bytes after the end of the JSON document", abs(pos_));
        }
        pos_ = len_;
        return Status::Ok();
      }
      case State::Failed:
        return Status::Ok();
    }
  }
}

Status TraceSplitter::finish() {
  if (state_ == State::Failed) return Status::Ok();
  const uint64_t end = bytes_seen();
  if (state_ == State::Start) {
    return fail(end == 0 ? "file is empty (expected a Chrome trace JSON document)"
                         : "file holds only whitespace (expected a Chrome trace JSON document)",
                end);
  }
  if (state_ == State::Done) {
    if (!saw_events_) return fail("JSON document has no \"traceEvents\" array; not a PyTorch profiler trace", 0);
    return Status::Ok();
  }
  std::string n = std::to_string(events_);
  std::string where;
  if (state_ == State::Event) {
    return fail("truncated: the file ends inside an event that starts at byte " + std::to_string(abs(unit_start_)) +
                    "; the " + n + " complete events before it were read",
                abs(unit_start_));
  }
  if (state_ == State::EventsSep) {
    return fail("truncated: the file ends inside the traceEvents array (missing ']'" +
                    std::string(bare_array_ ? "" : " and '}'") + "); all " + n + " events before it were read",
                end);
  }
  return fail("truncated: the file ends inside the top-level object" +
                  std::string(key_.empty() ? "" : " (at key \"" + key_ + "\")") + "; " + n + " events were read",
              end);
}

}  // namespace goblin::kineto
