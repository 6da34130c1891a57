// goblin diff BEFORE AFTER [--json] [--top N]: run_diff (app/diff_run.h) over diff_paths
// (analysis/diff.h): step time, busy/idle, per category and per kernel (matched by normalised
// name + launching op) faster / slower / new / gone, with contributions that sum to the measured
// step-time change (docs/metrics.md § diff).
#include "app/diff_run.h"
#include "cli/verb.h"
#include "cli/verbs.h"

namespace goblin {

void register_diff(CLI::App& app) {
  struct Opts {
    std::string before, after;
    int top = 10;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "diff",
      "What got faster and slower between two runs of one workload: step time, busy/idle, GPU time per category and "
      "per kernel (matched by normalised name + launching op; faster/slower/new/gone), each with its contribution to "
      "the step-time change (the contributions sum to it). Across vendors: categories only");
  cmd->footer(help_footer_with_examples(
      "  goblin diff before.json.gz after.json.gz          decomposition, categories, top kernels per status\n"
      "  goblin diff run_before/ run_after/ --json         every kernel row\n"));
  cmd->add_option("before", o->before, "Trace file or run directory of the BEFORE run")->required();
  cmd->add_option("after", o->after, "Trace file or run directory of the AFTER run")->required();
  cmd->add_option("--top", o->top, "Rows per status in the readable report")->check(CLI::Range(1, 10000));
  cmd->add_flag("--json", o->json, "Print the {ok, result, error} envelope");
  cmd->callback([o] { run_verb(o->json, [&] { return run_diff(o->before, o->after, o->top); }); });
}

}  // namespace goblin
