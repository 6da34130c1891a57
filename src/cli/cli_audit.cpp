// goblin audit CONFIG [--replay DIR] [-o OUTDIR] [--json]: the whole audit (run_audit,
// audit/audit_flow.h) over a Runner: the recorded artefacts with --replay, else the live runner
// (run/live_audit.h) when this machine has a GPU.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "app/memory_source.h"
#include "audit/audit_flow.h"
#include "audit/audit_output.h"
#include "audit/history.h"
#include "audit/replay_runner.h"
#include "audit/report.h"
#include "cli/audit_store.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "run/live_audit.h"
#include "store/calibration_source.h"
#include "store/store.h"

namespace goblin::cli {
void register_audit(CLI::App& app) {
  struct Opts {
    std::string config, replay, out = "goblin-audit", vendor, workload, history, script;
    std::string store, experiment, trial;
    std::string memory;  // --memory: a memory snapshot or profile_memory trace (docs/memory.md)
    std::vector<std::string> script_args, tags;
    int top_k = 5, rounds = 2;
    bool no_history = false, no_profile_after = false;
    run::LiveAuditKnobs knobs;
    bool json = false, quiet = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "audit",
      "Whole audit: parse -> profile -> kb query -> patch -> bench before/after -> compare -> report "
      "(--replay DIR: from recorded artefacts)");
  cmd->footer(help_footer_with_examples(
      "  goblin audit workloads/configs/base.yaml -o out/audit        live, on a machine with a GPU\n"
      "  goblin audit train.yaml --repeats 8 --steps 30 --json         a tighter interval, JSON envelope\n"
      "  goblin audit examples/h100_llama/config_before.yaml --replay examples/h100_llama -o out/audit\n"
      "                                                               no GPU: replay recorded H100 traces\n"
      "  goblin audit workloads/configs/base.yaml --rounds 3           patch, re-profile, patch again\n"
      "  goblin audit hf.yaml --script train_hf.py -- {config}         any user's script, unmodified\n"
      "Writes report.json/.md/.html, trajectory.json, patch.json, the patched config and, live,\n"
      "live_runs.json into -o. docs/audit.md and docs/live.md explain every field.\n"));
  cmd->add_option("CONFIG", o->config, "the workload config (YAML, JSON, Python, env)")->required();
  cmd->add_option("--replay", o->replay, "replay directory (replay.yaml manifest + recorded traces)");
  cmd->add_option("-o,--out,--output", o->out, "report directory (default ./goblin-audit)");
  cmd->add_option("--top,--top-k", o->top_k, "rule-base hits per symptom (default 5)")->check(CLI::Range(1, 1000));
  cmd->add_option("--vendor", o->vendor, "amd | nvidia, when the metrics do not say")
      ->check(CLI::IsMember({"amd", "nvidia"}));
  cmd->add_option("--workload", o->workload,
                  "workload name for the report (as in goblin compare; default: the config's file name)");
  cmd->add_option("--rounds", o->rounds,
                  "audit rounds: after an accepted round, profile the patched config and patch again, until no rule "
                  "applies, a round is not a significant speedup (reverted) or the rounds end (default 2)")
      ->check(CLI::Range(1, 10));
  cmd->add_option("--history", o->history,
                  "audit history SQLite file (default $GOBLIN_HISTORY, else $XDG_DATA_HOME/goblin/history.sqlite); "
                  "a --replay audit uses one only when this is given");
  cmd->add_flag("--no-history", o->no_history, "neither read nor write the audit history");
  cmd->add_option("--store", o->store,
                  "run store (sqlite:///path.db, postgresql://...; default $GOBLIN_STORE): calibrate from its past "
                  "audits instead of --history, and record this audit in it (docs/store.md)");
  cmd->add_option("--experiment", o->experiment, "experiment id of the recorded run (with --store)");
  cmd->add_option("--trial", o->trial, "trial id of the recorded run (with --store)");
  cmd->add_option("--tag", o->tags, "tags of the recorded run (with --store)")->delimiter(',');
  cmd->add_flag("--no-profile-after", o->no_profile_after,
                "do not profile the patched config (no after waste budget, one round only)");
  cmd->add_option("--script", o->script,
                  "live: run this unmodified training script instead of workloads/train.py; goblin's hook times its "
                  "optimizer steps and writes the result (tokens/step = batch x seq x accumulation from CONFIG). "
                  "Arguments after --: {config} (or CONFIG itself) is replaced by the config each run uses; none: "
                  "the script gets CONFIG");
  cmd->add_option("script_args", o->script_args, "arguments for --script (after --)");
  cmd->add_option("--repeats", o->knobs.repeats,
                  "live: bench runs per side, before and after interleaved A B A B ... (default 5)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--steps", o->knobs.bench_steps, "live: timed steps per bench run (default 20)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--profile-steps", o->knobs.profile_steps, "live: profiled steps after 5 warm-up steps (default 5)")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--tracer", o->knobs.tracer,
                  "live: profiler for the profiled run, cupti (goblin's tracer) or torch (torch.profiler); default "
                  "cupti where available, else torch (the report's notes say which)")
      ->check(CLI::IsMember({"cupti", "torch"}));
  cmd->add_option("--timeout", o->knobs.timeout_s, "live: seconds before one workload run counts as hung (default 900)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("-q,--quiet", o->quiet, "no progress lines on stderr");
  cmd->add_option("--memory", o->memory,
                  "a PyTorch memory snapshot or profile_memory trace of the workload: its measured peak against the "
                  "device's memory feeds the memory_headroom bucket and the batch rules (docs/memory.md)");
  cmd->add_flag("--json", o->json, "print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&] {
      VerbResult r;
      audit::AuditOptions opt;
      opt.top_k = o->top_k;
      opt.vendor = o->vendor;
      opt.rounds = o->no_profile_after ? 1 : o->rounds;
      opt.profile_after = !o->no_profile_after;
      opt.round_dir = (std::filesystem::path(o->out) / "rounds").string();
      opt.history_path = o->no_history ? "" : o->history.empty() ? audit::default_history_path() : o->history;
      if (!o->script_args.empty() && o->script.empty()) {
        r.error = make_error(ErrorKind::Usage, "arguments after -- are for --script; pass --script train.py");
        return r;
      }
      if (!o->memory.empty()) {
        auto rules = app::memory_rules();
        if (!rules) {
          r.error = rules.error();
          return r;
        }
        auto mem = app::read_memory_source(o->memory, *rules);
        if (!mem) {
          r.error = mem.error();
          return r;
        }
        opt.memory = std::move(mem->report);
        opt.memory_device_name = mem->device_name;
        opt.memory_device_total = mem->device_total;
      }
      o->knobs.script = o->script;
      o->knobs.script_args = o->script_args;
      std::unique_ptr<audit::Runner> live;
      std::function<Json()> live_log;
      std::optional<audit::ReplayRunner> replay_runner;
      audit::Runner* rp = nullptr;
      if (o->replay.empty()) {
        auto setup = run::make_live_audit(o->out, o->knobs);
        if (!setup) {
          r.error = setup.error();
          return r;
        }
        live = std::move(setup->runner);
        live_log = setup->log;
        rp = live.get();
        opt.workload_name = o->workload.empty() ? std::filesystem::path(o->config).stem().string() : o->workload;
        for (const auto& n : setup->notes) opt.notes.push_back(n);
      } else {
        const auto& k = o->knobs;
        if (o->history.empty()) opt.history_path.clear();  // recordings do not feed the history unless asked
        if (k.repeats || k.bench_steps || k.profile_steps || k.timeout_s || !k.tracer.empty() || !k.script.empty()) {
          r.error = make_error(
              ErrorKind::Usage,
              "--repeats, --steps, --profile-steps, --timeout, --tracer and --script set live runs; a --replay "
              "audit "
              "runs nothing (its figures come from the recorded artefacts)");
          return r;
        }
        auto runner = audit::ReplayRunner::open(o->replay);
        if (!runner) {
          r.error = runner.error();
          return r;
        }
        replay_runner.emplace(std::move(*runner));
        rp = &*replay_runner;
        opt.workload_name = o->workload.empty() ? replay_runner->workload() : o->workload;
        opt.notes.push_back("replay: every measurement comes from recorded artefacts listed in " +
                            replay_runner->manifest_path() + "; nothing was run now");
        for (const auto& n : replay_runner->notes()) opt.notes.push_back(n);
      }
      // With a run store, the rounds calibrate from the store's audit rounds (read once here).
      const std::string store_url = o->store.empty() ? store::default_store_url() : o->store;
      std::optional<store::StoreCalibrationSource> store_rounds;
      if (!store_url.empty() && !o->no_history) {
        auto src = store::StoreCalibrationSource::open(store_url);
        if (src) {
          store_rounds.emplace(std::move(*src));
          opt.calibration_source = &*store_rounds;
          opt.notes.push_back(
              fmt::format("audit history: the {} audit round(s) of the run store", store_rounds->size()));
        } else if (src.error().kind != ErrorKind::NotFound) {
          r.error = src.error();
          return r;
        }
      }
      if (!o->quiet)
        opt.progress = [](const std::string& step, const std::string& line) {
          std::cerr << "[" << step << "] " << line << "\n";
        };
      auto outcome = audit::run_audit(o->config, *rp, opt);
      if (!outcome) {
        r.error = outcome.error();
        return r;
      }
      std::vector<std::string> written;
      if (outcome->error) {
        // Partial: the steps that ran and what they returned.
        r.error = *outcome->error;
        r.result = {{"trajectory", audit::trajectory_to_json(*outcome)},
                    {"patch", outcome->patch ? audit::patch_to_json(*outcome->patch) : Json()}};
        (void)audit::write_audit_directory(o->out, o->config, *outcome, live_log, &written);
        return r;
      }
      r.result = audit::report_to_json(outcome->report);
      if (Status s = audit::write_audit_directory(o->out, o->config, *outcome, live_log, &written); !s) {
        r.error = s.error();
        return r;
      }
      r.result["written"] = written;
      r.human = "\n" + audit::report_text(outcome->report);
      for (const auto& w : written) r.human += "wrote " + w + "\n";
      if (!store_url.empty()) {
        auto line = record_audit(store_url, o->out, o->experiment, o->trial, o->tags);
        if (!line) {
          r.error = line.error();
          r.error->message = "the audit was written but not recorded in the store: " + line.error().message;
          return r;
        }
        r.human += *line;
      }
      return r;
    });
  });
}
}  // namespace goblin::cli
