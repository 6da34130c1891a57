// corpus: repo:src/hw/testdata/judge
// libFuzzer target for `goblin diagnose --parse-response`: extracts the LLM judge's JSON from
// arbitrary text (fenced or not, array or object, prose around it) and validates it. Any crash,
// hang or sanitizer report is a bug; "no JSON found" and validation problems are expected.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hw/diagnose.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (auto found = goblin::hw::extract_judge_json(text)) {
    (void)goblin::hw::validate_judge_json(found->value);
  }
  return 0;
}
