// Nsight Compute CSV (`ncu --csv --page raw` and `--page details`) into a Timeline.
// The reader entry point is read_ncu_csv() in trace/readers.h; this header exposes the
// in-memory variant for tests and the fuzzer.
#pragma once
#include <string>
#include <string_view>

#include "core/status.h"
#include "model/timeline.h"

namespace goblin::trace {

// Parses ncu CSV text (either page) as if read from `path` (used in messages only).
Status parse_ncu_csv(std::string_view text, const std::string& path, Timeline& tl);

}  // namespace goblin::trace
