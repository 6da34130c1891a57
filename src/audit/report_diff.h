// The audit report's kernel-level before/after story: `goblin diff` (analysis/diff.h) of the
// profiled BEFORE trace and the AFTER trace, as the report's `kernel_diff` field and the "What got
// faster" section of report.{txt,md,html}.
#pragma once
#include <string>
#include <vector>

#include "audit/report_types.h"
#include "core/json.h"

namespace goblin::audit {

// {available: true, before_trace, after_trace, step_time_change_s, decomposition, categories,
// faster, gone, new, slower (top rows each), story} or {available: false, reason} when a side
// has no trace (an unprofiled live bench) or a trace cannot be read.
Json kernel_diff_for_report(const std::string& before_trace, const std::string& after_trace);

// The section's lines (the story); empty when the report has no kernel diff.
std::vector<std::string> kernel_diff_lines(const Report& report);

}  // namespace goblin::audit
