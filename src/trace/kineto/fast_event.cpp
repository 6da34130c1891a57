// The event parser's fast path: one pass over an event's bytes with a strict JSON grammar and the
// Kineto keys dispatched as they come, filling the same Event the simdjson path fills.
//
// It accepts only what it is sure about: ASCII text without backslashes, strict JSON numbers and
// literals, no control characters in strings, every known key with the value type the simdjson
// path reads without complaint. Anything else returns false and the simdjson path (event_parser.cpp)
// reads the event from scratch, with its exact errors and warnings. Being stricter than simdjson is
// always safe; it is never more lenient, so both paths give the same rows (kineto_test.cpp checks
// every fixture both ways).
#include <emmintrin.h>  // SSE2: x86-64 baseline

#include <charconv>
#include <cstring>

#include "trace/kineto/event_parser.h"
#include "trace/kineto/event_values.h"

namespace goblin::kineto {

using namespace detail;

namespace {

// True when the bytes hold a backslash or a byte >= 0x80 (escapes and UTF-8 go the slow way).
bool has_escape_or_high(const char* p, size_t n) {
  const __m128i bs = _mm_set1_epi8('\\');
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    if (_mm_movemask_epi8(v) | _mm_movemask_epi8(_mm_cmpeq_epi8(v, bs))) return true;
  }
  for (; i < n; ++i)
    if (static_cast<unsigned char>(p[i]) >= 0x80 || p[i] == '\\') return true;
  return false;
}

class Scanner {
 public:
  Scanner(const char* p, const char* end) : p_(p), end_(end) {}
  bool ok() const { return ok_; }
  bool at_end() {
    ws();
    return p_ == end_;
  }
  void fail() { ok_ = false; }

  void ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool eat(char c) {
    ws();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  char peek() {
    ws();
    return p_ < end_ ? *p_ : '\0';
  }

  // A string at p_ (after ws): its contents (no escapes: checked for the whole event).
  bool string(std::string_view& out) {
    ws();
    if (p_ >= end_ || *p_ != '"') return fail_false();
    const char* s = ++p_;
    // Closing quote or a control character, 16 bytes at a time (the padding after the event
    // makes the over-read safe; a match beyond end_ is rejected below).
    const __m128i q = _mm_set1_epi8('"'), sp = _mm_set1_epi8(0x20);
    for (;;) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
      // Bytes here are < 0x80, so the signed compare is the unsigned one.
      int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmplt_epi8(v, sp)));
      if (m) {
        p_ += __builtin_ctz(static_cast<unsigned>(m));
        break;
      }
      p_ += 16;
      if (p_ >= end_) return fail_false();
    }
    if (p_ >= end_ || *p_ != '"') return fail_false();  // a control character, or past the end
    out = std::string_view(s, static_cast<size_t>(p_ - s));
    ++p_;
    return true;
  }

  // A strict JSON number at p_: its text.
  bool number(std::string_view& out) {
    ws();
    const char* s = p_;
    if (p_ < end_ && *p_ == '-') ++p_;
    if (p_ >= end_) return fail_false();
    if (*p_ == '0') {
      ++p_;
    } else if (*p_ >= '1' && *p_ <= '9') {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    } else {
      return fail_false();
    }
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (p_ >= end_ || *p_ < '0' || *p_ > '9') return fail_false();
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ >= end_ || *p_ < '0' || *p_ > '9') return fail_false();
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ < end_ &&
        !(*p_ == ',' || *p_ == '}' || *p_ == ']' || *p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
      return fail_false();
    out = std::string_view(s, static_cast<size_t>(p_ - s));
    return true;
  }

  bool literal() {
    ws();
    auto lit = [&](const char* w, size_t n) {
      if (static_cast<size_t>(end_ - p_) >= n && std::memcmp(p_, w, n) == 0) {
        p_ += n;
        return true;
      }
      return false;
    };
    if (lit("true", 4) || lit("false", 5) || lit("null", 4)) return true;
    return fail_false();
  }

  // Any value, checked and skipped; `raw` gets its text.
  bool skip(std::string_view* raw = nullptr, int depth = 0) {
    ws();
    const char* s = p_;
    std::string_view tmp;
    bool r;
    switch (peek()) {
      case '"':
        r = string(tmp);
        if (r && raw) *raw = std::string_view(s, static_cast<size_t>(p_ - s));
        return r;
      case '{':
        r = container('{', '}', depth);
        break;
      case '[':
        r = container('[', ']', depth);
        break;
      case 't':
      case 'f':
      case 'n':
        r = literal();
        break;
      default:
        r = number(tmp);
    }
    if (r && raw) *raw = std::string_view(s, static_cast<size_t>(p_ - s));
    return r;
  }

  const char* pos() const { return p_; }

 private:
  bool fail_false() {
    ok_ = false;
    return false;
  }
  bool container(char open, char close, int depth) {
    if (depth > 64) return fail_false();
    ++p_;  // open
    if (eat(close)) return true;
    for (;;) {
      if (open == '{') {
        std::string_view k;
        if (!string(k) || !eat(':')) return fail_false();
      }
      if (!skip(nullptr, depth + 1)) return false;
      if (eat(',')) continue;
      if (eat(close)) return true;
      return fail_false();
    }
  }

  const char* p_;
  const char* end_;
  bool ok_ = true;
};

// read_id's semantics: a number → its integer (absent for fractions and beyond int64), a string
// holding one → that, null/true/false → absent. Other types are left to the simdjson path.
bool id_value(Scanner& sc, int64_t& out) {
  std::string_view t;
  switch (sc.peek()) {
    case '"':
      if (!sc.string(t)) return false;
      if (auto v = int_from_string(t)) out = *v;
      return true;
    case 't':
    case 'f':
    case 'n':
      return sc.literal();
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
      if (!sc.number(t)) return false;
      if (auto v = int_from_text(t)) out = *v;
      return true;
    default:
      return false;
  }
}

// read_time: a number or a quoted number, exactly to ns; anything else is the slow path's error.
bool time_value(Scanner& sc, int64_t& out) {
  std::string_view t;
  if (sc.peek() == '"') {
    if (!sc.string(t)) return false;
  } else if (!sc.number(t)) {
    return false;
  }
  auto ns = parse_us_to_ns(t);
  if (!ns) return false;
  out = *ns;
  return true;
}

// read_dim3: an array of non-negative integers (the first three kept, clamped to 32 bits).
bool dim3_value(Scanner& sc, std::array<uint32_t, 3>& out) {
  if (!sc.eat('[')) return false;
  if (sc.eat(']')) return true;
  std::array<uint32_t, 3> d = out;
  for (size_t i = 0;; ++i) {
    std::string_view t;
    if (!sc.number(t)) return false;
    uint64_t x = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
    if (ec != std::errc() || p != t.data() + t.size()) return false;  // negative, fraction, huge
    if (i < 3) d[i] = static_cast<uint32_t>(std::min<uint64_t>(x, UINT32_MAX));
    if (sc.eat(',')) continue;
    if (sc.eat(']')) break;
    return false;
  }
  out = d;
  return true;
}

// A string value when it is a string; otherwise the value is only checked (the simdjson path then
// treats it as an unread arg).
bool opt_string(Scanner& sc, std::string_view& out) {
  if (sc.peek() == '"') return sc.string(out);
  return sc.skip();
}

// The args object (read_args' keys and semantics).
bool read_fast_args(Scanner& sc, EventParser::Event& ev) {
  sc.eat('{');
  if (sc.eat('}')) return true;
  for (;;) {
    std::string_view k;
    if (!sc.string(k) || !sc.eat(':')) return false;
    bool good;
    switch (k.empty() ? '\0' : k[0]) {
      case 'E':
        good = k == "External id" ? id_value(sc, ev.external_id) : sc.skip();
        break;
      case 'e':
        good = k == "external id" ? id_value(sc, ev.external_id) : sc.skip();
        break;
      case 'c':
        good = k == "correlation" ? id_value(sc, ev.correlation) : k == "cbid" ? id_value(sc, ev.cbid) : sc.skip();
        break;
      case 'd':
        good = k == "device" ? id_value(sc, ev.device) : k == "dtype" ? opt_string(sc, ev.coll_dtype) : sc.skip();
        break;
      case 's':
        good = k == "stream" ? id_value(sc, ev.stream) : k == "shared memory" ? id_value(sc, ev.shared_mem) : sc.skip();
        break;
      case 'S':
        good = k == "Sequence number" ? id_value(sc, ev.sequence) : k == "Seq" ? id_value(sc, ev.coll_seq) : sc.skip();
        break;
      case 'b':
        good = k == "bytes" ? id_value(sc, ev.bytes) : k == "block" ? dim3_value(sc, ev.block) : sc.skip();
        break;
      case 'r':
        good = k == "registers per thread" ? id_value(sc, ev.registers) : sc.skip();
        break;
      case 'g':
        if (k == "grid")
          good = sc.peek() == '[' ? dim3_value(sc, ev.grid) : sc.skip();
        else
          good = k == "graph id" ? id_value(sc, ev.graph_id) : sc.skip();
        break;
      case 'P':
        good = k == "Python id"                   ? id_value(sc, ev.python_id)
               : k == "Python parent id"          ? id_value(sc, ev.python_parent)
               : k == "Process Group Name"        ? opt_string(sc, ev.pg_name)
               : k == "Process Group Description" ? opt_string(sc, ev.pg_desc)
                                                  : sc.skip();
        break;
      case 'I':
        if (k == "Input Dims" || k == "Input dims")
          good = sc.skip(&ev.input_dims);
        else if (k == "Input type")
          good = sc.skip(&ev.input_types);
        else if (k == "In msg nelems")
          good = id_value(sc, ev.in_nelems);
        else
          good = sc.skip();
        break;
      case 'O':
        good = k == "Out msg nelems" ? id_value(sc, ev.out_nelems) : sc.skip();
        break;
      case 'G':
        good = k == "Group size" ? id_value(sc, ev.group_size) : sc.skip();
        break;
      case 'C':
        good = k == "Concrete Inputs"   ? sc.skip(&ev.concrete_inputs)
               : k == "Collective name" ? opt_string(sc, ev.coll_name)
                                        : sc.skip();
        break;
      case 'k':
        good = k == "kind" ? opt_string(sc, ev.kind) : sc.skip();
        break;
      default:
        good = sc.skip();
    }
    if (!good || !sc.ok()) return false;
    if (sc.eat(',')) continue;
    if (sc.eat('}')) return true;
    return false;
  }
}

}  // namespace

bool EventParser::fast_read(std::string_view json, Event& ev) const {
  if (json.empty() || json.front() != '{') return false;
  const bool lean_ = keep_cpu_op_ != nullptr || skip_flows_;
  if (has_escape_or_high(json.data(), json.size())) return false;
  Scanner sc(json.data(), json.data() + json.size());
  sc.eat('{');
  if (sc.eat('}')) return sc.at_end() && sc.ok();
  for (;;) {
    std::string_view k;
    if (!sc.string(k) || !sc.eat(':')) return false;
    bool good = true;
    switch (k.size()) {
      case 2:
        if (k == "ph") {
          std::string_view ph;
          good = sc.peek() == '"' && sc.string(ph);
          ev.ph = ph.size() == 1 ? ph[0] : '?';
        } else if (k == "ts") {
          good = time_value(sc, ev.ts);
          ev.has_ts = good;
        } else if (k == "id") {
          good = id_value(sc, ev.id);
        } else if (k == "bp") {
          good = sc.peek() == '"' && sc.string(ev.flow_bp);
        } else {
          good = sc.skip();
        }
        break;
      case 3:
        if (k == "cat")
          good = sc.peek() == '"' && sc.string(ev.cat);
        else if (k == "pid")
          good = id_value(sc, ev.pid);
        else if (k == "tid")
          good = id_value(sc, ev.tid);
        else if (k == "dur") {
          good = time_value(sc, ev.dur);
          ev.has_dur = good;
        } else
          good = sc.skip();
        break;
      case 4:
        if (k == "name")
          good = opt_string(sc, ev.name);
        else if (k == "args")
          good = sc.peek() == '{' && read_fast_args(sc, ev);
        else
          good = sc.skip();
        break;
      default:
        good = sc.skip();
    }
    if (!good || !sc.ok()) return false;
    // Lean reading: once phase, category and name are known, a dropped event is not read on.
    if (lean_ && ev.ph != 0 && !ev.cat.empty() && (ev.ph != 'X' || !ev.name.empty()) &&
        lean_drops(ev.ph, ev.cat, ev.name)) {
      ev.lean_skip = true;
      return true;
    }
    if (sc.eat(',')) continue;
    if (sc.eat('}')) break;
    return false;
  }
  return sc.at_end() && sc.ok();
}

}  // namespace goblin::kineto
