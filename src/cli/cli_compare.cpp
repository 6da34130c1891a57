// goblin compare BEFORE.json AFTER.json --patch PATCH.json [--profiled-before METRICS.json]
//                [--workload NAME] [-o DIR] [--json]
#include <sstream>

#include "audit/compare.h"
#include "audit/report.h"
#include "cli/verb.h"
#include "cli/verbs.h"

namespace goblin {
void register_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "compare",
      "The final Report: speedup actual vs predicted, metric deltas, waste budgets, findings, validity footer");
  struct Opts {
    std::string before, after, patch, out, workload, profiled;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->footer(
      help_footer_with_examples("  goblin compare before.json after.json --patch patch.json -o out/report\n"
                                "  goblin compare bench_before.json bench_after.json --patch patch.json "
                                "--profiled-before metrics.json --json\n"));
  cmd->add_option("BEFORE", o->before, "RunMetrics JSON of the baseline (goblin metrics --json or goblin bench --json)")
      ->required();
  cmd->add_option("AFTER", o->after, "RunMetrics JSON of the patched run (same shapes)")->required();
  cmd->add_option("--patch", o->patch, "the patch (goblin patch --json)")->required();
  cmd->add_option("--profiled-before", o->profiled,
                  "RunMetrics of a profiled run of the BEFORE config (goblin profile's metrics.json): gives the "
                  "report BEFORE's waste budget when BEFORE is an unprofiled bench, and the profiler perturbation");
  cmd->add_option("--workload", o->workload, "workload name for the report (default: the config's model_name)");
  cmd->add_option("-o,--out,--output", o->out, "write report.json, report.md, report.html into this directory");
  cmd->add_flag("--json", o->json, "print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&] {
      VerbResult r;
      auto b = audit::load_run_input(o->before);
      if (!b) {
        r.error = b.error();
        return r;
      }
      auto a = audit::load_run_input(o->after);
      if (!a) {
        r.error = a.error();
        return r;
      }
      auto p = audit::load_patch_file(o->patch);
      if (!p) {
        r.error = p.error();
        return r;
      }
      audit::CompareOptions opt;
      opt.workload_name = o->workload;
      if (!o->profiled.empty()) {
        auto pm = audit::load_run_input(o->profiled);
        if (!pm) {
          r.error = pm.error();
          return r;
        }
        opt.profiled_before = pm->metrics;
      }
      auto rep = audit::compare_runs(*b, *a, *p, opt);
      if (!rep) {
        r.error = rep.error();
        return r;
      }
      r.result = *rep;
      r.human = audit::report_text(*rep);
      if (!o->out.empty()) {
        std::vector<std::string> written;
        Status s = audit::write_report_files(*rep, o->out, &written);
        if (!s) {
          r.error = s.error();
          return r;
        }
        r.result["written"] = written;
        for (const auto& w : written) r.human += "wrote " + w + "\n";
      }
      return r;
    });
  });
}
}  // namespace goblin
