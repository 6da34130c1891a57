// How `goblin audit` (src/audit/cli_audit.cpp) gets a live runner without the audit library
// linking the run library: header-only registry; src/run's verb registration fills it in.
// A factory returns the runner, or an Environment error (no GPU → use --replay).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "audit/runner.h"
#include "core/status.h"

namespace goblin::run {

struct LiveAuditSetup {
  std::unique_ptr<audit::Runner> runner;
  std::vector<std::string> notes;  // for the report (GPU, repeats, what was run)
  std::function<Json()> log;       // what each live call ran (for the report directory)
};
// What `goblin audit` lets a user set for the live runs; 0 keeps the runner's default (or the
// GOBLIN_AUDIT_REPEATS / GOBLIN_AUDIT_STEPS environment variables, which scripts already use).
struct LiveAuditKnobs {
  int repeats = 0;        // bench runs per side (before, after), interleaved A B A B ...
  int bench_steps = 0;    // timed steps per bench run
  int profile_steps = 0;  // profiled steps after warm-up
  double timeout_s = 0;   // per workload run
  std::string tracer;     // "cupti" | "torch" | "" (run::default_tracer)
};
using LiveRunnerFactory = std::function<Result<LiveAuditSetup>(const std::string& out_dir, const LiveAuditKnobs&)>;

inline LiveRunnerFactory& live_runner_factory() {
  static LiveRunnerFactory f;
  return f;
}

}  // namespace goblin::run
