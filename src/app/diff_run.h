// goblin diff's whole job as one library call (the verb and any other front end share it): read
// BEFORE and AFTER one at a time, diff them (analysis/diff.h), render JSON and text.
#pragma once
#include <string>

#include "core/verb_result.h"

namespace goblin::analysis {
struct AnalysisKnowledge;  // analysis/knowledge.h
}  // namespace goblin::analysis

namespace goblin::app {

VerbResult run_diff(const analysis::AnalysisKnowledge& k, const std::string& before, const std::string& after,
                    int top = 10);

}  // namespace goblin::app
