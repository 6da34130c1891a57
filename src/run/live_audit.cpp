#include "run/live_audit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "run/live.h"
#include "run/live_runner.h"
#include "run/tracer.h"

namespace goblin::run {

Result<LiveAuditSetup> make_live_audit(const std::string& out_dir, const LiveAuditKnobs& knobs) {
  GpuInfo gpu = detect_gpu();
  // GOBLIN_AUDIT_ALLOW_NO_GPU=1: run anyway (stand-in workloads in CPU-only tests, like
  // profile/bench --allow-no-gpu).
  const char* anyg = std::getenv("GOBLIN_AUDIT_ALLOW_NO_GPU");
  bool allow_no_gpu = anyg && std::string(anyg) == "1";
  if (gpu.vendor == "none" && !allow_no_gpu)
    return make_error(ErrorKind::Environment,
                      "no GPU on this machine (" + gpu.detail +
                          "), so no live audit: replay recorded artefacts instead, e.g. goblin audit CONFIG --replay "
                          "examples/h100_llama (docs/live.md)");
  LiveRunnerOptions o;
  o.out_dir = out_dir;
  o.require_gpu = !allow_no_gpu;
  if (const char* r = std::getenv("GOBLIN_AUDIT_REPEATS"); r && *r) o.repeats = std::max(1, std::atoi(r));
  if (const char* s = std::getenv("GOBLIN_AUDIT_STEPS"); s && *s) o.bench_steps = std::max(1, std::atoi(s));
  if (knobs.repeats > 0) o.repeats = knobs.repeats;
  if (knobs.bench_steps > 0) o.bench_steps = knobs.bench_steps;
  if (knobs.profile_steps > 0) o.profile_steps = knobs.profile_steps;
  if (knobs.timeout_s > 0) o.timeout_s = knobs.timeout_s;
  o.tracer = knobs.tracer;
  o.script = knobs.script;
  o.script_args = knobs.script_args;
  std::string tracer_why;
  const std::string tracer = o.tracer.empty() ? default_tracer(gpu, &tracer_why) : o.tracer;
  if (!o.tracer.empty()) tracer_why = "asked for (--tracer)";
  auto lr = std::make_shared<LiveRunner>(o);
  LiveAuditSetup setup;
  struct Holder : audit::Runner {
    std::shared_ptr<LiveRunner> r;
    Result<analysis::RunMetrics> profile(const config::WorkloadConfig& c) override { return r->profile(c); }
    Result<analysis::RunMetrics> bench(const config::WorkloadConfig& c) override { return r->bench(c); }
    Result<audit::PairBench> bench_pair(const config::WorkloadConfig& b, const config::WorkloadConfig& a) override {
      return r->bench_pair(b, a);
    }
    std::string kind() const override { return "live"; }
    std::string last_trace() const override { return r->last_trace(); }
  };
  auto h = std::make_unique<Holder>();
  h->r = lr;
  setup.runner = std::move(h);
  std::string where = gpu.vendor == "none"
                          ? "NO GPU (GOBLIN_AUDIT_ALLOW_NO_GPU=1: stand-in workloads only, not GPU figures)"
                          : gpu.name + (gpu.driver.empty() ? " (driver not reported)" : " (driver " + gpu.driver + ")");
  setup.notes.push_back(fmt::format(
      "live: measured now on {}; profile {} warm-up + {} profiled steps; bench {} runs x {} steps per config, before "
      "and after interleaved A B A B ... in one bench call (median, 95% bootstrap interval over the per-run samples)",
      where, o.profile_warmup, o.profile_steps, o.repeats, o.bench_steps));

  if (!o.script.empty())
    setup.notes.push_back("workload: the user's script " + o.script +
                          " run unmodified; goblin's hook timed its optimizer steps and wrote each result (tokens per "
                          "step = batch x seq x gradient accumulation from the config)");
  setup.notes.push_back("profiler: " + std::string(tracer == "cupti" ? "goblin's CUPTI tracer" : "torch.profiler") +
                        " (" + tracer_why + ")");
  setup.log = [lr] { return lr->log(); };
  return setup;
}

}  // namespace goblin::run
