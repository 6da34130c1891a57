// A memory source for `goblin memory` and the metrics' --memory: a PyTorch memory snapshot
// (trace/memory_snapshot.h) or a Kineto trace recorded with profile_memory=True (its [memory]
// events, Timeline::memory_events), told apart by their first bytes, analysed into one
// analysis::MemoryReport (docs/memory.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "analysis/memory.h"
#include "core/status.h"

namespace goblin::app {

struct MemorySource {
  analysis::MemoryReport report;  // every group kept (top -1): a diff matches groups across two
  std::optional<Error> damage;    // a damaged trace read in part: the report covers what was read
  std::string device_name;        // a trace's device (its deviceProperties name); empty for a snapshot
  int64_t device_total = 0;       // its memory in bytes (deviceProperties totalGlobalMem); 0 unknown
};

// data/memory_categories.yaml, parsed (errors name the file).
Result<analysis::MemoryCategoryRules> memory_rules();

// UnknownFormat when `path` is neither a snapshot nor a Kineto trace; a trace without [memory]
// events is analysed (the report's note says how to record them).
Result<MemorySource> read_memory_source(const std::string& path, const analysis::MemoryCategoryRules& rules);

}  // namespace goblin::app
