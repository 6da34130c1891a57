// `goblin --list-warnings`: the warning catalogue (model/warnings.h) as a markdown table, or
// with --json as {"ok":true,"result":{"warnings":[{id, severity, description}]}}.
#pragma once
#include <optional>
#include <string>

namespace goblin::cli {

// The catalogue as the markdown table docs/warnings.md holds (a test compares the two).
std::string warning_catalogue_markdown();

// Handles a command line whose words are only --list-warnings and --json (in any order);
// nullopt for any other line, which CLI11 then parses as usual. Returns the exit code.
std::optional<int> run_list_warnings(int argc, char** argv);

}  // namespace goblin::cli
