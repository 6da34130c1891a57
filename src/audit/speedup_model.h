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
#include "core/status.h"

namespace goblin::audit {

// One class of a step's time before and its modelled interval after (seconds per step).
struct ClassPrediction {
  std::string name;    // cost-profile class (gemm, attention, optimizer, membound, data_wait, ...)
  std::string bucket;  // the waste bucket this time sits in before the patch
  double before = 0, after_fast = 0, after_slow = 0;
  std::vector<std::string> models;  // which models touched it
  std::string basis;                // where the bounds come from
};

// The unprofiled step time of the profiled config (docs/audit.md § Profiler correction): the step
// with nobody watching, measured, and where that measurement comes from.
struct UnprofiledStep {
  double step_s = 0;
  std::string source;
};

// One host class the profiler correction took time from (seconds per step).
struct CorrectedClass {
  std::string name;  // data_wait | host_gap | unattributed
  double profiled = 0, removed = 0, corrected = 0;
};

// The profiler's own host time taken out of the host classes before the models run (docs/audit.md
// § Profiler correction): excess = profiled step - unprofiled step, removed from the host-caused
// idle classes in data/speedup_model.yaml's order, none below zero; the GPU classes untouched.
struct ProfilerCorrection {
  bool applied = false;
  std::optional<double> profiled_step_s, unprofiled_step_s, excess_s, removed_s;
  std::string source;  // where the unprofiled step comes from ("" when there is none)
  std::vector<CorrectedClass> classes;
  std::string note;  // what was done and why, or why not
};

struct SpeedupPrediction {
  bool predicted = false;
  std::string note;        // why not, when not predicted
  double step_before = 0;  // the step the classes partition (the profiled one, less the correction)
  double step_after_fast = 0, step_after_slow = 0;
  double tokens_scale = 1;   // tokens per step after / before (batch changes)
  double low = 0, high = 0;  // throughput speedup: tokens_scale × step_before / step_after_{slow,fast}
  std::vector<ClassPrediction> classes;
  // Which models ran and the fields that triggered them (for the report and the history).
  std::map<std::string, std::vector<std::string>> model_fields;
  std::vector<std::string> notes;
  ProfilerCorrection profiler_correction;
  // Set by make_patch when predicted: the applied rules no model prices (at their bucket fraction).
  std::optional<std::vector<std::string>> unpriced_rules;
};

// The patch's config changes (old → new) priced on `before` (a profile with a cost profile).
// `unprofiled` (nullopt: not measured): old_cfg's step measured without the profiler. The profiled
// step's extra length is host time the profiler added; it is taken out of the host classes before
// the models run (ProfilerCorrection), so the prediction is about the run nobody watches.
// GPU specs, measured ceilings and factors (data/speedup_model.yaml) come from `k`.
SpeedupPrediction predict_speedup(const Knowledge& k, const analysis::RunMetrics& before,
                                  const config::WorkloadConfig& old_cfg, const config::WorkloadConfig& new_cfg,
                                  const std::optional<UnprofiledStep>& unprofiled = std::nullopt);
// The same with the process's knowledge (audit::knowledge()); for tests and one-shot tools.
SpeedupPrediction predict_speedup(const analysis::RunMetrics& before, const config::WorkloadConfig& old_cfg,
                                  const config::WorkloadConfig& new_cfg,
                                  const std::optional<UnprofiledStep>& unprofiled = std::nullopt);

// One waste bucket of `recovery_by_bucket` (audit/speedup_model.h recovery_by_bucket): the
// measured budget before and after (the AFTER profile), the recovery the models predicted for the
// classes whose time sits in the bucket, and the recovery the AFTER profile realised (s/step,
// rounded to 6 decimals when the row is made).
struct BucketRecovery {
  std::string bucket;
  std::optional<double> before_s;  // null: the bucket was not observed
  std::vector<std::string> classes;
  std::optional<double> predicted_recovery_low_s, predicted_recovery_high_s;  // null: no class in the bucket
  std::optional<std::optional<double>> after_s;  // absent without an AFTER profile; null: not observed
  std::optional<double> realised_recovery_s;     // absent unless both sides have a cost profile
  std::optional<bool> within_predicted;
};
// Predicted vs realised after-time per waste bucket, when an AFTER profile exists: before bucket,
// predicted recovery [low, high] and the realised recovery (before − after) in seconds per step.
std::vector<BucketRecovery> recovery_by_bucket(const SpeedupPrediction& p, const analysis::RunMetrics& before,
                                               const analysis::RunMetrics* after_profile);

// The prediction's JSON form (the report's and the patch's `speedup_model`), one field list
// (speedup_model.cpp): figures rounded, low/high null when not predicted.
Json speedup_prediction_to_json(const SpeedupPrediction& p);
Status speedup_prediction_from_json(const Json& j, SpeedupPrediction& p, const std::string& at);
struct SpeedupPredictionCodec {
  Json write(const SpeedupPrediction& p) const { return speedup_prediction_to_json(p); }
  Status read(const Json& j, SpeedupPrediction& p, const std::string& at) const {
    return speedup_prediction_from_json(j, p, at);
  }
};

}  // namespace goblin::audit
