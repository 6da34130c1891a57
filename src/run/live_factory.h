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
using LiveRunnerFactory = std::function<Result<LiveAuditSetup>(const std::string& out_dir)>;

inline LiveRunnerFactory& live_runner_factory() {
  static LiveRunnerFactory f;
  return f;
}

}  // namespace goblin::run
