// corpus: repo:examples/configs repo:workloads/configs repo:tests/robustness/secrets
// libFuzzer target for parse-config's Yaml scanner alone (docs/robustness.md): one format per target,
// so each run spends its whole budget on one parser. The parsed config must turn into JSON and
// text, and what it shows must hold no unredacted secret-named value. Errors are expected;
// crashes, hangs, sanitizer reports and an abort below are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "config/workload_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto cfg = goblin::config::parse_config_text(text, goblin::config::ConfigFormat::Yaml, "fuzz.input");
  if (!cfg.ok()) return 0;
  const goblin::Json j = goblin::config::config_to_json(*cfg);
  (void)j.dump(2, ' ', false, goblin::Json::error_handler_t::strict);
  (void)goblin::config::config_to_text(*cfg);
  // Secret-named keys never reach the output with a value that is still a secret.
  for (const auto& [k, v] : cfg->extras) {
    const std::string last = k.substr(k.rfind('.') == std::string::npos ? 0 : k.rfind('.') + 1);
    if (goblin::config::is_secret_key(last) && goblin::config::is_redactable_secret_value(v)) std::abort();
  }
  for (const auto& [k, v] : cfg->env_vars)
    if (goblin::config::is_secret_key(k) && goblin::config::is_redactable_secret_value(v)) std::abort();
  return 0;
}
