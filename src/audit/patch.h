// The patch policy (the audit's propose_patch step (docs/audit.md)): rules whose detect holds are applied to the
// WorkloadConfig, conflicts on one field are resolved in a documented order, recovery is capped
// per waste bucket. Writing the edit into the user's file and the diff are the config module's
// (config/config_editor.h, config/unified_diff.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "audit/knowledge.h"
#include "audit/rules.h"
#include "config/workload_config.h"

namespace goblin::audit {

struct PatchOptions {
  std::vector<std::string> rule_ids;  // "all" = every rule in the base
  const RunMetrics* metrics = nullptr;
  std::string vendor;  // amd | nvidia | "" (from metrics)
  // The file's name in the diff headers (`--- a/NAME`); empty: the path as given, or its file
  // name when the path is absolute (never `a//abs/path`).
  std::string display_path;
  // The user's config before any audit round, for rule predicates with `of: original`; null: the
  // config being patched is the original (round 1, `goblin patch`).
  const config::WorkloadConfig* original = nullptr;
  // The config's step time without the profiler (seconds; 0: not measured): the speedup models'
  // low end then also prices the profiler's per-step host overhead (docs/metrics.md).
  double unprofiled_step_s = 0;
};

struct PatchOutcome {
  Json result;               // the Patch of docs/audit.md: new_config, diff, rationale, speedups, confidence...
  std::string patched_text;  // the patched file (unredacted: it is the user's own file)
  config::WorkloadConfig new_config;
  // Set when the patched text does not parse back to the patched config (result.roundtrip_ok is
  // false): the edit would damage the user's file, so callers must not write it.
  std::optional<Error> unsafe;
};

// The name a diff header gives `path` (see PatchOptions::display_path).
std::string diff_display_path(const std::string& path);

// Rules, the taxonomy (evidence) and the speedup models' knowledge come from `k`.
Result<PatchOutcome> make_patch(const std::string& config_path, const PatchOptions& opt, const Knowledge& k);
// The same over text already read; `config_path` names it (its extension picks the format).
Result<PatchOutcome> make_patch_text(const std::string& config_text, const std::string& config_path,
                                     const PatchOptions& opt, const Knowledge& k);

}  // namespace goblin::audit
