#include "core/cli.h"

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

}  // namespace goblin
