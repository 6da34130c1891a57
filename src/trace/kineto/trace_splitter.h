// Streaming splitter for Chrome-trace JSON (Perfetto's json_trace_tokenizer idea): bytes arrive
// in chunks of any size; a small state machine that knows only strings, escapes and bracket
// depth cuts the document into (a) top-level "key": value pairs and (b) the individual event
// objects of the `traceEvents` array. No DOM of the file is ever built: each event is handed to
// the event parser as a view into the current chunk and then forgotten, so memory stays bounded
// by the chunk size plus the largest single event.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace goblin::trace::kineto {

// Readable bytes guaranteed after every view handed to a handler (simdjson reads up to
// SIMDJSON_PADDING bytes past the end of a document; 64 in simdjson 3.0).
inline constexpr size_t kSplitterPadding = 64;

class TraceSplitter {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // One complete element of traceEvents (normally an object). `json` is followed by at
    // least kSplitterPadding readable bytes; it is valid only during the call.
    virtual void on_event(std::string_view json, uint64_t offset) = 0;
    // An event starting at `p` ('{'), with the buffered bytes up to `end` (kSplitterPadding
    // readable bytes after it): a handler that can parse and take the event in one pass returns
    // its length; 0 (nothing taken) lets the splitter cut it and call on_event.
    virtual size_t on_event_at(const char* p, const char* end, uint64_t offset) { return 0; }
    // A top-level key other than traceEvents, with its value's raw JSON text.
    virtual void on_top_level(std::string_view key, std::string_view value, uint64_t offset) = 0;
    // A non-fatal structural oddity. The only one is trailing bytes after the document, which the
    // readers file as warning kineto_trailing_bytes (model/warnings.h); a new kind of note needs
    // its own catalogue entry passed along with it.
    virtual void on_note(std::string message, uint64_t offset) = 0;
  };

  TraceSplitter(Handler& handler, std::string path);

  // Appends bytes and emits every unit completed by them. After an error the splitter stops.
  Status feed(const char* data, size_t n);
  // Zero-copy variant of feed: write up to `n` bytes at the returned pointer, then commit the
  // number written. Lets the reader read() straight into the splitter's buffer.
  char* prepare(size_t n);
  Status commit(size_t n);
  // End of input: an error if the document is incomplete (truncated file).
  Status finish();

  uint64_t events_emitted() const { return events_; }
  uint64_t bytes_seen() const { return base_ + len_; }

  // Two-thread reading of one plain file (kineto_reader.cpp): a second splitter starts at byte
  // `base` as if it had just consumed the ',' between two events of traceEvents. The reader
  // keeps its output only when the first splitter, fed exactly [0, base), ends in that same
  // state (between_events() with the same bare_array()), so both halves split exactly as one
  // splitter would.
  void resume_between_events(uint64_t base, bool bare_array);
  bool between_events() const { return state_ == State::EventsSep; }
  bool bare_array() const { return bare_array_; }
  // Counts events split by the first splitter, so finish()'s messages give whole-file counts.
  void add_prior_events(uint64_t n) { events_ += n; }

  // Block reading (batch_reader.cpp): bytes are staged with prepare() + stage() without being
  // split, the tail past a cut is given back with truncate(), and scan() splits what is staged.
  void stage(size_t n);
  void truncate(size_t n);
  Status scan();
  std::string_view buffered() const { return {data_, len_}; }
  // Splits `n` bytes the caller keeps in memory (a mapped file) instead of the splitter's own
  // buffer: no copy. At least kSplitterPadding readable bytes must follow them. The splitter must
  // have just been reset (resume_between_events or new); a later prepare() copies what it still
  // needs into its own buffer.
  void attach(const char* data, size_t n);

 private:
  enum class State { Start, Key, KeyString, Colon, ValueStart, Value, EventsSep, Event, Done, Failed };
  enum class ValueKind { Container, String, Scalar };

  void compact();
  Status run();
  // Advances pos_ over the value that started at unit_start_; true once it is complete.
  bool scan_value();
  bool scan_container();
  // Byte-at-a-time container scan of [pos_, end): exact for escapes; used on blocks that hold a
  // backslash. Returns true when the value closed (pos_ just past it).
  bool scan_container_scalar(size_t end);
  bool skip_ws();  // false when the buffer ran out
  Status fail(std::string message, uint64_t offset);
  uint64_t abs(size_t i) const { return base_ + i; }

  Handler& handler_;
  std::string path_;
  std::unique_ptr<char[]> buf_;  // uninitialised on purpose: zero-filling costs a pass
  const char* data_ = nullptr;   // the bytes scanned: buf_.get(), or the attached caller's bytes
  bool attached_ = false;
  size_t cap_ = 0;
  size_t len_ = 0;         // valid bytes in buf_
  size_t pos_ = 0;         // scan position
  size_t unit_start_ = 0;  // start of the unit being scanned (kept across compaction)
  uint64_t base_ = 0;      // absolute offset of buf_[0]
  State state_ = State::Start;
  bool bare_array_ = false;  // document is `[event, ...]` rather than `{"traceEvents": [...]}`
  bool saw_events_ = false;
  bool trailing_noted_ = false;
  std::string key_;
  // value scanner state (resumable across chunks)
  ValueKind kind_ = ValueKind::Container;
  int64_t depth_ = 0;
  bool in_string_ = false;
  bool escape_pending_ = false;  // container scan: last byte seen was an unpaired backslash
  uint64_t events_ = 0;
};

}  // namespace goblin::trace::kineto
