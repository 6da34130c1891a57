// `goblin audit --store URL` (docs/store.md § The audit): the audit's calibration history read from
// the run store, and the finished audit folder recorded in it as a run.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin::cli {

// Writes the store's past audit rounds into a fresh audit history file at `history_path` (the
// format audit::HistoryStore calibrates from) and returns how many rounds it holds.
Result<int> history_from_store(const std::string& url, const std::string& history_path);

// Records the audit folder `out_dir` as a run; returns the line to print.
Result<std::string> record_audit(const std::string& url, const std::string& out_dir, const std::string& experiment,
                                 const std::string& trial, const std::vector<std::string>& tags);

}  // namespace goblin::cli
