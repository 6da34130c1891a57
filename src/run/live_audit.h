// The live side of `goblin audit CONFIG` (and of the MCP server's audit tools): a LiveRunner set
// up from the user's knobs, on a machine with a GPU. Without one it returns an Environment error
// that points at --replay. docs/live.md describes the runs it makes.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "audit/runner.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin::run {

// What `goblin audit` lets a user set for the live runs; 0 keeps the runner's default (or the
// GOBLIN_AUDIT_REPEATS / GOBLIN_AUDIT_STEPS environment variables, which scripts already use).
struct LiveAuditKnobs {
  int repeats = 0;        // bench runs per side (before, after), interleaved A B A B ...
  int bench_steps = 0;    // timed steps per bench run
  int profile_steps = 0;  // profiled steps after warm-up
  double timeout_s = 0;   // per workload run
  std::string tracer;     // "cupti" | "torch" | "" (run::default_tracer)
  // --script: the user's unmodified training script (run with goblin's hook timing its optimizer
  // steps and writing the result) and its arguments ({config} = the config file of each run).
  std::string script;
  std::vector<std::string> script_args;
};

struct LiveAuditSetup {
  std::unique_ptr<audit::Runner> runner;
  std::vector<std::string> notes;  // for the report (GPU, repeats, what was run)
  std::function<Json()> log;       // what each live call ran (for the report directory)
};

// GOBLIN_AUDIT_ALLOW_NO_GPU=1 runs without a GPU (stand-in workloads in CPU-only tests).
Result<LiveAuditSetup> make_live_audit(const std::string& out_dir, const LiveAuditKnobs& knobs);

}  // namespace goblin::run
