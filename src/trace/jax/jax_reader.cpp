// JAX profiler traces: the Chrome-trace JSON that jax.profiler.trace(..., create_perfetto_trace=True)
// (or XProf's trace viewer) writes as plugins/profile/<run>/<host>.trace.json.gz.
//
// Writer: tsl/profiler/convert/trace_container / TraceContainerToJson (openxla/xla): the document
// is {"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[...]}; every
// process ("device": "/device:GPU:0", "/host:CPU") and thread ("resource": "Stream #14(...)",
// "python3") is named by "M" events first, then one "X" event per XEvent with ts/dur in µs (ns
// precision as decimals) and every arg written as a JSON string, then a closing {}. On the GPU
// device, CUPTI activity: kernels (args kernel_details "regs:N static_shared:N dynamic_shared:N
// grid:x,y,z block:x,y,z", correlation_id, hlo_module, hlo_op, cuda_graph_id), memcpys
// (memcpy_details "... size:N"), memsets (Memset_details "... num_bytes:N"). On the host: CUDA
// API calls carrying the same correlation_id, JAX/PjRt/XLA work (PjitFunction(step),
// jit_step:XLA GPU module, command_buffer_1, compiler passes), Python frames ("$file:line fn",
// the python tracer) and the user's jax.profiler.TraceAnnotation / StepTraceAnnotation ranges
// (the latter with args.step_num: XProf's step marker).
//
// Mapping: kernels/memcpys/memsets → gpu_ops (device from "/device:GPU:N", stream = tid);
// host events with a correlation_id → runtime rows (is_driver for the driver API cu*);
// StepTraceAnnotation(name, step_num=N) → annotation ProfilerStep#N (the step name goblin's step
// detection keys on, analysis/steps.h); "$..." frames → python-function CPU ops; other host
// events → CPU ops. XProf's derived device lines (a GPU thread not named "Stream ...", e.g.
// "XLA Ops", "XLA Modules", "Steps", written by the trace viewer's own conversion) repeat the
// kernels' time, so they become GPU-side annotations, never GPU ops.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/profiler_step.h"
#include "model/runtime_call.h"
#include "model/warnings.h"
#include "trace/jax/jax.h"
#include "trace/kineto/trace_splitter.h"

namespace goblin::trace {

namespace {

using kineto::TraceSplitter;
namespace dom = simdjson::dom;

bool has(std::string_view p, std::string_view needle) { return p.find(needle) != std::string_view::npos; }

std::optional<int64_t> to_int(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// An integer field written as a number or (XProf's args) as a string.
std::optional<int64_t> int_of(dom::element e) {
  int64_t i = 0;
  if (!e.get_int64().get(i)) return i;
  uint64_t u = 0;
  if (!e.get_uint64().get(u)) return u > static_cast<uint64_t>(INT64_MAX) ? std::nullopt : std::optional<int64_t>(u);
  std::string_view s;
  if (!e.get_string().get(s)) return to_int(s);
  return std::nullopt;
}

std::optional<double> double_of(dom::element e) {
  double d = 0;
  if (!e.get_double().get(d)) return d;
  int64_t i = 0;
  if (!e.get_int64().get(i)) return static_cast<double>(i);
  return std::nullopt;
}

// "key:value" of XProf's space-separated details strings ("regs:16 grid:33,1,1 size:4").
std::string_view detail(std::string_view details, std::string_view key) {
  size_t at = 0;
  while ((at = details.find(key, at)) != std::string_view::npos) {
    const bool starts = at == 0 || details[at - 1] == ' ';
    if (starts && at + key.size() < details.size() && details[at + key.size()] == ':') {
      size_t b = at + key.size() + 1, e = details.find(' ', b);
      return details.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b);
    }
    at += key.size();
  }
  return {};
}

Dim3 dim3_of(std::string_view s) {
  Dim3 d{0, 0, 0};
  for (int i = 0; i < 3 && !s.empty(); ++i) {
    size_t c = s.find(',');
    auto v = to_int(s.substr(0, c));
    if (v && *v >= 0 && *v <= UINT32_MAX) d[i] = static_cast<uint32_t>(*v);
    s = c == std::string_view::npos ? std::string_view{} : s.substr(c + 1);
  }
  return d;
}

CopyKind copy_kind_of(std::string_view name) {
  if (has(name, "H2D") || has(name, "HtoD")) return CopyKind::HtoD;
  if (has(name, "D2H") || has(name, "DtoH")) return CopyKind::DtoH;
  if (has(name, "D2D") || has(name, "DtoD")) return CopyKind::DtoD;
  if (has(name, "P2P") || has(name, "PtoP")) return CopyKind::PtoP;
  if (has(name, "H2H") || has(name, "HtoH")) return CopyKind::HtoH;
  return CopyKind::Unknown;
}

// 2^62 ns: times past it are damage (Timeline::validate refuses them too).
constexpr double kMaxUs = 4.6e15;

class Reader final : public TraceSplitter::Handler {
 public:
  Reader(Timeline& tl, std::string path)
      : tl_(tl), path_(std::move(path)), rt0_(tl.runtime.size()), cpu0_(tl.cpu_ops.size()) {}

  void on_event(std::string_view json, uint64_t offset) override {
    dom::element e;
    if (parser_.parse(json.data(), json.size(), false).get(e) || !e.is_object())
      return damaged("not a JSON object", offset);
    dom::object o = e.get_object().value_unsafe();
    if (o.size() == 0) return;  // the writer's closing {}
    std::string_view ph;
    if (o["ph"].get_string().get(ph)) return damaged("no \"ph\"", offset);
    auto pid = o["pid"].error() ? std::nullopt : int_of(o["pid"].value_unsafe());
    if (!pid) return damaged("no integer \"pid\"", offset);
    std::optional<int64_t> tid = o["tid"].error() ? std::nullopt : int_of(o["tid"].value_unsafe());
    std::string_view name;
    if (o["name"].get_string().get(name)) return damaged("no string \"name\"", offset);
    dom::object args;
    const bool has_args = !o["args"].get_object().get(args);
    if (ph == "M") return on_metadata(*pid, tid, name, has_args ? &args : nullptr);
    if (ph != "X") {
      ++other_phases_;
      return;
    }
    auto ts = o["ts"].error() ? std::nullopt : double_of(o["ts"].value_unsafe());
    auto dur = o["dur"].error() ? std::optional<double>(0.0) : double_of(o["dur"].value_unsafe());
    if (!ts || !dur || !std::isfinite(*ts) || !std::isfinite(*dur) || std::fabs(*ts) > kMaxUs || *dur < 0 ||
        *dur > kMaxUs)
      return damaged("no finite \"ts\"/\"dur\" in range", offset);
    const int64_t start = std::llround(*ts * 1000.0), len = std::llround(*dur * 1000.0);
    auto arg = [&](std::string_view k) -> std::optional<dom::element> {
      if (!has_args) return std::nullopt;
      dom::element v;
      if (args[k].get(v)) return std::nullopt;
      return v;
    };
    auto arg_str = [&](std::string_view k) -> std::string_view {
      auto v = arg(k);
      std::string_view s;
      return v && !v->get_string().get(s) ? s : std::string_view{};
    };
    auto arg_int = [&](std::string_view k) -> int64_t {
      auto v = arg(k);
      auto i = v ? int_of(*v) : std::nullopt;
      return i ? *i : kNone;
    };

    auto dev = devices_.find(*pid);
    if (dev == devices_.end() && !hosts_.count(*pid)) {
      // No process_name yet: the writer names every process first, so this is another writer
      // or an edited file. Read it as host work, said once.
      hosts_.insert({*pid, true});
      tl_.warn(WarningId::jax_unnamed_process,
               fmt::format("jax: process {} has no process_name; its events are read as host events", *pid), path_,
               static_cast<int64_t>(offset));
    }
    if (dev != devices_.end()) {
      const int64_t stream = tid.value_or(kNone);
      auto tn = gpu_thread_names_.find({*pid, stream});
      if (tn != gpu_thread_names_.end() && !tn->second.starts_with("Stream")) {
        AnnotationRow a;  // a derived line (XLA Ops / XLA Modules / Steps): time already in the kernels
        a.start_ns = start, a.dur_ns = len, a.name = tl_.strings.intern(name), a.on_gpu = true;
        a.device = dev->second, a.stream = stream;
        tl_.annotations.push(a);
        return;
      }
      GpuOpRow g;
      g.start_ns = start, g.dur_ns = len, g.name = tl_.strings.intern(name);
      g.device = dev->second, g.stream = stream;
      g.correlation = arg_int("correlation_id");
      if (auto m = arg_str("memcpy_details"); !m.empty() || name.starts_with("Memcpy")) {
        g.kind = GpuOpKind::Memcpy;
        g.copy_kind = copy_kind_of(name);
        if (auto b = to_int(detail(m, "size"))) g.bytes = *b;
      } else if (auto s = arg_str("Memset_details"); !s.empty() || name.starts_with("Memset")) {
        g.kind = GpuOpKind::Memset;
        if (auto b = to_int(detail(s, "num_bytes"))) g.bytes = *b;
      } else {
        g.kind = GpuOpKind::Kernel;
        std::string_view k = arg_str("kernel_details");
        g.grid = dim3_of(detail(k, "grid"));
        g.block = dim3_of(detail(k, "block"));
        if (auto r = to_int(detail(k, "regs")); r && *r >= 0 && *r < (1 << 20)) g.registers_per_thread = int32_t(*r);
        auto st = to_int(detail(k, "static_shared")), dy = to_int(detail(k, "dynamic_shared"));
        if (st || dy) g.shared_mem_bytes = st.value_or(0) + dy.value_or(0);
        g.graph_id = arg_int("cuda_graph_id");
      }
      if (auto op = arg_str("hlo_op"); !op.empty()) hlo_ops_.emplace_back(tl_.gpu_ops.size(), tl_.strings.intern(op));
      tl_.gpu_ops.push(g);
      return;
    }
    if (auto step = arg("step_num")) {
      // StepTraceAnnotation: XProf's step marker.
      auto n = int_of(*step);
      AnnotationRow a;
      a.start_ns = start, a.dur_ns = len, a.pid = *pid, a.tid = tid.value_or(kNone);
      a.name = tl_.strings.intern(n ? fmt::format("{}{}", kProfilerStepPrefix, *n) : std::string(name));
      tl_.annotations.push(a);
      return;
    }
    if (int64_t corr = arg_int("correlation_id"); corr != kNone) {
      RuntimeRow r;
      r.start_ns = start, r.dur_ns = len, r.name = tl_.strings.intern(name), r.pid = *pid;
      r.tid = tid.value_or(kNone), r.correlation = corr;
      r.is_driver = name.starts_with("cu") && !name.starts_with("cuda");
      r.is_sync = is_sync_call(name);
      tl_.runtime.push(r);
      return;
    }
    CpuOpRow c;
    c.start_ns = start, c.dur_ns = len, c.pid = *pid, c.tid = tid.value_or(kNone);
    const bool frame = name.starts_with("$");
    c.kind = frame ? CpuOpKind::PythonFunction : CpuOpKind::Op;
    c.name = tl_.strings.intern(frame ? name.substr(1) : name);
    tl_.cpu_ops.push(c);
  }

  void on_top_level(std::string_view, std::string_view, uint64_t) override {}
  void on_note(std::string message, uint64_t offset) override {
    tl_.warn(WarningId::kineto_trailing_bytes, std::move(message), path_, static_cast<int64_t>(offset));
  }

  void finish() {
    link_xla_ops();
    if (other_phases_ > 0)
      tl_.warn(
          WarningId::kineto_unmodelled_phase,
          fmt::format("jax: {} events of a phase other than complete ('X') or metadata ('M') skipped", other_phases_),
          path_);
  }

 private:
  void on_metadata(int64_t pid, std::optional<int64_t> tid, std::string_view what, const dom::object* args) {
    std::string_view n;
    if (!args || (*args)["name"].get_string().get(n)) return;  // sort indexes
    if (what == "process_name") {
      // "/device:GPU:0" (XLA's device names; TPUs are "/device:TPU:0"), "/host:CPU".
      if (n.starts_with("/device:")) {
        size_t colon = n.rfind(':');
        auto id = to_int(n.substr(colon + 1));
        const int32_t d = id && *id >= 0 && *id < (1 << 20) ? int32_t(*id) : int32_t(devices_.size());
        if (devices_.insert({pid, d}).second) {
          DeviceInfo info;
          info.id = d;
          bool known = false;
          for (const auto& x : tl_.meta.devices) known |= x.id == d;
          if (!known) tl_.meta.devices.push_back(info);
        }
      } else {
        hosts_.insert({pid, true});
      }
    } else if (what == "thread_name" && tid && devices_.count(pid)) {
      gpu_thread_names_[{pid, *tid}] = std::string(n.substr(0, 256));
    }
  }

  // A kernel's XLA op (args.hlo_op: "pallas_call.1", "command_buffer_1", "loop_add_fusion") ran
  // on the host as an event of that name enclosing the launch call that carries the kernel's
  // correlation id. That host event becomes the kernel's launching CPU op (one fresh External id
  // per host event, shared with its kernels), so taxonomy rules on the CPU op (Pallas) and
  // per-op attribution see it.
  void link_xla_ops() {
    if (hlo_ops_.empty()) return;
    std::map<int64_t, size_t> launch;  // correlation → runtime row
    for (size_t i = rt0_; i < tl_.runtime.size(); ++i) launch.emplace(tl_.runtime.correlation[i], i);
    std::map<std::pair<int64_t, StrId>, std::vector<size_t>> ops;  // (tid, name) → CPU-op rows
    for (size_t i = cpu0_; i < tl_.cpu_ops.size(); ++i) ops[{tl_.cpu_ops.tid[i], tl_.cpu_ops.name[i]}].push_back(i);
    for (auto& [key, rows] : ops)
      std::sort(rows.begin(), rows.end(),
                [&](size_t a, size_t b) { return tl_.cpu_ops.start_ns[a] < tl_.cpu_ops.start_ns[b]; });
    int64_t next_id = 1;
    for (size_t i = 0; i < tl_.cpu_ops.size(); ++i)
      if (tl_.cpu_ops.external_id[i] != kNone) next_id = std::max(next_id, tl_.cpu_ops.external_id[i] + 1);
    for (auto [row, op] : hlo_ops_) {
      auto l = launch.find(tl_.gpu_ops.correlation[row]);
      if (l == launch.end()) continue;
      auto c = ops.find({tl_.runtime.tid[l->second], op});
      if (c == ops.end()) continue;
      // The last host event of that name starting at or before the launch, if it encloses it.
      const int64_t at = tl_.runtime.start_ns[l->second];
      const auto& rows = c->second;
      auto it = std::upper_bound(rows.begin(), rows.end(), at,
                                 [&](int64_t t, size_t r) { return t < tl_.cpu_ops.start_ns[r]; });
      if (it == rows.begin()) continue;
      const size_t k = *(it - 1);
      if (tl_.cpu_ops.end_ns(k) < at) continue;
      if (tl_.cpu_ops.external_id[k] == kNone) tl_.cpu_ops.external_id[k] = next_id++;
      tl_.gpu_ops.external_id[row] = tl_.cpu_ops.external_id[k];
    }
  }

  void damaged(const char* why, uint64_t offset) {
    tl_.warn(WarningId::jax_damaged_event, fmt::format("jax: an event could not be read ({}) and was skipped", why),
             path_, static_cast<int64_t>(offset));
  }

  Timeline& tl_;
  std::string path_;
  dom::parser parser_;
  std::map<int64_t, int32_t> devices_;  // pid → device number
  std::map<int64_t, bool> hosts_;
  std::map<std::pair<int64_t, int64_t>, std::string> gpu_thread_names_;
  int64_t other_phases_ = 0;
  size_t rt0_, cpu0_;                              // rows before this read
  std::vector<std::pair<size_t, StrId>> hlo_ops_;  // kernel row → its XLA op
};

}  // namespace

bool sniff_jax(std::string_view p) {
  size_t i = 0;
  while (i < p.size() && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
  if (i >= p.size() || p[i] != '{') return false;
  const std::string_view head = p.substr(i, 512);
  // XProf's writer opens with displayTimeUnit "ns" and the highres-ticks metadata (JAX's
  // perfetto_trace.json.gz is the same document re-dumped by Python without "metadata"); its
  // processes are XLA device and host names. A PyTorch/Kineto trace has neither up front.
  return (has(head, "\"highres-ticks\"") || has(head, "\"displayTimeUnit\"")) && has(p, "\"traceEvents\"") &&
         (has(p, "\"/device:") || has(p, "\"/host:"));
}

Status read_jax_source(ByteSource& src, Timeline& tl, const ReadOptions& opt) {
  const std::string path = src.path();
  Reader reader(tl, path);
  TraceSplitter splitter(reader, path);
  const size_t chunk = std::max<size_t>(opt.chunk_bytes, 1);
  Status status;
  for (;;) {
    char* dst = splitter.prepare(chunk);
    auto r = src.read(dst, chunk);
    if (!r) {
      status = r.error();
      break;
    }
    if (*r == 0) break;
    if (Status s = splitter.commit(*r); !s.ok()) {
      status = s;
      break;
    }
  }
  if (status.ok()) status = splitter.finish();
  reader.finish();
  return status;
}

Status read_jax(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto src = open_source(path, opt.io);
  if (!src) return src.error();
  return read_jax_source(**src, tl, opt);
}

}  // namespace goblin::trace
