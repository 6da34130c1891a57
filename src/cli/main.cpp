// goblin: hunts wasted GPU compute in ML workloads and proves each fix with a measured
// before/after. This file only builds the command tree; each verb lives beside its module.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cli_warnings.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "core/build_info.h"
#include "core/data.h"

int main(int argc, char** argv) {
  CLI::App app{
      "goblin: find wasted GPU compute in ML workloads (PyTorch/Kineto, rocprofv3, Nsight, smi telemetry) "
      "and prove each fix with a measured before/after.",
      "goblin"};
  app.footer(goblin::cli::help_footer());
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       "goblin " + goblin::build_info().version + " (commit " + goblin::build_info().commit + ")");
  std::string data_dir;
  app.add_option("--data-dir", data_dir,
                 "Directory whose files override the built-in data/ (taxonomy, rules, GPU specs)")
      ->check(CLI::ExistingDirectory);
  // Handled before parsing (run_list_warnings): listed here so --help shows it.
  app.add_flag("--list-warnings")
      ->description(
          "Print the catalogue of warnings goblin can report (id, severity, meaning; docs/warnings.md) and exit; "
          "with --json as the envelope");
  app.parse_complete_callback([&] {
    if (!data_dir.empty()) goblin::set_data_dir(data_dir);
  });

  goblin::cli::register_verbs(app);
  goblin::cli::register_mcp(app);
  goblin::cli::register_serve(app);

  if (auto rc = goblin::cli::run_list_warnings(argc, argv)) return *rc;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Usage errors speak the same language as every other error: the {ok, result, error}
    // envelope with --json, "goblin: error: ..." otherwise, and exit 2 whatever CLI11's own code.
    std::string msg = e.what();
    if (auto verb = goblin::cli::first_positional(argc, argv); verb && !goblin::cli::is_command(app, *verb))
      msg = "unknown command '" + *verb + "' (goblin --help lists the commands)";
    goblin::cli::report_usage_error(msg, goblin::cli::wants_json(argc, argv));
    return 2;
  }
  return goblin::cli::verb_exit_code();
}
