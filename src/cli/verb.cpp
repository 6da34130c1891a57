#include "cli/verb.h"

#include <cstdio>
#include <iostream>
#include <string_view>

#include "core/escape.h"
#include "core/phases.h"

namespace goblin::cli {

namespace {
int g_exit_code = 0;
}

int verb_exit_code() { return g_exit_code; }
void set_verb_exit_code(int code) { g_exit_code = code; }

void finish(VerbResult r, bool json) {
  PhaseTimer pt("emit: print the result");
  if (json) {
    Json out = r.error ? envelope_error(*r.error, std::move(r.result)) : envelope_ok(std::move(r.result));
    // Replace (not throw on) bytes that are not UTF-8: a kernel name or a user's config may carry
    // them, and the envelope must still print.
    std::cout << out.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else {
    // The one terminal writer: every verb's readable text and error pass through terminal_text,
    // so a kernel name, op name or server reply holding ESC sequences is shown escaped.
    if (!r.human.empty()) {
      std::cout << terminal_text(r.human);
      if (r.human.back() != '\n') std::cout << "\n";
    }
    if (r.error) std::cerr << "goblin: error: " << terminal_text(r.error->describe()) << "\n";
  }
  std::cout.flush();
  g_exit_code = r.error ? r.error->exit_code() : 0;
}

bool wants_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--json") return true;
  return false;
}

std::optional<std::string> first_positional(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a(argv[i]);
    if (a == "--data-dir") {
      ++i;
      continue;
    }
    if (a.empty() || a[0] == '-') continue;
    return std::string(a);
  }
  return std::nullopt;
}

bool is_command(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(name)) return true;
  return false;
}

void report_usage_error(const std::string& message, bool json) {
  const Error e = make_error(ErrorKind::Usage, message);
  if (json) {
    std::cout << envelope_error(e).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else {
    std::cerr << "goblin: error: " << message << "\nRun with --help for more information.\n";
  }
  std::cout.flush();
}

const char* help_footer() {
  return R"(
Exit codes:
  0  success
  1  internal error (a bug in goblin: please report it)
  2  usage error (bad command line)
  3  input missing or unreadable, or output not writable
  4  unrecognised input format
  5  malformed input (what was read before the damage is still reported)
  6  not found (unknown GPU id, rule id, ...)
  7  environment lacks something (no GPU, profiler or python)
  8  the workload failed (crash, timeout, out of memory)
  9  no GPU activity: the input holds no kernel, memcpy or memset to measure

Every command takes --json and then prints {"ok": bool, "result": ..., "error": null|string}.
Start with:  goblin info TRACE      goblin triage TRACE -o DIR      goblin audit CONFIG
)";
}

std::string help_footer_with_examples(const std::string& examples) {
  return "\nExamples:\n" + examples + help_footer();
}

}  // namespace goblin::cli
