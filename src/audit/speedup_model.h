// Speedup models (docs/metrics.md § Speedup models): what a patch's config changes do to each
// class of a step's time, priced from the BEFORE profile's cost profile (analysis/cost_profile.h)
// and the GPU (data/gpus.yaml peaks, data/measured/<gpu>.json ceilings). Each model acts on its
// own classes of time; classes are disjoint, so the models compose without double counting. Every
// bound is an interval [fast, slow] of the class's time after the patch; the speedup's low comes
// from the slow ends, its high from the fast ends.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "audit/knowledge.h"
#include "config/workload_config.h"
#include "core/json.h"

namespace goblin::audit {

// One class of a step's time before and its modelled interval after (seconds per step).
struct ClassPrediction {
  std::string name;    // cost-profile class (gemm, attention, optimizer, membound, data_wait, ...)
  std::string bucket;  // the waste bucket this time sits in before the patch
  double before = 0, after_fast = 0, after_slow = 0;
  std::vector<std::string> models;  // which models touched it
  std::string basis;                // where the bounds come from
};

struct SpeedupPrediction {
  bool predicted = false;
  std::string note;        // why not, when not predicted
  double step_before = 0;  // the profiled step the classes partition
  double step_after_fast = 0, step_after_slow = 0;
  double tokens_scale = 1;   // tokens per step after / before (batch changes)
  double low = 0, high = 0;  // throughput speedup: tokens_scale × step_before / step_after_{slow,fast}
  std::vector<ClassPrediction> classes;
  // Which models ran and the fields that triggered them (for the report and the history).
  std::map<std::string, std::vector<std::string>> model_fields;
  std::vector<std::string> notes;
};

// The patch's config changes (old → new) priced on `before` (a profile with a cost profile).
// `unprofiled_step_s` (0: unknown): old_cfg's step measured without the profiler. The profiled
// step's extra length is host time the profiler adds per step; a patch that makes the step longer
// (a larger batch) amortises less of the true, shorter host idle, so the low end is priced both ways.
// GPU specs, measured ceilings and factors (data/speedup_model.yaml) come from `k`.
SpeedupPrediction predict_speedup(const Knowledge& k, const RunMetrics& before, const config::WorkloadConfig& old_cfg,
                                  const config::WorkloadConfig& new_cfg, double unprofiled_step_s = 0);
// The same with the process's knowledge (audit::knowledge()); for tests and one-shot tools.
SpeedupPrediction predict_speedup(const RunMetrics& before, const config::WorkloadConfig& old_cfg,
                                  const config::WorkloadConfig& new_cfg, double unprofiled_step_s = 0);

// Predicted vs realised after-time per waste bucket, when an AFTER profile exists: before bucket,
// predicted recovery [low, high] and the realised recovery (before − after) in seconds per step.
Json recovery_by_bucket(const SpeedupPrediction& p, const RunMetrics& before, const RunMetrics* after_profile);

Json speedup_prediction_to_json(const SpeedupPrediction& p);

}  // namespace goblin::audit
