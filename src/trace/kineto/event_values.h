// Internal to the Kineto reader: the category of an event and the readers of its values (ids,
// times, dims, strings) from simdjson's on-demand values. Inline because they run once per field
// of every event: the parser's hot loop (bench/bench_ingest measures it).
#pragma once
#include <simdjson.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "core/decimal.h"
#include "model/timeline.h"

namespace goblin::trace::kineto::detail {

namespace od = simdjson::ondemand;

enum class Cat : uint8_t {
  None,
  Kernel,
  Memcpy,
  Memset,
  Runtime,
  Driver,
  Sync,
  CpuOp,
  Python,
  Annotation,
  GpuAnnotation,
  Flow,
  // MTIA's device events (cat mtia_ccp_events: ops, DMAs, event markers on "MTIA N" streams),
  // read into the GPU-op table (docs/metrics.md § Other accelerators).
  MtiaDevice,
  Ignored,  // known categories goblin does not model (Trace spans, overhead, ...)
  Other,
};

// Current names (libkineto ActivityType.h) and the 2021 tb_plugin generation (capitalised).
inline Cat classify(std::string_view c) {
  switch (c.empty() ? '\0' : c[0]) {
    case 'k':
      return c == "kernel" ? Cat::Kernel : Cat::Other;
    case 'K':
      return c == "Kernel" ? Cat::Kernel : Cat::Other;
    case 'g':
      if (c == "gpu_memcpy") return Cat::Memcpy;
      if (c == "gpu_memset") return Cat::Memset;
      if (c == "gpu_user_annotation") return Cat::GpuAnnotation;
      return Cat::Other;
    case 'M':
      if (c == "Memcpy") return Cat::Memcpy;
      if (c == "Memset") return Cat::Memset;
      return Cat::Other;
    case 'c':
      if (c == "cpu_op") return Cat::CpuOp;
      if (c == "cuda_runtime") return Cat::Runtime;
      if (c == "cuda_driver") return Cat::Driver;
      if (c == "cuda_sync") return Cat::Sync;
      // cuda_profiler_range (CUPTI range profiler counters) is skipped with a warning, so a trace of
      // nothing else is named for what it is (trace/load.h require_gpu_activity).
      if (c == "cpu_instant_event" || c == "cuda_event") return Cat::Ignored;
      return Cat::Other;
    case 'R':
      return c == "Runtime" ? Cat::Runtime : Cat::Other;
    case 'O':
      return c == "Operator" ? Cat::CpuOp : Cat::Other;
    case 'p':
      return c == "python_function" ? Cat::Python : Cat::Other;
    case 'u':
      return c == "user_annotation" ? Cat::Annotation : Cat::Other;
    case 'a':
      return (c == "ac2g" || c == "async") ? Cat::Flow : Cat::Other;
    case 'f':
      return c == "fwdbwd" ? Cat::Flow : Cat::Other;
    case 'T':
      return c == "Trace" ? Cat::Ignored : Cat::Other;
    case 'o':
      return c == "overhead" ? Cat::Ignored : Cat::Other;
    case 'e':
      return c == "external_correlation" ? Cat::Ignored : Cat::Other;
    case 'm':
      if (c == "mtia_ccp_events") return Cat::MtiaDevice;
      if (c == "mtia_runtime") return Cat::Runtime;
      return Cat::Other;
    default:
      return Cat::Other;
  }
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// NaN / Infinity spelled as bare tokens are not JSON (pytorch/kineto#105 writes `inf` for a
// bandwidth when dur is 0); simdjson skips unread scalars without checking them, so look.
inline bool is_bad_number(std::string_view tok) {
  for (char c : tok) {
    if (c == 'n' || c == 'N' || c == 'i' || c == 'I') return true;
  }
  return false;
}

// Integer from number text: "123", "-1", "7.0" (rounded). nullopt beyond int64 (Comms Id is a
// uint64 that can exceed it), for fractions we cannot represent, and for non-numbers.
inline std::optional<int64_t> int_from_text(std::string_view t) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc() && p == t.data() + t.size()) return v;
  if (ec == std::errc::result_out_of_range) return std::nullopt;
  return parse_decimal_scaled(t, 0);
}

// Ids written as strings: "25738", "stream 7" (2021 tids), "0x1a" (ROCm). nullopt otherwise.
inline std::optional<int64_t> int_from_string(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    uint64_t u = 0;
    auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), u, 16);
    if (ec == std::errc() && p == s.data() + s.size() && u <= static_cast<uint64_t>(INT64_MAX))
      return static_cast<int64_t>(u);
    return std::nullopt;
  }
  if (auto v = int_from_text(s)) return v;
  // Trailing integer after a word: "stream 7".
  size_t sp = s.rfind(' ');
  if (sp != std::string_view::npos && sp + 1 < s.size()) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data() + sp + 1, s.data() + s.size(), v);
    if (ec == std::errc() && p == s.data() + s.size()) return v;
  }
  return std::nullopt;
}

enum class Got { Absent, Ok, Bad };

// Reads an id-like value: a JSON integer or a string holding one. `null` leaves it absent.
inline Got read_id(od::value& v, int64_t& out, std::string& why) {
  od::json_type t;
  if (v.type().get(t)) {
    why = "a value is not valid JSON";
    return Got::Bad;
  }
  if (t == od::json_type::number) {
    std::string_view tok;
    tok = trim(v.raw_json_token());
    if (is_bad_number(tok)) {
      why = "NaN or Infinity is not a JSON number";
      return Got::Bad;
    }
    if (auto x = int_from_text(tok)) {
      out = *x;
      return Got::Ok;
    }
    return Got::Absent;  // beyond int64: keep the event, drop the id
  }
  if (t == od::json_type::string) {
    std::string_view s;
    if (v.get_string().get(s)) return Got::Bad;
    if (auto x = int_from_string(s)) {
      out = *x;
      return Got::Ok;
    }
    return Got::Absent;
  }
  return Got::Absent;
}

// ts / dur: exact µs text → ns. Accepts numbers and (rocprof v1 style) quoted numbers.
inline Got read_time(od::value& v, int64_t& out, std::string& why) {
  od::json_type t;
  if (v.type().get(t)) {
    why = "a time value is not valid JSON (NaN or Infinity?)";
    return Got::Bad;
  }
  std::string_view tok;
  if (t == od::json_type::number) {
    tok = trim(v.raw_json_token());
  } else if (t == od::json_type::string) {
    if (v.get_string().get(tok)) return Got::Bad;
  } else {
    why = "ts/dur is not a number";
    return Got::Bad;
  }
  auto ns = parse_us_to_ns(tok);
  if (!ns) {
    why = is_bad_number(tok) ? "NaN or Infinity is not a JSON number" : "ts/dur is not a number that fits int64 ns";
    return Got::Bad;
  }
  out = *ns;
  return Got::Ok;
}

inline Got read_dim3(od::value& v, std::array<uint32_t, 3>& out) {
  od::array arr;
  if (v.get_array().get(arr)) return Got::Bad;
  size_t i = 0;
  for (auto el : arr) {
    uint64_t x = 0;
    if (el.get_uint64().get(x)) return Got::Bad;
    if (i < 3) out[i] = static_cast<uint32_t>(std::min<uint64_t>(x, UINT32_MAX));
    ++i;
  }
  return Got::Ok;
}

// Raw JSON text of an array/object-valued arg (Input Dims, Input type, Concrete Inputs).
inline Got read_raw(od::value& v, std::string_view& out) {
  od::json_type t;
  if (v.type().get(t)) return Got::Bad;
  if (t == od::json_type::array) {
    od::array a;
    if (v.get_array().get(a)) return Got::Bad;
    if (a.raw_json().get(out)) return Got::Bad;
    return Got::Ok;
  }
  if (t == od::json_type::object) {
    od::object o;
    if (v.get_object().get(o)) return Got::Bad;
    if (o.raw_json().get(out)) return Got::Bad;
    return Got::Ok;
  }
  out = trim(v.raw_json_token());
  return Got::Ok;
}

// Checks an arg goblin does not read, so damaged tokens are still noticed.
inline bool check_unread(od::value& v, std::string& why) {
  od::json_type t;
  if (v.type().get(t)) {
    why = "a value is not valid JSON (NaN or Infinity?)";
    return false;
  }
  if (t == od::json_type::number) {
    std::string_view tok;
    tok = v.raw_json_token();
    if (is_bad_number(trim(tok))) {
      why = "NaN or Infinity is not a JSON number";
      return false;
    }
  }
  return true;
}

inline CopyKind copy_kind_from(std::string_view s) {
  // MTIA's DMA directions (args.direction) are spelled out.
  if (s == "HOST_TO_DEVICE") return CopyKind::HtoD;
  if (s == "DEVICE_TO_HOST") return CopyKind::DtoH;
  if (s == "DEVICE_TO_DEVICE") return CopyKind::DtoD;
  if (s.find("HtoD") != std::string_view::npos) return CopyKind::HtoD;
  if (s.find("DtoH") != std::string_view::npos) return CopyKind::DtoH;
  if (s.find("DtoD") != std::string_view::npos) return CopyKind::DtoD;
  if (s.find("HtoH") != std::string_view::npos) return CopyKind::HtoH;
  if (s.find("PtoP") != std::string_view::npos) return CopyKind::PtoP;
  return CopyKind::Unknown;
}

// Key text of a field without unescaping (Kineto keys never contain escapes; a key that does
// simply matches nothing).
inline std::string_view key_of(od::field& f, const char* doc_end) {
  const char* r = f.key().raw();
  const void* q = std::memchr(r, '"', static_cast<size_t>(doc_end - r));
  if (!q) return {};
  return std::string_view(r, static_cast<size_t>(static_cast<const char*>(q) - r));
}

// String value as a view into the input when it has no escapes (the common case: no copy);
// otherwise unescaped by simdjson into the parser's buffer. Both live until the next event.
inline simdjson::error_code read_str(od::value& v, std::string_view& out, const char* doc_end) {
  od::raw_json_string raw;
  if (auto e = v.get_raw_json_string().get(raw)) return e;
  const char* p = raw.raw();
  const void* q = std::memchr(p, '"', static_cast<size_t>(doc_end - p));
  if (!q) return simdjson::TAPE_ERROR;
  size_t n = static_cast<size_t>(static_cast<const char*>(q) - p);
  if (std::memchr(p, '\\', n) == nullptr) {
    out = std::string_view(p, n);
    return simdjson::SUCCESS;
  }
  return v.get_string().get(out);
}

}  // namespace goblin::trace::kineto::detail
