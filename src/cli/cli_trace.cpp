// goblin trace [-o DIR] -- CMD ARGS...   |   goblin trace --summary TRACE
// Thin: options → run::trace_command / run::summarize_trace → text or the JSON envelope.
#include <fmt/format.h>

#include <iterator>

#include "cli/record_options.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "run/tracer.h"

namespace goblin::cli {
namespace {

std::string fmt_num(const Json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return "-";
  return j[key].dump();
}

std::string human(const Json& r) {
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

}  // namespace

void register_trace(CLI::App& app) {
  struct Opts {
    std::vector<std::string> command;
    std::string out = "goblin-trace", summary;
    double timeout = 0;
    bool all_apis = false, json = false;
  };
  auto o = std::make_shared<Opts>();
  auto rec = std::make_shared<RecordOptions>();
  auto* cmd = app.add_subcommand(
      "trace",
      "Run any program under goblin's CUPTI tracer (libgoblin_cupti.so through CUDA_INJECTION64_PATH: no change "
      "to the program, no torch.profiler) and summarise what it captured. Each CUDA process writes "
      "DIR/goblin_cupti_<pid>.json.gz, a Kineto-compatible trace every goblin verb reads (info, triage, metrics, "
      "perfetto-fix). NVTX ranges named ProfilerStep#N become steps. Exit 7: tracer library missing; 8: the "
      "command failed and nothing was traced.");
  cmd->footer(help_footer_with_examples(
      "  goblin trace -o out/tr -- python3 train.py --steps 20       trace a whole run\n"
      "  goblin trace -o out/tr -- ./my_cuda_app arg1                 any CUDA program\n"
      "  goblin metrics out/tr/goblin_cupti_1234.json.gz              analyse what was traced\n"
      "  goblin trace --summary run/trace.json.gz --json              the same summary for any trace\n"));
  cmd->add_option("command", o->command, "after `--`: the program and its arguments");
  cmd->add_option("-o,--out", o->out, "output folder (default ./goblin-trace)");
  cmd->add_option("--timeout", o->timeout, "seconds before the program is killed (default: none)");
  cmd->add_flag("--all-apis", o->all_apis,
                "record every CUDA runtime/driver API call (default: launches, copies, syncs, allocations, graphs)");
  cmd->add_option("--summary", o->summary, "summarise an existing trace (any format goblin reads) instead");
  cmd->add_flag("--json", o->json, "print the {ok, result, error} envelope");
  add_record_options(cmd, *rec, /*with_workload=*/true);
  cmd->callback([o, rec] {
    run_verb(o->json, [&]() -> VerbResult {
      VerbResult r;
      if (!o->summary.empty()) {
        r.result = run::summarize_trace(o->summary);
        if (r.result.contains("read_error"))
          r.error = make_error(
              static_cast<ErrorKind>(r.result.value("read_error_kind", static_cast<int>(ErrorKind::Malformed))),
              r.result.value("read_error", ""), o->summary);
        r.human = human(r.result);
        record_cli_result(*rec, "trace", {o->summary}, "", r);
        return r;
      }
      if (o->command.empty()) {
        r.error = make_error(ErrorKind::Usage, "nothing to run: goblin trace [-o DIR] -- CMD ARGS...");
        return r;
      }
      run::TraceRequest req;
      req.command = o->command;
      req.out_dir = o->out;
      req.timeout_s = o->timeout;
      req.all_apis = o->all_apis;
      auto t = run::trace_command(req);
      r.result = t.result;
      r.error = t.error;
      r.human = human(t.result);
      if (t.result.contains("main_trace") && t.result["main_trace"].is_string())
        r.human += "main trace: " + t.result["main_trace"].get<std::string>() + "\n";
      // The trace it wrote is the run's input: hashed, so the dashboard's comparison can diff it.
      std::vector<std::string> inputs;
      if (t.result.contains("main_trace") && t.result["main_trace"].is_string())
        inputs.push_back(t.result["main_trace"].get<std::string>());
      record_cli_result(*rec, "trace", inputs, "", r);
      return r;
    });
  });
}

}  // namespace goblin::cli
