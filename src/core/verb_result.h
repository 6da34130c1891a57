// What one command computes, for any front end: the machine-readable result (partial when error
// is set), the error, and readable text. The CLI prints it as the {ok, result, error} envelope
// (cli/verb.h); the MCP server returns it as a tool result. Library functions that do a verb's
// whole job (e.g. run_breakdown, run_diagnose) return one, so both front ends share them.
#pragma once
#include <optional>
#include <string>

#include "core/json.h"
#include "core/status.h"

namespace goblin {

struct VerbResult {
  Json result;                 // machine-readable result (partial when error is set)
  std::optional<Error> error;  // set on failure
  std::string human;           // readable text for the terminal
};

}  // namespace goblin
