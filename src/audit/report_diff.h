// The audit report's kernel-level before/after story: `goblin diff` (analysis/diff.h) of the
// profiled BEFORE trace and the AFTER trace, as the report's `kernel_diff` field and the "What got
// faster" section of report.{txt,md,html}.
#pragma once
#include <string>
#include <vector>

#include "audit/report_types.h"
#include "core/json.h"

namespace goblin::audit {

// Available, with the figures, the top rows of each status and the story; or not available, with
// the reason, when a side has no trace (an unprofiled live bench) or a trace cannot be read.
KernelDiff kernel_diff_for_report(const std::string& before_trace, const std::string& after_trace);

// The section's lines (the story); empty when the report has no kernel diff.
std::vector<std::string> kernel_diff_lines(const Report& report);

}  // namespace goblin::audit
