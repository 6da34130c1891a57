// `goblin memory`'s results as JSON (docs/memory.md).
#pragma once
#include <vector>

#include "analysis/memory.h"
#include "analysis/memory_events.h"
#include "core/json.h"

namespace goblin::analysis {
Json memory_report_json(const MemoryReport& r);
Json memory_diff_json(const std::vector<MemoryDiff>& d);
Json memory_headroom_json(const MemoryHeadroom& h);
}  // namespace goblin::analysis
