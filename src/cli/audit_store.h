// `goblin audit --store URL` (docs/store.md § The audit): the finished audit folder recorded in
// the run store as a run (the store's rounds calibrate the audit: store/calibration_source.h).
#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin::cli {

// Records the audit folder `out_dir` as a run; returns the line to print.
Result<std::string> record_audit(const std::string& url, const std::string& out_dir, const std::string& experiment,
                                 const std::string& trial, const std::vector<std::string>& tags);

}  // namespace goblin::cli
