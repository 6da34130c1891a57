// Partial results from damaged JSON. simdjson checks a document's structure before the first
// value can be read, so a file cut short (a profiler killed mid-write, a truncated copy) would
// give nothing at all. This finds the longest prefix that ends right after a complete array
// element and closes the arrays/objects still open there, so the readers can keep every
// record before the damage.
#pragma once
#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace goblin::trace::rocprof {

struct RepairedJson {
  std::string text;  // prefix + closing brackets
  size_t cut = 0;    // bytes of the original kept; the damage is at or after this offset
};

// nullopt when no array element completes before the end (nothing worth re-reading).
std::optional<RepairedJson> close_truncated_json(std::string_view text);

// How reading a keyed array went: ok=false with simdjson's message and the byte offset of the
// damage (the repaired prefix's cut when the retry read it), found=false when the key is absent.
struct KeyedArrayRead {
  bool ok = true, found = false;
  std::string what;
  int64_t offset = -1;
};

// Reads the array under `key` of the top-level object of `buf`, passing each element (an object)
// to `on_element`. When the document is damaged and `nothing_read()` says no record was kept
// (simdjson rejects a truncated document up front), calls `restart()` and re-reads the prefix
// before the damage, so every complete element is still kept. Both rocprof JSON readers use it.
KeyedArrayRead read_keyed_array(const simdjson::padded_string& buf, std::string_view key,
                                const std::function<void(simdjson::ondemand::object)>& on_element,
                                const std::function<bool()>& nothing_read, const std::function<void()>& restart);

}  // namespace goblin::trace::rocprof
