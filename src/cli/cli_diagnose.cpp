// goblin diagnose --ncu RAW.csv [--id N] [--kernel SOURCE] [--problem TEXT] [--gpu ID] [--prompt] [--json]
// goblin diagnose --parse-response FILE [--json]
#include <sstream>

#include "cli/verbs.h"
#include "cli/verb.h"
#include "core/io.h"
#include "hw/diagnose.h"
#include "app/diagnose_run.h"
#include "trace/readers.h"

namespace goblin {

void register_diagnose(CLI::App& app) {
  auto a = std::make_shared<DiagnoseRequest>();
  auto* cmd =
      app.add_subcommand("diagnose", "Kernel bottleneck diagnosis from Nsight Compute metrics; LLM judge prompts");
  cmd->add_option("--ncu", a->ncu, "Nsight Compute CSV (ncu --csv --page raw)");
  cmd->add_option("--id", a->id, "only the kernel with this NCU ID (default: all; --prompt: the longest)");
  cmd->add_option("--kernel", a->kernel_src, "kernel source file, shown to the judge");
  cmd->add_option("--problem", a->problem, "problem description, shown to the judge");
  cmd->add_option("--gpu", a->gpu, "GPU id (default: from the CSV's device attributes)");
  cmd->add_flag("--prompt", a->prompt, "emit the LLM judge's system and user prompts (seed 003)");
  cmd->add_option("--parse-response", a->parse_response, "extract and validate a judge's JSON answer from FILE");
  cmd->add_flag("--json", a->json, "JSON envelope output");
  cmd->callback([a] { run_verb(a->json, [a] { return run_diagnose(*a); }); });
}

}  // namespace goblin
