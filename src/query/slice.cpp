#include "query/slice.h"

#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/steps.h"
#include "core/atomic_file.h"
#include "core/json.h"
#include "model/profiler_step.h"
#include "model/runtime_call.h"
#include "query/tables.h"

namespace goblin::query {

Result<std::pair<int64_t, int64_t>> parse_step_range(const std::string& s) {
  auto num = [](std::string_view t, int64_t& v) {
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    return ec == std::errc{} && p == t.data() + t.size() && !t.empty() && v >= 0;
  };
  const auto dash = s.find('-');
  int64_t a = 0, b = 0;
  std::string_view sv(s);
  const bool ok =
      dash == std::string::npos ? num(sv, a) && num(sv, b) : num(sv.substr(0, dash), a) && num(sv.substr(dash + 1), b);
  if (!ok || b < a)
    return make_error(ErrorKind::Usage, fmt::format("--steps wants N or FIRST-LAST (step numbers), got \"{}\"", s));
  return std::pair<int64_t, int64_t>{a, b};
}

Result<Window> slice_window(const Timeline& tl, const SliceSpec& spec) {
  Window w;
  if (spec.steps) {
    const analysis::StepDetection det = analysis::find_steps(tl);
    bool any = false;
    for (size_t i = 0; i < det.steps.size(); ++i) {
      const analysis::Step& s = det.steps[i];
      const int64_t n = step_number(s.name, i);
      if (n < spec.steps->first || n > spec.steps->second) continue;
      int64_t a = s.start_ns, b = s.end_ns;
      if (s.cpu_start_ns != kNone) a = std::min(a, s.cpu_start_ns);
      if (s.cpu_end_ns != kNone) b = std::max(b, s.cpu_end_ns);
      w.start_ns = any ? std::min(w.start_ns, a) : a;
      w.end_ns = any ? std::max(w.end_ns, b) : b;
      w.steps.push_back(s.name);
      any = true;
    }
    if (!any) {
      std::string have;
      for (size_t i = 0; i < det.steps.size() && i < 20; ++i)
        fmt::format_to(std::back_inserter(have), "{}{}", have.empty() ? "" : ", ", step_number(det.steps[i].name, i));
      return make_error(ErrorKind::NotFound,
                        fmt::format("no step numbered {}-{} in the trace (its steps: {})", spec.steps->first,
                                    spec.steps->second, have.empty() ? "none" : have));
    }
  } else {
    const int64_t origin = tl.span().first;
    w.start_ns = origin + static_cast<int64_t>(spec.from_ms.value_or(0) * 1e6);
    w.end_ns = spec.to_ms ? origin + static_cast<int64_t>(*spec.to_ms * 1e6) : tl.span().second + 1;
    if (w.end_ns <= w.start_ns)
      return make_error(ErrorKind::Usage, "--to must be after --from (ms after the trace's first event)");
  }
  return w;
}

namespace {

// Chrome-trace JSON string body (the string pool holds valid UTF-8; only quotes, backslashes and
// control characters need escapes).
void esc(fmt::memory_buffer& b, std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      b.push_back('\\');
      b.push_back(ch);
    } else if (c < 0x20) {
      fmt::format_to(std::back_inserter(b), "\\u{:04x}", c);
    } else {
      b.push_back(ch);
    }
  }
}

// ns → Kineto's µs with the ns kept exactly ("12.345").
void us(fmt::memory_buffer& b, int64_t ns) {
  if (ns < 0) {
    b.push_back('-');
    ns = -ns;
  }
  fmt::format_to(std::back_inserter(b), "{}.{:03}", ns / 1000, ns % 1000);
}

// Output through AtomicFile, plain or gzip.
class Sink {
 public:
  Sink(AtomicFile& f, bool gz) : f_(f) {
    if (gz) gz_ = gzdopen(::dup(f.fd()), "wb6");
  }
  bool gz_failed(bool want) const { return want && !gz_; }
  void flush_if_big(fmt::memory_buffer& b) {
    if (b.size() > (1u << 20)) flush(b);
  }
  void flush(fmt::memory_buffer& b) {
    if (b.size() == 0) return;
    if (gz_)
      ok_ = ok_ && gzwrite(gz_, b.data(), static_cast<unsigned>(b.size())) == static_cast<int>(b.size());
    else
      ok_ = ok_ && f_.write(std::string_view(b.data(), b.size()));
    b.clear();
  }
  bool close() {
    if (gz_ && gzclose(gz_) != Z_OK) ok_ = false;
    gz_ = nullptr;
    return ok_;
  }

 private:
  AtomicFile& f_;
  gzFile gz_ = nullptr;
  bool ok_ = true;
};

struct Writer {
  explicit Writer(Sink& s) : sink(s) {}
  fmt::memory_buffer b;
  Sink& sink;
  bool first = true;
  SliceStats st;
  // Starts an event object: the common fields.
  void begin(char ph, std::string_view cat, std::string_view name, int64_t pid, int64_t tid, int64_t ts) {
    b.append(std::string_view(first ? "\n{" : ",\n{"));
    first = false;
    fmt::format_to(std::back_inserter(b), "\"ph\":\"{}\",\"cat\":\"", ph);
    esc(b, cat);
    b.append(std::string_view("\",\"name\":\""));
    esc(b, name);
    fmt::format_to(std::back_inserter(b), "\",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
    us(b, ts);
    ++st.events;
  }
  void dur(int64_t d) {
    b.append(std::string_view(",\"dur\":"));
    us(b, d);
  }
  // Args: a list of ("key", value-as-JSON-text) pairs, absent ones skipped.
  bool args_open = false;
  void arg_raw(std::string_view k, std::string_view json) {
    b.append(std::string_view(args_open ? "," : ",\"args\":{"));
    args_open = true;
    b.push_back('"');
    esc(b, k);
    b.append(std::string_view("\":"));
    b.append(json);
  }
  void arg(std::string_view k, int64_t v) {
    if (v == kNone) return;
    arg_raw(k, fmt::format("{}", v));
  }
  void arg_str(std::string_view k, std::string_view v) {
    fmt::memory_buffer t;
    t.push_back('"');
    esc(t, v);
    t.push_back('"');
    arg_raw(k, std::string_view(t.data(), t.size()));
  }
  void end() {
    if (args_open) b.push_back('}');
    args_open = false;
    b.push_back('}');
    sink.flush_if_big(b);
  }
};

void write_one(Writer& w, const Timeline& tl, const Window& win, int64_t shift, bool merged, int64_t rank,
               const std::vector<std::string>& meta_events) {
  auto in = [&](int64_t t) { return t >= win.start_ns && t < win.end_ns; };
  auto gpu_pid = [&](int32_t dev) { return merged ? rank : static_cast<int64_t>(dev); };
  auto gpu_tid = [&](int32_t dev, int64_t stream) {
    return merged ? 1'000'000'000 + dev * 1'000'000 + stream : stream;
  };
  auto cpu_pid = [&](int64_t pid) { return merged ? rank : pid; };
  // Flow ids are per trace: merged ranks each get their own id space.
  auto flow_id = [&](int64_t id) { return merged ? (rank << 40) + id : id; };
  // Collective metadata: kernel rows by correlation (else start), CPU rows by (External id, start).
  std::unordered_map<int64_t, size_t> coll_gpu, coll_gpu_start;
  std::map<std::pair<int64_t, int64_t>, size_t> coll_cpu;
  const CollectiveTable& ct = tl.collectives;
  for (size_t i = 0; i < ct.size(); ++i) {
    if (!in(ct.start_ns[i])) continue;
    if (ct.on_gpu[i])
      (ct.correlation[i] != kNone ? coll_gpu[ct.correlation[i]] : coll_gpu_start[ct.start_ns[i]]) = i;
    else
      coll_cpu[{ct.external_id[i], ct.start_ns[i]}] = i;
  }
  auto coll_args = [&](size_t m) {
    if (ct.collective[m] != kNoStr) w.arg_str("Collective name", tl.str(ct.collective[m]));
    if (ct.dtype[m] != kNoStr) w.arg_str("dtype", tl.str(ct.dtype[m]));
    w.arg("In msg nelems", ct.in_nelems[m]);
    w.arg("Out msg nelems", ct.out_nelems[m]);
    w.arg("Group size", ct.group_size[m]);
    if (ct.group_name[m] != kNoStr) w.arg_str("Process Group Name", tl.str(ct.group_name[m]));
    if (ct.group_desc[m] != kNoStr) w.arg_str("Process Group Description", tl.str(ct.group_desc[m]));
    w.arg("Seq", ct.seq[m]);
  };
  // Launches kept, by correlation: the ac2g flow's start.
  std::unordered_map<int64_t, size_t> launch;
  const RuntimeTable& rt = tl.runtime;
  for (size_t i = 0; i < rt.size(); ++i) {
    if (!in(rt.start_ns[i])) continue;
    if (rt.correlation[i] != kNone) launch.emplace(rt.correlation[i], i);
    const bool sync_cat = rt.is_sync[i] && !is_sync_call(tl.str(rt.name[i]));
    w.begin('X', rt.is_driver[i] ? "cuda_driver" : (sync_cat ? "cuda_sync" : "cuda_runtime"), tl.str(rt.name[i]),
            cpu_pid(rt.pid[i]), rt.tid[i], rt.start_ns[i] + shift);
    w.dur(rt.dur_ns[i]);
    w.arg("correlation", rt.correlation[i]);
    w.arg("External id", rt.external_id[i]);
    w.arg("cbid", rt.cbid[i]);
    w.end();
  }
  const GpuOpTable& g = tl.gpu_ops;
  for (size_t i = 0; i < g.size(); ++i) {
    if (!in(g.start_ns[i]) && !(g.start_ns[i] < win.start_ns && g.end_ns(i) > win.start_ns)) continue;
    const char* cat = g.kind[i] == GpuOpKind::Kernel   ? "kernel"
                      : g.kind[i] == GpuOpKind::Memcpy ? "gpu_memcpy"
                                                       : "gpu_memset";
    const int64_t pid = gpu_pid(g.device[i]), tid = gpu_tid(g.device[i], g.stream[i]);
    w.begin('X', cat, tl.str(g.name[i]), pid, tid, g.start_ns[i] + shift);
    w.dur(g.dur_ns[i]);
    w.arg("device", g.device[i]);
    w.arg("stream", g.stream[i]);
    w.arg("correlation", g.correlation[i]);
    w.arg("External id", g.external_id[i]);
    if (g.kind[i] == GpuOpKind::Kernel) {
      if (g.grid[i][0]) w.arg_raw("grid", fmt::format("[{}, {}, {}]", g.grid[i][0], g.grid[i][1], g.grid[i][2]));
      if (g.block[i][0]) w.arg_raw("block", fmt::format("[{}, {}, {}]", g.block[i][0], g.block[i][1], g.block[i][2]));
      w.arg("registers per thread", g.registers_per_thread[i]);
      w.arg("shared memory", g.shared_mem_bytes[i]);
      w.arg("graph id", g.graph_id[i]);
      auto c = g.correlation[i] != kNone ? coll_gpu.find(g.correlation[i]) : coll_gpu_start.find(g.start_ns[i]);
      if (c != (g.correlation[i] != kNone ? coll_gpu.end() : coll_gpu_start.end())) coll_args(c->second);
    } else {
      w.arg("bytes", g.bytes[i]);
    }
    w.end();
    ++w.st.gpu_ops;
    // The launch flow (ac2g): from the runtime call to the op, when both are in the slice.
    if (g.correlation[i] == kNone) continue;
    auto l = launch.find(g.correlation[i]);
    if (l == launch.end()) continue;
    const size_t r = l->second;
    w.begin('s', "ac2g", "launch", cpu_pid(rt.pid[r]), rt.tid[r], rt.start_ns[r] + shift);
    fmt::format_to(std::back_inserter(w.b), ",\"id\":{}", flow_id(g.correlation[i]));
    w.end();
    w.begin('f', "ac2g", "launch", pid, tid, g.start_ns[i] + shift);
    fmt::format_to(std::back_inserter(w.b), ",\"id\":{},\"bp\":\"e\"", flow_id(g.correlation[i]));
    w.end();
    w.st.flows += 1;
  }
  // CPU ops with their Python ids.
  std::unordered_map<int64_t, size_t> frame_of;
  for (size_t f = 0; f < tl.python_frames.size(); ++f) frame_of.emplace(tl.python_frames.cpu_op[f], f);
  const CpuOpTable& co = tl.cpu_ops;
  for (size_t i = 0; i < co.size(); ++i) {
    if (!in(co.start_ns[i])) continue;
    const bool py = co.kind[i] == CpuOpKind::PythonFunction;
    w.begin('X', py ? "python_function" : "cpu_op", tl.str(co.name[i]), cpu_pid(co.pid[i]), co.tid[i],
            co.start_ns[i] + shift);
    w.dur(co.dur_ns[i]);
    w.arg("External id", co.external_id[i]);
    w.arg("Sequence number", co.sequence_number[i]);
    auto raw = [&](const char* key, StrId id) {
      if (id == kNoStr) return;
      std::string_view t = tl.str(id);
      if (Json::accept(t))
        w.arg_raw(key, t);
      else
        w.arg_str(key, t);
    };
    raw("Input Dims", co.input_dims[i]);
    raw("Input type", co.input_types[i]);
    raw("Concrete Inputs", co.concrete_inputs[i]);
    if (auto f = frame_of.find(static_cast<int64_t>(i)); f != frame_of.end()) {
      w.arg("Python id", tl.python_frames.python_id[f->second]);
      w.arg("Python parent id", tl.python_frames.python_parent_id[f->second]);
    }
    if (auto c = coll_cpu.find({co.external_id[i], co.start_ns[i]}); c != coll_cpu.end()) coll_args(c->second);
    w.end();
  }
  // Annotations that cross the window's end are trimmed to it, those that start before it
  // dropped: a step the window cuts must not come back as a step (docs/query.md § export).
  // A step's annotation is kept only for the steps asked for: the next step's CPU ProfilerStep
  // starts inside the window when the CPU runs ahead of the GPU, and would read back as a step
  // with no GPU work.
  const AnnotationTable& an = tl.annotations;
  std::unordered_set<StrId> kept_steps;
  for (const std::string& n : win.steps)
    if (StrId id = tl.strings.find(n); id != kNoStr) kept_steps.insert(id);
  for (size_t i = 0; i < an.size(); ++i) {
    if (!in(an.start_ns[i])) continue;
    if (!win.steps.empty() && !kept_steps.count(an.name[i]) && is_numbered_profiler_step(tl.str(an.name[i]))) continue;
    if (an.on_gpu[i])
      w.begin('X', "gpu_user_annotation", tl.str(an.name[i]), gpu_pid(an.device[i]),
              gpu_tid(an.device[i], an.stream[i]), an.start_ns[i] + shift);
    else
      w.begin('X', "user_annotation", tl.str(an.name[i]), cpu_pid(an.pid[i]), an.tid[i], an.start_ns[i] + shift);
    w.dur(std::min(an.dur_ns[i], win.end_ns - an.start_ns[i]));
    if (an.on_gpu[i]) {
      w.arg("device", an.device[i]);
      w.arg("stream", an.stream[i]);
    }
    w.arg("External id", an.external_id[i]);
    for (auto [key, id] : {std::pair{"Input Dims", an.input_dims[i]}, std::pair{"Input type", an.input_types[i]}})
      if (id != kNoStr && Json::accept(tl.str(id))) w.arg_raw(key, tl.str(id));
    w.end();
  }
  // Forward-backward flows: both halves in the slice, or neither.
  const FlowTable& fl = tl.flows;
  std::unordered_map<int64_t, int> halves;
  for (size_t i = 0; i < fl.size(); ++i)
    if (in(fl.ts_ns[i])) halves[fl.id[i]] += fl.is_start[i] ? 1 : 2;
  for (size_t i = 0; i < fl.size(); ++i) {
    if (!in(fl.ts_ns[i]) || halves[fl.id[i]] != 3) continue;
    w.begin(fl.is_start[i] ? 's' : 'f', fl.category[i] == kNoStr ? "fwdbwd" : tl.str(fl.category[i]), "fwdbwd",
            cpu_pid(fl.pid[i]), fl.tid[i], fl.ts_ns[i] + shift);
    fmt::format_to(std::back_inserter(w.b), ",\"id\":{}{}", flow_id(fl.id[i]), fl.is_start[i] ? "" : ",\"bp\":\"e\"");
    w.end();
    w.st.flows += fl.is_start[i] ? 1 : 0;
  }
  if (!merged) {
    // The source's own metadata events, verbatim: track names and sort order for the viewer.
    for (const std::string& m : meta_events) {
      w.b.append(std::string_view(w.first ? "\n" : ",\n"));
      w.first = false;
      w.b.append(std::string_view(m));
      ++w.st.events;
      w.sink.flush_if_big(w.b);
    }
  }
  if (merged) {
    w.begin('M', "", "process_name", rank, 0, 0);
    w.arg_str("name", fmt::format("rank {}", rank));
    w.end();
  }
}

Json device_json(const DeviceInfo& d) {
  Json j{{"id", d.id}, {"name", d.name}};
  if (d.total_memory_bytes != kNone) j["totalGlobalMem"] = d.total_memory_bytes;
  if (d.compute_major >= 0) j["computeMajor"] = d.compute_major;
  if (d.compute_minor >= 0) j["computeMinor"] = d.compute_minor;
  if (d.num_sms >= 0) j["numSms"] = d.num_sms;
  if (d.warp_size >= 0) j["warpSize"] = d.warp_size;
  if (!d.arch.empty() && !d.arch.starts_with("sm_")) j["gcnArchName"] = d.arch;
  return j;
}

}  // namespace

Result<SliceStats> write_kineto_slice(const std::vector<SliceInput>& inputs, const std::string& path) {
  if (inputs.empty()) return make_error(ErrorKind::Usage, "nothing to export");
  const bool merged = inputs.size() > 1;
  // Clock alignment: every rank on the earliest epoch base, when all have one.
  bool aligned = true;
  int64_t base = 0;
  for (const SliceInput& in : inputs) {
    const auto& m = in.timeline->meta;
    if (!m.clock_is_epoch || m.clock_base_ns == 0) aligned = false;
    base = base == 0 ? m.clock_base_ns : std::min(base, m.clock_base_ns);
  }
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  ASSIGN_OR_RETURN(auto file, AtomicFile::create(path));
  Sink sink(file, gz);
  if (sink.gz_failed(gz)) return make_error(ErrorKind::Io, "cannot write " + path, path);
  Writer w(sink);
  const Timeline& first = *inputs.front().timeline;
  Json devices = Json::array();
  std::vector<int32_t> seen;
  for (const SliceInput& in : inputs)
    for (const DeviceInfo& d : in.timeline->meta.devices)
      if (std::find(seen.begin(), seen.end(), d.id) == seen.end()) {
        seen.push_back(d.id);
        devices.push_back(device_json(d));
      }
  Json head = Json::object();
  head["schemaVersion"] = 1;
  head["deviceProperties"] = devices;
  if (!merged && first.meta.distributed.rank != kNone) {
    Json di{{"rank", first.meta.distributed.rank}};
    if (first.meta.distributed.world_size != kNone) di["world_size"] = first.meta.distributed.world_size;
    if (!first.meta.distributed.backend.empty()) di["backend"] = first.meta.distributed.backend;
    head["distributedInfo"] = di;
  }
  // One trace: its own top-level keys verbatim (displayTimeUnit, trace_id, the workload's
  // metadata, ...), ours only where it has none; the base time is ours (the times written).
  if (!merged)
    for (const auto& [k, v] : inputs.front().top_level)
      if (k != "baseTimeNanoseconds" && Json::accept(v)) head[k] = Json::parse(v);
  const std::string h = head.dump();
  w.b.append(std::string_view(h.data(), h.size() - 1));  // without the closing brace
  if ((merged ? aligned : first.meta.clock_is_epoch) && base != 0)
    fmt::format_to(std::back_inserter(w.b), ",\"baseTimeNanoseconds\":{}", merged ? base : first.meta.clock_base_ns);
  w.b.append(std::string_view(",\"traceEvents\":["));
  for (const SliceInput& in : inputs) {
    const int64_t shift = merged && aligned ? in.timeline->meta.clock_base_ns - base : 0;
    write_one(w, *in.timeline, in.window, shift, merged, in.rank, in.metadata_events);
  }
  w.b.append(std::string_view("\n]}\n"));
  sink.flush(w.b);
  if (!sink.close()) return make_error(ErrorKind::Io, "failed writing " + path, path);
  RETURN_IF_ERROR(file.commit());
  w.st.clocks_aligned = !merged || aligned;
  return w.st;
}

}  // namespace goblin::query
