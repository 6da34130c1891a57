#include "trace/kineto/event_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>

#include "core/decimal.h"
#include "trace/kineto/event_values.h"
#include "trace/kineto/kineto.h"
#include "trace/kineto/trace_splitter.h"

namespace goblin::trace::kineto {

// The value readers and `od` (simdjson::ondemand) come from event_values.h.
using namespace detail;

EventParser::EventParser(Timeline& tl, std::string path, const ReadOptions* opt) : tl_(tl), path_(std::move(path)) {
  if (opt) {
    if (opt->keep_cpu_op) keep_cpu_op_ = &opt->keep_cpu_op;
    skip_flows_ = opt->skip_flows;
  }
  fwdbwd_ = tl_.strings.intern("fwdbwd");
}

void EventParser::rebind() {
  skipped_ = SkipCounts{};
  min_ts_ns_ = INT64_MAX;
  parsed_ = 0;
}

void EventParser::bad_event(const std::string& why, uint64_t offset) {
  ++skipped_.bad;
  tl_.warn(W::kineto_damaged_event, "skipped a damaged event: " + why, path_, static_cast<int64_t>(offset));
}

namespace {
// A string-valued arg goblin reads when it is a string (Kineto's collective metadata); any other
// type is left to check_unread.
Got read_opt_str(od::value& v, std::string_view& out, bool& known) {
  od::json_type t;
  if (v.type().get(t)) return Got::Bad;
  if (t != od::json_type::string) {
    known = false;
    return Got::Absent;
  }
  return v.get_string().get(out) ? Got::Bad : Got::Ok;
}
}  // namespace

bool EventParser::read_args(od::value& v, Event& ev, const char* doc_end, std::string& why) {
  od::object args;
  if (v.get_object().get(args)) {
    why = "\"args\" is not an object";
    return false;
  }
  for (auto fr : args) {
    od::field f;
    if (std::move(fr).get(f)) {
      why = "args are not valid JSON";
      return false;
    }
    std::string_view k = key_of(f, doc_end);
    od::value& val = f.value();
    Got g = Got::Absent;
    bool known = true;
    switch (k.empty() ? '\0' : k[0]) {
      case 'E':
        if (k == "External id")
          g = read_id(val, ev.external_id, why);
        else
          known = false;
        break;
      case 'e':
        if (k == "external id")
          g = read_id(val, ev.external_id, why);  // 2021 spelling
        else
          known = false;
        break;
      case 'c':
        if (k == "correlation")
          g = read_id(val, ev.correlation, why);
        else if (k == "cbid")
          g = read_id(val, ev.cbid, why);
        else
          known = false;
        break;
      case 'd':
        if (k == "device")
          g = read_id(val, ev.device, why);
        else if (k == "dtype")
          g = read_opt_str(val, ev.coll_dtype, known);
        else if (k == "direction")
          g = read_opt_str(val, ev.direction, known);
        else
          known = false;
        break;
      case 's':
        if (k == "stream")
          g = read_id(val, ev.stream, why);
        else if (k == "shared memory")
          g = read_id(val, ev.shared_mem, why);
        else if (k == "size")
          g = read_id(val, ev.size, why);
        else
          known = false;
        break;
      case 'S':
        if (k == "Sequence number")
          g = read_id(val, ev.sequence, why);
        else if (k == "Seq")
          g = read_id(val, ev.coll_seq, why);
        else
          known = false;
        break;
      case 'b':
        if (k == "bytes")
          g = read_id(val, ev.bytes, why);
        else if (k == "block")
          g = read_dim3(val, ev.block);
        else
          known = false;
        break;
      case 'r':
        if (k == "registers per thread")
          g = read_id(val, ev.registers, why);
        else
          known = false;
        break;
      case 'g':
        if (k == "grid") {
          // Inductor cpu_ops write grid as a string ("grid(100,)"): not a launch geometry.
          od::json_type t;
          if (val.type().get(t)) return false;
          if (t == od::json_type::array)
            g = read_dim3(val, ev.grid);
          else
            known = false;
        } else if (k == "graph id") {
          g = read_id(val, ev.graph_id, why);
        } else {
          known = false;
        }
        break;
      case 'P':
        if (k == "Python id")
          g = read_id(val, ev.python_id, why);
        else if (k == "Python parent id")
          g = read_id(val, ev.python_parent, why);
        else if (k == "Process Group Name")
          g = read_opt_str(val, ev.pg_name, known);
        else if (k == "Process Group Description")
          g = read_opt_str(val, ev.pg_desc, known);
        else
          known = false;
        break;
      case 'I':
        if (k == "Input Dims" || k == "Input dims")
          g = read_raw(val, ev.input_dims);
        else if (k == "Input type")
          g = read_raw(val, ev.input_types);
        else if (k == "In msg nelems")
          g = read_id(val, ev.in_nelems, why);
        else
          known = false;
        break;
      case 'O':
        if (k == "Out msg nelems")
          g = read_id(val, ev.out_nelems, why);
        else
          known = false;
        break;
      case 'G':
        if (k == "Group size")
          g = read_id(val, ev.group_size, why);
        else
          known = false;
        break;
      case 'C':
        if (k == "Concrete Inputs")
          g = read_raw(val, ev.concrete_inputs);
        else if (k == "Collective name")
          g = read_opt_str(val, ev.coll_name, known);
        else
          known = false;
        break;
      case 'A':
        if (k == "Addr")
          g = read_id(val, ev.mem_addr, why);
        else
          known = false;
        break;
      case 'B':
        if (k == "Bytes")
          g = read_id(val, ev.mem_bytes, why);
        else
          known = false;
        break;
      case 'T':
        if (k == "Total Allocated")
          g = read_id(val, ev.mem_total_alloc, why);
        else if (k == "Total Reserved")
          g = read_id(val, ev.mem_total_res, why);
        else
          known = false;
        break;
      case 'D':
        if (k == "Device Id")
          g = read_id(val, ev.mem_device, why);
        else if (k == "Device Type")
          g = read_id(val, ev.mem_device_type, why);
        else
          known = false;
        break;
      case 'k':
        if (k == "kind") {
          od::json_type t;
          if (val.type().get(t)) return false;
          if (t == od::json_type::string) {
            if (val.get_string().get(ev.kind)) return false;
          } else {
            known = false;
          }
        } else {
          known = false;
        }
        break;
      case 'w':
        // cuda_sync "Stream Wait Event" rows: which stream's event, recorded by which call.
        if (k == "wait_on_stream")
          g = read_id(val, ev.wait_stream, why);
        else if (k == "wait_on_cuda_event_record_corr_id")
          g = read_id(val, ev.wait_record_corr, why);
        else
          known = false;
        break;
      default:
        known = false;
    }
    if (!known && !check_unread(val, why)) return false;
    if (g == Got::Bad) {
      if (why.empty()) why = "arg \"" + std::string(k) + "\" has an unexpected type";
      return false;
    }
  }
  return true;
}

bool EventParser::read_event(std::string_view json, Event& ev, simdjson::error_code& err, std::string& why) {
  const char* doc_end = json.data() + json.size();
  od::document doc;
  err = parser_.iterate(json.data(), json.size(), json.size() + kSplitterPadding).get(doc);
  if (err) return false;
  od::object obj;
  if ((err = doc.get_object().get(obj))) {
    why = "traceEvents element is not an object";
    return false;
  }
  for (auto fr : obj) {
    od::field f;
    if ((err = std::move(fr).get(f))) return false;
    std::string_view k = key_of(f, doc_end);
    od::value& v = f.value();
    Got g = Got::Absent;
    bool known = true;
    if (k == "ph") {
      std::string_view ph;
      if ((err = read_str(v, ph, doc_end))) {
        why = "\"ph\" is not a string";
        return false;
      }
      ev.ph = ph.size() == 1 ? ph[0] : '?';
    } else if (k == "cat") {
      if ((err = read_str(v, ev.cat, doc_end))) {
        why = "\"cat\" is not a string";
        return false;
      }
    } else if (k == "name") {
      od::json_type t;
      if ((err = v.type().get(t))) return false;
      if (t == od::json_type::string) {
        if ((err = read_str(v, ev.name, doc_end))) return false;
      } else {
        known = false;
      }
    } else if (k == "pid") {
      g = read_id(v, ev.pid, why);
    } else if (k == "tid") {
      g = read_id(v, ev.tid, why);
    } else if (k == "ts") {
      g = read_time(v, ev.ts, why);
      ev.has_ts = g == Got::Ok;
    } else if (k == "dur") {
      g = read_time(v, ev.dur, why);
      ev.has_dur = g == Got::Ok;
    } else if (k == "id") {
      g = read_id(v, ev.id, why);
    } else if (k == "bp") {
      if ((err = v.get_string().get(ev.flow_bp))) return false;
    } else if (k == "args") {
      if (!read_args(v, ev, doc_end, why)) return false;
    } else {
      known = false;
    }
    if (!known && !check_unread(v, why)) return false;
    if (g == Got::Bad) {
      if (why.empty()) why = "field \"" + std::string(k) + "\" has an unexpected type";
      return false;
    }
  }
  return true;
}

namespace {
std::atomic<bool> g_fast_path{true};
}  // namespace

void set_fast_path_enabled(bool on) { g_fast_path.store(on, std::memory_order_relaxed); }
bool fast_path_enabled() { return g_fast_path.load(std::memory_order_relaxed); }

void EventParser::parse(std::string_view json, uint64_t offset) {
  Event ev;
  if (g_fast_path.load(std::memory_order_relaxed) && fast_read(json, ev)) {
    ++parsed_;
    emit(ev, offset);
    return;
  }
  ev = Event{};
  simdjson::error_code err = simdjson::SUCCESS;
  std::string why;
  if (!read_event(json, ev, err, why)) {
    if (err == simdjson::UTF8_ERROR) {
      why = "invalid UTF-8";
    } else if (why.empty()) {
      why = std::string("not valid JSON (") + simdjson::error_message(err) + ")";
    }
    bad_event(why, offset);
    return;
  }
  ++parsed_;
  emit(ev, offset);
}

}  // namespace goblin::trace::kineto
