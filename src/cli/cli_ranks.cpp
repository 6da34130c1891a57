// goblin ranks PATH... [--json]: analyse_ranks (analysis/ranks.h): per-rank traces of one
// distributed job: steps matched across ranks, compute / exposed and hidden communication / idle /
// waiting inside collectives per step and rank, the straggler and its cause, skew tables
// (docs/metrics.md § ranks).
#include "analysis/ranks.h"
#include "cli/verb.h"
#include "cli/verbs.h"

namespace goblin {

void register_ranks(CLI::App& app) {
  struct Opts {
    std::vector<std::string> paths;
    int threads = 2;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "ranks",
      "Per-rank traces of one distributed job (Kineto with distributedInfo, rocprofv3 per-process files, nsys per-rank "
      "files; files or directories): steps matched across ranks; per step and rank compute, exposed/hidden "
      "communication, idle and time waiting inside collectives; which rank arrives last to the collectives, by how "
      "much and why; skew tables (step time, kernel time by category, collective algbw/busbw)");
  cmd->footer(help_footer_with_examples(
      "  goblin ranks traces/                               every trace in the directory is one rank\n"
      "  goblin ranks rank0.json.gz rank1.json.gz --json    the straggler verdict and tables as JSON\n"));
  cmd->add_option("paths", o->paths, "Rank trace files or directories of them")->required();
  cmd->add_option("--threads", o->threads, "Small ranks read at once (large ones use both cores each)")
      ->check(CLI::Range(1, 64));
  cmd->add_flag("--json", o->json, "Print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&]() -> VerbResult {
      VerbResult vr;
      RanksOptions opt;
      opt.threads = o->threads;
      auto r = analyse_ranks(o->paths, opt);
      if (!r) {
        vr.error = r.error();
        return vr;
      }
      vr.result = std::move(r->result);
      vr.human = std::move(r->human);
      if (r->damage) vr.error = r->damage;  // a damaged rank: the others were analysed
      return vr;
    });
  });
}

}  // namespace goblin
