// goblin roofline TRACE|NCU_CSV|ROCPROF_DIR [--gpu ID] [--json] [--svg FILE] [--top N]
#include <sstream>

#include "app/roofline_run.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "core/io.h"
#include "hw/gpu_specs.h"
#include "hw/ncu_analysis.h"
#include "hw/roofline.h"
#include "trace/readers.h"

namespace goblin {

void register_roofline(CLI::App& app) {
  auto a = std::make_shared<RooflineRequest>();
  auto* cmd =
      app.add_subcommand("roofline", "Roofline: achieved TFLOPS/bandwidth per op and kernel vs the GPU's peaks");
  cmd->footer(help_footer_with_examples(
      "  goblin roofline trace.json.gz                     achieved TFLOPS / bandwidth per op vs the GPU's peaks\n"
      "  goblin roofline ncu_raw.csv --gpu H100-SXM --svg roofline.svg\n"));
  auto via_ncu = std::make_shared<std::string>();
  cmd->add_option("input", a->path, "Kineto trace, Nsight Compute raw CSV, or rocprof counters");
  cmd->add_option("--ncu", *via_ncu, "an Nsight Compute raw CSV, as an option (as diagnose spells it)");
  cmd->add_option("--gpu", a->gpu, "GPU id (default: from the trace's device properties)");
  cmd->add_option("--svg", a->svg, "write a log-log roofline plot (SVG) to this file");
  cmd->add_option("--top", a->top, "rows in the table (default 25)")->check(CLI::Range(1, 1000));
  cmd->add_flag("--json", a->json, "JSON envelope output");
  cmd->callback([a, via_ncu] {
    run_verb(a->json, [a, via_ncu] {
      VerbResult r;
      if (!via_ncu->empty() && !a->path.empty() && *via_ncu != a->path)
        r.error = make_error(ErrorKind::Usage, "two inputs given (input and --ncu): pass one");
      if (!via_ncu->empty()) a->path = *via_ncu;
      if (a->path.empty())
        r.error = make_error(ErrorKind::Usage, "pass the input: a trace, a run directory or an Nsight Compute CSV");
      return r.error ? r : run_roofline(*a);
    });
  });
}

}  // namespace goblin
