// goblin profile CONFIG [--steps N] [--warmup W] [-o RUNDIR] | goblin profile [opts] -- CMD...
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>

#include "cli/record_options.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "run/live_runner.h"
#include "run/runners.h"
#include "run/tracer.h"

namespace goblin::cli {
namespace {

bool looks_like_config(const std::string& s) {
  for (const char* ext : {".yaml", ".yml", ".json", ".py", ".env"})
    if (s.size() > std::string(ext).size() &&
        s.compare(s.size() - std::string(ext).size(), std::string::npos, ext) == 0)
      return true;
  return false;
}

}  // namespace

void register_profile(CLI::App& app) {
  struct Opts {
    std::string first;                    // CONFIG, or the program after `--`
    std::vector<std::string> rest, args;  // what follows it; args = first + rest
    int steps = 5, warmup = 5;
    std::string out, workload, tracer, script;
    double timeout = 900;
    long long tokens_per_step = 0;
    bool json = false, allow_no_gpu = false;
  };
  auto o = std::make_shared<Opts>();
  auto rec = std::make_shared<RecordOptions>();
  auto* cmd = app.add_subcommand(
      "profile",
      "Profile a short window of a live run (warm-up excluded), switched on from outside the script: goblin's CUPTI "
      "tracer recording only the window (the same number of unrecorded steps just before it are timed, so run.json "
      "says what the tracer cost this run) or torch.profiler; GPU telemetry every 200 ms; everything in a run "
      "directory. Exit 7: no GPU/profiler; 8: workload crash, hang, OOM.");
  cmd->footer(help_footer_with_examples(
      "  goblin profile workloads/configs/base.yaml -o out/prof      the reference workload, profiled\n"
      "  goblin profile --steps 10 -o out/prof -- python train.py --cfg my.yaml\n"
      "  goblin profile hf.yaml --script train_hf.py -- {config}       an unmodified script, timed by the hook\n"));
  // Two positionals, not one list: CLI11 ends a positional list at the first option, so in
  // `CONFIG --script FILE -- ARGS` the ARGS need a positional of their own.
  cmd->add_option("config", o->first, "CONFIG (run workloads/train.py on it), or after `--` the command to profile");
  cmd->add_option("args", o->rest, "the command's arguments (after `--`), or --script's (with {config})");
  cmd->add_option("--steps", o->steps, "profiled steps (optimizer steps)")->default_val(5);
  cmd->add_option("--warmup", o->warmup, "steps before the window (excluded)")->default_val(5);
  cmd->add_option("-o,--out", o->out, "run directory (default runs/profile-<time>)");
  cmd->add_option("--harness", o->workload,
                  "goblin-contract training script for CONFIG (takes CONFIG --steps --warmup --result; default "
                  "workloads/train.py)");
  // Old spelling of --harness: --workload names the workload in reports (audit, compare).
  cmd->add_option("--workload", o->workload, "old spelling of --harness")->group("");
  cmd->add_option("--script", o->script,
                  "the user's unmodified training script: goblin's hook times its optimizer steps and writes the "
                  "result (tokens/step from CONFIG's batch x seq x accumulation); goblin profile CONFIG --script "
                  "train.py [-- ARGS with {config}]");
  cmd->add_option("--timeout", o->timeout, "seconds before the run counts as hung and is killed")->default_val(900);
  cmd->add_option("--tokens-per-step", o->tokens_per_step, "tokens per step, for `-- CMD` (tokens/s in the metadata)");
  cmd->add_option("--tracer", o->tracer,
                  "cupti (goblin's CUPTI tracer: CUPTI activity buffers, recording only the window) or torch "
                  "(torch.profiler); default cupti where "
                  "libgoblin_cupti.so and an NVIDIA GPU are found, else torch. run.json says which ran")
      ->check(CLI::IsMember({"cupti", "torch"}));
  cmd->add_flag("--allow-no-gpu", o->allow_no_gpu, "run even when no GPU is found (stand-in workloads, CPU tests)");
  cmd->add_flag("--json", o->json, "print the {ok, result, error} envelope");
  add_record_options(cmd, *rec, /*with_workload=*/false);
  cmd->callback([o, rec] {
    run_verb(o->json, [&]() -> VerbResult {
      VerbResult r;
      o->args.clear();
      if (!o->first.empty()) o->args.push_back(o->first);
      o->args.insert(o->args.end(), o->rest.begin(), o->rest.end());
      if (o->args.empty()) {
        r.error = make_error(ErrorKind::Usage, "goblin profile CONFIG, or goblin profile -- CMD...");
        return r;
      }
      run::ProfileRequest req;
      if (!o->script.empty()) {
        std::vector<std::string> rest(o->args.begin() + 1, o->args.end());
        auto w = run::script_workload(o->args[0], o->args[0], o->script, rest);
        if (!w) {
          r.error = w.error();
          return r;
        }
        req.workload = *w;
      } else if (o->args.size() == 1 && looks_like_config(o->args[0])) {
        auto w = run::resolve_workload(o->args[0], o->workload);
        if (!w) {
          r.error = w.error();
          return r;
        }
        req.workload = *w;
      } else {
        req.workload.command = o->args;
      }
      req.workload.steps = o->steps;
      req.workload.warmup = o->warmup;
      req.workload.timeout_s = o->timeout;
      if (o->tokens_per_step > 0) req.workload.tokens_per_step = o->tokens_per_step;
      req.require_gpu = !o->allow_no_gpu;
      req.tracer = o->tracer;
      req.run_dir = o->out.empty() ? "runs/profile-" + now_iso8601() : o->out;
      auto po = run::profile_workload(req);
      r.result = po.run;
      r.error = po.error;
      std::string h = fmt::format("run directory: {}\n", req.run_dir);
      auto out = std::back_inserter(h);
      if (po.run.contains("profiled")) {
        const auto& p = po.run["profiled"];
        if (p.contains("step_time_s") && p["step_time_s"].is_number())
          fmt::format_to(out, "profiled step time: {:g} s", p["step_time_s"].get<double>());
        else
          h += "profiled step time: unobserved";
        if (p.contains("tokens_per_sec")) fmt::format_to(out, ", {:g} tokens/s", p["tokens_per_sec"].get<double>());
        fmt::format_to(out, "\nwindow: {}\n", p.value("window", ""));
        fmt::format_to(out, "metrics: {}\n", po.run.value("metrics_source", ""));
        if (po.run.contains("tracer"))
          fmt::format_to(out, "tracer: {} ({})\n", po.run["tracer"].value("name", ""),
                         po.run["tracer"].value("why", ""));
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
      record_cli_result(*rec, "profile", {}, req.run_dir, r);  // the run folder, as goblin store add reads it
      return r;
    });
  });
}

}  // namespace goblin::cli
