// PLACEHOLDER: replaced by the real verb.
#include "cli/verbs.h"
#include "core/cli.h"
namespace goblin {
void register_perfetto_fix(CLI::App& app) {
  auto* cmd = app.add_subcommand("perfetto-fix", "(not built yet)");
  cmd->allow_extras();
  cmd->callback([] { run_verb(false, [] { VerbResult r; r.error = make_error(ErrorKind::Internal, "goblin perfetto-fix is not built yet"); return r; }); });
}
}  // namespace goblin
