// goblin parse-config FILE [--json]: seed 000's parse_config tool.
#include "cli/verb.h"
#include "cli/verbs.h"
#include "config/workload_config.h"

namespace goblin {
void register_parse_config(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "parse-config",
      "Read a workload config (HF-style YAML/JSON, Python training script, env file) into a WorkloadConfig");
  static std::string file;
  static bool json = false;
  cmd->add_option("FILE", file, "config file: .yaml/.yml, .json, .py, .env/.sh")->required();
  cmd->add_flag("--json", json, "print the {ok, result, error} envelope");
  cmd->callback([] {
    run_verb(json, [] {
      VerbResult r;
      auto c = config::parse_config_file(file);
      if (!c) {
        r.error = c.error();
        return r;
      }
      r.result = config::config_to_json(*c);
      r.human = config::config_to_text(*c);
      return r;
    });
  });
}
}  // namespace goblin
