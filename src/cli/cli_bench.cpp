// goblin bench CONFIG [--against B] [--steps N] [--repeats R] [--no-cache] [--json]
#include <fmt/format.h>

#include <iterator>

#include "cli/record_options.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "core/io.h"
#include "run/runners.h"

namespace goblin::cli {

void register_bench(CLI::App& app) {
  struct Opts {
    std::string script;
    std::vector<std::string> script_args;
    std::string config, against, workload, work_dir, emit_sides;
    int steps = 20, warmup = 5, repeats = 5;
    double timeout = 900;
    bool no_cache = false, json = false, allow_no_gpu = false;
  };
  auto o = std::make_shared<Opts>();
  auto rec = std::make_shared<RecordOptions>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Unprofiled timing of a live run: R repeats, median step time with a bootstrap 95% interval (2000 resamples, "
      "fixed random seed), A/A noise floor, clocks/power/temperature; --against B interleaves A B A B. Cached. "
      "Exit 7: no GPU; 8: workload crash, hang, OOM.");
  cmd->footer(help_footer_with_examples(
      "  goblin bench workloads/configs/base.yaml --repeats 5          median + 95% interval\n"
      "  goblin bench base.yaml --against tuned.yaml --repeats 4       A B A B ..., speedup with interval\n"));
  cmd->add_option("config", o->config, "workload config (A)")->required();
  cmd->add_option("--against", o->against, "second config (B); speedup = A step time / B step time");
  cmd->add_option("--steps", o->steps, "measured steps per run")->default_val(20);
  cmd->add_option("--warmup", o->warmup, "excluded warm-up steps per run")->default_val(5);
  cmd->add_option("--repeats", o->repeats, "runs per config")->default_val(5)->check(CLI::Range(1, 1000));
  cmd->add_option(
      "--harness", o->workload,
      "goblin-contract training script (takes CONFIG --steps --warmup --result; default workloads/train.py)");
  // Old spelling of --harness: --workload names the workload in reports (audit, compare).
  cmd->add_option("--workload", o->workload, "old spelling of --harness")->group("");
  cmd->add_option("--script", o->script,
                  "the user's unmodified training script, timed by goblin's hook (result written for it); arguments "
                  "after --, {config} = the config of each side");
  cmd->add_option("script_args", o->script_args, "arguments for --script (after --)");
  cmd->add_option("--timeout", o->timeout, "seconds per run before it counts as hung and is killed")->default_val(900);
  cmd->add_option("--work-dir", o->work_dir, "keep per-run logs here (default: a temporary directory)");
  cmd->add_option("--emit-sides", o->emit_sides,
                  "with --against: also write DIR/before.json and DIR/after.json, one side each, for goblin compare");
  cmd->add_flag("--no-cache", o->no_cache, "always re-measure");
  cmd->add_flag("--allow-no-gpu", o->allow_no_gpu, "run even when no GPU is found (stand-in workloads, CPU tests)");
  cmd->add_flag("--json", o->json, "print the {ok, result, error} envelope");
  add_record_options(cmd, *rec, /*with_workload=*/false);
  cmd->callback([o, rec] {
    run_verb(o->json, [&]() -> VerbResult {
      VerbResult r;
      run::BenchRequest req;
      auto side_of = [&](const std::string& cfg) {
        return o->script.empty() ? run::resolve_workload(cfg, o->workload)
                                 : run::script_workload(cfg, o->config, o->script, o->script_args);
      };
      if (!o->script_args.empty() && o->script.empty()) {
        r.error = make_error(ErrorKind::Usage, "arguments after -- are for --script; pass --script train.py");
        return r;
      }
      auto a = side_of(o->config);
      if (!a) {
        r.error = a.error();
        return r;
      }
      req.a = *a;
      req.a.steps = o->steps;
      req.a.warmup = o->warmup;
      req.a.timeout_s = o->timeout;
      if (!o->against.empty()) {
        auto b = side_of(o->against);
        if (!b) {
          r.error = b.error();
          return r;
        }
        b->steps = o->steps;
        b->warmup = o->warmup;
        b->timeout_s = o->timeout;
        req.b = *b;
      }
      req.repeats = o->repeats;
      req.require_gpu = !o->allow_no_gpu;
      req.use_cache = !o->no_cache;
      req.work_dir = o->work_dir;
      auto bo = run::bench_workloads(req);
      r.result = bo.result;
      r.error = bo.error;
      if (!bo.error && !o->emit_sides.empty() && bo.result.contains("b")) {
        // Each side as a single-config bench result (its runs under "a"), so that
        // `goblin compare before.json after.json` bootstraps over the interleaved runs.
        if (Status st = run::make_dirs(o->emit_sides); !st.ok()) {
          r.error = st.error();
          return r;
        }
        for (const char* side : {"a", "b"}) {
          Json one = run::bench_side_result(bo.result, side);
          std::string path = o->emit_sides + (side == std::string("a") ? "/before.json" : "/after.json");
          if (Status st = write_file(path, envelope_ok(one).dump(1)); !st.ok()) {
            r.error = st.error();
            return r;
          }
        }
      }
      std::string h;
      auto out = std::back_inserter(h);
      auto side = [&](const char* k) {
        if (!bo.result.contains(k) || !bo.result[k].contains("step_time_s")) return;
        const auto& s = bo.result[k];
        fmt::format_to(out, "{} {}: median {:g} s/step [{:g}, {:g}], {:g} tokens/s\n", k,
                       s.value("config", std::string()), s["step_time_s"]["point"].get<double>(),
                       s["step_time_s"]["low"].get<double>(), s["step_time_s"]["high"].get<double>(),
                       s.value("tokens_per_sec_median", 0.0));
      };
      side("a");
      side("b");
      if (bo.result.contains("comparison")) {
        const auto& c = bo.result["comparison"];
        fmt::format_to(out, "speedup (A/B step time): {:g} [{:g}, {:g}]{}\n", c["speedup"]["point"].get<double>(),
                       c["speedup"]["low"].get<double>(), c["speedup"]["high"].get<double>(),
                       c.value("significant", false) ? "" : " — not significant");
      }
      if (bo.result.contains("data_prefetch"))
        for (const auto& [k, pw] : bo.result["data_prefetch"].items())
          if (!pw.value("note", "").empty()) fmt::format_to(out, "data loading ({}): {}\n", k, pw.value("note", ""));
      if (!bo.error && bo.result.contains("cache"))
        fmt::format_to(out, "cache: {}{}\n", bo.result["cache"].value("hit", false) ? "hit " : "stored ",
                       bo.result["cache"].value("key", ""));
      r.human = h;
      std::vector<std::string> inputs = {o->config};
      if (!o->against.empty()) inputs.push_back(o->against);
      record_cli_result(*rec, "bench", inputs, "", r);
      return r;
    });
  });
}

}  // namespace goblin::cli
