// goblin breakdown's whole job as one library call (the verb and the MCP `breakdown` tool share
// it): GPU time by kernel category and library family (share of summed op time, busy union
// beside it) and the per-step busy/idle/exposed-communication breakdown.
#pragma once
#include <string>

#include "core/verb_result.h"

namespace goblin {

VerbResult run_breakdown(const std::string& trace);

}  // namespace goblin
