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
#include "trace/kineto/kineto.h"

namespace goblin::trace::kineto {

using namespace detail;

namespace {

// k == lit with the literal's length known at compile time (the compare is inlined).
template <size_t N>
inline bool key_is(std::string_view k, const char (&lit)[N]) {
  return k.size() == N - 1 && std::memcmp(k.data(), lit, N - 1) == 0;
}

inline bool is_blank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// A strict JSON number, read in one pass: its text and, when short enough, its value.
struct Num {
  std::string_view text;
  bool neg = false, frac = false, exp = false;
  int int_digits = 0, frac_digits = 0;
  uint64_t ip = 0, fp = 0;  // integer and fraction digits as integers (valid up to 18 digits)
};

class Scanner {
 public:
  Scanner(const char* p, const char* end) : p_(p), end_(end) {}
  bool ok() const { return ok_; }
  const char* pos() const { return p_; }

  void ws() {
    if (p_ >= end_ || !is_blank(*p_)) return;
    ++p_;
    if (p_ >= end_ || !is_blank(*p_)) return;  // one blank: ", " (the common case)
    // Indentation runs ("\n      "): 16 bytes at a time (the padding makes the over-read safe).
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), tb = _mm_set1_epi8('\t');
    while (p_ < end_) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
      __m128i b = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                               _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tb)));
      const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(b)) ^ 0xffffu;  // non-blank bytes
      if (m) {
        p_ += __builtin_ctz(m);
        if (p_ > end_) p_ = end_;
        return;
      }
      p_ += 16;
    }
    p_ = end_;
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

  // A string at p_ (after ws): its contents. Only plain ASCII strings: a backslash (escape), a
  // control character or a byte >= 0x80 (UTF-8, to be validated) sends the event the slow way.
  bool string(std::string_view& out) {
    ws();
    if (p_ >= end_ || *p_ != '"') return fail_false();
    const char* s = ++p_;
    // 16 bytes at a time (the padding after the buffered bytes makes the over-read safe; a hit
    // beyond end_ is rejected below). The signed compare < 0x20 also catches bytes >= 0x80.
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), sp = _mm_set1_epi8(0x20);
    for (;;) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p_));
      int m = _mm_movemask_epi8(
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)), _mm_cmplt_epi8(v, sp)));
      if (m) {
        p_ += __builtin_ctz(static_cast<unsigned>(m));
        break;
      }
      p_ += 16;
      if (p_ >= end_) return fail_false();
    }
    if (p_ >= end_ || *p_ != '"') return fail_false();
    out = std::string_view(s, static_cast<size_t>(p_ - s));
    ++p_;
    return true;
  }

  // A strict JSON number at p_ (after ws). Digit loops need no bounds check: a number is always
  // followed by a non-digit inside the buffer or its padding (blanks).
  bool number(Num& n) {
    ws();
    const char* s = p_;
    if (p_ < end_ && *p_ == '-') {
      n.neg = true;
      ++p_;
    }
    if (p_ >= end_) return fail_false();
    if (*p_ == '0') {
      ++p_;
      n.int_digits = 1;
    } else if (is_digit(*p_)) {
      uint64_t v = 0;
      const char* d = p_;
      while (is_digit(*p_)) v = v * 10 + static_cast<uint64_t>(*p_++ - '0');
      n.int_digits = static_cast<int>(p_ - d);
      n.ip = v;
    } else {
      return fail_false();
    }
    if (*p_ == '.') {
      ++p_;
      if (!is_digit(*p_)) return fail_false();
      uint64_t v = 0;
      const char* d = p_;
      while (is_digit(*p_)) v = v * 10 + static_cast<uint64_t>(*p_++ - '0');
      n.frac = true;
      n.frac_digits = static_cast<int>(p_ - d);
      n.fp = v;
    }
    if (*p_ == 'e' || *p_ == 'E') {
      ++p_;
      if (*p_ == '+' || *p_ == '-') ++p_;
      if (!is_digit(*p_)) return fail_false();
      while (is_digit(*p_)) ++p_;
      n.exp = true;
    }
    if (p_ > end_) return fail_false();
    const char c = *p_;
    if (p_ < end_ && !(c == ',' || c == '}' || c == ']' || is_blank(c))) return fail_false();
    n.text = std::string_view(s, static_cast<size_t>(p_ - s));
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

  // Any value, checked and skipped; `raw` gets its text. Containers are walked iteratively with
  // a small stack: after '[' or '{' a value (or key) or the close; after a value ',' or the close.
  bool skip(std::string_view* raw = nullptr) {
    ws();
    const char* s = p_;
    if (p_ >= end_) return fail_false();
    const char c0 = *p_;
    if (c0 != '[' && c0 != '{') {
      if (!scalar()) return false;
      if (raw) *raw = std::string_view(s, static_cast<size_t>(p_ - s));
      return true;
    }
    char stack[64];
    int depth = 0;
    stack[depth++] = c0;
    ++p_;
    bool first = true;  // just after an open: a close is allowed
    while (depth > 0) {
      ws();
      if (p_ >= end_) return fail_false();
      const char close = stack[depth - 1] == '[' ? ']' : '}';
      if (first && *p_ == close) {
        ++p_;
        --depth;
        first = false;
        if (!after_value(stack, depth)) return false;
        continue;
      }
      first = false;
      if (stack[depth - 1] == '{') {
        std::string_view k;
        if (!string(k) || !eat(':')) return fail_false();
        ws();
      }
      if (p_ >= end_) return fail_false();
      const char c = *p_;
      if (c == '[' || c == '{') {
        if (depth == 64) return fail_false();
        stack[depth++] = c;
        ++p_;
        first = true;
        continue;
      }
      if (!scalar()) return false;
      if (!after_value(stack, depth)) return false;
    }
    if (raw) *raw = std::string_view(s, static_cast<size_t>(p_ - s));
    return true;
  }

 private:
  bool fail_false() {
    ok_ = false;
    return false;
  }
  bool scalar() {
    const char c = *p_;
    if (c == '"') {
      std::string_view t;
      return string(t);
    }
    if (c == 't' || c == 'f' || c == 'n') return literal();
    Num n;
    return number(n);
  }
  // After a value inside containers `stack[0..depth)`: ',' (another value follows) or the close
  // of the innermost container (and of any that close right after it).
  bool after_value(const char* stack, int& depth) {
    while (depth > 0) {
      ws();
      if (p_ >= end_) return fail_false();
      if (*p_ == ',') {
        ++p_;
        return true;
      }
      const char close = stack[depth - 1] == '[' ? ']' : '}';
      if (*p_ != close) return fail_false();
      ++p_;
      --depth;
    }
    return true;
  }

  const char* p_;
  const char* end_;
  bool ok_ = true;
};

// read_id's semantics: a number → its integer (absent for fractions and beyond int64), a string
// holding one → that, null/true/false → absent. Other types are left to the simdjson path.
bool id_value(Scanner& sc, int64_t& out) {
  const char c = sc.peek();
  if (c == '"') {
    std::string_view t;
    if (!sc.string(t)) return false;
    if (auto v = int_from_string(t)) out = *v;
    return true;
  }
  if (c == 't' || c == 'f' || c == 'n') return sc.literal();
  if (c != '-' && !is_digit(c)) return false;
  Num n;
  if (!sc.number(n)) return false;
  if (!n.neg && !n.frac && !n.exp && n.int_digits <= 18) {
    out = static_cast<int64_t>(n.ip);  // plain non-negative integers, the common case
    return true;
  }
  if (auto v = int_from_text(n.text)) out = *v;
  return true;
}

// read_time: a number or a quoted number, exactly to ns; anything else is the slow path's error.
bool time_value(Scanner& sc, int64_t& out) {
  if (sc.peek() == '"') {
    std::string_view t;
    if (!sc.string(t)) return false;
    auto ns = parse_us_to_ns(t);
    if (!ns) return false;
    out = *ns;
    return true;
  }
  Num n;
  if (!sc.number(n)) return false;
  // "4563495439657.521": up to 15 integer digits and 3 decimals are exact in ns without the
  // general routine (which gives the same for them).
  if (!n.neg && !n.exp && n.int_digits <= 15 && n.frac_digits <= 3) {
    uint64_t f = n.fp;
    for (int k = n.frac_digits; k < 3; ++k) f *= 10;
    out = static_cast<int64_t>(n.ip * 1000 + f);
    return true;
  }
  auto ns = parse_us_to_ns(n.text);
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
    Num n;
    if (!sc.number(n)) return false;
    if (n.neg || n.frac || n.exp) return false;  // get_uint64 rejects them
    uint64_t x = n.ip;
    if (n.int_digits > 19) return false;
    if (n.int_digits > 18) {  // near UINT64_MAX: exact check
      auto [p, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), x);
      if (ec != std::errc() || p != n.text.data() + n.text.size()) return false;
    }
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
        good = key_is(k, "External id") ? id_value(sc, ev.external_id) : sc.skip();
        break;
      case 'e':
        good = key_is(k, "external id") ? id_value(sc, ev.external_id) : sc.skip();
        break;
      case 'c':
        good = key_is(k, "correlation") ? id_value(sc, ev.correlation)
               : key_is(k, "cbid")      ? id_value(sc, ev.cbid)
                                        : sc.skip();
        break;
      case 'd':
        good = key_is(k, "device")      ? id_value(sc, ev.device)
               : key_is(k, "dtype")     ? opt_string(sc, ev.coll_dtype)
               : key_is(k, "direction") ? opt_string(sc, ev.direction)
                                        : sc.skip();
        break;
      case 's':
        good = key_is(k, "stream")          ? id_value(sc, ev.stream)
               : key_is(k, "shared memory") ? id_value(sc, ev.shared_mem)
               : key_is(k, "size")          ? id_value(sc, ev.size)
                                            : sc.skip();
        break;
      case 'S':
        good = key_is(k, "Sequence number") ? id_value(sc, ev.sequence)
               : key_is(k, "Seq")           ? id_value(sc, ev.coll_seq)
                                            : sc.skip();
        break;
      case 'b':
        good = key_is(k, "bytes") ? id_value(sc, ev.bytes) : key_is(k, "block") ? dim3_value(sc, ev.block) : sc.skip();
        break;
      case 'r':
        good = key_is(k, "registers per thread") ? id_value(sc, ev.registers) : sc.skip();
        break;
      case 'g':
        if (key_is(k, "grid"))
          good = sc.peek() == '[' ? dim3_value(sc, ev.grid) : sc.skip();
        else
          good = key_is(k, "graph id") ? id_value(sc, ev.graph_id) : sc.skip();
        break;
      case 'P':
        good = key_is(k, "Python id")                   ? id_value(sc, ev.python_id)
               : key_is(k, "Python parent id")          ? id_value(sc, ev.python_parent)
               : key_is(k, "Process Group Name")        ? opt_string(sc, ev.pg_name)
               : key_is(k, "Process Group Description") ? opt_string(sc, ev.pg_desc)
                                                        : sc.skip();
        break;
      case 'I':
        if (key_is(k, "Input Dims") || key_is(k, "Input dims"))
          good = sc.skip(&ev.input_dims);
        else if (key_is(k, "Input type"))
          good = sc.skip(&ev.input_types);
        else if (key_is(k, "In msg nelems"))
          good = id_value(sc, ev.in_nelems);
        else
          good = sc.skip();
        break;
      case 'O':
        good = key_is(k, "Out msg nelems") ? id_value(sc, ev.out_nelems) : sc.skip();
        break;
      case 'G':
        good = key_is(k, "Group size") ? id_value(sc, ev.group_size) : sc.skip();
        break;
      case 'C':
        good = key_is(k, "Concrete Inputs")   ? sc.skip(&ev.concrete_inputs)
               : key_is(k, "Collective name") ? opt_string(sc, ev.coll_name)
                                              : sc.skip();
        break;
      case 'k':
        good = key_is(k, "kind") ? opt_string(sc, ev.kind) : sc.skip();
        break;
      case 'w':
        good = key_is(k, "wait_on_stream")                      ? id_value(sc, ev.wait_stream)
               : key_is(k, "wait_on_cuda_event_record_corr_id") ? id_value(sc, ev.wait_record_corr)
                                                                : sc.skip();
        break;
      case 'A':
        good = key_is(k, "Addr") ? id_value(sc, ev.mem_addr) : sc.skip();
        break;
      case 'B':
        good = key_is(k, "Bytes") ? id_value(sc, ev.mem_bytes) : sc.skip();
        break;
      case 'T':
        good = key_is(k, "Total Allocated")  ? id_value(sc, ev.mem_total_alloc)
               : key_is(k, "Total Reserved") ? id_value(sc, ev.mem_total_res)
                                             : sc.skip();
        break;
      case 'D':
        good = key_is(k, "Device Id")     ? id_value(sc, ev.mem_device)
               : key_is(k, "Device Type") ? id_value(sc, ev.mem_device_type)
                                          : sc.skip();
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

bool EventParser::fast_object(const char* p, const char* end, Event& ev, const char** stop, bool lean) const {
  Scanner sc(p, end);
  if (!sc.eat('{')) return false;
  if (sc.eat('}')) {
    *stop = sc.pos();
    return true;
  }
  for (;;) {
    std::string_view k;
    if (!sc.string(k) || !sc.eat(':')) return false;
    bool good = true;
    switch (k.size()) {
      case 2:
        if (key_is(k, "ph")) {
          std::string_view ph;
          good = sc.peek() == '"' && sc.string(ph);
          ev.ph = ph.size() == 1 ? ph[0] : '?';
        } else if (key_is(k, "ts")) {
          good = time_value(sc, ev.ts);
          ev.has_ts = good;
        } else if (key_is(k, "id")) {
          good = id_value(sc, ev.id);
        } else if (key_is(k, "bp")) {
          good = sc.peek() == '"' && sc.string(ev.flow_bp);
        } else {
          good = sc.skip();
        }
        break;
      case 3:
        if (key_is(k, "cat"))
          good = sc.peek() == '"' && sc.string(ev.cat);
        else if (key_is(k, "pid"))
          good = id_value(sc, ev.pid);
        else if (key_is(k, "tid"))
          good = id_value(sc, ev.tid);
        else if (key_is(k, "dur")) {
          good = time_value(sc, ev.dur);
          ev.has_dur = good;
        } else
          good = sc.skip();
        break;
      case 4:
        if (key_is(k, "name"))
          good = opt_string(sc, ev.name);
        else if (key_is(k, "args"))
          good = sc.peek() == '{' && read_fast_args(sc, ev);
        else
          good = sc.skip();
        break;
      default:
        good = sc.skip();
    }
    if (!good || !sc.ok()) return false;
    // Lean reading: once phase, category and name are known, a dropped event is not read on.
    if (lean && ev.ph != 0 && !ev.cat.empty() && (ev.ph != 'X' || !ev.name.empty()) &&
        lean_drops(ev.ph, ev.cat, ev.name)) {
      ev.lean_skip = true;
      *stop = nullptr;
      return true;
    }
    if (sc.eat(',')) continue;
    if (sc.eat('}')) break;
    return false;
  }
  *stop = sc.pos();
  return sc.ok();
}

bool EventParser::fast_read(std::string_view json, Event& ev) const {
  const char* end = json.data() + json.size();
  const char* stop = nullptr;
  if (!fast_object(json.data(), end, ev, &stop, keep_cpu_op_ != nullptr || skip_flows_)) return false;
  if (ev.lean_skip) return true;
  // Nothing but blanks may follow the object inside the event.
  while (stop < end && (*stop == ' ' || *stop == '\n' || *stop == '\r' || *stop == '\t')) ++stop;
  return stop == end;
}

size_t EventParser::parse_at(const char* p, const char* end, uint64_t offset) {
  if (!fast_path_enabled()) return 0;
  Event ev;
  const char* stop = nullptr;
  const bool lean = keep_cpu_op_ != nullptr || skip_flows_;
  if (!fast_object(p, end, ev, &stop, lean) || !stop) return 0;
  // Lean reading drops this event: let the splitter cut it and parse() skip it unread.
  if (lean && lean_drops(ev.ph, ev.cat, ev.name)) return 0;
  ++parsed_;
  emit(ev, offset);
  return static_cast<size_t>(stop - p);
}

}  // namespace goblin::trace::kineto
