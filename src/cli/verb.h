// Shared plumbing for CLI verbs: every verb computes a VerbResult and `finish` prints it the
// same way — the {ok, result, error} envelope with --json, readable text otherwise — and turns
// the error kind into the documented exit code.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>

#include "core/json.h"
#include "core/status.h"
#include "core/verb_result.h"

namespace goblin::cli {

// Prints `r` (JSON envelope to stdout, or human text to stdout and the error to stderr) and
// records the exit code for main() to return. Takes `r` by value: the envelope is built around
// the moved result, not a copy of it (a `goblin ranks --json` result over 1,024 ranks is a
// JSON document of several MB; docs/scale.md).
void finish(VerbResult r, bool json);

// The help footer every command shows: exit codes and the JSON envelope. A verb that adds its
// own examples prepends them (CLI11 keeps one footer per command).
const char* help_footer();
std::string help_footer_with_examples(const std::string& examples);

// Command-line errors (main.cpp): `--json` anywhere on the line asks for the envelope; the first
// word that is not an option (nor --data-dir's value) is the command the user meant.
bool wants_json(int argc, char** argv);
std::optional<std::string> first_positional(int argc, char** argv);
bool is_command(const CLI::App& app, const std::string& name);
// Prints a usage error (kind Usage, exit 2) as the envelope or as "goblin: error: MSG".
void report_usage_error(const std::string& message, bool json);

// Exit code recorded by the last finish() (0 if none).
int verb_exit_code();
void set_verb_exit_code(int code);

// Wraps a verb body so that exceptions become an Internal error instead of a crash.
template <class F>
void run_verb(bool json, F&& body) {
  VerbResult r;
  try {
    r = body();
  } catch (const std::exception& e) {
    r.error = make_error(ErrorKind::Internal, std::string("unexpected failure: ") + e.what());
  }
  finish(std::move(r), json);
}

}  // namespace goblin::cli
