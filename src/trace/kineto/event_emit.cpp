// What each parsed Kineto event becomes in the Timeline (EventParser::emit and the rows it
// pushes): the reading of one event's JSON is event_parser.cpp's job, this file's is where its
// fields go — kernels, copies, CPU ops, runtime calls, flows, collectives, memory events.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/decimal.h"
#include "core/limits.h"
#include "model/profiler_step.h"
#include "model/runtime_call.h"
#include "trace/kineto/event_parser.h"
#include "trace/kineto/event_values.h"
#include "trace/kineto/kineto.h"

namespace goblin::trace::kineto {

using namespace detail;

namespace {

const char* skip_ws(const char* p, const char* e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  return p;
}

// A user annotation's Input Dims: a JSON list of shapes, each a list of non-negative integers
// whose product is at most limits::kMaxTensorElements (the roofline multiplies them into a
// collective's message size). The number of shapes, or -1 with `why` set.
int64_t shape_list(std::string_view t, const char*& why) {
  const char *p = skip_ws(t.data(), t.data() + t.size()), *e = t.data() + t.size();
  auto fail = [&](const char* w) {
    why = w;
    return int64_t{-1};
  };
  constexpr const char* kNotShapes = "Input Dims is not a list of shapes";
  if (p == e || *p != '[') return fail(kNotShapes);
  p = skip_ws(p + 1, e);
  int64_t n = 0;
  while (p < e && *p != ']') {
    if (n > 0) {
      if (*p != ',') return fail(kNotShapes);
      p = skip_ws(p + 1, e);
    }
    if (p == e || *p != '[') return fail(kNotShapes);
    p = skip_ws(p + 1, e);
    uint64_t elements = 1;
    for (int d = 0; p < e && *p != ']'; ++d) {
      if (d > 0) {
        if (*p != ',') return fail(kNotShapes);
        p = skip_ws(p + 1, e);
      }
      uint64_t v = 0;
      const char* digits = p;
      for (; p < e && *p >= '0' && *p <= '9'; ++p) {
        v = v * 10 + static_cast<uint64_t>(*p - '0');
        if (v > limits::kMaxTensorElements) return fail("an Input Dims size is larger than 2^48");
      }
      if (p == digits || (p < e && (*p == '.' || *p == 'e' || *p == 'E')))
        return fail("an Input Dims size is not a non-negative integer");
      if (v != 0 && elements > limits::kMaxTensorElements / v)
        return fail("an Input Dims shape has more than 2^48 elements");
      elements *= v;
      p = skip_ws(p, e);
    }
    if (p == e) return fail(kNotShapes);
    p = skip_ws(p + 1, e);
    ++n;
  }
  if (p == e || skip_ws(p + 1, e) != e) return fail(kNotShapes);
  return n;
}

// A user annotation's Input type: a JSON list of strings without escapes (type names: "float",
// "c10::BFloat16", "" for a non-tensor argument). Their number, or -1.
int64_t name_list(std::string_view t) {
  const char *p = skip_ws(t.data(), t.data() + t.size()), *e = t.data() + t.size();
  if (p == e || *p != '[') return -1;
  p = skip_ws(p + 1, e);
  int64_t n = 0;
  while (p < e && *p != ']') {
    if (n > 0) {
      if (*p != ',') return -1;
      p = skip_ws(p + 1, e);
    }
    if (p == e || *p != '"') return -1;
    for (++p; p < e && *p != '"'; ++p)
      if (*p == '\\' || static_cast<unsigned char>(*p) < 0x20) return -1;
    if (p == e) return -1;
    p = skip_ws(p + 1, e);
    ++n;
  }
  if (p == e || skip_ws(p + 1, e) != e) return -1;
  return n;
}

}  // namespace

// A CPU user annotation's recorded tensors (AnnotationTable::input_dims / input_types): kept only
// well-formed, as the roofline sizes collectives from them; otherwise the row is kept without them
// and a folded warning says why.
void EventParser::annotation_args(const Event& ev, AnnotationRow& a, uint64_t offset) {
  if (ev.input_dims.empty() && ev.input_types.empty()) return;
  const char* why = nullptr;
  if (ev.input_dims.size() > limits::kMaxNameBytes || ev.input_types.size() > limits::kMaxNameBytes) {
    why = "longer than goblin keeps (64 KiB)";
  } else {
    const int64_t dims = ev.input_dims.empty() ? -2 : shape_list(ev.input_dims, why);
    const int64_t types = ev.input_types.empty() ? -2 : name_list(ev.input_types);
    if (types == -1)
      why = "Input type is not a list of type names";
    else if (dims >= 0 && types >= 0 && dims != types)
      why = "Input Dims and Input type list different numbers of arguments";
  }
  if (why) {
    tl_.warn(W::kineto_bad_annotation_args,
             fmt::format("kept user annotations without their Input Dims / Input type: {}", why), path_,
             static_cast<int64_t>(offset));
    return;
  }
  if (!ev.input_dims.empty()) a.input_dims = tl_.strings.intern(ev.input_dims);
  if (!ev.input_types.empty()) a.input_types = tl_.strings.intern(ev.input_types);
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
  ++skipped_.memory_instants;  // rows read (the reader's note counts them); a skipped one warned above
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
      r.is_sync = c == Cat::Sync || is_sync_call(ev.name);
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
      if (c == Cat::CpuOp && is_profiler_step(ev.name)) {
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
        annotation_args(ev, a, offset);
      }
      tl_.annotations.push(a);
      return;
    }
    default:
      return;
  }
}

}  // namespace goblin::trace::kineto
