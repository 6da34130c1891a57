// Reads RunMetrics JSON as `goblin metrics --json` / `goblin bench --json` write it: the envelope
// or the bare result; a bench result's metrics under "metrics" / "after" are accepted too.
#pragma once
#include <optional>
#include <string>

#include "analysis/run_metrics.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin::analysis {
// Field names follow the RunMetrics struct (step_time_s, tokens_per_sec, waste_budget{...},
// top_kernels[], versions{}, ...). Missing optional fields stay unset; a missing waste bucket is
// listed as unobserved.
Result<RunMetrics> metrics_from_json(const Json& j, const std::string& file);
Result<RunMetrics> load_metrics_file(const std::string& path);

// Plausible figures of one run (docs/robustness.md): a step time (0 = absent) within
// [kMinStepTimeS, kMaxStepTimeS], a throughput (when set) above 0 and at most kMaxTokensPerSec.
// Anything else (5e-324 s, a negative time, 1e300 tokens/s) is a damaged or edited file: Malformed.
inline constexpr double kMinStepTimeS = 1e-6, kMaxStepTimeS = 1e6, kMaxTokensPerSec = 1e12;
Status check_plausible_rates(double step_time_s, std::optional<double> tokens_per_sec, const std::string& file);
}  // namespace goblin::analysis
