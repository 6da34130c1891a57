// The live verbs that run the user's workload: profile (one profiled window, run/runners.h),
// bench (unprofiled timing, R repeats, A B A B with --against) and trace (any program under
// goblin's CUPTI tracer, run/tracer.h). They launch processes, so they are offered to the CLI and
// Python (a user's own machine) and not over HTTP (the dashboard's callers must not start
// programs). Over MCP, profile and bench are profile_run and benchmark: the session measures
// through its own runner (Context::measure: --replay recordings, or the live runner with
// --allow-live), so an agent never names a program to run; trace is not offered there.
#include <fmt/format.h>

#include <iterator>

#include "app/registry.h"
#include "core/clock.h"
#include "core/io.h"
#include "run/live.h"
#include "run/runners.h"
#include "run/tracer.h"

namespace goblin::app {

namespace {

constexpr unsigned kLocal = kCli | kPython;  // the fields of a run this machine launches

bool looks_like_config(const std::string& s) {
  for (std::string_view ext : {".yaml", ".yml", ".json", ".py", ".env"})
    if (s.size() > ext.size() && s.compare(s.size() - ext.size(), std::string::npos, ext) == 0) return true;
  return false;
}

bool stop_requested(const Context& ctx) { return ctx.cancelled && ctx.cancelled->load(); }

// The fields profile and bench share. `config` is the CLI's CONFIG word or, over MCP, the config
// dict (a door that measures through ctx.measure reads that one).
struct LiveRunFields {
  Json config;
  std::optional<std::string> harness, harness_old;  // --harness, or its old spelling --workload
  std::string script;
  int64_t steps = 0, warmup = 0;
  double timeout = 0;
  bool allow_no_gpu = false;

  std::string config_word() const { return config.is_string() ? config.get<std::string>() : std::string(); }
  std::string harness_path() const { return harness ? *harness : harness_old.value_or(""); }
};

struct ProfileRequest : LiveRunFields {
  std::vector<std::string> args;
  std::optional<std::string> out;
  int64_t tokens_per_step = 0;
  std::string tracer;
};

VerbResult profile_verb(const ProfileRequest& rq, const Request& whole, Context& ctx) {
  if (ctx.measure) return ctx.measure("profile", whole);
  VerbResult r;
  std::vector<std::string> args;
  if (!rq.config.is_null()) args.push_back(rq.config_word());
  for (const auto& a : rq.args) args.push_back(a);
  if (args.empty()) {
    r.error = make_error(ErrorKind::Usage, "goblin profile CONFIG, or goblin profile -- CMD...");
    return r;
  }
  run::ProfileRequest req;
  if (!rq.script.empty()) {
    std::vector<std::string> rest(args.begin() + 1, args.end());
    ASSIGN_OR_RETURN(req.workload, run::script_workload(args[0], args[0], rq.script, rest));
  } else if (args.size() == 1 && looks_like_config(args[0])) {
    ASSIGN_OR_RETURN(req.workload, run::resolve_workload(args[0], rq.harness_path()));
  } else {
    req.workload.command = args;
  }
  req.workload.steps = static_cast<int>(rq.steps);
  req.workload.warmup = static_cast<int>(rq.warmup);
  req.workload.timeout_s = rq.timeout;
  if (rq.tokens_per_step > 0) req.workload.tokens_per_step = rq.tokens_per_step;
  req.require_gpu = !rq.allow_no_gpu;
  req.tracer = rq.tracer;
  req.run_dir = rq.out ? *rq.out : "runs/profile-" + now_iso8601();
  auto po = run::profile_workload(req);
  r.result = po.value;
  r.error = po.error;
  std::string h = fmt::format("run directory: {}\n", req.run_dir);
  auto out = std::back_inserter(h);
  if (po.value.contains("profiled")) {
    const auto& p = po.value["profiled"];
    if (p.contains("step_time_s") && p["step_time_s"].is_number())
      fmt::format_to(out, "profiled step time: {:g} s", p["step_time_s"].get<double>());
    else
      h += "profiled step time: unobserved";
    if (p.contains("tokens_per_sec")) fmt::format_to(out, ", {:g} tokens/s", p["tokens_per_sec"].get<double>());
    fmt::format_to(out, "\nwindow: {}\n", p.value("window", ""));
    fmt::format_to(out, "metrics: {}\n", po.value.value("metrics_source", ""));
    if (po.value.contains("tracer"))
      fmt::format_to(out, "tracer: {} ({})\n", po.value["tracer"].value("name", ""),
                     po.value["tracer"].value("why", ""));
    if (p.contains("untraced_step_time_s") && p["untraced_step_time_s"].is_number()) {
      fmt::format_to(out, "tracer cost on this run: {} unrecorded steps just before the window {:g} s/step",
                     p.value("untraced_steps", 0), p["untraced_step_time_s"].get<double>());
      if (p.contains("tracer_step_cost_pct"))
        fmt::format_to(out, ", recorded steps {:+.1f} %", p["tracer_step_cost_pct"].get<double>());
      h += " (one run: compare over repeats before trusting a few per cent)\n";
    }
    if (p.contains("data_prefetch") && !p["data_prefetch"].value("note", "").empty())
      fmt::format_to(out, "data loading: {}\n", p["data_prefetch"].value("note", ""));
  }
  r.human = h;
  return r;
}

std::string bench_text(const Json& res, bool failed) {
  std::string h;
  auto out = std::back_inserter(h);
  auto side = [&](const char* k) {
    if (!res.contains(k) || !res[k].contains("step_time_s")) return;
    const auto& s = res[k];
    // In the workload's own unit (images/s for an image workload), tokens/s when it names none.
    const std::string unit = s.value("throughput_unit", std::string("tokens"));
    const double per_s = unit == "tokens" ? s.value("tokens_per_sec_median", 0.0) : s.value("throughput_median", 0.0);
    fmt::format_to(out, "{} {}: median {:g} s/step [{:g}, {:g}], {:g} {}/s\n", k, s.value("config", std::string()),
                   s["step_time_s"]["point"].get<double>(), s["step_time_s"]["low"].get<double>(),
                   s["step_time_s"]["high"].get<double>(), per_s, unit);
  };
  side("a");
  side("b");
  if (res.contains("comparison")) {
    const auto& c = res["comparison"];
    fmt::format_to(out, "speedup (A/B step time): {:g} [{:g}, {:g}]{}\n", c["speedup"]["point"].get<double>(),
                   c["speedup"]["low"].get<double>(), c["speedup"]["high"].get<double>(),
                   c.value("significant", false) ? "" : " — not significant");
  }
  if (res.contains("data_prefetch"))
    for (const auto& [k, pw] : res["data_prefetch"].items())
      if (!pw.value("note", "").empty()) fmt::format_to(out, "data loading ({}): {}\n", k, pw.value("note", ""));
  if (!failed && res.contains("cache"))
    fmt::format_to(out, "cache: {}{}\n", res["cache"].value("hit", false) ? "hit " : "stored ",
                   res["cache"].value("key", ""));
  return h;
}

struct BenchVerbRequest : LiveRunFields {
  std::vector<std::string> script_args;
  std::optional<std::string> against;
  int64_t repeats = 5;
  std::string work_dir, emit_sides;
  bool no_cache = false;
};

VerbResult bench_verb(const BenchVerbRequest& rq, const Request& whole, Context& ctx) {
  if (ctx.measure) return ctx.measure("bench", whole);
  VerbResult r;
  const std::string config = rq.config_word();
  const std::string& script = rq.script;
  const std::vector<std::string>& script_args = rq.script_args;
  if (!script_args.empty() && script.empty()) {
    r.error = make_error(ErrorKind::Usage, "arguments after -- are for --script; pass --script train.py");
    return r;
  }
  auto side_of = [&](const std::string& cfg) {
    return script.empty() ? run::resolve_workload(cfg, rq.harness_path())
                          : run::script_workload(cfg, config, script, script_args);
  };
  const int steps = static_cast<int>(rq.steps), warmup = static_cast<int>(rq.warmup);
  const double timeout = rq.timeout;
  run::BenchRequest req;
  ASSIGN_OR_RETURN(req.a, side_of(config));
  req.a.steps = steps, req.a.warmup = warmup, req.a.timeout_s = timeout;
  if (rq.against) {
    ASSIGN_OR_RETURN(auto b, side_of(*rq.against));
    b.steps = steps, b.warmup = warmup, b.timeout_s = timeout;
    req.b = b;
  }
  req.repeats = static_cast<int>(rq.repeats);
  req.require_gpu = !rq.allow_no_gpu;
  req.use_cache = !rq.no_cache;
  req.work_dir = rq.work_dir;
  req.progress = ctx.progress;
  req.cancelled = [&ctx] { return stop_requested(ctx); };
  auto bo = run::bench_workloads(req);
  r.result = bo.value;
  r.error = bo.error;
  const std::string& emit = rq.emit_sides;
  if (!bo.error && !emit.empty() && bo.value.contains("b")) {
    // Each side as a single-config bench result (its runs under "a"), so that
    // `goblin compare before.json after.json` bootstraps over the interleaved runs.
    if (Status st = run::make_dirs(emit); !st.ok()) {
      r.error = st.error();
      return r;
    }
    for (const char* side : {"a", "b"}) {
      Json one = run::bench_side_result(bo.value, side);
      std::string path = emit + (side == std::string("a") ? "/before.json" : "/after.json");
      if (Status st = write_file(path, envelope_ok(one).dump(1)); !st.ok()) {
        r.error = st.error();
        return r;
      }
    }
  }
  r.human = bench_text(bo.value, bo.error.has_value());
  return r;
}

std::string fmt_num(const Json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return "-";
  return j[key].dump();
}

std::string trace_text(const Json& r) {
  std::string h;
  auto o = std::back_inserter(h);
  if (r.contains("exit_code")) {
    fmt::format_to(o, "command: exit code {}", r.value("exit_code", -1));
    if (r.value("term_signal", 0)) fmt::format_to(o, ", signal {}", r.value("term_signal", 0));
    fmt::format_to(o, ", {:g} s\n", r.value("wall_s", 0.0));
  }
  if (r.contains("note")) fmt::format_to(o, "{}\n", r.value("note", ""));
  const Json& ts = r.contains("traces") ? r["traces"] : Json::array({r});
  for (const auto& t : ts) {
    fmt::format_to(o, "trace: {}\n", t.value("path", ""));
    if (t.contains("read_error")) fmt::format_to(o, "  read error: {}\n", t.value("read_error", ""));
    fmt::format_to(o, "  kernels {}, memcpy {}, memset {}, API calls {}, annotations {}\n", fmt_num(t, "kernels"),
                   fmt_num(t, "memcpys"), fmt_num(t, "memsets"), fmt_num(t, "api_calls"), fmt_num(t, "annotations"));
    fmt::format_to(o, "  steps: {} complete; per step: kernels {}, GPU busy {} ms, step {} ms (medians)\n",
                   fmt_num(t, "complete_steps"), fmt_num(t, "kernels_per_step_median"),
                   fmt_num(t, "gpu_busy_ms_per_step_median"), fmt_num(t, "step_ms_median"));
    if (t.value("graph_kernels", 0) > 0)
      fmt::format_to(o, "  CUDA graphs: {} graph(s), {} kernels, {} attributed to their cudaGraphLaunch\n",
                     fmt_num(t, "graphs"), fmt_num(t, "graph_kernels"),
                     fmt_num(t, "graph_kernels_attributed_to_graph_launch"));
    if (t.contains("dropped_records"))
      fmt::format_to(o, "  tracer: written at {}, dropped records {}, buffer callbacks {} ns\n",
                     t.value("written_at", ""), fmt_num(t, "dropped_records"), fmt_num(t, "buffer_callback_ns"));
    if (t.value("started_paused", false))
      fmt::format_to(o,
                     "  tracer: started paused and recorded only while resumed (goblin's hook: the profiled "
                     "window); {} ns unrecorded\n",
                     fmt_num(t, "recording_paused_ns"));
    else if (t.value("recording_pauses", 0) > 0)
      fmt::format_to(o,
                     "  tracer: recording was paused {} time(s), {} ns in all: this trace does not hold the paused "
                     "blocks\n",
                     fmt_num(t, "recording_pauses"), fmt_num(t, "recording_paused_ns"));
    if (t.contains("tracer_step_cost_pct"))
      fmt::format_to(o,
                     "  tracer cost measured by the hook: recorded steps {} % slower than the unrecorded steps just "
                     "before them ({} s/step)\n",
                     fmt_num(t, "tracer_step_cost_pct"), fmt_num(t, "untraced_step_time_seconds"));
  }
  return h;
}

struct TraceVerbRequest {
  std::vector<std::string> command;
  std::string out;
  double timeout = 0;
  bool all_apis = false;
  std::optional<std::string> summary;
};

VerbResult trace_verb(const TraceVerbRequest& rq, Context&) {
  VerbResult r;
  if (rq.summary) {
    const std::string& path = *rq.summary;
    r.result = run::summarize_trace(path);
    if (r.result.contains("read_error"))
      r.error =
          make_error(static_cast<ErrorKind>(r.result.value("read_error_kind", static_cast<int>(ErrorKind::Malformed))),
                     r.result.value("read_error", ""), path);
    r.human = trace_text(r.result);
    return r;
  }
  const std::vector<std::string>& command = rq.command;
  if (command.empty()) {
    r.error = make_error(ErrorKind::Usage, "nothing to run: goblin trace [-o DIR] -- CMD ARGS...");
    return r;
  }
  run::TraceRequest req;
  req.command = command;
  req.out_dir = rq.out;
  req.timeout_s = rq.timeout;
  req.all_apis = rq.all_apis;
  auto t = run::trace_command(req);
  r.result = t.value;
  r.error = t.error;
  r.human = trace_text(t.value);
  if (t.value.contains("main_trace") && t.value["main_trace"].is_string())
    r.human += "main trace: " + t.value["main_trace"].get<std::string>() + "\n";
  return r;
}

Field field(const char* name, FieldKind k, const char* help, unsigned doors = kLocal) {
  Field f{name, k, help};
  f.doors = doors;
  return f;
}

Field shown(Field f, Json dflt) {
  f.default_value = std::move(dflt);
  f.cli_show_default = true;
  return f;
}

Field positional(Field f, bool required = false) {
  f.positional = true;
  f.required = required;
  return f;
}

Field hidden_old_harness() {
  // Old spelling of --harness: --workload names the workload in reports (audit, compare), and
  // taking the flag here keeps the recording's --workload off these verbs.
  Field f = field("harness_old", FieldKind::String, "old spelling of --harness", kCli);
  f.cli = "--workload";
  f.cli_hidden = true;
  return f;
}

// The MCP door's fields: the config dict an agent passes back, and the runner's knobs.
Field mcp_config() {
  Field f = field("config", FieldKind::Object,
                  "the FULL WorkloadConfig dict parse_config returned (or propose_patch's new_config)", kMcp);
  f.required = true;
  return f;
}

Verb declare_profile() {
  Verb v;
  v.cli_path = {"profile"};
  v.tool = "profile_run";
  v.audit_step = 2;
  // MCP: it records its run in the session (compare_runs reads it), so it runs in the server
  // process, and a stopped call ends through the live runner's process groups.
  v.session_bound = true;
  v.title = "Profile a short run";
  v.summary =
      "Profile a short window of a live run (warm-up excluded), switched on from outside the script: goblin's CUPTI "
      "tracer recording only the window (the same number of unrecorded steps just before it are timed, so run.json "
      "says what the tracer cost this run) or torch.profiler; GPU telemetry every 200 ms; everything in a run "
      "directory. Exit 7: no GPU/profiler; 8: workload crash, hang, OOM.";
  v.description =
      "CLI and Python: the result is run.json. MCP (profile_run): RunMetrics + additive waste budget "
      "of a short profiled run of the config. Live only with --allow-live on a GPU machine (goblin's own profile "
      "runner); otherwise from the session's --replay recordings; otherwise ok=false. Never invents results.";
  v.examples =
      "  goblin profile workloads/configs/base.yaml -o out/prof      the reference workload, profiled\n"
      "  goblin profile --steps 10 -o out/prof -- python train.py --cfg my.yaml\n"
      "  goblin profile hf.yaml --script train_hf.py -- {config}       an unmodified script, timed by the hook\n";
  Field o = field("out", FieldKind::OutputDir, "run directory (default runs/profile-<time>)");
  o.cli = "-o,--out";
  Field tracer = field("tracer", FieldKind::String,
                       "cupti (goblin's CUPTI tracer: CUPTI activity buffers, recording only the window) or torch "
                       "(torch.profiler); default cupti where libgoblin_cupti.so and an NVIDIA GPU are found, else "
                       "torch. run.json says which ran");
  tracer.choices = {"cupti", "torch"};
  // Two positionals, not one list: CLI11 ends a positional list at the first option, so in
  // `CONFIG --script FILE -- ARGS` the ARGS need a positional of their own.
  using P = ProfileRequest;
  typed_request<P>(
      v, profile_verb,
      param(&P::config, positional(field("config", FieldKind::String,
                                         "CONFIG (run workloads/train.py on it), or after `--` the command to "
                                         "profile"))),
      param(&P::args, positional(field("args", FieldKind::StringList,
                                       "the command's arguments (after `--`), or --script's (with {config})"))),
      param(&P::config, mcp_config()),
      param(&P::steps, shown(field("steps", FieldKind::Integer, "profiled steps (optimizer steps)"), 5)),
      param(&P::steps, field("steps", FieldKind::Integer, "profiled steps (live runs; default: the runner's 5)", kMcp)),
      param(&P::warmup, shown(field("warmup", FieldKind::Integer, "steps before the window (excluded)"), 5)),
      param(&P::out, o),
      param(&P::harness, field("harness", FieldKind::String,
                               "goblin-contract training script for CONFIG (takes CONFIG --steps --warmup --result; "
                               "default workloads/train.py)")),
      param(&P::harness_old, hidden_old_harness()),
      param(&P::script,
            field("script", FieldKind::String,
                  "the user's unmodified training script: goblin's hook times its optimizer steps and writes the "
                  "result (tokens/step from CONFIG's batch x seq x accumulation); goblin profile CONFIG --script "
                  "train.py [-- ARGS with {config}]")),
      param(&P::timeout,
            shown(field("timeout", FieldKind::Number, "seconds before the run counts as hung and is killed"), 900)),
      param(&P::tokens_per_step,
            field("tokens_per_step", FieldKind::Integer, "tokens per step, for `-- CMD` (tokens/s in the metadata)")),
      param(&P::tracer, tracer),
      param(&P::allow_no_gpu, field("allow_no_gpu", FieldKind::Boolean,
                                    "run even when no GPU is found (stand-in workloads, CPU tests)")));
  v.result_schema = Json{{"type", "object"},
                         {"description",
                          "run.json of the run directory (CLI, Python), or RunMetrics with goblin_run {id, runner, "
                          "notes} (MCP profile_run)"}};
  v.audit_budget = true;
  v.writes = true;
  v.doors = kCli | kMcp | kPython;
  // The run directory (run.json's run_dir), as goblin store add reads it; a session measurement
  // (MCP) has none and records its result.
  v.record_folder = [](const Request&, const VerbResult& r) {
    return r.result.is_object() && r.result.contains("run_dir") && r.result["run_dir"].is_string()
               ? r.result["run_dir"].get<std::string>()
               : std::string();
  };
  return v;
}

Verb declare_bench() {
  Verb v;
  v.cli_path = {"bench"};
  v.tool = "benchmark";
  v.audit_step = 5;
  v.session_bound = true;  // as profile_run
  v.title = "Benchmark a config";
  v.summary =
      "Unprofiled timing of a live run: R repeats, median step time with a bootstrap 95% interval (2000 resamples, "
      "fixed random seed), A/A noise floor, clocks/power/temperature; --against B interleaves A B A B. Cached. "
      "Exit 7: no GPU; 8: workload crash, hang, OOM.";
  v.description =
      "CLI and Python: the result is goblin.bench/1 (per side runs, interval, noise floor, telemetry, comparison). "
      "MCP (benchmark): unprofiled timing of the config (the original, then propose_patch's new_config). Live only "
      "with --allow-live on a GPU machine (goblin's own bench runner); otherwise from the session's --replay "
      "recordings; otherwise ok=false.";
  v.examples =
      "  goblin bench workloads/configs/base.yaml --repeats 5          median + 95% interval\n"
      "  goblin bench base.yaml --against tuned.yaml --repeats 4       A B A B ..., speedup with interval\n";
  Field repeats = shown(field("repeats", FieldKind::Integer, "runs per config"), 5);
  repeats.min = 1;
  repeats.max = 1000;
  using B = BenchVerbRequest;
  typed_request<B>(
      v, bench_verb, param(&B::config, positional(field("config", FieldKind::InputPath, "workload config (A)"), true)),
      param(&B::script_args,
            positional(field("script_args", FieldKind::StringList, "arguments for --script (after --)"))),
      param(&B::config, mcp_config()),
      param(&B::against,
            field("against", FieldKind::InputPath, "second config (B); speedup = A step time / B step time")),
      param(&B::steps, shown(field("steps", FieldKind::Integer, "measured steps per run"), 20)),
      param(&B::steps,
            field("steps", FieldKind::Integer, "timed steps per run (live; default: the runner's 20)", kMcp)),
      param(&B::warmup, shown(field("warmup", FieldKind::Integer, "excluded warm-up steps per run"), 5)),
      param(&B::repeats, repeats),
      param(&B::harness, field("harness", FieldKind::String,
                               "goblin-contract training script (takes CONFIG --steps --warmup --result; default "
                               "workloads/train.py)")),
      param(&B::harness_old, hidden_old_harness()),
      param(&B::script, field("script", FieldKind::String,
                              "the user's unmodified training script, timed by goblin's hook (result written for "
                              "it); arguments after --, {config} = the config of each side")),
      param(&B::timeout,
            shown(field("timeout", FieldKind::Number, "seconds per run before it counts as hung and is killed"), 900)),
      param(&B::work_dir,
            field("work_dir", FieldKind::OutputDir, "keep per-run logs here (default: a temporary directory)")),
      param(&B::emit_sides, field("emit_sides", FieldKind::OutputDir,
                                  "with --against: also write DIR/before.json and DIR/after.json, one side each, "
                                  "for goblin compare")),
      param(&B::no_cache, field("no_cache", FieldKind::Boolean, "always re-measure")),
      param(&B::allow_no_gpu, field("allow_no_gpu", FieldKind::Boolean,
                                    "run even when no GPU is found (stand-in workloads, CPU tests)")));
  v.result_schema = Json{{"type", "object"},
                         {"description",
                          "goblin.bench/1 (CLI, Python), or RunMetrics with goblin_run {id, runner, notes, "
                          "per_run_step_time_s} (MCP benchmark)"}};
  v.audit_budget = true;
  v.writes = true;
  v.doors = kCli | kMcp | kPython;
  return v;
}

Verb declare_trace() {
  Verb v;
  v.cli_path = {"trace"};
  v.title = "Trace a program with goblin's CUPTI tracer";
  v.summary =
      "Run any program under goblin's CUPTI tracer (libgoblin_cupti.so through CUDA_INJECTION64_PATH: no change "
      "to the program, no torch.profiler) and summarise what it captured. Each CUDA process writes "
      "DIR/goblin_cupti_<pid>.json.gz, a Kineto-compatible trace every goblin verb reads (info, triage, metrics, "
      "perfetto-fix). NVTX ranges named ProfilerStep#N become steps. Exit 7: tracer library missing; 8: the "
      "command failed and nothing was traced.";
  v.description = "The result is goblin.trace/1: the command's exit, one summary per trace written, main_trace.";
  v.examples =
      "  goblin trace -o out/tr -- python3 train.py --steps 20       trace a whole run\n"
      "  goblin trace -o out/tr -- ./my_cuda_app arg1                 any CUDA program\n"
      "  goblin metrics out/tr/goblin_cupti_1234.json.gz              analyse what was traced\n"
      "  goblin trace --summary run/trace.json.gz --json              the same summary for any trace\n";
  Field o = field("out", FieldKind::OutputDir, "output folder (default ./goblin-trace)");
  o.cli = "-o,--out";
  o.default_value = "goblin-trace";
  using T = TraceVerbRequest;
  typed_request<T>(
      v, trace_verb,
      param(&T::command, positional(field("command", FieldKind::StringList,
                                          "after `--`: the program and its "
                                          "arguments"))),
      param(&T::out, o),
      param(&T::timeout, field("timeout", FieldKind::Number, "seconds before the program is killed (default: none)")),
      param(&T::all_apis, field("all_apis", FieldKind::Boolean,
                                "record every CUDA runtime/driver API call (default: launches, copies, syncs, "
                                "allocations, graphs)")),
      param(&T::summary,
            field("summary", FieldKind::InputPath, "summarise an existing trace (any format goblin reads) instead")));
  v.result_schema = Json{{"type", "object"}, {"description", "goblin.trace/1, or one trace's summary (--summary)"}};
  v.writes = true;
  v.doors = kLocal;
  // The trace it wrote is the run's input: hashed, so the dashboard's comparison can diff it.
  v.record_inputs = [](const Request& rq, const VerbResult& r) {
    std::vector<std::string> in;
    if (!rq.has("summary") && r.result.is_object() && r.result.contains("main_trace") &&
        r.result["main_trace"].is_string())
      in.push_back(r.result["main_trace"].get<std::string>());
    return in;
  };
  return v;
}

}  // namespace

void add_run_verbs(std::vector<Verb>& out) {
  out.push_back(declare_profile());
  out.push_back(declare_bench());
  out.push_back(declare_trace());
}

}  // namespace goblin::app
