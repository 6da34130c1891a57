// goblin breakdown TRACE [--by category|module|stage] [--json]: run_breakdown (app/breakdown_run.h) over
// category_breakdown (analysis/category_breakdown.h): GPU time by kernel category and library
// family, and per step busy/idle/exposed, idle attribution and launch statistics.
#include "app/breakdown_run.h"
#include "cli/verb.h"
#include "cli/verbs.h"

namespace goblin {

void register_breakdown(CLI::App& app) {
  struct Opts {
    std::string trace, by = "category";
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "breakdown",
      "GPU time by kernel category and library family (share of summed op time; busy union given too), and per step: "
      "busy/idle, compute/communication/memcpy, exposed communication, idle attribution, launch statistics");
  cmd->footer(help_footer_with_examples(
      "  goblin breakdown trace.json.gz                    GPU time per category and library, per step\n"
      "  goblin breakdown rocprof_run_dir/ --json          a rocprofv3 output directory\n"));
  cmd->add_option("trace", o->trace, "Trace file or run directory")->required();
  cmd->add_option("--by", o->by,
                  "category (default): time by kernel category and family; module: also GPU time per nn.Module "
                  "(with_stack traces); stage: also the serving stage split (prefill/decode/mixed tables)")
      ->check(CLI::IsMember({"category", "module", "stage"}));
  cmd->add_flag("--json", o->json, "Print the {ok, result, error} envelope");
  cmd->callback([o] { run_verb(o->json, [&] { return run_breakdown(o->trace, o->by); }); });
}

}  // namespace goblin
