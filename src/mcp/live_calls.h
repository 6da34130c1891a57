// Where profile_run and benchmark get their figures. With --allow-live: goblin's own live runner,
// the one `goblin audit` uses (run::make_live_audit, run/live_audit.h): the workload runs in its own process group with
// the runner's timeouts, and a cancelled call has that group killed. Without --allow-live, or when the live runner
// refuses (no GPU), the session's --replay recordings answer; with neither, an error says why.
#pragma once
#include <string>

#include "analysis/run_metrics.h"
#include "config/workload_config.h"
#include "mcp/session.h"

namespace goblin::mcp {

// kind: "profile" | "bench". steps: 0 = the runner's default. There is no bench cache here: the
// live runner measures every call anew and a recording is what it is, so benchmark offers none. Fills rec.runner,
// rec.ran, rec.notes and (live bench) the per-run samples.
Result<analysis::RunMetrics> run_measurement(const std::string& kind, const config::WorkloadConfig& cfg, int steps,
                                             Session& s, CallContext& ctx, RunRecord& rec);

}  // namespace goblin::mcp
