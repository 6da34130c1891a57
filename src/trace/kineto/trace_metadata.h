// Top-level keys of a Kineto trace (everything except traceEvents) → TraceMetadata: device
// properties (`deviceProperties`, 2021 `computeProperties`), `distributedInfo`,
// `baseTimeNanoseconds`, *_version keys, and every other key kept verbatim as JSON text in
// meta.extra (workload-written values such as tokens_per_sec stay exactly as written).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/timeline.h"

namespace goblin::trace::kineto {

// `value` is the raw JSON text of the key's value. Problems become warnings, never errors:
// metadata is optional and a damaged device list must not cost the events.
void apply_top_level(std::string_view key, std::string_view value, uint64_t offset, const std::string& path,
                     Timeline& tl);

}  // namespace goblin::trace::kineto
