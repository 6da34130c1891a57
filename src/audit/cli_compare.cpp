// PLACEHOLDER: replaced by the real verb.
#include "cli/verbs.h"
#include "core/cli.h"
namespace goblin {
void register_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "(not built yet)");
  cmd->allow_extras();
  cmd->callback([] {
    run_verb(false, [] {
      VerbResult r;
      r.error = make_error(ErrorKind::Internal, "goblin compare is not built yet");
      return r;
    });
  });
}
}  // namespace goblin
