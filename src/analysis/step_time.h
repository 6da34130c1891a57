// The one step time every verb reports (docs/metrics.md § Step time): the mean wall of the
// complete steps find_steps() delimits, measured on the trace. A timer the workload wrote into the
// trace (metadata step_time_seconds) is reported beside it as workload_step_time_s, never as the
// step time: it is not what the waste budget, diff, ranks or the critical path partition.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/steps.h"
#include "model/timeline.h"

namespace goblin::analysis {

struct StepTime {
  std::vector<size_t> averaged;     // indices into StepDetection::steps of the steps averaged
  bool every_step_partial = false;  // no complete step: the partial ones are averaged instead
  int64_t wall_ns = 0;              // summed wall of the averaged steps
  // Mean wall of the averaged steps in seconds; 0 without a step.
  double seconds() const {
    return averaged.empty() ? 0.0 : static_cast<double>(wall_ns) / static_cast<double>(averaged.size()) / 1e9;
  }
};

// The steps per-step figures average over (complete steps; every step when none is complete) and
// their mean wall. Every verb that reports a step figure goes through this: `steps` is any list of
// steps with start_ns, end_ns and partial (find_steps' Step, ranks' RankStep).
template <class StepLike>
StepTime step_time_of(const std::vector<StepLike>& steps) {
  StepTime t;
  for (size_t i = 0; i < steps.size(); ++i)
    if (!steps[i].partial) t.averaged.push_back(i);
  if (t.averaged.empty() && !steps.empty()) {
    t.every_step_partial = true;
    for (size_t i = 0; i < steps.size(); ++i) t.averaged.push_back(i);
  }
  for (size_t i : t.averaged) t.wall_ns += steps[i].end_ns - steps[i].start_ns;
  return t;
}
inline StepTime step_time(const StepDetection& sd) { return step_time_of(sd.steps); }

// The workload's own step timer, trace metadata step_time_seconds (a positive finite number), if
// the trace carries one.
std::optional<double> workload_step_time(const Timeline& tl);

}  // namespace goblin::analysis
