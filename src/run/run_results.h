// The JSON a live run reports beyond what `goblin metrics` reads from its trace: the fields the
// runner measured itself when the analysis cannot read the run directory, a bench side's GPU
// utilisation from its telemetry, and one side of an interleaved bench as a result of its own.
#pragma once
#include <string>

#include "core/json.h"

namespace goblin::run {

// RunMetrics' keys (as run_metrics_to_json writes them) filled from a run.json alone.
Json minimal_run_metrics(const Json& run);

// side["gpu_util_pct"] (+ basis or note) from the runs' telemetry: the mean of each run's mean.
void fill_gpu_util(Json& side, const Json& runs);

}  // namespace goblin::run
