// Summary statistics files written by rocprof: rocprofv3 `--stats` (<domain>_stats.csv,
// domain_stats.csv: Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev) and
// legacy rocprof's results.stats.csv / .hip_stats.csv / .copy_stats.csv (the first five).
// They aggregate events that are not in the file, so they never become timeline events: the
// rows are kept as JSON text in TraceMetadata::extra under "stats:<file name>".
#pragma once
#include <string>
#include <vector>

#include "core/csv.h"
#include "core/status.h"
#include "model/timeline.h"
#include "trace/rocprof/rocprof_fields.h"

namespace goblin::trace::rocprof {

// True when the header is a stats header (has Name, Calls and TotalDurationNs).
bool is_stats_header(const Columns& cols);

// Reads the remaining rows of `csv` (header already consumed).
Status read_stats_rows(CsvReader& csv, const Columns& cols, const std::string& path, Timeline& tl);

}  // namespace goblin::trace::rocprof
