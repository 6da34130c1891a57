// goblin parse-config FILE [--json]: config::parse_config_file (config/workload_config.h), the
// audit's parse_config step (docs/audit.md).
#include "cli/verb.h"
#include "cli/verbs.h"
#include "config/workload_config.h"

namespace goblin {
void register_parse_config(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "parse-config",
      "Read a workload config (HF-style YAML/JSON, Python training script, env file) into a WorkloadConfig");
  struct Opts {
    std::string file;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->footer(help_footer_with_examples(
      "  goblin parse-config train.yaml                    every field with the line it came from\n"
      "  goblin parse-config train.py --json               a training script; secrets redacted\n"));
  cmd->add_option("FILE", o->file, "config file: .yaml/.yml, .json, .py, .env/.sh")->required();
  cmd->add_flag("--json", o->json, "print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&] {
      VerbResult r;
      auto c = config::parse_config_file(o->file);
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
