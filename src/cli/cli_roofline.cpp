// goblin roofline TRACE|NCU_CSV|ROCPROF_DIR [--gpu ID] [--json] [--svg FILE] [--top N]
#include <sstream>

#include "cli/verbs.h"
#include "cli/verb.h"
#include "core/io.h"
#include "hw/gpu_specs.h"
#include "hw/ncu_analysis.h"
#include "hw/roofline.h"
#include "app/roofline_run.h"
#include "trace/readers.h"

namespace goblin {

void register_roofline(CLI::App& app) {
  auto a = std::make_shared<RooflineRequest>();
  auto* cmd =
      app.add_subcommand("roofline", "Roofline: achieved TFLOPS/bandwidth per op and kernel vs the GPU's peaks");
  cmd->add_option("input", a->path, "Kineto trace, Nsight Compute raw CSV, or rocprof counters")->required();
  cmd->add_option("--gpu", a->gpu, "GPU id (default: from the trace's device properties)");
  cmd->add_option("--svg", a->svg, "write a log-log roofline plot (SVG) to this file");
  cmd->add_option("--top", a->top, "rows in the table (default 25)");
  cmd->add_flag("--json", a->json, "JSON envelope output");
  cmd->callback([a] { run_verb(a->json, [a] { return run_roofline(*a); }); });
}

}  // namespace goblin
