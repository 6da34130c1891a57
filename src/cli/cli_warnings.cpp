// `goblin --list-warnings` (issue #26). It is a top-level flag rather than a verb because it
// describes goblin itself, not an input; main.cpp calls run_list_warnings before CLI11 parses,
// since CLI11 would otherwise demand a subcommand.
#include "cli/cli_warnings.h"

#include <string_view>

#include "cli/verb.h"
#include "core/json.h"
#include "model/warnings.h"

namespace goblin::cli {

std::string warning_catalogue_markdown() {
  std::string s = "| id | severity | description |\n|---|---|---|\n";
  for (const WarningInfo& w : warning_catalogue()) {
    s += "| `" + std::string(w.id) + "` | " + std::string(severity_name(w.severity)) + " | " +
         std::string(w.description) + " |\n";
  }
  return s;
}

std::optional<int> run_list_warnings(int argc, char** argv) {
  bool list = false, json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--list-warnings")
      list = true;
    else if (a == "--json")
      json = true;
    else
      return std::nullopt;
  }
  if (!list) return std::nullopt;
  VerbResult r;
  Json ws = Json::array();
  for (const WarningInfo& w : warning_catalogue())
    ws.push_back({{"id", w.id}, {"severity", severity_name(w.severity)}, {"description", w.description}});
  r.result = {{"warnings", std::move(ws)}};
  r.human = warning_catalogue_markdown();
  finish(std::move(r), json);
  return verb_exit_code();
}

}  // namespace goblin::cli
