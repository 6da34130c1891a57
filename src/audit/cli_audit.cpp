// goblin audit CONFIG --replay DIR [-o OUTDIR] [--json]: seed 000's whole trajectory through
// run_audit (audit_flow.h). The live audit only has to construct a different Runner.
// goblin audit CONFIG [-o OUTDIR] (no --replay): the live runner from src/run when a GPU is present.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "audit/audit_flow.h"
#include "audit/replay_runner.h"
#include "audit/report.h"
#include "cli/verbs.h"
#include "core/cli.h"
#include "core/io.h"
#include "run/live_factory.h"

namespace goblin {
void register_audit(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "audit",
      "Whole audit: parse -> profile -> kb query -> patch -> bench before/after -> compare -> report "
      "(--replay DIR: from recorded artefacts)");
  static std::string config, replay, out = "goblin-audit", vendor, workload;
  static int top_k = 5;
  static run::LiveAuditKnobs knobs;
  static bool json = false, quiet = false;
  cmd->footer(help_footer_with_examples(
      "  goblin audit workloads/configs/base.yaml -o out/audit        live, on a machine with a GPU\n"
      "  goblin audit train.yaml --repeats 8 --steps 30 --json         a tighter interval, JSON envelope\n"
      "  goblin audit examples/h100_llama/config_before.yaml --replay examples/h100_llama -o out/audit\n"
      "                                                               no GPU: replay recorded H100 traces\n"
      "Writes report.json/.md/.html, trajectory.json, patch.json, the patched config and, live,\n"
      "live_runs.json into -o. docs/audit.md and docs/live.md explain every field.\n"));
  cmd->add_option("CONFIG", config, "the workload config (YAML, JSON, Python, env)")->required();
  cmd->add_option("--replay", replay, "replay directory (replay.yaml manifest + recorded traces)");
  cmd->add_option("-o,--output", out, "report directory (default ./goblin-audit)");
  cmd->add_option("--top-k", top_k, "kb hits per symptom (default 5)");
  cmd->add_option("--vendor", vendor, "amd | nvidia, when the metrics do not say")
      ->check(CLI::IsMember({"amd", "nvidia"}));
  cmd->add_option("--workload", workload, "workload name for the report");
  cmd->add_option("--repeats", knobs.repeats,
                  "live: bench runs per side, before and after interleaved A B A B ... (default 5)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--steps", knobs.bench_steps, "live: timed steps per bench run (default 20)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--profile-steps", knobs.profile_steps, "live: profiled steps after 5 warm-up steps (default 5)")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--tracer", knobs.tracer,
                  "live: profiler for the profiled run, cupti (goblin's tracer) or torch (torch.profiler); default "
                  "cupti where available, else torch (the report's notes say which)")
      ->check(CLI::IsMember({"cupti", "torch"}));
  cmd->add_option("--timeout", knobs.timeout_s, "live: seconds before one workload run counts as hung (default 900)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("-q,--quiet", quiet, "no progress lines on stderr");
  cmd->add_flag("--json", json, "print the {ok, result, error} envelope");
  cmd->callback([] {
    run_verb(json, [] {
      VerbResult r;
      audit::AuditOptions opt;
      opt.top_k = top_k;
      opt.vendor = vendor;
      // No --replay: the live runner (src/run, issue 5) when this machine has a GPU; without one
      // the factory says so and points at --replay.
      std::unique_ptr<audit::Runner> live;
      std::function<Json()> live_log;
      std::optional<audit::ReplayRunner> replay_runner;
      audit::Runner* rp = nullptr;
      if (replay.empty()) {
        auto& factory = run::live_runner_factory();
        if (!factory) {
          r.error = make_error(ErrorKind::Usage,
                               "live audits are not available in this build: pass --replay DIR (a directory with "
                               "replay.yaml and recorded traces, e.g. examples/h100_llama)");
          return r;
        }
        auto setup = factory(out, knobs);
        if (!setup) {
          r.error = setup.error();
          return r;
        }
        live = std::move(setup->runner);
        live_log = setup->log;
        rp = live.get();
        opt.workload_name = workload.empty() ? std::filesystem::path(config).stem().string() : workload;
        for (const auto& n : setup->notes) opt.notes.push_back(n);
      } else {
        if (knobs.repeats || knobs.bench_steps || knobs.profile_steps || knobs.timeout_s || !knobs.tracer.empty()) {
          r.error =
              make_error(ErrorKind::Usage,
                         "--repeats, --steps, --profile-steps, --timeout and --tracer set live runs; a --replay audit "
                         "runs nothing (its figures come from the recorded artefacts)");
          return r;
        }
        auto runner = audit::ReplayRunner::open(replay);
        if (!runner) {
          r.error = runner.error();
          return r;
        }
        replay_runner.emplace(std::move(*runner));
        rp = &*replay_runner;
        opt.workload_name = workload.empty() ? replay_runner->workload() : workload;
        opt.notes.push_back("replay: every measurement comes from recorded artefacts listed in " +
                            replay_runner->manifest_path() + "; nothing was run now");
        for (const auto& n : replay_runner->notes()) opt.notes.push_back(n);
      }
      if (!quiet)
        opt.progress = [](const std::string& step, const std::string& line) {
          std::cerr << "[" << step << "] " << line << "\n";
        };
      auto o = audit::run_audit(config, *rp, opt);
      if (!o) {
        r.error = o.error();
        return r;
      }
      std::vector<std::string> written;
      auto write_extras = [&]() -> Status {
        std::error_code ec;
        std::filesystem::create_directories(out, ec);
        if (ec) return make_error(ErrorKind::Io, "cannot create the output directory: " + ec.message(), out);
        std::string tp = (std::filesystem::path(out) / "trajectory.json").string();
        Json t = {{"config", config},        {"runner_kind", o->runner_kind},
                  {"symptoms", o->symptoms}, {"kb_hits", o->kb_hits},
                  {"rule_ids", o->rule_ids}, {"trajectory", audit::trajectory_to_json(*o)}};
        if (Status s = write_file(tp, t.dump(2) + "\n"); !s) return s;
        written.push_back(tp);
        if (live_log) {  // what each live profile/bench call ran and measured
          std::string lp = (std::filesystem::path(out) / "live_runs.json").string();
          if (Status s = write_file(lp, live_log().dump(1) + "\n"); !s) return s;
          written.push_back(lp);
        }
        if (!o->patched_text.empty()) {
          std::string pp =
              (std::filesystem::path(out) / ("patched_" + std::filesystem::path(config).filename().string())).string();
          if (Status s = write_file(pp, o->patched_text); !s) return s;
          written.push_back(pp);
          std::string pj = (std::filesystem::path(out) / "patch.json").string();
          if (Status s = write_file(pj, o->patch.dump(2) + "\n"); !s) return s;
          written.push_back(pj);
        }
        return Status::Ok();
      };
      if (o->error) {
        // Partial: the steps that ran and what they returned.
        r.error = *o->error;
        r.result = {{"trajectory", audit::trajectory_to_json(*o)}, {"patch", o->patch}};
        (void)write_extras();
        return r;
      }
      r.result = o->report;
      Status s = audit::write_report_files(o->report, out, &written);
      if (s) s = write_extras();
      if (!s) {
        r.error = s.error();
        return r;
      }
      r.result["written"] = written;
      r.human = "\n" + audit::report_text(o->report);
      for (const auto& w : written) r.human += "wrote " + w + "\n";
      return r;
    });
  });
}
}  // namespace goblin
