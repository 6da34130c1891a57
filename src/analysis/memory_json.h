// `goblin memory`'s results as JSON (docs/memory.md).
#pragma once
#include <vector>

#include "analysis/memory.h"
#include "core/json.h"

namespace goblin::analysis {
Json memory_report_json(const MemoryReport& r);
Json memory_diff_json(const std::vector<MemoryDiff>& d);
}  // namespace goblin::analysis
