// goblin breakdown TRACE [--json]: GPU time by kernel category and library family, plus the
// per-step busy/idle/exposed breakdown, idle attribution and launch statistics.
//
// Denominator of `pct`: the summed duration of all GPU ops (kernels + memcpy + memset) in the
// trace: Σ dur, where concurrent ops on different streams both count (as nsys stats and SGLang
// do). The busy union (|∪ ops|, concurrency counted once) is given beside it, with each
// category's own union time.
#include <cstdio>
#include <map>

#include "analysis/breakdown.h"
#include "analysis/breakdown_run.h"
#include "analysis/steps.h"
#include "cli/verbs.h"
#include "core/cli.h"
#include "trace/readers.h"

namespace goblin {

void register_breakdown(CLI::App& app) {
  struct Opts {
    std::string trace;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "breakdown",
      "GPU time by kernel category and library family (share of summed op time; busy union given too), and per step: "
      "busy/idle, compute/communication/memcpy, exposed communication, idle attribution, launch statistics");
  cmd->add_option("trace", o->trace, "Trace file or run directory")->required();
  cmd->add_flag("--json", o->json, "Print the {ok, result, error} envelope");
  cmd->callback([o] { run_verb(o->json, [&] { return run_breakdown(o->trace); }); });
}

}  // namespace goblin
