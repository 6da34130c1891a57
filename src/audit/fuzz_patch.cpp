// corpus: repo:examples/configs repo:workloads/configs repo:tests/robustness/secrets
// libFuzzer target for the patch round trip (goblin patch, the audit's propose_patch step): the
// first byte picks the format (YAML, JSON, Python, env) and the vendor, the rest is the config.
// Every rule of the base is applied; then either the patch is refused as unsafe (its text would
// not parse back), or the patched text must parse, in the same format, to exactly the patched
// config — checked here again, independently of make_patch's own check. Errors are expected;
// crashes, hangs, sanitizer reports and an abort below are bugs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "audit/patch.h"
#include "audit/rules.h"
#include "config/workload_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto kb = goblin::audit::knowledge();
  if (!kb.ok() || size < 1) return 0;
  static const char* kNames[] = {"fuzz.yaml", "fuzz.json", "fuzz.py", "fuzz.env"};
  const std::string name = kNames[data[0] % 4];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  goblin::audit::PatchOptions opt;
  opt.rule_ids = {"all"};
  opt.vendor = (data[0] & 4) ? "amd" : "nvidia";
  auto p = goblin::audit::make_patch_text(text, name, opt, **kb);
  if (!p.ok()) return 0;
  (void)goblin::audit::patch_to_json(p->result).dump(-1, ' ', false, goblin::Json::error_handler_t::strict);
  if (p->unsafe) {
    if (p->result.roundtrip_ok) std::abort();  // refused, so the JSON must say why
    return 0;
  }
  auto before = goblin::config::parse_config_text(text, goblin::config::sniff_config_format(name, text), name);
  auto back = goblin::config::parse_config_text(p->patched_text, before->format, name);
  if (!back.ok()) std::abort();  // a patch that is written must parse back
  for (const auto& f : goblin::config::config_fields())
    if (back->get(f.name) != p->new_config.get(f.name)) std::abort();
  return 0;
}
