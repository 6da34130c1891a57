#include "run/tracer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "analysis/intervals.h"
#include "analysis/steps.h"
#include "core/locate.h"
#include "core/process.h"
#include "model/warning_json.h"
#include "run/stats.h"
#include "trace/readers.h"

namespace fs = std::filesystem;

namespace goblin::run {

namespace {
std::string exe_dir() {
  std::string exe = self_exe_path();
  return exe.empty() ? "." : fs::path(exe).parent_path().string();
}
}  // namespace

std::string find_cupti_library(std::vector<std::string>* searched) {
  std::vector<std::string> cands;
  if (const char* e = std::getenv("GOBLIN_CUPTI_LIB"); e && *e) cands.push_back(e);
  std::string d = exe_dir();
  cands.push_back(d + "/libgoblin_cupti.so");
  cands.push_back(d + "/lib/libgoblin_cupti.so");
  cands.push_back(d + "/../lib/libgoblin_cupti.so");  // installed: PREFIX/bin/goblin, PREFIX/lib/
  for (const auto& c : cands) {
    if (searched) searched->push_back(c);
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return fs::absolute(c, ec).string();
  }
  return {};
}

std::string default_tracer(const GpuInfo& gpu, std::string* why) {
  std::vector<std::string> where;
  std::string lib = find_cupti_library(&where);
  if (gpu.vendor == "nvidia" && !lib.empty()) {
    if (why) *why = "default: goblin's CUPTI tracer (" + lib + ")";
    return "cupti";
  }
  if (why) {
    if (gpu.vendor != "nvidia")
      *why = "default: torch.profiler (the CUPTI tracer needs an NVIDIA GPU; found " + gpu.vendor + ")";
    else
      *why = fmt::format("default: torch.profiler (libgoblin_cupti.so not found; looked at {} places, first {})",
                         where.size(), where.empty() ? std::string("-") : where[0]);
  }
  return "torch";
}

std::map<std::string, std::string> cupti_env(const std::string& lib, const std::string& dir, bool all_apis) {
  std::map<std::string, std::string> env;
  env["CUDA_INJECTION64_PATH"] = lib;
  env["NVTX_INJECTION64_PATH"] = lib;
  env["GOBLIN_CUPTI_DIR"] = dir;
  if (all_apis) env["GOBLIN_CUPTI_API"] = "all";
  return env;
}

std::vector<std::string> cupti_traces(const std::string& dir) {
  std::vector<std::pair<uintmax_t, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind("goblin_cupti_", 0) == 0 && n.size() > 8 && n.ends_with(".json.gz"))
      found.emplace_back(e.file_size(ec), e.path().string());
  }
  std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::vector<std::string> out;
  for (auto& [_, p] : found) out.push_back(p);
  return out;
}

namespace {

// What one trace holds, in the figures the acceptance compares across tracers: GPU ops and
// busy time per complete step (steps from goblin's step detection, GPU busy = union of kernel,
// memcpy and memset intervals inside the step window), and graph attribution.
Json summarize(const std::string& path) {
  Json j;
  j["path"] = path;
  Timeline tl;
  Status st = trace::read_path(path, tl);
  if (!st.ok()) {
    j["read_error"] = st.error().message;
    j["read_error_kind"] = static_cast<int>(st.error().kind);
  }
  j["kernels"] = tl.gpu_ops.count(GpuOpKind::Kernel);
  j["memcpys"] = tl.gpu_ops.count(GpuOpKind::Memcpy);
  j["memsets"] = tl.gpu_ops.count(GpuOpKind::Memset);
  j["api_calls"] = tl.runtime.size();
  j["annotations"] = tl.annotations.size();
  j["versions"] = tl.meta.versions;
  Json devs = Json::array();
  for (const auto& d : tl.meta.devices) devs.push_back(d.name);
  j["devices"] = devs;
  if (auto it = tl.meta.extra.find("goblin_tracer"); it != tl.meta.extra.end()) {
    Json g = Json::parse(it->second, nullptr, false);
    if (!g.is_discarded()) {
      j["dropped_records"] = g.value("dropped_records", int64_t{0});
      if (const int64_t n = j["dropped_records"].get<int64_t>(); n > 0)
        tl.warn(W::tracer_dropped_records, fmt::format("CUPTI dropped {} activity record(s)", n));
      j["written_at"] = g.value("written_at", "");
      j["buffer_callback_ns"] = g.value("buffer_callback_ns", int64_t{0});
      j["recording_pauses"] = g.value("recording_pauses", int64_t{0});
      j["recording_paused_ns"] = g.value("recording_paused_ns", int64_t{0});
      j["started_paused"] = g.value("started_paused", false);
      j["cupti_overhead_ns"] = g.value("cupti_overhead_ns", Json::object());
    }
  }
  // What the hook measured about the tracer on this run (a window recorded, the steps before it not).
  for (const char* k : {"goblin_recorded", "goblin_untraced_step_time_seconds", "goblin_tracer_step_cost_pct",
                        "goblin_tracer_shapes", "goblin_shapes_mapped"})
    if (auto it = tl.meta.extra.find(k); it != tl.meta.extra.end()) {
      Json v = Json::parse(it->second, nullptr, false);
      j[std::string(k).substr(7)] = v.is_discarded() ? Json(it->second) : v;
    }
  // Graph attribution: kernels with a graph id whose correlation resolves to a graph launch.
  tl.build_indexes();
  size_t graph_k = 0, graph_attr = 0;
  std::map<int64_t, size_t> per_graph;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    if (tl.gpu_ops.graph_id[i] == kNone) continue;
    ++graph_k;
    ++per_graph[tl.gpu_ops.graph_id[i]];
    if (auto r = tl.runtime_by_correlation(tl.gpu_ops.correlation[i]))
      if (tl.str(tl.runtime.name[*r]).find("GraphLaunch") != std::string_view::npos) ++graph_attr;
  }
  // Operator attribution (cpu_op events linked by External id, as torch.profiler writes them;
  // the CUPTI tracer's come from PyTorch's NVTX operator ranges): kernels and kernel time whose
  // launch resolves to an operator.
  size_t kernels_with_op = 0;
  int64_t kernel_ns = 0, kernel_ns_with_op = 0;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    kernel_ns += tl.gpu_ops.dur_ns[i];
    int64_t ext = tl.gpu_ops.external_id[i];
    if (ext == kNone)
      if (auto r = tl.runtime_by_correlation(tl.gpu_ops.correlation[i])) ext = tl.runtime.external_id[*r];
    if (ext != kNone && tl.cpu_op_by_external_id(ext)) {
      ++kernels_with_op;
      kernel_ns_with_op += tl.gpu_ops.dur_ns[i];
    }
  }
  j["cpu_ops"] = tl.cpu_ops.size();
  j["kernels_with_op"] = kernels_with_op;
  j["kernel_time_with_op_pct"] = kernel_ns > 0 ? round_to(100.0 * kernel_ns_with_op / kernel_ns, 2) : 0.0;
  j["graph_kernels"] = graph_k;
  j["graph_kernels_attributed_to_graph_launch"] = graph_attr;
  j["graphs"] = per_graph.size();

  analysis::StepDetection d = analysis::find_steps(tl);
  j["step_method"] = d.method;
  // Per step, the work the step *launched*: GPU ops whose launching API call (by correlation)
  // starts inside the step's CPU span. A job whose host runs ahead of the GPU (a compiled model
  // with a deep launch queue) executes step N's kernels during step N+1's CPU span, so counting
  // kernels by GPU start inside the step windows shifts work between steps; counting by launch
  // gives every step its own kernels whatever the queue depth. Ops with no launch record fall back
  // to their GPU start inside the step window. The window-based figures stay beside them.
  std::map<std::string, std::pair<int64_t, int64_t>> cpu_span;
  for (size_t i = 0; i < tl.annotations.size(); ++i)
    if (!tl.annotations.on_gpu[i])
      cpu_span.emplace(std::string(tl.str(tl.annotations.name[i])),
                       std::pair{tl.annotations.start_ns[i], tl.annotations.start_ns[i] + tl.annotations.dur_ns[i]});
  struct Op {
    int64_t launch, start, end;
    bool kernel;
  };
  std::vector<Op> ops;
  ops.reserve(tl.gpu_op_count());
  const GpuOpTable& c = tl.gpu_ops;
  for (size_t i = 0; i < c.size(); ++i) {
    int64_t launch = kNone;
    if (auto r = tl.runtime_by_correlation(c.correlation[i])) launch = tl.runtime.start_ns[*r];
    ops.push_back({launch, c.start_ns[i], c.end_ns(i), c.kind[i] == GpuOpKind::Kernel});
  }
  std::vector<goblin::analysis::Interval> all;
  all.reserve(ops.size());
  for (const Op& o : ops) all.push_back({o.start, o.end});
  analysis::IntervalSet busy_all = analysis::union_of(all);
  Json steps = Json::array();
  std::vector<double> kper, busy_ms, dur_ms;
  for (const auto& s : d.steps) {
    auto span = cpu_span.find(s.name);
    const bool by_launch = span != cpu_span.end();
    int64_t nk = 0, nk_window = 0;
    std::vector<goblin::analysis::Interval> mine;
    for (const Op& o : ops) {
      const bool in_window = o.start >= s.start_ns && o.start < s.end_ns;
      if (o.kernel && in_window) ++nk_window;
      const bool launched_here =
          by_launch && o.launch != kNone ? o.launch >= span->second.first && o.launch < span->second.second : in_window;
      if (!launched_here) continue;
      if (o.kernel) ++nk;
      mine.push_back({o.start, o.end});
    }
    int64_t b = analysis::total_length(analysis::union_of(mine));
    int64_t b_window = analysis::total_length(analysis::clip(busy_all, {s.start_ns, s.end_ns}));
    steps.push_back(Json{{"name", s.name},
                         {"partial", s.partial},
                         {"dur_ms", round_to((s.end_ns - s.start_ns) / 1e6, 4)},
                         {"kernels", nk},
                         {"gpu_busy_ms", round_to(b / 1e6, 4)},
                         {"kernels_in_window", nk_window},
                         {"gpu_busy_in_window_ms", round_to(b_window / 1e6, 4)}});
    if (s.partial || s.name == "window") continue;
    kper.push_back(static_cast<double>(nk));
    busy_ms.push_back(b / 1e6);
    dur_ms.push_back((s.end_ns - s.start_ns) / 1e6);
  }
  j["step_counting"] =
      "kernels and gpu_busy_ms per step: the GPU ops launched (by correlation) inside the step's CPU span, "
      "busy = union of their intervals; kernels_in_window / gpu_busy_in_window_ms: by GPU time inside the step window";
  j["steps"] = steps;
  j["complete_steps"] = kper.size();
  if (!kper.empty()) {
    j["kernels_per_step_median"] = median(kper);
    j["gpu_busy_ms_per_step_median"] = round_to(median(busy_ms), 4);
    j["step_ms_median"] = round_to(median(dur_ms), 4);
  }
  j["warnings"] = warnings_to_json(tl.warnings);  // the readers' catalogued warnings (model/warning_json.h)
  return j;
}

}  // namespace

Json summarize_trace(const std::string& path) { return summarize(path); }

TraceOutcome trace_command(const TraceRequest& req) {
  TraceOutcome out;
  Json& r = out.value;
  r["schema"] = "goblin.trace/1";
  r["command"] = req.command;
  r["out_dir"] = req.out_dir;
  std::vector<std::string> where;
  std::string lib = find_cupti_library(&where);
  if (lib.empty()) {
    std::string places;
    for (auto& w : where) places += (places.empty() ? "" : ", ") + w;
    out.error =
        make_error(ErrorKind::Environment, "libgoblin_cupti.so was not found (looked at " + places +
                                               "): build goblin where the CUDA toolkit's CUPTI is installed (cmake "
                                               "-DGOBLIN_CUPTI=ON) or point GOBLIN_CUPTI_LIB at the library");
    return out;
  }
  r["tracer_library"] = lib;
  if (Status st = make_dirs(req.out_dir); !st.ok()) {
    out.error = st.error();
    return out;
  }
  std::string dir = fs::absolute(req.out_dir).string();
  // Traces of an earlier run in the same folder would be mistaken for this run's.
  for (const auto& old : cupti_traces(dir)) std::remove(old.c_str());
  ProcSpec spec;
  spec.argv = req.command;
  spec.env = cupti_env(lib, dir, req.all_apis);
  // goblin's Python hook in every Python process of the command: it marks each optimizer step as
  // a ProfilerStep#N range and records the operators (cpu_op events), as --script runs find
  // steps. A caller driving the hook itself (GOBLIN_PROFILE=1 in the environment) keeps its mode.
  const char* driven = std::getenv("GOBLIN_PROFILE");
  if (std::string hook = hook_dir_for(WorkloadSpec{}); !hook.empty() && !(driven && std::string(driven) == "1")) {
    const char* pp = std::getenv("PYTHONPATH");
    spec.env["PYTHONPATH"] = hook + (pp && *pp ? std::string(":") + pp : "");
    spec.env["GOBLIN_TRACE_STEPS"] = "1";
    spec.env["GOBLIN_PROFILE_OUT"] = dir;
    r["hook"] = hook;
  }
  spec.stdout_path = dir + "/stdout.log";
  spec.stderr_path = dir + "/stderr.log";
  spec.timeout_s = req.timeout_s;
  auto pr = run_process(spec);
  if (!pr) {
    out.error = pr.error();
    return out;
  }
  r["exit_code"] = pr->exit_code;
  r["term_signal"] = pr->term_signal;
  r["timed_out"] = pr->timed_out;
  r["wall_s"] = round_to(pr->wall_s, 3);
  r["stdout"] = spec.stdout_path;
  r["stderr"] = spec.stderr_path;
  Json traces = Json::array();
  for (const auto& p : cupti_traces(dir)) traces.push_back(summarize(p));
  r["traces"] = traces;
  const bool failed = pr->exec_failed || pr->timed_out || pr->exit_code != 0;
  std::string how = pr->exec_failed   ? "could not be started"
                    : pr->timed_out   ? "timed out and was killed"
                    : pr->term_signal ? fmt::format("was ended by signal {}", pr->term_signal)
                                      : fmt::format("exited with code {}", pr->exit_code);

  if (traces.empty()) {
    r["main_trace"] = nullptr;
    r["note"] = failed ? "no CUDA activity traced: no process of the command initialised CUDA before it ended "
                         "(a process killed by SIGKILL writes nothing either)"
                       : "no CUDA activity: no process of the command initialised CUDA, so the tracer wrote no trace";
    if (failed)
      out.error = make_error(ErrorKind::Workload,
                             "the command " + how + " and no CUDA activity was traced; see " + spec.stderr_path,
                             spec.stderr_path);
    return out;
  }
  r["main_trace"] = traces[0]["path"];
  if (failed) r["note"] = "the command " + how + "; the traces hold what ran until then";
  if (traces[0].value("complete_steps", 0) == 0) {
    std::string hint =
        "no steps found: goblin's hook marks each torch.optim optimizer step; to mark steps yourself, wrap "
        "each step in an NVTX range named ProfilerStep#N (torch.cuda.nvtx.range_push(f\"ProfilerStep#{i}\") "
        "... range_pop()), or call goblin_tracer_ctl.step() once per step (import goblin_tracer_ctl: on the "
        "PYTHONPATH goblin trace sets)";
    r["steps_hint"] = hint;
    r["note"] = r.contains("note") ? r["note"].get<std::string>() + "\n" + hint : hint;
  }
  return out;
}

}  // namespace goblin::run
