// goblin profile CONFIG [--steps N] [--warmup W] [-o RUNDIR] | goblin profile [opts] -- CMD...
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cli/verbs.h"
#include "core/cli.h"
#include "run/live_factory.h"
#include "run/live_runner.h"
#include "run/runners.h"
#include "run/tracer.h"

namespace goblin {
namespace {

bool looks_like_config(const std::string& s) {
  for (const char* ext : {".yaml", ".yml", ".json", ".py", ".env"})
    if (s.size() > std::string(ext).size() &&
        s.compare(s.size() - std::string(ext).size(), std::string::npos, ext) == 0)
      return true;
  return false;
}

}  // namespace

namespace {
// The live audit (`goblin audit CONFIG` without --replay) on a machine with a GPU.
Result<run::LiveAuditSetup> make_live_audit(const std::string& out_dir, const run::LiveAuditKnobs& knobs) {
  run::GpuInfo gpu = run::detect_gpu();
  // GOBLIN_AUDIT_ALLOW_NO_GPU=1: run anyway (stand-in workloads in CPU-only tests, like
  // profile/bench --allow-no-gpu).
  const char* anyg = std::getenv("GOBLIN_AUDIT_ALLOW_NO_GPU");
  bool allow_no_gpu = anyg && std::string(anyg) == "1";
  if (gpu.vendor == "none" && !allow_no_gpu)
    return make_error(ErrorKind::Environment,
                      "no GPU on this machine (" + gpu.detail +
                          "), so no live audit: replay recorded artefacts instead, e.g. goblin audit CONFIG --replay "
                          "examples/h100_llama (docs/live.md)");
  run::LiveRunnerOptions o;
  o.out_dir = out_dir;
  o.require_gpu = !allow_no_gpu;
  if (const char* r = std::getenv("GOBLIN_AUDIT_REPEATS"); r && *r) o.repeats = std::max(1, std::atoi(r));
  if (const char* s = std::getenv("GOBLIN_AUDIT_STEPS"); s && *s) o.bench_steps = std::max(1, std::atoi(s));
  if (knobs.repeats > 0) o.repeats = knobs.repeats;
  if (knobs.bench_steps > 0) o.bench_steps = knobs.bench_steps;
  if (knobs.profile_steps > 0) o.profile_steps = knobs.profile_steps;
  if (knobs.timeout_s > 0) o.timeout_s = knobs.timeout_s;
  o.tracer = knobs.tracer;
  std::string tracer_why;
  const std::string tracer = o.tracer.empty() ? run::default_tracer(gpu, &tracer_why) : o.tracer;
  if (!o.tracer.empty()) tracer_why = "asked for (--tracer)";
  auto lr = std::make_shared<run::LiveRunner>(o);
  run::LiveAuditSetup setup;
  struct Holder : audit::Runner {
    std::shared_ptr<run::LiveRunner> r;
    Result<RunMetrics> profile(const audit::WorkloadConfig& c) override { return r->profile(c); }
    Result<RunMetrics> bench(const audit::WorkloadConfig& c) override { return r->bench(c); }
    Result<audit::PairBench> bench_pair(const audit::WorkloadConfig& b, const audit::WorkloadConfig& a) override {
      return r->bench_pair(b, a);
    }
    std::string kind() const override { return "live"; }
  };
  auto h = std::make_unique<Holder>();
  h->r = lr;
  setup.runner = std::move(h);
  std::string where = gpu.vendor == "none"
                          ? "NO GPU (GOBLIN_AUDIT_ALLOW_NO_GPU=1: stand-in workloads only, not GPU figures)"
                          : gpu.name + " (driver " + gpu.driver + ")";
  setup.notes.push_back("live: measured now on " + where + "; profile " + std::to_string(o.profile_warmup) +
                        " warm-up + " + std::to_string(o.profile_steps) + " profiled steps; bench " +
                        std::to_string(o.repeats) + " runs x " + std::to_string(o.bench_steps) +
                        " steps per config, before and after interleaved A B A B ... in one bench call (median, "
                        "95% bootstrap interval over the per-run samples)");
  setup.notes.push_back("profiler: " + std::string(tracer == "cupti" ? "goblin's CUPTI tracer" : "torch.profiler") +
                        " (" + tracer_why + ")");
  setup.log = [lr] { return lr->log(); };
  return setup;
}
}  // namespace

void register_profile(CLI::App& app) {
  run::live_runner_factory() = make_live_audit;
  struct Opts {
    std::vector<std::string> args;
    int steps = 5, warmup = 5;
    std::string out, workload, tracer;
    double timeout = 900;
    long long tokens_per_step = 0;
    bool json = false, allow_no_gpu = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "profile",
      "Profile a short window of a live run (warm-up excluded): PyTorch profiler switched on from outside the script, "
      "GPU telemetry every 200 ms; everything in a run directory. Exit 7: no GPU/profiler; 8: workload crash, hang, "
      "OOM.");
  cmd->footer(help_footer_with_examples(
      "  goblin profile workloads/configs/base.yaml -o out/prof      the reference workload, profiled\n"
      "  goblin profile --steps 10 -o out/prof -- python train.py --cfg my.yaml\n"));
  cmd->add_option("args", o->args, "CONFIG (run workloads/train.py on it), or after `--` any command to profile");
  cmd->add_option("--steps", o->steps, "profiled steps (optimizer steps)")->default_val(5);
  cmd->add_option("--warmup", o->warmup, "steps before the window (excluded)")->default_val(5);
  cmd->add_option("-o,--out", o->out, "run directory (default runs/profile-<time>)");
  cmd->add_option("--workload", o->workload, "workload script for CONFIG (default: workloads/train.py)");
  cmd->add_option("--timeout", o->timeout, "seconds before the run counts as hung and is killed")->default_val(900);
  cmd->add_option("--tokens-per-step", o->tokens_per_step, "tokens per step, for `-- CMD` (tokens/s in the metadata)");
  cmd->add_option("--tracer", o->tracer,
                  "cupti (goblin's CUPTI tracer, low overhead) or torch (torch.profiler); default cupti where "
                  "libgoblin_cupti.so and an NVIDIA GPU are found, else torch. run.json says which ran")
      ->check(CLI::IsMember({"cupti", "torch"}));
  cmd->add_flag("--allow-no-gpu", o->allow_no_gpu, "run even when no GPU is found (stand-in workloads, CPU tests)");
  cmd->add_flag("--json", o->json, "print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&]() -> VerbResult {
      VerbResult r;
      if (o->args.empty()) {
        r.error = make_error(ErrorKind::Usage, "goblin profile CONFIG, or goblin profile -- CMD...");
        return r;
      }
      run::ProfileRequest req;
      if (o->args.size() == 1 && looks_like_config(o->args[0])) {
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
      req.run_dir = o->out.empty() ? "runs/profile-" + run::now_iso8601() : o->out;
      auto po = run::profile_workload(req);
      r.result = po.run;
      r.error = po.error;
      std::ostringstream h;
      h << "run directory: " << req.run_dir << "\n";
      if (po.run.contains("profiled")) {
        const auto& p = po.run["profiled"];
        h << "profiled step time: " << p.value("step_time_s", 0.0) << " s";
        if (p.contains("tokens_per_sec")) h << ", " << p["tokens_per_sec"].get<double>() << " tokens/s";
        h << "\nwindow: " << p.value("window", "") << "\n";
        h << "metrics: " << po.run.value("metrics_source", "") << "\n";
        if (po.run.contains("tracer"))
          h << "tracer: " << po.run["tracer"].value("name", "") << " (" << po.run["tracer"].value("why", "") << ")\n";
      }
      r.human = h.str();
      return r;
    });
  });
}

}  // namespace goblin
