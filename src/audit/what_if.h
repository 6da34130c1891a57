// The critical path's what-if beside the audit's prediction (docs/critical_path.md § The audit's
// prediction and the what-if): the GPU classes the speedup models re-price become what-if terms
// (data/speedup_model.yaml § what_if_targets) on the BEFORE trace's dependency graph
// (analysis/critical_path.h), at the models' fast and slow ends. The graph keeps what the models'
// Amdahl sum does not see (the CPU launch chain, synchronisation), so the two can disagree; the
// report shows both, the models' range as the prediction and the graph's as a second opinion.
#pragma once
#include <optional>
#include <string>

#include "audit/knowledge.h"
#include "audit/report_types.h"
#include "audit/speedup_model.h"
#include "model/timeline.h"

namespace goblin::audit {

// nullopt when the models predicted nothing (no range to set beside); else the what-if, or why
// there is none (no BEFORE trace, no re-priced GPU class, no complete step). `before_tl`: the BEFORE
// trace as the round already read it (the runner's Timeline); null: read `before_trace` here.
// Both ends are evaluated on one graph (analysis::critical_path_what_ifs).
std::optional<CriticalPathOpinion> critical_path_opinion(const Knowledge& kn, const SpeedupPrediction& p,
                                                         const std::string& before_trace,
                                                         const Timeline* before_tl = nullptr);

// Sets versus_prediction, versus_actual and the note against the predicted range and the measured
// speedup (null: not measured).
void compare_opinion(CriticalPathOpinion& o, std::optional<double> predicted_low, std::optional<double> predicted_high,
                     std::optional<double> actual);

// One line for the report's Speedup table and text ("2.02x .. 2.17x (...)" or "n/a: why").
std::string opinion_line(const CriticalPathOpinion& o);

}  // namespace goblin::audit
