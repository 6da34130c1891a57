// `goblin audit`: the whole audit (run_audit, audit/audit_flow.h) over a Runner — the recorded
// artefacts with --replay, else the live runner (run/live_audit.h) when this machine has a GPU —
// and its report directory (audit/audit_output.h). Offered to the CLI and Python: a live audit
// runs the user's workload for minutes to hours, which the HTTP door must not start; over MCP an
// agent runs the audit itself, one step per tool (parse_config ... compare_runs), within the
// session's budget.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "app/memory_source.h"
#include "app/registry.h"
#include "audit/audit_flow.h"
#include "audit/audit_output.h"
#include "audit/history.h"
#include "audit/replay_runner.h"
#include "audit/report.h"
#include "config/command_line.h"
#include "config/workload_config.h"
#include "core/io.h"
#include "run/live.h"
#include "run/live_audit.h"
#include "store/calibration_source.h"
#include "store/store.h"

namespace goblin::app {

namespace {

// CONFIG, or the command line of --command written to OUT/command.sh (a command-line config:
// docs/audit.md § Command lines).
Result<std::string> audit_config_path(const Request& rq, const std::string& out, bool replay) {
  const std::string config = rq.str("config"), command = rq.str("command");
  if (config.empty() == command.empty())
    return make_error(ErrorKind::Usage, "give a CONFIG file or --command \"LAUNCH LINE\" (one of the two)");
  if (command.empty()) return config;
  if (replay) return make_error(ErrorKind::Usage, "--command runs the line live; a --replay audit runs nothing");
  RETURN_IF_ERROR(run::make_dirs(out));
  const std::string path = (std::filesystem::path(out) / "command.sh").string();
  RETURN_IF_ERROR(
      write_file(path, "#!/bin/bash\n# The command line given to goblin audit --command.\n" + command + "\n"));
  ASSIGN_OR_RETURN(auto parsed, config::parse_config_file(path));
  if (parsed.format != config::kCommandFormat)
    return make_error(ErrorKind::Usage,
                      "--command holds no launch command (python SCRIPT.py, torchrun, accelerate launch or deepspeed "
                      "with a script)");
  return path;
}

VerbResult audit_verb(const Request& rq, Context& ctx) {
  VerbResult r;
  const std::string out = rq.str("out"), history = rq.str("history");
  const bool replay = rq.has("replay");
  auto config_path = audit_config_path(rq, out, replay);
  if (!config_path) return VerbResult{nullptr, config_path.error(), ""};
  const std::string config = *config_path;
  const bool no_history = rq.flag("no_history"), no_profile_after = rq.flag("no_profile_after");
  audit::AuditOptions opt;
  opt.top_k = static_cast<int>(rq.integer("top"));
  opt.vendor = rq.str("vendor");
  opt.rounds = no_profile_after ? 1 : static_cast<int>(rq.integer("rounds"));
  opt.profile_after = !no_profile_after;
  opt.round_dir = (std::filesystem::path(out) / "rounds").string();
  opt.history_path = no_history ? "" : history.empty() ? audit::default_history_path() : history;
  run::LiveAuditKnobs knobs;
  knobs.repeats = static_cast<int>(rq.integer("repeats"));
  knobs.bench_steps = static_cast<int>(rq.integer("steps"));
  knobs.profile_steps = static_cast<int>(rq.integer("profile_steps"));
  knobs.timeout_s = rq.number("timeout");
  knobs.tracer = rq.str("tracer");
  knobs.script = rq.str("script");
  knobs.script_args = rq.strings("script_args");
  if (rq.has("timeout") && knobs.timeout_s <= 0)
    return VerbResult{nullptr, make_error(ErrorKind::Usage, "--timeout must be a positive number of seconds"), ""};
  if (!knobs.script_args.empty() && knobs.script.empty()) {
    r.error = make_error(ErrorKind::Usage, "arguments after -- are for --script; pass --script train.py");
    return r;
  }
  if (rq.has("memory")) {  // docs/memory.md § The audit's memory feed
    auto rules = memory_rules();
    if (!rules) return VerbResult{nullptr, rules.error(), ""};
    auto mem = read_memory_source(rq.str("memory"), *rules);
    if (!mem) return VerbResult{nullptr, mem.error(), ""};
    opt.memory = std::move(mem->report);
    opt.memory_device_name = mem->device_name;
    opt.memory_device_total = mem->device_total;
  }
  const std::string workload = rq.str("workload");
  std::unique_ptr<audit::Runner> live;
  std::function<Json()> live_log;
  std::optional<audit::ReplayRunner> replay_runner;
  audit::Runner* rp = nullptr;
  if (!replay) {
    auto setup = run::make_live_audit(out, knobs);
    if (!setup) return VerbResult{nullptr, setup.error(), ""};
    live = std::move(setup->runner);
    live_log = setup->log;
    rp = live.get();
    opt.workload_name = workload.empty() ? std::filesystem::path(config).stem().string() : workload;
    for (const auto& n : setup->notes) opt.notes.push_back(n);
  } else {
    const auto& k = knobs;
    if (history.empty()) opt.history_path.clear();  // recordings do not feed the history unless asked
    if (k.repeats || k.bench_steps || k.profile_steps || k.timeout_s || !k.tracer.empty() || !k.script.empty()) {
      r.error = make_error(ErrorKind::Usage,
                           "--repeats, --steps, --profile-steps, --timeout, --tracer and --script set live runs; a "
                           "--replay audit runs nothing (its figures come from the recorded artefacts)");
      return r;
    }
    auto runner = audit::ReplayRunner::open(rq.str("replay"));
    if (!runner) return VerbResult{nullptr, runner.error(), ""};
    replay_runner.emplace(std::move(*runner));
    rp = &*replay_runner;
    opt.workload_name = workload.empty() ? replay_runner->workload() : workload;
    opt.notes.push_back("replay: every measurement comes from recorded artefacts listed in " +
                        replay_runner->manifest_path() + "; nothing was run now");
    for (const auto& n : replay_runner->notes()) opt.notes.push_back(n);
  }
  // With a run store, the rounds calibrate from the store's audit rounds (read once here); the
  // audit folder is then recorded in it by run_verb (record_folder).
  const std::string store_url = rq.has("store") ? rq.str("store") : store::default_store_url();
  std::optional<store::StoreCalibrationSource> store_rounds;
  if (!store_url.empty() && !no_history) {
    auto src = store::StoreCalibrationSource::open(store_url);
    if (src) {
      store_rounds.emplace(std::move(*src));
      opt.calibration_source = &*store_rounds;
      opt.notes.push_back(fmt::format("audit history: the {} audit round(s) of the run store", store_rounds->size()));
    } else if (src.error().kind != ErrorKind::NotFound) {
      return VerbResult{nullptr, src.error(), ""};
    }
  }
  if (!rq.flag("quiet") && ctx.progress) {
    auto progress = ctx.progress;
    opt.progress = [progress](const std::string& step, const std::string& line) {
      progress(0, fmt::format("[{}] {}", step, line));
    };
  }
  opt.cancelled = [&ctx] { return ctx.cancelled && ctx.cancelled->load(); };
  auto outcome = audit::run_audit(config, *rp, opt);
  if (!outcome) return VerbResult{nullptr, outcome.error(), ""};
  std::vector<std::string> written;
  if (outcome->error) {
    // Partial: the steps that ran and what they returned.
    r.error = *outcome->error;
    r.result = {{"trajectory", audit::trajectory_to_json(*outcome)},
                {"patch", outcome->patch ? audit::patch_to_json(*outcome->patch) : Json()}};
    (void)audit::write_audit_directory(out, config, *outcome, live_log, &written);
    return r;
  }
  r.result = audit::report_to_json(outcome->report);
  if (Status s = audit::write_audit_directory(out, config, *outcome, live_log, &written); !s) {
    r.error = s.error();
    return r;
  }
  r.result["written"] = written;
  r.human = "\n" + audit::report_text(outcome->report);
  for (const auto& w : written) r.human += "wrote " + w + "\n";
  return r;
}

Field field(const char* name, FieldKind k, const char* help, const char* cli = "") {
  Field f{name, k, help};
  f.cli = cli;
  f.doors = kCli | kPython;
  return f;
}

Field limited(Field f, double lo, double hi, Json dflt = nullptr) {
  f.min = lo;
  f.max = hi;
  f.default_value = std::move(dflt);
  return f;
}

}  // namespace

void add_audit_run_verbs(std::vector<Verb>& out) {
  Verb v;
  v.cli_path = {"audit"};
  v.title = "The whole audit";
  v.summary =
      "Whole audit: parse -> profile -> kb query -> patch -> bench before/after -> compare -> report "
      "(--replay DIR: from recorded artefacts)";
  v.description =
      "The result is report.json's content plus `written` (the files of the report directory); a failed step "
      "leaves the trajectory so far and the patch.";
  v.examples =
      "  goblin audit workloads/configs/base.yaml -o out/audit        live, on a machine with a GPU\n"
      "  goblin audit train.yaml --repeats 8 --steps 30 --json         a tighter interval, JSON envelope\n"
      "  goblin audit examples/h100_llama/config_before.yaml --replay examples/h100_llama -o out/audit\n"
      "                                                               no GPU: replay recorded H100 traces\n"
      "  goblin audit workloads/configs/base.yaml --rounds 3           patch, re-profile, patch again\n"
      "  goblin audit hf.yaml --script train_hf.py -- {config}         any user's script, unmodified\n"
      "  goblin audit --command \"python run_clm.py --per_device_train_batch_size 2\"   a launch line\n"
      "  goblin audit train.sh                                         the launch line of a script\n"
      "Writes report.json/.md/.html, trajectory.json, patch.json, the patched config and, live,\n"
      "live_runs.json into -o. docs/audit.md and docs/live.md explain every field.\n";
  Field config = field("config", FieldKind::InputPath,
                       "the workload config (YAML, JSON, Python, env, or a shell/Slurm script, Makefile or README "
                       "holding the launch command)",
                       "CONFIG");
  config.positional = true;
  Field o = field("out", FieldKind::OutputDir, "report directory (default ./goblin-audit)", "-o,--out,--output");
  o.default_value = "goblin-audit";
  Field vendor = field("vendor", FieldKind::String, "amd | nvidia, when the metrics do not say");
  vendor.choices = {"amd", "nvidia"};
  Field args = field("script_args", FieldKind::StringList, "arguments for --script (after --)");
  args.positional = true;
  Field tracer = field("tracer", FieldKind::String,
                       "live: profiler for the profiled run, cupti (goblin's tracer) or torch (torch.profiler); "
                       "default cupti where available, else torch (the report's notes say which)");
  tracer.choices = {"cupti", "torch"};
  // The recording fields are the audit's own (its --store also calibrates), in the order its
  // --help has always listed them.
  v.request = {
      config,
      field("replay", FieldKind::InputPath, "replay directory (replay.yaml manifest + recorded traces)"),
      o,
      limited(field("top", FieldKind::Integer, "rule-base hits per symptom (default 5)", "--top,--top-k"), 1, 1000, 5),
      vendor,
      field("workload", FieldKind::String,
            "workload name for the report (as in goblin compare; default: the config's file name)"),
      limited(field("rounds", FieldKind::Integer,
                    "audit rounds: after an accepted round, profile the patched config and patch again, until no "
                    "rule applies, a round is not a significant speedup (reverted) or the rounds end (default 2)"),
              1, 10, 2),
      field("history", FieldKind::String,
            "audit history SQLite file (default $GOBLIN_HISTORY, else $XDG_DATA_HOME/goblin/history.sqlite); a "
            "--replay audit uses one only when this is given"),
      field("no_history", FieldKind::Boolean, "neither read nor write the audit history"),
      field("store", FieldKind::String,
            "run store (sqlite:///path.db, postgresql://...; default $GOBLIN_STORE): calibrate from its past audits "
            "instead of --history, and record this audit in it (docs/store.md)"),
      field("experiment", FieldKind::String, "experiment id of the recorded run (with --store)"),
      field("trial", FieldKind::String, "trial id of the recorded run (with --store)"),
      field("tag", FieldKind::StringList, "tags of the recorded run (with --store)"),
      field("no_profile_after", FieldKind::Boolean,
            "do not profile the patched config (no after waste budget, one round only)"),
      field("script", FieldKind::String,
            "live: run this unmodified training script instead of workloads/train.py; goblin's hook times its "
            "optimizer steps and writes the result (tokens/step = batch x seq x accumulation from CONFIG). Arguments "
            "after --: {config} (or CONFIG itself) is replaced by the config each run uses; none: the script gets "
            "CONFIG"),
      args,
      field("command", FieldKind::String,
            "live: the launch command line to audit instead of CONFIG (`python run_clm.py --bf16 ...`, torchrun, "
            "accelerate launch, deepspeed): its flags are the config, the patch edits them and the after runs the "
            "patched line (written to OUT/command.sh)"),
      limited(field("repeats", FieldKind::Integer,
                    "live: bench runs per side, before and after interleaved A B A B ... (default 5)"),
              1, 1000),
      limited(field("steps", FieldKind::Integer, "live: timed steps per bench run (default 20)"), 1, 100000),
      limited(field("profile_steps", FieldKind::Integer, "live: profiled steps after 5 warm-up steps (default 5)"), 1,
              10000),
      tracer,
      field("timeout", FieldKind::Number, "live: seconds before one workload run counts as hung (default 900)"),
      field("quiet", FieldKind::Boolean, "no progress lines on stderr", "-q,--quiet"),
      field("memory", FieldKind::InputPath,
            "a PyTorch memory snapshot or profile_memory trace of the workload: its measured peak against the "
            "device's memory feeds the memory_headroom bucket and the batch rules (docs/memory.md)"),
  };
  v.result_schema =
      Json{{"type", "object"}, {"description", "report.json's content and `written`; partial: trajectory and patch"}};
  v.writes = true;
  v.doors = kCli | kPython;
  // The report directory, recorded as a run (its rounds calibrate later audits:
  // store/calibration_source.h).
  v.record_folder = [](const Request& rq, const VerbResult&) { return rq.str("out"); };
  v.run = audit_verb;
  out.push_back(std::move(v));
}

}  // namespace goblin::app
