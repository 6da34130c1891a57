// The AFTER side's profile in the report (issue #34): the live audit benches both sides
// unprofiled and profiles the patched config apart (profile_after), so the report takes the
// AFTER waste budget from that profile, as compare_runs takes BEFORE's from the profile_run.
#pragma once
#include "analysis/run_metrics.h"
#include "audit/report_types.h"

namespace goblin::audit {

// When AFTER's own measurement had no waste budget (an unprofiled bench) and `after_profile` has
// one: the report's waste_budget_after is that profile's, the metrics table's waste rows get their
// after figures beside the before ones, and a finding (evidence.after_budget_from_profile) says
// where they come from. No-op otherwise.
void use_after_profile_budget(Report& rep, const analysis::RunMetrics& after_profile);

}  // namespace goblin::audit
