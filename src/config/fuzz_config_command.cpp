// corpus: repo:tests/sim_rocm/command
// libFuzzer target for parse-config's command-line scanner (scan_command.cpp, shell_words.cpp):
// a shell script, Slurm script or README shell block. The parsed config must turn into JSON and
// text, and a patch of it (a value replaced, a flag added, a switch flipped, an env var set) must
// parse back as a command line. Errors are expected; crashes, hangs, sanitizer reports and an
// abort below are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "config/command_line.h"
#include "config/config_editor.h"
#include "config/workload_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace goblin;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const char* name = size % 2 ? "fuzz.sh" : "README.md";
  auto cfg = config::parse_config_text(text, config::kCommandFormat, name);
  if (!cfg.ok()) return 0;
  const Json j = config::config_to_json(*cfg);
  (void)j.dump(2, ' ', false, Json::error_handler_t::strict);
  (void)config::config_to_text(*cfg);
  std::vector<std::string> unplaced;
  auto out = config::edit_config_text(
      text, *cfg, {{"batch_size", 3}, {"precision", "bf16"}, {"torch_compile", false}, {"env.GOBLIN_FUZZ", "a b"}},
      &unplaced);
  if (!out.ok()) return 0;
  // An edit of a command that parsed keeps a command that parses (quotes balanced, the line found).
  if (!config::parse_config_text(*out, config::kCommandFormat, name).ok()) std::abort();
  return 0;
}
