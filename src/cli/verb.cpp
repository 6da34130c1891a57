#include "cli/verb.h"

#include <cstdio>
#include <iostream>

namespace goblin {

namespace {
int g_exit_code = 0;
}

int verb_exit_code() { return g_exit_code; }
void set_verb_exit_code(int code) { g_exit_code = code; }

void finish(const VerbResult& r, bool json) {
  if (json) {
    Json out = r.error ? envelope_error(*r.error, r.result) : envelope_ok(r.result);
    // Replace (not throw on) bytes that are not UTF-8: a kernel name or a user's config may carry
    // them, and the envelope must still print.
    std::cout << out.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else {
    if (!r.human.empty()) {
      std::cout << r.human;
      if (r.human.back() != '\n') std::cout << "\n";
    }
    if (r.error) std::cerr << "goblin: error: " << r.error->describe() << "\n";
  }
  std::cout.flush();
  g_exit_code = r.error ? r.error->exit_code() : 0;
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

Every command takes --json and then prints {"ok": bool, "result": ..., "error": null|string}.
Start with:  goblin info TRACE      goblin triage TRACE -o DIR      goblin audit CONFIG
)";
}

std::string help_footer_with_examples(const std::string& examples) {
  return "\nExamples:\n" + examples + help_footer();
}

}  // namespace goblin
