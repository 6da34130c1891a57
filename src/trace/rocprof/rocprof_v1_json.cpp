// Legacy rocprof results.json (written by tblextr.py): a chrome trace whose first event is `{}`,
// whose ts/dur/pid/tid are quoted strings ("ts":"622109046136", µs), and whose args carry the
// exact BeginNs/EndNs as strings. Processes are named by "M" events: "CPU HIP API", "COPY",
// "GPU<N>", "GPU Barriers<N>", ... and decide which table an "X" event goes to.
#include <fmt/format.h>
#include <simdjson.h>

#include <unordered_map>

#include "core/decimal.h"
#include "model/runtime_call.h"
#include "trace/rocprof/json_prefix_repair.h"
#include "trace/rocprof/rocprof_fields.h"
#include "trace/rocprof/rocprof_v1_parts.h"

namespace goblin::trace::rocprof {

namespace od = simdjson::ondemand;

namespace {

// A string or a number, as text (rocprof quotes numbers; other writers may not).
std::string text_of(od::value v) {
  od::json_type t = v.type();
  if (t == od::json_type::string) return std::string(std::string_view(v.get_string()));
  if (t == od::json_type::number || t == od::json_type::boolean) {
    std::string_view raw = v.raw_json_token();
    while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t' ||
                            raw.back() == ',' || raw.back() == '}' || raw.back() == ']'))
      raw.remove_suffix(1);
    return std::string(raw);
  }
  return {};
}

struct Event {
  std::string ph, name, cat, ts, dur, id, pid, tid;
  std::string arg_name, begin_ns, end_ns, dev, stream, queue, host_pid, host_tid;
};

Event read_event(od::object o) {
  Event e;
  for (od::field f : o) {
    std::string_view k = f.unescaped_key();
    if (k == "ph")
      e.ph = text_of(f.value());
    else if (k == "name")
      e.name = text_of(f.value());
    else if (k == "cat")
      e.cat = text_of(f.value());
    else if (k == "ts")
      e.ts = text_of(f.value());
    else if (k == "dur")
      e.dur = text_of(f.value());
    else if (k == "id")
      e.id = text_of(f.value());
    else if (k == "pid")
      e.pid = text_of(f.value());
    else if (k == "tid")
      e.tid = text_of(f.value());
    else if (k == "args") {
      od::value av = f.value();
      if (av.type() != od::json_type::object) continue;
      od::object args = av.get_object();
      for (od::field a : args) {
        std::string_view ak = a.unescaped_key();
        if (ak == "name")
          e.arg_name = text_of(a.value());
        else if (ak == "BeginNs")
          e.begin_ns = text_of(a.value());
        else if (ak == "EndNs")
          e.end_ns = text_of(a.value());
        else if (ak == "dev-id")
          e.dev = text_of(a.value());
        else if (ak == "stream-id")
          e.stream = text_of(a.value());
        else if (ak == "queue-id")
          e.queue = text_of(a.value());
        else if (ak == "pid")
          e.host_pid = text_of(a.value());
        else if (ak == "tid")
          e.host_tid = text_of(a.value());
      }
    }
  }
  return e;
}

enum class Lane { Unknown, HostApi, DriverApi, Copy, Gpu, Markers, Ignored };

Lane lane_of(std::string_view process, int64_t* gpu) {
  if (process.find("Barrier") != std::string_view::npos) return Lane::Ignored;
  if (process.find("HSA") != std::string_view::npos) return Lane::DriverApi;
  if (process.find("API") != std::string_view::npos) return Lane::HostApi;  // "CPU HIP API", "KFD API"
  if (process == "COPY") return Lane::Copy;
  if (process.substr(0, 3) == "GPU") {
    if (auto n = parse_int(process.substr(3))) *gpu = *n;
    return Lane::Gpu;
  }
  if (process.find("roctx") != std::string_view::npos || process.find("Marker") != std::string_view::npos)
    return Lane::Markers;
  return Lane::Unknown;
}

class V1JsonRun {
 public:
  V1JsonRun(Timeline& tl, const std::string& path) : tl_(tl), path_(path) {}
  int64_t rows() const { return rows_; }

  void add(const Event& e) {
    if (e.ph.empty()) return;  // the leading {} event
    auto pid = parse_int(e.pid);
    if (e.ph == "M") {
      if (e.name == "process_name" && pid) {
        int64_t gpu = kNone;
        Lane lane = lane_of(e.arg_name, &gpu);
        lanes_[*pid] = {lane, gpu};
        if (lane == Lane::Unknown)
          tl_.warn(W::rocprof_process_not_analysed, "rocprof results.json: process '" + e.arg_name + "' not analysed",
                   path_);
      }
      return;
    }
    if (e.ph == "s" || e.ph == "t" || e.ph == "f") {
      ++rows_;
      FlowRow fl;
      fl.id = parse_int(e.id).value_or(kNone);
      fl.category = tl_.strings.intern(e.cat);
      fl.is_start = e.ph == "s";
      fl.ts_ns = parse_us_to_ns(e.ts).value_or(0);
      fl.pid = pid.value_or(kNone);
      fl.tid = parse_int(e.tid).value_or(kNone);
      tl_.flows.push(fl);
      return;
    }
    if (e.ph != "X") return;
    // Exact ns from args; the µs ts/dur only when those are absent.
    std::optional<int64_t> start = parse_int(e.begin_ns), end = parse_int(e.end_ns);
    if (!start || !end) {
      auto ts = parse_us_to_ns(e.ts), dur = parse_us_to_ns(e.dur);
      if (!ts || !dur) {
        tl_.warn(W::rocprof_bad_times, "rocprof results.json: event without valid BeginNs/EndNs or ts/dur skipped",
                 path_);
        return;
      }
      int64_t e_ns = 0;
      if (__builtin_add_overflow(*ts, *dur, &e_ns)) e_ns = -1;
      start = *ts;
      end = e_ns;
    }
    if (!valid_times(*start, *end)) {
      tl_.warn(W::rocprof_bad_times, "rocprof results.json: event with a negative or out-of-range time skipped", path_);
      return;
    }
    auto it = pid ? lanes_.find(*pid) : lanes_.end();
    if (it == lanes_.end()) {
      tl_.warn(W::rocprof_event_without_process,
               "rocprof results.json: event in a process with no process_name skipped", path_);
      return;
    }
    auto [lane, gpu] = it->second;
    ++rows_;
    bool stripped = false;
    StrId name = tl_.strings.intern(strip_kd_suffix(e.name, &stripped));
    if (stripped) note_kd_suffix_stripped(tl_, path_);
    int64_t dev = parse_int(e.dev).value_or(gpu);
    switch (lane) {
      case Lane::HostApi:
      case Lane::DriverApi: {
        RuntimeRow r;
        r.start_ns = *start;
        r.dur_ns = *end - *start;
        r.name = name;
        r.pid = parse_int(e.host_pid).value_or(pid.value_or(kNone));
        r.tid = parse_int(e.host_tid).value_or(parse_int(e.tid).value_or(kNone));
        r.is_driver = lane == Lane::DriverApi;
        r.is_sync = is_sync_call(e.name);
        tl_.runtime.push(r);
        break;
      }
      case Lane::Copy: {
        GpuOpRow m;
        m.kind = GpuOpKind::Memcpy;
        m.start_ns = *start;
        m.dur_ns = *end - *start;
        m.name = name;
        m.copy_kind = copy_kind_from_text(e.name);
        if (dev >= 0 && dev <= INT32_MAX) m.device = static_cast<int32_t>(dev), ensure_device(tl_, dev);
        m.stream = parse_int(e.stream).value_or(kNone);
        tl_.gpu_ops.push(m);
        break;
      }
      case Lane::Gpu: {
        GpuOpRow k;
        k.start_ns = *start;
        k.dur_ns = *end - *start;
        k.name = name;
        if (dev >= 0 && dev <= INT32_MAX) k.device = static_cast<int32_t>(dev), ensure_device(tl_, dev);
        k.stream = parse_int(e.stream).value_or(parse_int(e.queue).value_or(kNone));
        tl_.gpu_ops.push(k);
        break;
      }
      case Lane::Markers: {
        AnnotationRow a;
        a.start_ns = *start;
        a.dur_ns = *end - *start;
        a.name = name;
        a.pid = parse_int(e.host_pid).value_or(kNone);
        a.tid = parse_int(e.host_tid).value_or(parse_int(e.tid).value_or(kNone));
        tl_.annotations.push(a);
        break;
      }
      case Lane::Ignored:
      case Lane::Unknown:
        break;
    }
  }

 private:
  Timeline& tl_;
  const std::string& path_;
  std::unordered_map<int64_t, std::pair<Lane, int64_t>> lanes_;
  int64_t rows_ = 0;
};

}  // namespace

Status read_v1_json(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto text = read_all(path, opt.io);
  if (!text) return text.error();
  simdjson::padded_string buf(*text);
  *text = std::string();
  V1JsonRun run(tl, path);
  KeyedArrayRead out = read_keyed_array(
      buf, "traceEvents", [&](od::object ev) { run.add(read_event(ev)); }, [&] { return run.rows() == 0; }, [] {});
  if (!out.ok) {
    return make_error(ErrorKind::Malformed,
                      fmt::format("rocprof results.json is damaged or truncated ({}); the {} events before the damage "
                                  "were kept",
                                  out.what, run.rows()),

                      path, out.offset);
  }
  if (!out.found) return make_error(ErrorKind::Malformed, "rocprof results.json has no \"traceEvents\" array", path, 0);
  return Status::Ok();
}

}  // namespace goblin::trace::rocprof
