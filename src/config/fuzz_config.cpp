// corpus: repo:examples/configs repo:workloads/configs
// libFuzzer target for `goblin parse-config`: every input is scanned as YAML, JSON, Python and an
// env file (the four formats a user's config can be), and each parsed config is turned back into
// JSON and text. Errors are expected; crashes, hangs and sanitizer reports are bugs.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/workload_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (auto fmt : {goblin::config::ConfigFormat::Yaml, goblin::config::ConfigFormat::Json,
                   goblin::config::ConfigFormat::Python, goblin::config::ConfigFormat::Env}) {
    auto cfg = goblin::config::parse_config_text(text, fmt, "fuzz.input");
    if (cfg.ok()) {
      (void)goblin::config::config_to_json(*cfg).dump(2, ' ', false, goblin::Json::error_handler_t::strict);
      (void)goblin::config::config_to_text(*cfg);
    }
  }
  return 0;
}
