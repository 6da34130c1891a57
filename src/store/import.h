// Turning results into runs (docs/store.md § Adding runs): a verb's result as it is made
// (app::run_verb records it), and results written before the store existed (goblin store add):
// triage artifact folders, audit folders, run folders, kernel workspaces, ranks/diff/metrics JSON.
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "store/record.h"

namespace goblin::store {

struct Linkage {
  std::string experiment_id, trial_id;  // --experiment / --trial: override what the trace says
  std::string workload;                 // --workload: the name trends and the gate group runs by
  std::vector<std::string> tags;
};

// The artifact a ranks run keeps: `goblin ranks --html`'s page rendered from its result.
inline constexpr const char* kRanksPage = "ranks_heatmaps.html";

// A run from a verb that just succeeded: `inputs` are the paths it read (hashed now), `result` its
// result JSON (stored as the artifact result.json, summarised into the tables), plus any files the
// result names in out_dir/artifacts.
Result<RunRecord> record_from_result(const std::string& verb, const std::vector<std::string>& inputs,
                                     const Json& result, const Linkage& link);

// Runs from a folder or file written earlier (one per folder/file). Unrecognised input is a
// Usage error naming the path and what the store reads.
Result<RunRecord> record_from_path(const std::string& path, const Linkage& link);

}  // namespace goblin::store
