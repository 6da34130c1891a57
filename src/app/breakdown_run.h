// goblin breakdown's whole job as one library call (the verb and the MCP `breakdown` tool share
// it): GPU time by kernel category and library family (share of summed op time, busy union
// beside it) and the per-step busy/idle/exposed-communication breakdown; with by = "module" also
// the GPU time per nn.Module (analysis/modules.h), with by = "stage" the serving stage split
// (analysis/stages.h).
#pragma once
#include <string>

#include "core/verb_result.h"

namespace goblin::analysis {
struct AnalysisKnowledge;  // analysis/knowledge.h
}  // namespace goblin::analysis

namespace goblin::app {

// by: "category" (default), "module" or "stage"; anything else is a usage error.
// The taxonomy comes from `k` (analysis/knowledge.h).
VerbResult run_breakdown(const analysis::AnalysisKnowledge& k, const std::string& trace,
                         const std::string& by = "category");

}  // namespace goblin::app
