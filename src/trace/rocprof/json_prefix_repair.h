// Partial results from damaged JSON. simdjson checks a document's structure before the first
// value can be read, so a file cut short (a profiler killed mid-write, a truncated copy) would
// give nothing at all. This finds the longest prefix that ends right after a complete array
// element and closes the arrays/objects still open there, so the readers can keep every
// record before the damage.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace goblin::rocprof {

struct RepairedJson {
  std::string text;  // prefix + closing brackets
  size_t cut = 0;    // bytes of the original kept; the damage is at or after this offset
};

// nullopt when no array element completes before the end (nothing worth re-reading).
std::optional<RepairedJson> close_truncated_json(std::string_view text);

}  // namespace goblin::rocprof
