// `goblin info PATH... [--json]`: what goblin read from each input — format, event counts per
// table, time span, devices, versions, warnings — and how fast. On damaged input the partial
// counts are still printed, with the error and its exit code.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/verbs.h"
#include "cli/verb.h"
#include "app/info_run.h"
#include "trace/readers.h"

namespace goblin {

void register_info(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "info", "What goblin reads from traces and telemetry: format, event counts, span, devices, warnings");
  cmd->footer(help_footer_with_examples(
      "  goblin info trace.json.gz                         what was read: format, event counts, span, devices\n"
      "  goblin info run_dir/ --json                       a rocprofv3 output directory as one run\n"
      "  goblin info a.json b.csv nvidia_smi.csv --json    several inputs: result is an array\n"));
  auto paths = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("paths", *paths, "Trace files or directories (format is sniffed from content)")->required();
  cmd->add_flag("--json", *json, "Print the {ok, result, error} JSON envelope");
  cmd->callback([paths, json] { run_verb(*json, [&] { return info(*paths); }); });
}

}  // namespace goblin
