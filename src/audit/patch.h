// Deterministic patches (seed 000's propose_patch): rules whose detect holds are applied to the
// WorkloadConfig, conflicts on one field are resolved in a documented order, recovery is capped
// per waste bucket, and the edit is written back into the user's own file (in place, comments and
// layout kept) with a unified diff.
#pragma once
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "audit/rules.h"
#include "audit/workload_config.h"

namespace goblin::audit {

// Unified diff of two texts (LCS over lines, 3 lines of context). Empty when equal.
std::string unified_diff(const std::string& a, const std::string& b, const std::string& a_name,
                         const std::string& b_name, int context = 3);

struct PatchOptions {
  std::vector<std::string> rule_ids;  // "all" = every rule in the base
  const RunMetrics* metrics = nullptr;
  std::string vendor;  // amd | nvidia | "" (from metrics)
};

struct PatchOutcome {
  Json result;               // seed 000's Patch: new_config, diff, rationale, speedups, confidence...
  std::string patched_text;  // the patched file (unredacted: it is the user's own file)
  WorkloadConfig new_config;
};

// Edits `text` (format of `cfg`) so that it sets `edits` (field → value). Fields that have no
// place in this format are returned in `unplaced`.
Result<std::string> edit_config_text(const std::string& text, const WorkloadConfig& cfg,
                                     const std::map<std::string, Json>& edits, std::vector<std::string>* unplaced);

Result<PatchOutcome> make_patch(const std::string& config_path, const PatchOptions& opt, const RuleBase& kb);

}  // namespace goblin::audit
