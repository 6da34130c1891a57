// goblin critical-path's whole job for one trace (the verb and the MCP `critical_path` tool share
// it): the critical path of every step, its time attributed along it, and a what-if recomputed
// on the dependency graph (analysis/critical_path.h, docs/critical_path.md).
#pragma once
#include <string>
#include <vector>

#include "core/verb_result.h"

namespace goblin::analysis {
struct AnalysisKnowledge;  // analysis/knowledge.h
}  // namespace goblin::analysis

namespace goblin::app {

struct CriticalPathRequest {
  std::string trace;
  std::string what_if;     // "CATEGORY=k" or "KERNEL=k" (a kernel-name substring); empty: none
  std::string annotation;  // windows: every CPU annotation of this name instead of the steps
  int top = 5;
  // With several ranks: the shortest duration of each collective kernel over the ranks
  // (collective_floors, analysis/critical_path.h), to split their waits on the other ranks.
  std::vector<int64_t> comm_floor_ns;
};

// Several ranks: reads each trace once to line up its collective kernels with the others'
// (`why` says why not when they do not line up).
std::vector<int64_t> rank_collective_floors(const analysis::AnalysisKnowledge& k,
                                            const std::vector<std::string>& traces, std::string* why);

VerbResult run_critical_path(const analysis::AnalysisKnowledge& k, const CriticalPathRequest& rq);

}  // namespace goblin::app
