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

void EventParser::push_collective(const Event& ev, int64_t dur, bool on_gpu, int32_t device, int64_t stream) {
  CollectiveRow c;
  c.start_ns = ev.ts;
  c.dur_ns = dur;
  c.on_gpu = on_gpu;
  c.device = device;
  c.stream = stream;
  c.correlation = ev.correlation;
  c.external_id = ev.external_id;
  c.collective = tl_.strings.intern(ev.coll_name);
  if (!ev.coll_dtype.empty()) c.dtype = tl_.strings.intern(ev.coll_dtype);
  if (!ev.pg_name.empty()) c.group_name = tl_.strings.intern(ev.pg_name);
  if (!ev.pg_desc.empty()) c.group_desc = tl_.strings.intern(ev.pg_desc);
  c.in_nelems = ev.in_nelems;
  c.out_nelems = ev.out_nelems;
  c.group_size = ev.group_size;
  c.seq = ev.coll_seq;
  tl_.collectives.push(c);
}

// A `[memory]` event becomes a row when it says how many bytes, on which device, and the
// allocator's total after it; one that does not is a warning with its offset (never a silent
// zero). Total Reserved and Addr are kept when present (old traces lack Total Reserved).
void EventParser::push_memory(const Event& ev, uint64_t offset) {
  ++skipped_.memory_instants;
  const char* missing = !ev.has_ts                    ? "\"ts\""
                        : ev.mem_bytes == kNone       ? "args \"Bytes\""
                        : ev.mem_total_alloc == kNone ? "args \"Total Allocated\""
                        : ev.mem_device_type == kNone ? "args \"Device Type\""
                        : ev.mem_total_alloc < 0      ? "a non-negative \"Total Allocated\""
                        : ev.mem_total_res < kNone    ? "a non-negative \"Total Reserved\""
                                                      : nullptr;
  if (missing) {
    tl_.warn(W::kineto_damaged_event,
             fmt::format("skipped a [memory] event without {} (profile_memory allocation events need Bytes, Total "
                         "Allocated and Device Type as integers)",
                         missing),
             path_, static_cast<int64_t>(offset));
    return;
  }
  MemoryEventRow r;
  r.ts_ns = ev.ts;
  r.device_type = static_cast<int32_t>(std::clamp<int64_t>(ev.mem_device_type, INT32_MIN, INT32_MAX));
  r.device =
      static_cast<int32_t>(std::clamp<int64_t>(ev.mem_device == kNone ? -1 : ev.mem_device, INT32_MIN, INT32_MAX));
  r.addr = ev.mem_addr;
  r.bytes = ev.mem_bytes;
  r.total_allocated = ev.mem_total_alloc;
  r.total_reserved = ev.mem_total_res;
  r.pid = ev.pid;
  r.tid = ev.tid;
  tl_.memory_events.push(r);
}

bool EventParser::lean_drops(char ph, std::string_view cat, std::string_view name) const {
  if (skip_flows_ && (ph == 's' || ph == 'f')) return true;
  if (keep_cpu_op_ && ph == 'X' && (cat == "cpu_op" || cat == "python_function" || cat == "Operator"))
    return !(*keep_cpu_op_)(name);
  return false;
}

void EventParser::emit(const Event& ev, uint64_t offset) {
  if (ev.lean_skip || ((keep_cpu_op_ || skip_flows_) && lean_drops(ev.ph, ev.cat, ev.name))) {
    ++skipped_.ignored;
    return;
  }
  switch (ev.ph) {
    case 'X':
      break;
    case 's':
    case 'f': {
      Cat c = classify(ev.cat);
      if (c != Cat::Flow) {
        ++skipped_.ignored;
        return;
      }
      if (!ev.has_ts) {
        bad_event("flow event without \"ts\"", offset);
        return;
      }
      // Launch flows (cat "ac2g"; 2021 traces spell it "async", name "launch") repeat the
      // correlation id the launch and the kernel rows hold: counted (Timeline::meta.launch_flows),
      // not stored. Forward-backward flows link rows nothing else links: stored.
      if (ev.cat == "ac2g" || ev.cat == "async") {
        ++skipped_.launch_flows;
        return;
      }
      FlowRow r;
      r.id = ev.id;
      r.category = fwdbwd_;
      r.is_start = ev.ph == 's';
      r.ts_ns = ev.ts;
      r.pid = ev.pid;
      r.tid = ev.tid;
      tl_.flows.push(r);
      return;
    }
    case 'M':
      ++skipped_.metadata;
      return;
    case 'i':
    case 'I':
      if (ev.name == "[memory]")
        push_memory(ev, offset);
      else
        ++skipped_.other_instants;
      return;
    case 'C':
      ++skipped_.counters;
      return;
    case 't':
      ++skipped_.ignored;
      return;  // flow step: no modelled meaning
    case 0:
      bad_event("event has no \"ph\"", offset);
      return;
    default:
      ++skipped_.ignored;
      tl_.warn(W::kineto_unmodelled_phase,
               "skipped events with phase \"" + std::string(1, ev.ph) + "\" (Kineto writes complete 'X' events)", path_,
               static_cast<int64_t>(offset));
      return;
  }

  Cat c = classify(ev.cat);
  if (c == Cat::Ignored) {
    ++skipped_.ignored;
    return;
  }
  if (c == Cat::Other || c == Cat::None || c == Cat::Flow) {
    ++skipped_.ignored;
    tl_.warn(W::kineto_unmodelled_category,
             "skipped events of category \"" + std::string(ev.cat) + "\" (not modelled by goblin)", path_,
             static_cast<int64_t>(offset));
    return;
  }
  if (!ev.has_ts) {
    bad_event("\"ts\" is missing", offset);
    return;
  }
  if (ev.ts < min_ts_ns_) min_ts_ns_ = ev.ts;
  const int64_t dur = ev.has_dur ? ev.dur : 0;
  if (!ev.has_dur)
    tl_.warn(W::kineto_missing_dur, "complete event without \"dur\"; duration taken as 0", path_,
             static_cast<int64_t>(offset));
  const StrId name = tl_.strings.intern(ev.name);
  // GPU rows: device from args (else the pid, which Kineto sets to the device), stream from
  // args (else the tid: "stream 7" in 2021 traces).
  const int32_t device = static_cast<int32_t>(ev.device != kNone ? ev.device : ev.pid);
  const int64_t stream = ev.stream != kNone ? ev.stream : ev.tid;

  // MTIA device events: a DMA (args.direction) is a copy, event_record/event_wait are stream
  // markers (a wait is not work), anything else is an op the device ran: a kernel.
  if (c == Cat::MtiaDevice) {
    // Folded into one warning whose count is the number of device events.
    tl_.warn(W::kineto_not_modelled,
             "MTIA accelerator trace: busy/idle, steps and the kernel table come from its device events "
             "(mtia_ccp_events: ops as kernels, DMAs as copies); goblin's kernel taxonomy, MFU, roofline and "
             "GPU-specific advice are for NVIDIA and AMD GPUs and do not cover MTIA",
             path_, static_cast<int64_t>(offset));
    if (ev.name == "event_record" || ev.name == "event_wait") {
      ++skipped_.ignored;
      tl_.warn(W::kineto_not_modelled,
               "MTIA stream markers (event_record, event_wait) counted only: they mark or wait, they are not work",
               path_, static_cast<int64_t>(offset));
      return;
    }
    if (!ev.direction.empty()) {
      GpuOpRow r;
      r.kind = GpuOpKind::Memcpy;
      r.start_ns = ev.ts;
      r.dur_ns = dur;
      r.name = name;
      r.device = device;
      r.stream = stream;
      r.correlation = ev.correlation;
      r.bytes = ev.size;
      r.copy_kind = copy_kind_from(ev.direction);
      tl_.gpu_ops.push(r);
      return;
    }
    c = Cat::Kernel;
  }
  switch (c) {
    case Cat::Kernel: {
      GpuOpRow r;
      r.start_ns = ev.ts;
      r.dur_ns = dur;
      r.name = name;
      r.device = device;
      r.stream = stream;
      r.correlation = ev.correlation;
      r.external_id = ev.external_id;
      r.grid = ev.grid;
      r.block = ev.block;
      r.registers_per_thread = static_cast<int32_t>(ev.registers);
      r.shared_mem_bytes = ev.shared_mem;
      r.graph_id = ev.graph_id;
      tl_.gpu_ops.push(r);
      if (!ev.coll_name.empty()) push_collective(ev, dur, true, device, stream);
      return;
    }
    case Cat::Memcpy: {
      GpuOpRow r;
      r.kind = GpuOpKind::Memcpy;
      r.start_ns = ev.ts;
      r.dur_ns = dur;
      r.name = name;
      r.device = device;
      r.stream = stream;
      r.correlation = ev.correlation;
      r.external_id = ev.external_id;
      r.bytes = ev.bytes;
      r.copy_kind = copy_kind_from(ev.name);
      if (r.copy_kind == CopyKind::Unknown) r.copy_kind = copy_kind_from(ev.kind);  // ROCm: args.kind "HtoD"
      tl_.gpu_ops.push(r);
      return;
    }
    case Cat::Memset: {
      GpuOpRow r;
      r.kind = GpuOpKind::Memset;
      r.start_ns = ev.ts;
      r.dur_ns = dur;
      r.name = name;
      r.device = device;
      r.stream = stream;
      r.correlation = ev.correlation;
      r.external_id = ev.external_id;
      r.bytes = ev.bytes;
      tl_.gpu_ops.push(r);
      return;
    }
    case Cat::Runtime:
    case Cat::Driver:
    case Cat::Sync: {
      RuntimeRow r;
      r.start_ns = ev.ts;
      r.dur_ns = dur;
      r.name = name;
      r.pid = ev.pid;
      r.tid = ev.tid;
      r.correlation = ev.correlation;
      r.external_id = ev.external_id;
      r.cbid = static_cast<int32_t>(ev.cbid);
      // Kineto writes -1 where CUPTI did not say (Event Sync rows, waits on untracked events).
      r.wait_stream = ev.wait_stream >= 0 ? ev.wait_stream : kNone;
      r.wait_record_correlation = ev.wait_record_corr >= 0 ? ev.wait_record_corr : kNone;
      r.is_driver = c == Cat::Driver;
      r.is_sync = c == Cat::Sync || ev.name.find("Synchronize") != std::string_view::npos;
      tl_.runtime.push(r);
      return;
    }
    case Cat::CpuOp:
    case Cat::Python: {
      CpuOpRow r;
      r.start_ns = ev.ts;
      r.dur_ns = dur;
      r.name = name;
      r.pid = ev.pid;
      r.tid = ev.tid;
      r.external_id = ev.external_id;
      r.sequence_number = ev.sequence;
      r.kind = c == Cat::Python ? CpuOpKind::PythonFunction : CpuOpKind::Op;
      if (!ev.input_dims.empty()) r.input_dims = tl_.strings.intern(ev.input_dims);
      if (!ev.input_types.empty()) r.input_types = tl_.strings.intern(ev.input_types);
      if (!ev.concrete_inputs.empty()) r.concrete_inputs = tl_.strings.intern(ev.concrete_inputs);
      if (ev.python_id != kNone || ev.python_parent != kNone) {
        PythonFrameRow f;
        f.cpu_op = static_cast<int64_t>(tl_.cpu_ops.size());
        f.python_id = ev.python_id;
        f.python_parent_id = ev.python_parent;
        tl_.python_frames.push(f);
      }
      tl_.cpu_ops.push(r);
      if (!ev.coll_name.empty()) push_collective(ev, dur, false, kNone, kNone);
      // Older builds wrote ProfilerStep#N as a cpu_op; record it as an annotation too so step
      // detection sees steps the same way for every generation.
      if (c == Cat::CpuOp && ev.name.starts_with("ProfilerStep#")) {
        AnnotationRow a;
        a.start_ns = ev.ts;
        a.dur_ns = dur;
        a.name = name;
        a.pid = ev.pid;
        a.tid = ev.tid;
        a.external_id = ev.external_id;
        tl_.annotations.push(a);
      }
      return;
    }
    case Cat::Annotation:
    case Cat::GpuAnnotation: {
      AnnotationRow a;
      a.start_ns = ev.ts;
      a.dur_ns = dur;
      a.name = name;
      a.external_id = ev.external_id;
      if (c == Cat::GpuAnnotation) {
        a.on_gpu = true;
        a.device = device;
        a.stream = stream;
      } else {
        a.pid = ev.pid;
        a.tid = ev.tid;
      }
      tl_.annotations.push(a);
      return;
    }
    default:
      return;
  }
}

}  // namespace goblin::trace::kineto
