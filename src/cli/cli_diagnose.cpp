// goblin diagnose RAW.csv [--id N] [--kernel SOURCE] [--problem TEXT] [--gpu ID] [--prompt] [--json]
// goblin diagnose --parse-response FILE [--json]
// The Nsight Compute CSV is the positional input, as for roofline; `--ncu RAW.csv` still works.
#include <sstream>

#include "app/diagnose_run.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "core/io.h"
#include "hw/diagnose.h"
#include "trace/readers.h"

namespace goblin {

void register_diagnose(CLI::App& app) {
  auto a = std::make_shared<DiagnoseRequest>();
  auto* cmd =
      app.add_subcommand("diagnose", "Kernel bottleneck diagnosis from Nsight Compute metrics; LLM judge prompts");
  cmd->footer(help_footer_with_examples(
      "  goblin diagnose ncu_raw.csv                       the two strongest bottlenecks of each kernel\n"
      "  goblin diagnose ncu_raw.csv --id 3 --prompt       prompts for an LLM judge of kernel 3\n"
      "  goblin diagnose --parse-response answer.txt       check a judge's answer against the schema\n"));
  auto positional = std::make_shared<std::string>();
  cmd->add_option("input", *positional, "Nsight Compute CSV (ncu --csv --page raw)");
  cmd->add_option("--ncu", a->ncu, "the same CSV, as an option (older spelling)");
  cmd->add_option("--id", a->id, "only the kernel with this NCU ID (default: all; --prompt: the longest)");
  cmd->add_option("--kernel", a->kernel_src, "kernel source file, shown to the judge");
  cmd->add_option("--problem", a->problem, "problem description, shown to the judge");
  cmd->add_option("--gpu", a->gpu, "GPU id (default: from the CSV's device attributes)");
  cmd->add_flag("--prompt", a->prompt, "emit the system and user prompts for an LLM judge of this kernel");
  cmd->add_option("--parse-response", a->parse_response, "extract and validate a judge's JSON answer from FILE");
  cmd->add_flag("--json", a->json, "JSON envelope output");
  cmd->callback([a, positional] {
    run_verb(a->json, [a, positional] {
      if (!positional->empty() && !a->ncu.empty() && *positional != a->ncu) {
        VerbResult r;
        r.error = make_error(ErrorKind::Usage, "two Nsight Compute CSVs given (input and --ncu): pass one");
        return r;
      }
      if (!positional->empty()) a->ncu = *positional;
      return run_diagnose(*a);
    });
  });
}

}  // namespace goblin
