#include "trace/kineto/trace_splitter.h"

#include <emmintrin.h>  // SSE2: part of the x86-64 baseline, no runtime dispatch needed
#include <fmt/format.h>

#include <array>
#include <cstring>

namespace goblin::trace::kineto {

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

void TraceSplitter::resume_between_events(uint64_t base, bool bare_array) {
  attached_ = false;
  data_ = buf_.get();
  base_ = base;
  len_ = pos_ = unit_start_ = 0;
  bare_array_ = bare_array;
  saw_events_ = true;
  key_ = bare_array ? "" : "traceEvents";
  state_ = State::EventsSep;
  events_ = 0;  // a splitter reused for another block counts that block's events only
  trailing_noted_ = false;
  in_string_ = escape_pending_ = false;
  depth_ = 0;
}

Status TraceSplitter::fail(std::string message, uint64_t offset) {
  state_ = State::Failed;
  return make_error(ErrorKind::Malformed, std::move(message), path_, static_cast<int64_t>(offset));
}

// Drops bytes nobody needs any more: everything before the unit being scanned (or before the
// scan position when no unit is open).
void TraceSplitter::attach(const char* data, size_t n) {
  data_ = data;
  attached_ = true;
  len_ = n;
  pos_ = unit_start_ = 0;
}

void TraceSplitter::compact() {
  const bool open_unit = state_ == State::KeyString || state_ == State::Value || state_ == State::Event;
  size_t keep_from = open_unit ? unit_start_ : pos_;
  if (keep_from == 0) return;
  if (len_ > keep_from) std::memmove(buf_.get(), buf_.get() + keep_from, len_ - keep_from);
  len_ -= keep_from;
  pos_ -= keep_from;
  unit_start_ = open_unit ? unit_start_ - keep_from : 0;
  base_ += keep_from;
}

char* TraceSplitter::prepare(size_t n) {
  if (attached_) {
    // Take over what is still needed of the caller's bytes into our own buffer.
    const bool open_unit = state_ == State::KeyString || state_ == State::Value || state_ == State::Event;
    const size_t keep_from = open_unit ? unit_start_ : pos_;
    const size_t keep = len_ - keep_from;
    if (cap_ < keep + n + kSplitterPadding) {
      cap_ = keep + n + kSplitterPadding;
      buf_.reset(new char[cap_]);
    }
    std::memcpy(buf_.get(), data_ + keep_from, keep);
    attached_ = false;
    data_ = buf_.get();
    len_ = keep;
    pos_ -= keep_from;
    unit_start_ = open_unit ? unit_start_ - keep_from : 0;
    base_ += keep_from;
  }
  compact();
  if (cap_ < len_ + n + kSplitterPadding) {
    // Grow geometrically so a large event spread over many tiny chunks stays linear.
    size_t want = std::max(len_ + n + kSplitterPadding, cap_ + cap_ / 2);
    std::unique_ptr<char[]> bigger(new char[want]);
    if (len_) std::memcpy(bigger.get(), buf_.get(), len_);
    buf_ = std::move(bigger);
    cap_ = want;
  }
  data_ = buf_.get();
  return buf_.get() + len_;
}

Status TraceSplitter::commit(size_t n) {
  if (state_ == State::Failed) return make_error(ErrorKind::Internal, "splitter used after an error", path_);
  len_ += n;
  // Keep the padding bytes defined (simdjson may read them; their content does not matter).
  std::memset(buf_.get() + len_, ' ', kSplitterPadding);
  return run();
}

void TraceSplitter::stage(size_t n) {
  len_ += n;
  std::memset(buf_.get() + len_, ' ', kSplitterPadding);
}

void TraceSplitter::truncate(size_t n) {
  if (n >= len_) return;
  len_ = n;
  if (!attached_) std::memset(buf_.get() + len_, ' ', kSplitterPadding);
}

Status TraceSplitter::scan() {
  if (state_ == State::Failed) return make_error(ErrorKind::Internal, "splitter used after an error", path_);
  return run();
}

Status TraceSplitter::feed(const char* data, size_t n) {
  if (state_ == State::Failed) return make_error(ErrorKind::Internal, "splitter used after an error", path_);
  std::memcpy(prepare(n), data, n);
  return commit(n);
}

bool TraceSplitter::skip_ws() {
  while (pos_ < len_ && is_ws(data_[pos_])) ++pos_;
  return pos_ < len_;
}

namespace {
// 64 bytes → bitmask of positions equal to c.
inline uint64_t eq_mask(const __m128i v[4], char c) {
  const __m128i k = _mm_set1_epi8(c);
  uint64_t m0 = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v[0], k)));
  uint64_t m1 = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v[1], k)));
  uint64_t m2 = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v[2], k)));
  uint64_t m3 = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v[3], k)));
  return m0 | (m1 << 16) | (m2 << 32) | (m3 << 48);
}
// Bit i set when an odd number of bits at positions <= i are set: the "inside a string" mask
// from quote positions (simdjson's trick, with shifts instead of carry-less multiply).
// Portable popcount (the builtin becomes a libgcc call without -mpopcnt).
inline int popcount64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
}
inline uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}
}  // namespace

bool TraceSplitter::scan_container_scalar(size_t end) {
  const char* b = data_;
  for (size_t i = pos_; i < end; ++i) {
    char c = b[i];
    if (in_string_) {
      if (escape_pending_)
        escape_pending_ = false;
      else if (c == '\\')
        escape_pending_ = true;
      else if (c == '"')
        in_string_ = false;
      continue;
    }
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ <= 0) {  // closed (or unbalanced: the parser reports it precisely)
        pos_ = i + 1;
        return true;
      }
    }
  }
  pos_ = end;
  return false;
}

// The hot loop: 64 bytes per step. Quote and bracket positions become bitmasks; brackets
// inside strings are masked off with prefix_xor; depth changes are popcounts unless a closing
// bracket appears. Blocks holding a backslash take the exact scalar path.
bool TraceSplitter::scan_container() {
  const char* b = data_;
  const size_t n = len_;
  while (pos_ < n) {
    const size_t i = pos_;
    const size_t avail = n - i;
    __m128i v[4];
    for (int k = 0; k < 4; ++k) v[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 16 * k));
    const uint64_t valid = avail >= 64 ? ~uint64_t{0} : ((uint64_t{1} << avail) - 1);
    const uint64_t bs = eq_mask(v, '\\') & valid;
    if (bs != 0 || escape_pending_) {
      if (scan_container_scalar(i + std::min<size_t>(avail, 64))) return true;
      continue;
    }
    const uint64_t quotes = eq_mask(v, '"') & valid;
    const uint64_t qx = prefix_xor(quotes);
    const uint64_t instr = qx ^ (in_string_ ? ~uint64_t{0} : 0);
    const uint64_t open = (eq_mask(v, '{') | eq_mask(v, '[')) & ~instr & valid;
    const uint64_t close = (eq_mask(v, '}') | eq_mask(v, ']')) & ~instr & valid;
    if (close == 0) {
      depth_ += popcount64(open);
    } else {
      uint64_t all = open | close;
      while (all) {
        const int bit = __builtin_ctzll(all);
        all &= all - 1;
        if ((open >> bit) & 1) {
          ++depth_;
        } else if (--depth_ <= 0) {
          pos_ = i + static_cast<size_t>(bit) + 1;
          in_string_ = false;
          return true;
        }
      }
    }
    const size_t step = std::min<size_t>(avail, 64);
    if (qx >> 63) in_string_ = !in_string_;  // odd number of quotes in the block
    pos_ = i + step;
  }
  return false;
}

bool TraceSplitter::scan_value() {
  if (kind_ == ValueKind::Container) return scan_container();
  const char* b = data_;
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
          if (std::memcmp(data_, "\xEF\xBB\xBF", m) == 0) {
            if (len_ < 3) return Status::Ok();
            pos_ = 3;
          }
        }
        if (!skip_ws()) return Status::Ok();
        char c = data_[pos_];
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
        char c = data_[pos_];
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
          escape_pending_ = false;
          state_ = State::KeyString;
        } else {
          return fail("expected a quoted key or '}' in the top-level object, found '" + std::string(1, c) + "'",
                      abs(pos_));
        }
        break;
      }
      case State::KeyString: {
        if (!scan_value()) return Status::Ok();
        key_.assign(data_ + unit_start_ + 1, pos_ - unit_start_ - 2);
        state_ = State::Colon;
        break;
      }
      case State::Colon: {
        if (!skip_ws()) return Status::Ok();
        if (data_[pos_] != ':') return fail("expected ':' after top-level key \"" + key_ + "\"", abs(pos_));
        ++pos_;
        state_ = State::ValueStart;
        break;
      }
      case State::ValueStart: {
        if (!skip_ws()) return Status::Ok();
        char c = data_[pos_];
        if (key_ == "traceEvents" && c == '[') {
          saw_events_ = true;
          ++pos_;
          state_ = State::EventsSep;
          break;
        }
        unit_start_ = pos_;
        depth_ = 0;
        escape_pending_ = false;
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
        handler_.on_top_level(key_, std::string_view(data_ + unit_start_, pos_ - unit_start_), abs(unit_start_));
        state_ = State::Key;
        break;
      }
      case State::EventsSep: {
        if (!skip_ws()) return Status::Ok();
        char c = data_[pos_];
        if (c == ',') {
          ++pos_;
        } else if (c == ']') {
          ++pos_;
          state_ = bare_array_ ? State::Done : State::Key;
        } else if (c == '}' || c == ':') {
          // A scalar scan would stop on '}' without consuming it and loop forever.
          return fail("expected an event object, ',' or ']' inside traceEvents, found '" + std::string(1, c) + "'",
                      abs(pos_));
        } else {
          if (c == '{') {
            // The parser's one-pass path finds the event's end itself.
            const size_t n = handler_.on_event_at(data_ + pos_, data_ + len_, abs(pos_));
            if (n > 0) {
              ++events_;
              pos_ += n;
              break;
            }
          }
          // Normally '{'; any other element is scanned the same way and rejected by the parser.
          unit_start_ = pos_;
          depth_ = 0;
          escape_pending_ = false;
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
        handler_.on_event(std::string_view(data_ + unit_start_, pos_ - unit_start_), abs(unit_start_));
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
  if (state_ == State::Event) {
    return fail(fmt::format("truncated: the file ends inside an event that starts at byte {}; the {} complete events "
                            "before it were read",
                            abs(unit_start_), events_),
                abs(unit_start_));
  }
  if (state_ == State::EventsSep) {
    return fail(fmt::format("truncated: the file ends inside the traceEvents array (missing ']'{}); all {} events "
                            "before it were read",
                            bare_array_ ? "" : " and '}'", events_),
                end);
  }
  return fail(fmt::format("truncated: the file ends inside the top-level object{}; {} events were read",
                          key_.empty() ? "" : " (at key \"" + key_ + "\")", events_),
              end);
}

}  // namespace goblin::trace::kineto
