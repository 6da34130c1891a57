#include "trace_format.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include "op_attribution.h"

namespace goblin::tracer {

ClockAlignment align_clocks(const std::vector<ClockSample>& samples) {
  ClockAlignment a;
  int64_t best = INT64_MAX;
  for (const auto& s : samples) {
    int64_t width = s.real_after_ns - s.real_before_ns;
    if (width < 0 || s.cupti_ns <= 0) continue;
    ++a.samples;
    if (width < best) {
      best = width;
      // midpoint without overflow: before + width/2
      a.offset_ns = s.real_before_ns + width / 2 - s.cupti_ns;
      a.uncertainty_ns = (width + 1) / 2;
      a.valid = true;
    }
  }
  return a;
}

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when the bytes there are not one.
size_t utf8_len(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  if (n == 2 && c < 0xC2) return 0;                                      // overlong
  if (n == 3 && c == 0xE0 && b(i + 1) < 0xA0) return 0;                  // overlong
  if (n == 3 && c == 0xED && b(i + 1) >= 0xA0) return 0;                 // surrogate
  if (n == 4 && (c > 0xF4 || (c == 0xF0 && b(i + 1) < 0x90))) return 0;  // > U+10FFFF / overlong
  if (n == 4 && c == 0xF4 && b(i + 1) >= 0x90) return 0;
  return n;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (size_t n = utf8_len(s, i)) {
      out.append(s.data() + i, n);
      i += n;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD for one invalid byte
      ++i;
    }
  }
  out += '"';
}

std::string tracer_run_json(const TracerRun& r) {
  auto str = [](std::string_view s) {
    std::string o;
    append_json_string(o, s);
    return o;
  };
  auto num = [](auto v) { return std::to_string(v); };
  auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  std::string ov = "{";
  for (const auto& [k, v] : r.cupti_overhead_ns) ov += (ov.size() > 1 ? "," : "") + str(k) + ":" + num(v);
  ov += "}";
  const std::string clk = "{\"method\":\"CUPTI timestamp bracketed by CLOCK_REALTIME, tightest of " +
                          num(r.clock.samples) + " samples at start\",\"offset_ns\":" + num(r.clock.offset_ns) +
                          ",\"uncertainty_ns\":" + num(r.clock.uncertainty_ns) +
                          ",\"drift_at_exit_ns\":" + num(r.drift_at_exit_ns) + "}";
  return "{\"name\":" + str(kTracerName) + ",\"version\":" + str(kTracerVersion) +
         ",\"written_at\":" + str(r.written_at) + ",\"api_mode\":" + str(r.api_mode) + ",\"kinds\":" + str(r.kinds) +
         ",\"command\":" + str(r.command) + ",\"buffers\":" + num(r.buffers) + ",\"records\":" + num(r.records) +
         ",\"dropped_records\":" + num(r.dropped_records) + ",\"unknown_records\":" + num(r.unknown_records) +
         ",\"buffer_callback_ns\":" + num(r.buffer_callback_ns) + ",\"recording_pauses\":" + num(r.recording_pauses) +
         ",\"recording_paused_ns\":" + num(r.recording_paused_ns) + ",\"started_paused\":" + flag(r.started_paused) +
         ",\"paused_at_exit\":" + flag(r.paused_at_exit) +
         ",\"pause_mode\":" + str(r.detach_on_pause ? "detach" : "disable") +
         ",\"resume_call_ns\":" + num(r.resume_call_ns) + ",\"first_resume_call_ns\":" + num(r.first_resume_call_ns) +
         ",\"pause_call_ns\":" + num(r.pause_call_ns) + ",\"cupti_attaches\":" + num(r.cupti_attaches) +
         ",\"cupti_detaches\":" + num(r.cupti_detaches) +
         (r.detach_error.empty() ? "" : ",\"detach_error\":" + str(r.detach_error)) +
         (r.tune.empty() ? "" : ",\"tune\":" + str(r.tune)) + ",\"exit_flush_ns\":" + num(r.exit_flush_ns) +
         ",\"cupti_overhead_ns\":" + ov + ",\"clock\":" + clk + "}";
}

void append_us(std::string& out, int64_t t_ns) {
  if (t_ns < 0) t_ns = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(t_ns / 1000),
                static_cast<long long>(t_ns % 1000));
  out += buf;
}

namespace {

class Writer {
 public:
  Writer(const Trace& t, const std::function<void(std::string_view)>& sink) : t_(t), sink_(sink) {}

  WriteStats run() {
    find_base();
    out_ += "{\n  \"schemaVersion\": 1,\n";
    write_devices();
    for (const auto& [k, v] : t_.versions) {
      out_ += "  ";
      append_json_string(out_, k + "_version");
      out_ += ": ";
      append_json_string(out_, v);
      out_ += ",\n";
    }
    for (const auto& [k, v] : t_.metadata_json) {
      out_ += "  ";
      append_json_string(out_, k);
      out_ += ": " + v + ",\n";
    }
    if (st_.base_epoch_ns > 0) out_ += "  \"baseTimeNanoseconds\": " + std::to_string(st_.base_epoch_ns) + ",\n";
    out_ += "  \"traceEvents\": [\n";
    pair_markers();
    attribute_ops();
    write_names();
    write_apis();
    write_kernels();
    write_copies();
    write_syncs();
    write_markers();
    write_ops();
    write_overheads();
    out_ += "\n  ],\n  \"traceName\": ";
    append_json_string(out_, std::string(kTracerName) + " pid " + std::to_string(t_.pid));
    out_ += ",\n  \"displayTimeUnit\": \"ms\"\n}\n";
    sink_(out_);
    out_.clear();
    return st_;
  }

 private:
  int64_t epoch(uint64_t cupti_ns) const { return static_cast<int64_t>(cupti_ns) + t_.clock.offset_ns; }
  static bool valid(uint64_t start, uint64_t end) { return start > 0 && end >= start; }

  void find_base() {
    int64_t b = INT64_MAX;
    auto see = [&](uint64_t s, uint64_t e) {
      if (valid(s, e)) b = std::min(b, epoch(s));
    };
    for (auto& r : t_.kernels) see(r.start, r.end);
    for (auto& r : t_.copies) see(r.start, r.end);
    for (auto& r : t_.apis) see(r.start, r.end);
    for (auto& r : t_.syncs) see(r.start, r.end);
    for (auto& r : t_.markers) see(r.ts, r.ts);
    for (auto& r : t_.overheads) see(r.start, r.end);
    for (auto& r : t_.ops) see(r.start, r.end);
    st_.base_epoch_ns = b == INT64_MAX ? 0 : b;
    for (auto& k : t_.kernels) ctx_device_.emplace(k.context, k.device);
    for (auto& c : t_.copies) ctx_device_.emplace(c.context, c.device);
  }

  void ts(uint64_t cupti_ns) { append_us(out_, epoch(cupti_ns) - st_.base_epoch_ns); }

  // Starts one event object; the caller appends its remaining fields and closes it with end().
  void begin(const char* ph, const char* cat, std::string_view name, int64_t pid, int64_t tid, uint64_t start) {
    if (st_.events++ > 0) out_ += ",\n";
    out_ += "{\"ph\":\"";
    out_ += ph;
    out_ += "\",\"cat\":\"";
    out_ += cat;
    out_ += "\",\"name\":";
    append_json_string(out_, name);
    out_ += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
    ts(start);
  }
  void dur(uint64_t start, uint64_t end) {
    out_ += ",\"dur\":";
    append_us(out_, static_cast<int64_t>(end - start));
  }
  void end() {
    out_ += '}';
    if (out_.size() >= (1u << 20)) {
      sink_(out_);
      out_.clear();
    }
  }
  std::string_view str(uint32_t id) const {
    return id < t_.strings.size() ? std::string_view(t_.strings[id]) : std::string_view("?");
  }

  void write_devices() {
    out_ += "  \"deviceProperties\": [";
    bool first = true;
    for (const auto& d : t_.devices) {
      out_ += first ? "\n    {" : ",\n    {";
      first = false;
      out_ += "\"id\": " + std::to_string(d.id) + ", \"name\": ";
      append_json_string(out_, d.name);
      out_ += ", \"totalGlobalMem\": " + std::to_string(d.total_memory) +
              ", \"computeMajor\": " + std::to_string(d.major) + ", \"computeMinor\": " + std::to_string(d.minor) +
              ", \"numSms\": " + std::to_string(d.sms) + ", \"warpSize\": " + std::to_string(d.warp_size) + "}";
    }
    out_ += first ? "],\n" : "\n  ],\n";
  }

  // Process and thread names for the viewer (Perfetto/chrome://tracing); goblin skips them.
  void write_names() {
    auto meta = [&](const char* what, int64_t pid, int64_t tid, const std::string& name) {
      if (st_.events++ > 0) out_ += ",\n";
      out_ += "{\"ph\":\"M\",\"name\":\"";
      out_ += what;
      out_ += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":";
      append_json_string(out_, name);
      out_ += "}}";
    };
    meta("process_name", t_.pid, 0,
         (t_.process_name.empty() ? std::string("process") : t_.process_name) + " " + std::to_string(t_.pid));
    std::map<uint32_t, std::map<uint32_t, bool>> streams;
    for (auto& k : t_.kernels) streams[k.device][k.stream] = true;
    for (auto& c : t_.copies) streams[c.device][c.stream] = true;
    for (auto& [dev, ss] : streams) {
      meta("process_name", dev, 0, "GPU " + std::to_string(dev));
      for (auto& [s, _] : ss) meta("thread_name", dev, s, "stream " + std::to_string(s));
    }
  }

  void write_apis() {
    for (size_t i = 0; i < t_.apis.size(); ++i) {
      const ApiRec& a = t_.apis[i];
      if (!valid(a.start, a.end)) continue;
      auto it = t_.api_names.find(api_key(a.driver, a.cbid));
      std::string name = it != t_.api_names.end() ? it->second : "cbid_" + std::to_string(a.cbid);
      begin("X", a.driver ? "cuda_driver" : "cuda_runtime", name, a.pid, a.tid, a.start);
      dur(a.start, a.end);
      out_ += ",\"args\":{\"cbid\":" + std::to_string(a.cbid) + ",\"correlation\":" + std::to_string(a.correlation);
      if (api_ext_[i] > 0) out_ += ",\"External id\":" + std::to_string(api_ext_[i]);
      out_ += "}";
      end();
      ++st_.apis;
      // A runtime call wins over a driver call of the same correlation (never both in practice).
      auto [slot, inserted] = launcher_.emplace(a.correlation, i);
      if (!inserted && t_.apis[slot->second].driver && !a.driver) slot->second = i;
    }
  }

  // The ac2g arrow from the launching API call to the GPU op, as Kineto writes it.
  void flow(uint32_t corr, uint32_t device, uint32_t stream, uint64_t gpu_start) {
    auto it = launcher_.find(corr);
    if (it == launcher_.end()) return;
    const ApiRec& a = t_.apis[it->second];
    begin("s", "ac2g", "ac2g", a.pid, a.tid, a.start);
    out_ += ",\"id\":" + std::to_string(corr);
    end();
    begin("f", "ac2g", "ac2g", device, stream, gpu_start);
    out_ += ",\"id\":" + std::to_string(corr) + ",\"bp\":\"e\"";
    end();
    ++st_.flows;
  }

  void write_kernels() {
    for (const KernelRec& k : t_.kernels) {
      if (!valid(k.start, k.end)) continue;
      begin("X", "kernel", kernel_name(k.name), k.device, k.stream, k.start);
      dur(k.start, k.end);
      out_ += ",\"args\":{\"device\":" + std::to_string(k.device) + ",\"context\":" + std::to_string(k.context) +
              ",\"stream\":" + std::to_string(k.stream) + ",\"correlation\":" + std::to_string(k.correlation) +
              ",\"registers per thread\":" + std::to_string(k.registers) +
              ",\"shared memory\":" + std::to_string(uint64_t(k.static_smem) + k.dynamic_smem) +
              ",\"static shared memory\":" + std::to_string(k.static_smem) +
              ",\"dynamic shared memory\":" + std::to_string(k.dynamic_smem) + ",\"grid\":[" +
              std::to_string(k.grid[0]) + "," + std::to_string(k.grid[1]) + "," + std::to_string(k.grid[2]) +
              "],\"block\":[" + std::to_string(k.block[0]) + "," + std::to_string(k.block[1]) + "," +
              std::to_string(k.block[2]) + "]";
      if (k.graph_id != 0)
        out_ += ",\"graph id\":" + std::to_string(k.graph_id) + ",\"graph node id\":" + std::to_string(k.graph_node_id);
      const int64_t ext = external_id(k.correlation);
      if (ext > 0) {
        out_ += ",\"External id\":" + std::to_string(ext);
        ++st_.kernels_with_op;
        st_.kernel_ns_with_op += k.end - k.start;
      }
      st_.kernel_ns += k.end - k.start;
      out_ += "}";
      end();
      ++st_.kernels;
      flow(k.correlation, k.device, k.stream, k.start);
    }
  }

  void write_copies() {
    for (const CopyRec& c : t_.copies) {
      if (!valid(c.start, c.end)) continue;
      std::string name = c.is_memset ? std::string("Memset (") + memory_kind_name(c.dst_kind) + ")"
                                     : std::string("Memcpy ") + copy_kind_name(c.copy_kind) + " (" +
                                           memory_kind_name(c.src_kind) + " -> " + memory_kind_name(c.dst_kind) + ")";
      begin("X", c.is_memset ? "gpu_memset" : "gpu_memcpy", name, c.device, c.stream, c.start);
      dur(c.start, c.end);
      out_ += ",\"args\":{\"device\":" + std::to_string(c.device) + ",\"context\":" + std::to_string(c.context) +
              ",\"stream\":" + std::to_string(c.stream) + ",\"correlation\":" + std::to_string(c.correlation) +
              ",\"bytes\":" + std::to_string(c.bytes);
      if (!c.is_memset) {
        out_ += ",\"kind\":\"";
        out_ += copy_kind_name(c.copy_kind);
        out_ += "\"";
        if (c.end > c.start) {
          char buf[48];
          std::snprintf(buf, sizeof buf, ",\"memory bandwidth (GB/s)\":%.3f",
                        static_cast<double>(c.bytes) / static_cast<double>(c.end - c.start));
          out_ += buf;
        }
      }
      if (c.graph_id != 0) out_ += ",\"graph id\":" + std::to_string(c.graph_id);
      if (const int64_t ext = external_id(c.correlation); ext > 0) out_ += ",\"External id\":" + std::to_string(ext);
      out_ += "}";
      end();
      ++st_.copies;
      flow(c.correlation, c.device, c.stream, c.start);
    }
  }

  // Kineto puts cuda_sync events on the device/stream row; so do we (CUPTI gives no thread).
  void write_syncs() {
    for (const SyncRec& s : t_.syncs) {
      if (!valid(s.start, s.end)) continue;
      auto it = ctx_device_.find(s.context);
      int64_t dev = it == ctx_device_.end() ? 0 : it->second;
      int64_t stream = s.stream == UINT32_MAX ? 0 : s.stream;
      begin("X", "cuda_sync", sync_type_name(s.type), dev, stream, s.start);
      dur(s.start, s.end);
      out_ += ",\"args\":{\"correlation\":" + std::to_string(s.correlation) +
              ",\"stream\":" + std::to_string(s.stream == UINT32_MAX ? -1 : int64_t(s.stream)) +
              ",\"device\":" + std::to_string(dev) + "}";
      end();
      ++st_.syncs;
    }
  }

  // NVTX ranges: pair start and end halves by id (in time order); instants stay instants.
  struct Mark {
    const MarkerRec* start;  // the instant itself for an instant
    uint64_t end = 0;        // 0: instant
    int64_t ext = 0;         // > 0: a PyTorch operator range (External id)
  };
  void pair_markers() {
    std::vector<const MarkerRec*> ms;
    ms.reserve(t_.markers.size());
    for (auto& m : t_.markers) ms.push_back(&m);
    std::stable_sort(ms.begin(), ms.end(), [](auto* a, auto* b) { return a->ts < b->ts; });
    std::unordered_map<uint32_t, const MarkerRec*> open;
    for (const MarkerRec* m : ms) {
      if (m->flags & MarkerRec::Instant) {
        if (m->ts != 0) marks_.push_back({m, 0, 0});
      } else if (m->flags & MarkerRec::Start) {
        open[m->id] = m;
      } else if (m->flags & MarkerRec::End) {
        auto it = open.find(m->id);
        if (it == open.end()) {
          ++st_.unmatched_markers;
          continue;
        }
        const MarkerRec* s = it->second;
        open.erase(it);
        if (valid(s->ts, m->ts)) marks_.push_back({s, m->ts, 0});
      }
    }
    st_.unmatched_markers += open.size();  // still open at exit (e.g. killed mid-step)
  }

  // The operator ranges PyTorch's NVTX observer pushed become cpu_op events with an External
  // id; every API call gets the id of the innermost operator open on its thread when it began,
  // and the GPU work it launched (by correlation) the same id, as Kineto links them.
  // goblin's own observer's ops (t_.ops) take part the same way, on the thread id CUPTI uses.
  void attribute_ops() {
    std::vector<OpRange> ranges;
    std::vector<int64_t> ext;  // per range
    for (size_t i = 0; i < marks_.size(); ++i) {
      Mark& m = marks_[i];
      if (m.end == 0 || !parse_nvtx_op(str(m.start->name)).is_op) continue;
      m.ext = static_cast<int64_t>(ranges.size()) + 1;
      ranges.push_back({m.start->ts, m.end, m.start->tid});
      ext.push_back(m.ext);
    }
    std::vector<uint32_t> api_tids;
    api_tids.reserve(t_.apis.size());
    for (const ApiRec& a : t_.apis) api_tids.push_back(a.tid);
    op_tid_ = resolve_op_threads(t_.op_threads, api_tids);
    op_ext_.assign(t_.ops.size(), 0);
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const OpRec& o = t_.ops[i];
      if (!valid(o.start, o.end) || o.end == 0) {
        ++st_.unclosed_ops;
        continue;
      }
      if (o.module) continue;
      op_ext_[i] = static_cast<int64_t>(ranges.size()) + 1;
      ranges.push_back({o.start, o.end, op_tid(o.thread)});
      ext.push_back(op_ext_[i]);
    }
    api_ext_.assign(t_.apis.size(), 0);
    if (ranges.empty()) return;
    std::vector<std::pair<uint32_t, uint64_t>> q;
    q.reserve(t_.apis.size());
    for (const ApiRec& a : t_.apis) q.emplace_back(a.tid, a.start);
    std::vector<int32_t> in = innermost_ranges(ranges, q);
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i] >= 0) api_ext_[i] = ext[static_cast<size_t>(in[i])];
  }
  uint32_t op_tid(uint32_t thread) const { return thread < op_tid_.size() ? op_tid_[thread] : 0; }

  // goblin's observer's records: cpu_op events as Kineto writes them, nn.Module forwards as the
  // python_function frames torch.profiler's Python tracer writes (goblin's module table reads them).
  void write_ops() {
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const OpRec& o = t_.ops[i];
      if (!valid(o.start, o.end) || o.end == 0) continue;
      const uint32_t tid = op_tid(o.thread);
      if (o.module) {
        begin("X", "python_function", str(o.name), t_.pid, tid, o.start);
        dur(o.start, o.end);
        end();
        ++st_.module_frames;
        continue;
      }
      begin("X", "cpu_op", str(o.name), t_.pid, tid, o.start);
      dur(o.start, o.end);
      out_ += ",\"args\":{\"External id\":" + std::to_string(op_ext_[i]);
      if (o.seq >= 0) out_ += ",\"Sequence number\":" + std::to_string(o.seq);
      if (o.dims != kNoId) {
        out_ += ",\"Input Dims\":";
        out_ += str(o.dims);
      }
      if (o.types != kNoId) {
        out_ += ",\"Input type\":";
        out_ += str(o.types);
      }
      out_ += "}";
      end();
      ++st_.cpu_ops;
    }
  }
  int64_t external_id(uint32_t corr) const {
    auto it = launcher_.find(corr);
    return it == launcher_.end() ? 0 : api_ext_[it->second];
  }

  void write_markers() {
    for (const Mark& mk : marks_) {
      const MarkerRec* m = mk.start;
      if (mk.end == 0) {
        begin("i", "user_annotation", str(m->name), m->pid, m->tid, m->ts);
        out_ += ",\"s\":\"t\"";
        end();
      } else if (mk.ext > 0) {
        const NvtxOp op = parse_nvtx_op(str(m->name));
        begin("X", "cpu_op", op.name, m->pid, m->tid, m->ts);
        dur(m->ts, mk.end);
        out_ += ",\"args\":{\"External id\":" + std::to_string(mk.ext);
        if (op.seq >= 0) out_ += ",\"Sequence number\":" + std::to_string(op.seq);
        if (op.op_id >= 0) out_ += ",\"Record function id\":" + std::to_string(op.op_id);
        if (!op.sizes.empty()) {
          out_ += ",\"Input Dims\":";
          out_ += op.sizes;
        }
        out_ += "}";
        end();
        ++st_.cpu_ops;
      } else {
        begin("X", "user_annotation", str(m->name), m->pid, m->tid, m->ts);
        dur(m->ts, mk.end);
        out_ += ",\"args\":{\"nvtx id\":" + std::to_string(m->id) + "}";
        end();
        ++st_.ranges;
      }
    }
  }

  // Kernel names demangled once per distinct name (Kineto's demangle).
  std::string_view kernel_name(uint32_t id) {
    if (id >= t_.strings.size()) return "?";
    if (demangled_.size() < t_.strings.size()) demangled_.resize(t_.strings.size());
    auto& d = demangled_[id];
    if (!d) d = demangle_kernel_name(t_.strings[id]);
    return *d;
  }

  void write_overheads() {
    for (const OverheadRec& o : t_.overheads) {
      if (!valid(o.start, o.end)) continue;
      begin("X", "overhead", overhead_kind_name(o.kind), t_.pid, o.tid, o.start);
      dur(o.start, o.end);
      end();
    }
  }

  const Trace& t_;
  const std::function<void(std::string_view)>& sink_;
  std::string out_;
  WriteStats st_;
  std::unordered_map<uint32_t, size_t> launcher_;  // correlation → apis index
  std::unordered_map<uint32_t, uint32_t> ctx_device_;
  std::vector<Mark> marks_;
  std::vector<int64_t> api_ext_;  // External id per apis index (0: no operator)
  std::vector<int64_t> op_ext_;   // External id per t_.ops index
  std::vector<uint32_t> op_tid_;  // CUPTI's thread id per t_.op_threads index
  std::vector<std::optional<std::string>> demangled_;
};

}  // namespace

WriteStats write_kineto(const Trace& t, const std::function<void(std::string_view)>& sink) {
  Writer w(t, sink);
  return w.run();
}

}  // namespace goblin::tracer
