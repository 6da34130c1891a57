#include "run/runners.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "config/command_line.h"
#include "config/workload_config.h"
#include "core/build_info.h"
#include "core/io.h"
#include "core/locate.h"
#include "model/warning_json.h"
#include "run/prefetch_window.h"
#include "run/rocprof_check.h"
#include "run/run_results.h"
#include "run/stats.h"
#include "run/tracer.h"

namespace fs = std::filesystem;

namespace goblin::run {
namespace {
// The config a workload is run on must be one goblin can read, checked before anything starts
// (a GPU, a profiler, a python): a missing, damaged or hostile file is a clear error (exit 3 / 5)
// the same on every machine, never a crashed workload (exit 8). Returns the error, or none with
// `cfg` holding the parsed config (empty when the workload has no config file), kept for what the
// run reports about it prefetch_window.
std::optional<Error> read_workload_config(const WorkloadSpec& w, std::optional<config::WorkloadConfig>& cfg) {
  cfg.reset();
  if (w.config.empty()) return std::nullopt;
  ASSIGN_OR_RETURN(auto c, config::parse_config_file(w.config));
  cfg = std::move(c);
  return std::nullopt;
}

std::string self_exe() {
  std::string exe = self_exe_path();
  return exe.empty() ? "goblin" : exe;
}

Json read_json_file(const std::string& path) {
  auto t = read_all(path);
  if (!t) return nullptr;
  try {
    return Json::parse(*t);
  } catch (...) {
    return nullptr;
  }
}

// A throughput figure and its unit (docs/metrics.md § Throughput unit), as a run, a side and the
// bench's top level write them: {key: per second, rounded to 0.1, "throughput_unit": unit}.
Json throughput_json(const char* key, double per_s, const std::string& unit) {
  return Json{{key, round_to(per_s, 1)}, {"throughput_unit", unit}};
}

Json command_json(const WorkloadSpec& w) {
  Json a = Json::array();
  if (!w.command.empty())
    for (auto& s : w.command) a.push_back(s);
  else
    for (auto& s : {w.python, w.workload_py, w.config, std::string("--steps"), fmt::format("{}", w.steps),
                    std::string("--warmup"), fmt::format("{}", w.warmup)})
      a.push_back(s);
  return a;
}

Json gpu_json(const GpuInfo& g) {
  return Json{{"vendor", g.vendor}, {"name", g.name}, {"driver", g.driver}, {"detail", g.detail}};
}

Error no_gpu_error(const GpuInfo& g) {
  return make_error(ErrorKind::Environment,
                    "no GPU on this machine (" + g.detail +
                        "): live runs need one. Audit recorded artefacts instead: goblin audit CONFIG --replay DIR "
                        "(see docs/live.md)");
}

std::string file_bytes(const std::string& path) {
  auto t = read_all(path);
  return t ? *t : std::string("<unreadable:") + path + ">";
}

}  // namespace

ProfileOutcome profile_workload(const ProfileRequest& req) {
  ProfileOutcome out;
  const WorkloadSpec& w = req.workload;
  Json& run = out.value;
  run["schema"] = "goblin.run/1";
  run["runner_kind"] = "live";
  run["goblin_version"] = goblin_version();
  run["goblin"] = build_info_json();  // version and the commit it was built from
  run["run_dir"] = req.run_dir;
  run["config"] = w.config.empty() ? Json(nullptr) : Json(w.config);
  run["command"] = command_json(w);
  run["started"] = now_iso8601();
  std::optional<config::WorkloadConfig> cfg;
  if (auto bad = read_workload_config(w, cfg)) {
    out.error = *bad;
    return out;
  }
  if (Status st = make_dirs(req.run_dir); !st.ok()) {
    out.error = st.error();
    return out;
  }
  GpuInfo gpu = detect_gpu();
  run["gpu"] = gpu_json(gpu);
  if (req.require_gpu && gpu.vendor == "none") {
    out.error = no_gpu_error(gpu);
    (void)write_file(req.run_dir + "/run.json", run.dump(1));
    return out;
  }
  std::string hook = hook_dir_for(w);
  if (hook.empty()) {
    out.error =
        make_error(ErrorKind::Environment,
                   "the profiler hook (workloads/goblin_hook/sitecustomize.py) was not found; set GOBLIN_HOOK_DIR");
    return out;
  }
  run["environment_fingerprint"] = environment_fingerprint(w.python, gpu);
  std::map<std::string, std::string> env;
  env["GOBLIN_PROFILE"] = "1";
  env["GOBLIN_PROFILE_OUT"] = fs::absolute(req.run_dir).string();
  env["GOBLIN_PROFILE_ACTIVE"] = fmt::format("{}", w.steps);
  const char* pp = std::getenv("PYTHONPATH");
  env["PYTHONPATH"] = hook + (pp && *pp ? std::string(":") + pp : "");
  std::string why;
  const std::string tracer = req.tracer.empty() ? default_tracer(gpu, &why) : req.tracer;
  if (!req.tracer.empty()) why = "asked for (--tracer " + tracer + ")";
  run["tracer"] = Json{{"name", tracer}, {"why", why}};
  std::string cupti_dir;
  int compare_steps = 0;  // unrecorded steps timed before the window (cupti only)
  if (tracer == "cupti") {
    std::string lib = find_cupti_library();
    if (lib.empty()) {
      out.error = make_error(ErrorKind::Environment,
                             "--tracer cupti: libgoblin_cupti.so was not found (build goblin with CUDA's CUPTI, or set "
                             "GOBLIN_CUPTI_LIB); --tracer torch uses torch.profiler instead");
      return out;
    }
    cupti_dir = fs::absolute(req.run_dir).string() + "/cupti";
    (void)make_dirs(cupti_dir);
    for (const auto& old : cupti_traces(cupti_dir)) std::remove(old.c_str());
    for (auto& [k, v] : cupti_env(lib, cupti_dir)) env[k] = v;
    env["GOBLIN_TRACER"] = "cupti";
    // Record the profiled window only (CUPTI's per-launch cost is paid while recording), and time
    // as many unrecorded steps just before it: the tracer's cost on this very run, in run.json.
    env["GOBLIN_CUPTI_START_PAUSED"] = "1";
    // At the window's end the hook disables recording without synchronising, and detaches CUPTI
    // once a CUDA event after the window has completed: the job never drains its queue for the
    // tracer, and the steps after the window run untraced (bench/results/tracer/README.md,
    // session of 2026-11-24 (2): +0.11 % and +0.76 % on tuned_compile, torch.profiler +12.7 %).
    env["GOBLIN_CUPTI_PAUSE"] = "disable";
    env["GOBLIN_CUPTI_DETACH"] = "1";
    if (w.warmup >= 1) {
      compare_steps = w.steps;
      env["GOBLIN_PROFILE_COMPARE"] = fmt::format("{}", compare_steps);
    }
  } else if (tracer != "torch") {
    out.error = make_error(ErrorKind::Usage, "--tracer must be cupti or torch, not '" + tracer + "'");
    return out;
  }
  WorkloadSpec wr = w;
  wr.warmup = w.warmup + compare_steps;
  env["GOBLIN_PROFILE_WAIT"] = fmt::format("{}", wr.warmup);  // the window starts after warm-up and comparison
  const bool rocprof = gpu.vendor == "amd" && on_path("rocprofv3");
  if (rocprof) {
    // The kernel trace from rocprofv3 beside the PyTorch trace, read back and checked against it
    // after the run (run/rocprof_check.h). Exercised on the simulated ROCm host (tests/sim_rocm).
    // ROCm 7's rocprofv3 writes rocpd (SQLite) by default and calls its direct CSV deprecated,
    // liable to omit records (rocprofiler-sdk docs, "rocprofv3 I/O control options"); ROCm 6's
    // has no rocpd, so a release amd-smi does not name keeps the CSV every version writes.
    const std::string rocm = rocm_version();
    int rocm_major = 0;
    std::from_chars(rocm.data(), rocm.data() + rocm.size(), rocm_major);
    const bool rocpd = rocm_major >= 7;
    std::vector<std::string> wrap = {"rocprofv3",
                                     "--kernel-trace",
                                     "--memory-copy-trace",
                                     "--output-format",
                                     rocpd ? "rocpd" : "csv",
                                     "-d",
                                     req.run_dir + "/rocprof",
                                     "--"};
    std::vector<std::string> inner = wr.command;
    if (inner.empty())
      inner = {wr.python,
               wr.workload_py,
               wr.config,
               "--steps",
               fmt::format("{}", wr.steps),
               "--warmup",
               fmt::format("{}", wr.warmup),
               "--result",
               req.run_dir + "/result.json"};
    wrap.insert(wrap.end(), inner.begin(), inner.end());
    wr.command = wrap;  // run.json "command" shows the wrapper; "rocprofv3" what it recorded
  }
  run["env_added"] = env;
  TelemetryCollector tc;
  bool tel = tc.start(gpu.vendor, req.run_dir + "/telemetry.csv");
  std::cerr << fmt::format("goblin profile: {} — {} warm-up steps, {}then {} profiled steps{}\n",
                           w.config.empty() ? std::string("command") : w.config, w.warmup,
                           compare_steps ? fmt::format("{} unrecorded steps timed, ", compare_steps) : std::string(),
                           w.steps, tel ? " (telemetry every 200 ms)" : "");
  // The hook writes its first status only when hook.json is absent (other torch processes of the
  // workload must not overwrite it), so a re-used run directory starts without one.
  std::remove((req.run_dir + "/hook.json").c_str());
  RunOutcome o = run_workload(wr, req.run_dir, env, "profile");
  TelemetrySummary ts = tc.stop();
  run["finished"] = now_iso8601();
  run["wall_s"] = round_to(o.proc.wall_s, 3);
  run["exit_code"] = o.proc.exit_code;
  run["telemetry"] = telemetry_to_json(ts);
  Json hookj = read_json_file(req.run_dir + "/hook.json");
  run["hook"] = hookj;
  run["workload_result"] = o.result;
  if (o.result.is_object() && o.result.contains("env")) {
    const Json& e = o.result["env"];
    run["versions"] = Json{{"pytorch", e.value("torch", "")},
                           {"cuda", e.contains("cuda") && e["cuda"].is_string() ? e["cuda"] : Json("")},
                           {"driver", gpu.driver},
                           {"gpu", e.value("gpu", gpu.name)}};
  } else {
    run["versions"] = Json{{"driver", gpu.driver}, {"gpu", gpu.name}};
  }
  // What the workload did not report comes from goblin's own environment fingerprint.
  run["versions"] = fill_versions(run["versions"], run.value("environment_fingerprint", ""));
  auto save = [&] { (void)write_file(req.run_dir + "/run.json", run.dump(1)); };
  if (hookj.is_object() && hookj.value("state", "") == "profiler_missing") {
    out.error = make_error(ErrorKind::Environment,
                           "the PyTorch profiler is not available in this Python (" + hookj.value("error", "") + ")",
                           req.run_dir + "/hook.json");
    save();
    return out;
  }
  if (o.error) {
    out.error = o.error;
    save();
    return out;
  }
  if (!hookj.is_object()) {
    out.error =
        make_error(ErrorKind::Environment,
                   "the profiler hook never loaded (another sitecustomize on PYTHONPATH, or the command is not a "
                   "Python program that imports torch)",
                   req.run_dir);
    save();
    return out;
  }
  if (hookj.value("state", "") != "done") {
    out.error = make_error(ErrorKind::Workload,
                           fmt::format("the profiling window did not complete: hook state '{}' after {} optimizer "
                                       "steps (needed {}){}",
                                       hookj.value("state", ""), hookj.value("steps_seen", 0), wr.warmup + w.steps,
                                       hookj.contains("error") ? "; " + hookj.value("error", "") : ""),
                           req.run_dir + "/hook.json");
    save();
    return out;
  }
  if (tracer == "cupti") {
    // The workload process's own trace (the hook's pid) becomes RUN_DIR/trace.json.gz; traces
    // of other CUDA processes it started stay in RUN_DIR/cupti.
    std::string mine = fmt::format("{}/goblin_cupti_{}.json.gz", cupti_dir, hookj.value("pid", 0));
    std::error_code ec;
    if (!fs::is_regular_file(mine, ec)) {
      out.error = make_error(
          ErrorKind::Environment,
          "the CUPTI tracer wrote no trace for the workload process (expected " + mine + "); its stderr may say why",
          req.run_dir + "/stderr.log");
      save();
      return out;
    }
    fs::rename(mine, req.run_dir + "/trace.json.gz", ec);
    if (ec) {
      out.error = make_error(ErrorKind::Io, "cannot move the trace: " + ec.message(), mine);
      save();
      return out;
    }
  }
  Json prof;
  prof["step_time_s"] = hookj.value("step_time_seconds", 0.0);
  if (hookj.contains("tokens_per_sec") && hookj["tokens_per_sec"].is_number())
    prof["tokens_per_sec"] = hookj["tokens_per_sec"];
  prof["steps"] = w.steps;
  prof["window"] =
      fmt::format("optimizer steps {}..{} (first {} excluded as warm-up{}), ", wr.warmup + 1, wr.warmup + w.steps,
                  w.warmup, compare_steps ? fmt::format(", then {} timed unrecorded", compare_steps) : std::string()) +

      // The CUPTI hook times the window by CUDA events (no synchronisation inside
      // the job); torch.profiler's hook synchronises at both edges.
      (hookj.contains("timed_by") && hookj["timed_by"].is_string() ? "timed by " + hookj["timed_by"].get<std::string>()
                                                                   : std::string("device-synchronised at both edges")) +
      "; " + (tracer == "cupti" ? "goblin CUPTI tracer, recording the window only" : "torch.profiler");
  if (hookj.contains("untraced_step_time_seconds") && hookj["untraced_step_time_seconds"].is_number()) {
    // The same run, the steps just before the window, unrecorded: what the tracer cost here.
    prof["untraced_step_time_s"] = hookj["untraced_step_time_seconds"];
    prof["untraced_steps"] = compare_steps;
    if (hookj.contains("tracer_step_cost_pct")) prof["tracer_step_cost_pct"] = hookj["tracer_step_cost_pct"];
  }
  // Did the window run on batches the DataLoader prefetched before the first step? Then it
  // cannot show a data-loading bottleneck: say so beside the figures.
  if (cfg)
    if (Json pw = prefetch_window(*cfg, wr.warmup, w.steps); !pw.is_null()) prof["data_prefetch"] = pw;
  run["profiled"] = prof;
  if (rocprof) {
    RocprofCheck rc = check_rocprof_kernels(req.run_dir, req.run_dir + "/rocprof", req.run_dir + "/trace.json.gz");
    run["rocprofv3"] = rc.json();
    if (rc.disagreement) std::cerr << "goblin profile: warning: " << *rc.disagreement << "\n";
  }
  run["files"] = Json{{"trace", "trace.json.gz"}, {"telemetry", ts.observed ? Json("telemetry.csv") : Json(nullptr)},
                      {"hook", "hook.json"},      {"result", "result.json"},
                      {"stdout", "stdout.log"},   {"stderr", "stderr.log"},
                      {"metrics", "metrics.json"}};
  save();

  // RunMetrics through the analysis library (`goblin metrics`, run as a child so a failing
  // analysis cannot take the run down with it).
  Json metrics = nullptr;
  std::string note;
  // The run directory, not the trace alone: goblin metrics then reads the telemetry too (HBM
  // peak, capacity and headroom), and only the files run.json lists.
  for (const std::string& target : {req.run_dir}) {
    ProcSpec s;
    s.argv = {self_exe(), "metrics", target, "--json"};
    s.stdout_path = req.run_dir + "/metrics.out";
    s.stderr_path = req.run_dir + "/metrics.err";
    s.timeout_s = 300;
    auto r = run_process(s);
    Json env_j = read_json_file(s.stdout_path);
    if (r && env_j.is_object() && env_j.value("ok", false) && env_j["result"].is_object()) {
      metrics = env_j["result"];
      break;
    }
    note = env_j.is_object() && env_j.contains("error") && env_j["error"].is_object()
               ? env_j["error"].value("message", "")
               : file_tail(s.stderr_path, 300);
  }
  std::remove((req.run_dir + "/metrics.out").c_str());
  std::remove((req.run_dir + "/metrics.err").c_str());
  if (metrics.is_null()) {
    metrics = minimal_run_metrics(run);
    metrics["warnings"].push_back(
        warning_to_json(make_warning(W::metrics_analysis_unavailable, "goblin metrics: " + note)));
    run["metrics_source"] = "runner (analysis unavailable: " + note + ")";
  } else {
    run["metrics_source"] = "goblin metrics (analysis library)";
  }
  // What the runner measured directly wins over trace-derived figures for these fields.
  metrics["runner_kind"] = "live";
  metrics["step_time_s"] = prof["step_time_s"];
  if (prof.contains("tokens_per_sec")) metrics["tokens_per_sec"] = prof["tokens_per_sec"];
  // HBM: the analysis read telemetry.csv (GB = 1e9 bytes); the runner's own summary (GiB) only
  // when the analysis had none.
  if (ts.observed && ts.mem_used_gb_max > 0 && metrics.value("hbm_peak_gb", Json()).is_null())
    metrics["hbm_peak_gb"] = round_to(ts.mem_used_gb_max * 1.073741824, 3);
  if (run.contains("versions")) metrics["versions"] = run["versions"];
  metrics["gpu_name"] = gpu.name;
  (void)write_file(req.run_dir + "/metrics.json", metrics.dump(1));
  run["metrics"] = metrics;
  save();
  return out;
}

// ---------------------------------------------------------------------------------------------

BenchOutcome bench_workloads(const BenchRequest& req) {
  BenchOutcome out;
  Json& res = out.value;
  res["schema"] = "goblin.bench/1";
  res["runner_kind"] = "live";
  res["goblin_version"] = goblin_version();
  res["goblin"] = build_info_json();
  std::vector<const WorkloadSpec*> sides = {&req.a};
  if (req.b) sides.push_back(&*req.b);
  std::vector<std::optional<config::WorkloadConfig>> cfgs(sides.size());
  for (size_t i = 0; i < sides.size(); ++i)
    if (auto bad = read_workload_config(*sides[i], cfgs[i])) {
      out.error = *bad;
      return out;
    }
  GpuInfo gpu = detect_gpu();
  res["gpu"] = gpu_json(gpu);
  if (req.require_gpu && gpu.vendor == "none") {
    out.error = no_gpu_error(gpu);
    return out;
  }
  std::string fp = environment_fingerprint(req.a.python, gpu);
  res["environment_fingerprint"] = fp;
  res["repeats"] = req.repeats;
  res["steps"] = req.a.steps;
  res["warmup"] = req.a.warmup;
  // Per side: did its measured steps run on batches prefetched before the first step?
  for (size_t i = 0; i < sides.size(); ++i)
    if (cfgs[i])
      if (Json pw = prefetch_window(*cfgs[i], sides[i]->warmup, sides[i]->steps); !pw.is_null())
        res["data_prefetch"][i == 0 ? "a" : "b"] = pw;
  std::vector<std::string> parts = {"goblin " + goblin_version(), fp, fmt::format("repeats={}", req.repeats)};
  for (auto* s : sides) {
    parts.push_back(s->config.empty() ? "" : file_bytes(s->config));
    parts.push_back(s->workload_py.empty() ? "" : file_bytes(s->workload_py));
    if (!s->script.empty()) parts.push_back("script " + file_bytes(s->script));  // --script: its bytes too
    parts.push_back(fmt::format("steps={},warmup={}", s->steps, s->warmup));
    for (auto& c : s->command) parts.push_back(c);
  }
  std::string key = hash_parts(parts);
  res["cache"] =
      Json{{"key", key},
           {"dir", cache_dir()},
           {"hit", false},
           {"hashed",
            "config bytes, workload (or --script) file bytes, environment fingerprint, goblin version, steps, warmup, "
            "repeats"}};
  if (req.use_cache) {
    if (auto hit = cache_get(key)) {
      Json r = *hit;
      r["cache"]["hit"] = true;
      std::cerr << "goblin bench: cached result " << key << " (--no-cache to re-measure)\n";
      out.value = r;
      return out;
    }
  }
  std::string work = req.work_dir;
  if (work.empty()) {
    const char* t = std::getenv("TMPDIR");
    work = fmt::format("{}/goblin-bench-{}", t && *t ? t : "/tmp", getpid());
  }
  if (Status st = make_dirs(work); !st.ok()) {
    out.error = st.error();
    return out;
  }
  res["work_dir"] = work;
  const char* names[] = {"a", "b"};
  std::vector<Json> side_runs(sides.size(), Json::array());
  std::vector<std::vector<double>> step_times(sides.size()), tps(sides.size()), thr(sides.size());
  // Per side: the throughput's unit and what a step processes, from its config (docs/metrics.md §
  // Throughput unit); a workload's result.json may name its own (throughput_unit, throughput).
  std::vector<std::string> units(sides.size(), "tokens");
  std::vector<std::optional<double>> items(sides.size());
  for (size_t i = 0; i < sides.size(); ++i)
    if (cfgs[i]) units[i] = config::throughput_unit(*cfgs[i]), items[i] = config::items_per_step(*cfgs[i]);
  std::string order;
  int total = req.repeats * static_cast<int>(sides.size()), k = 0;
  auto say = [&](const std::string& line) {
    if (req.progress)
      req.progress(static_cast<double>(k - 1) / total, line);
    else
      std::cerr << line << "\n";
  };
  for (int i = 0; i < req.repeats; ++i) {
    for (size_t s = 0; s < sides.size(); ++s) {
      if (req.cancelled && req.cancelled()) {
        res["order"] = order;
        for (size_t d = 0; d < sides.size(); ++d)
          if (!side_runs[d].empty()) res[names[d]] = Json{{"config", sides[d]->config}, {"runs", side_runs[d]}};
        out.error = make_error(ErrorKind::Workload, fmt::format("cancelled after {} of {} bench runs", k, total));
        return out;
      }
      ++k;
      const WorkloadSpec& w = *sides[s];
      std::string label =
          fmt::format("[bench {}/{}] {} run {}/{}", k, total,
                      w.config.empty() ? "command" : fs::path(w.config).filename().string(), i + 1, req.repeats);
      std::string dir = fmt::format("{}/{}{}", work, names[s], i + 1);
      (void)make_dirs(dir);
      say(label + " ...");
      TelemetryCollector tc;
      tc.start(gpu.vendor, dir + "/telemetry.csv");
      RunOutcome o = run_workload(w, dir, {}, label);
      TelemetrySummary ts = tc.stop();
      order += names[s][0] == 'a' ? 'A' : 'B';
      Json rj;
      rj["index"] = k;
      rj["wall_s"] = round_to(o.proc.wall_s, 3);
      rj["dir"] = dir;
      rj["telemetry"] = telemetry_to_json(ts);
      if (o.error) {
        rj["error"] = error_to_json(*o.error);
        side_runs[s].push_back(rj);
        res[names[s]] = Json{{"config", w.config}, {"runs", side_runs[s]}};
        res["order"] = order;
        Error e = *o.error;
        e.message = label + ": " + e.message;
        out.error = e;
        return out;
      }
      double st = o.result["step_time_seconds"].get<double>();
      double tp = o.result.value("tokens_per_sec", 0.0);
      rj["step_time_s"] = round_to(st, 6);
      rj["tokens_per_sec"] = round_to(tp, 1);
      if (o.result.contains("env")) rj["env"] = o.result["env"];
      if (o.result.contains("peak_mem_gb")) rj["peak_mem_gb"] = o.result["peak_mem_gb"];
      if (o.result.contains("throughput_unit") && o.result["throughput_unit"].is_string())
        units[s] = o.result["throughput_unit"].get<std::string>();
      double th = units[s] == "tokens" ? tp : items[s] ? *items[s] / st : 0.0;
      if (o.result.contains("throughput") && o.result["throughput"].is_number())
        th = o.result["throughput"].get<double>();
      rj.update(throughput_json("throughput", th, units[s]));
      side_runs[s].push_back(rj);
      step_times[s].push_back(st);
      tps[s].push_back(tp);
      thr[s].push_back(th);
      std::string line = fmt::format("{}: {:.4f} s/step, {:.0f} {}/s", label, st, th, units[s]);
      if (ts.observed)
        fmt::format_to(std::back_inserter(line), ", SM clock {:.0f} MHz, {:.0f} W, {:.0f} C", ts.sm_clock_mhz_median,
                       ts.power_w_median, ts.temp_c_max);
      say(line);
    }
  }
  res["order"] = order;
  for (size_t s = 0; s < sides.size(); ++s) {
    Json sj;
    sj["config"] = sides[s]->config.empty() ? Json(nullptr) : Json(sides[s]->config);
    sj["command"] = command_json(*sides[s]);
    sj["runs"] = side_runs[s];
    sj["step_time_s"] = interval_to_json(bootstrap_median(step_times[s]), 6);
    sj["tokens_per_sec_median"] = round_to(median(tps[s]), 1);
    sj.update(throughput_json("throughput_median", median(thr[s]), units[s]));
    NoiseFloor nf = aa_noise_floor(step_times[s]);
    sj["aa_noise_floor_pct"] = nf.available ? Json(round_to(nf.floor_pct, 2)) : Json(nullptr);
    // Telemetry across this side's runs.
    std::vector<double> clk, pw, tmp;
    for (auto& r : side_runs[s]) {
      const Json& t = r["telemetry"];
      if (!t.value("observed", false)) continue;
      clk.push_back(t["sm_clock_mhz"].value("median", 0.0));
      pw.push_back(t["power_w"].value("median", 0.0));
      tmp.push_back(t.value("temp_c_max", 0.0));
    }
    if (!clk.empty())
      sj["telemetry"] = Json{{"sm_clock_mhz_median", round_to(median(clk), 0)},
                             {"power_w_median", round_to(median(pw), 1)},
                             {"temp_c_max", round_to(*std::max_element(tmp.begin(), tmp.end()), 0)}};
    fill_gpu_util(sj, side_runs[s]);
    res[names[s]] = sj;
  }
  // Top-level figures of the config under test (what `goblin compare` reads from a bench JSON).
  res["step_time_s"] = round_to(median(step_times[0]), 6);
  res["tokens_per_sec"] = round_to(median(tps[0]), 1);
  res.update(throughput_json("throughput", median(thr[0]), units[0]));
  res["gpu_name"] = gpu.name;
  // Top level: only a measured number (RunMetrics readers take an absent gpu_util_pct as
  // unobserved); the basis or the reason it is missing beside it.
  if (res["a"]["gpu_util_pct"].is_number()) res["gpu_util_pct"] = res["a"]["gpu_util_pct"];
  for (const char* k : {"gpu_util_basis", "gpu_util_note"})
    if (res["a"].contains(k)) res[k] = res["a"][k];
  if (!side_runs[0].empty() && side_runs[0][0].contains("env")) {
    const Json& e = side_runs[0][0]["env"];
    res["versions"] = Json{{"pytorch", e.value("torch", "")},
                           {"cuda", e.contains("cuda") && e["cuda"].is_string() ? e["cuda"] : Json("")},
                           {"driver", gpu.driver},
                           {"gpu", e.value("gpu", gpu.name)}};
  }
  res["versions"] = fill_versions(res.value("versions", Json()), fp);
  if (req.b) {
    Comparison c = compare_step_times(step_times[0], step_times[1]);
    Json cj = comparison_to_json(c);
    cj["tokens_per_sec_ratio"] = median(tps[0]) > 0 ? round_to(median(tps[1]) / median(tps[0]), 4) : 0.0;
    cj["meaning"] = "speedup = median step time of A / median step time of B (B faster when > 1)";
    res["comparison"] = cj;
  }
  if (req.work_dir.empty()) {
    // The per-run logs only matter when something failed (kept above on every error path).
    std::error_code ec;
    fs::remove_all(work, ec);
    res["work_dir"] = nullptr;
    res["work_dir_note"] = "temporary per-run logs removed after a successful bench; --work-dir keeps them";
  }
  cache_put(key, res);
  return out;
}

}  // namespace goblin::run
