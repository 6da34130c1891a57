// Reads RunMetrics JSON as `goblin metrics --json` / `goblin bench --json` write it: the envelope
// or the bare result; a bench result's metrics under "metrics" / "after" are accepted too.
#pragma once
#include <string>

#include "analysis/run_metrics.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin {
// Field names follow the RunMetrics struct (step_time_s, tokens_per_sec, waste_budget{...},
// top_kernels[], versions{}, ...). Missing optional fields stay unset; a missing waste bucket is
// listed as unobserved.
Result<RunMetrics> metrics_from_json(const Json& j, const std::string& file);
Result<RunMetrics> load_metrics_file(const std::string& path);
}  // namespace goblin
