// PLACEHOLDER: replaced by the real verb.
#include "cli/verbs.h"
#include "core/cli.h"
namespace goblin {
void register_audit(CLI::App& app) {
  auto* cmd = app.add_subcommand("audit", "(not built yet)");
  cmd->allow_extras();
  cmd->callback([] {
    run_verb(false, [] {
      VerbResult r;
      r.error = make_error(ErrorKind::Internal, "goblin audit is not built yet");
      return r;
    });
  });
}
}  // namespace goblin
