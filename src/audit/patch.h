// The patch policy (the audit's propose_patch step (docs/audit.md)): rules whose detect holds are applied to the
// WorkloadConfig, conflicts on one field are resolved in a documented order, recovery is capped
// per waste bucket. Writing the edit into the user's file and the diff are the config module's
// (config/config_editor.h, config/unified_diff.h).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "audit/calibration.h"
#include "audit/knowledge.h"
#include "audit/rules.h"
#include "audit/speedup_model.h"
#include "config/workload_config.h"

namespace goblin::audit {

struct PatchOptions {
  std::vector<std::string> rule_ids;  // "all" = every rule in the base
  const analysis::RunMetrics* metrics = nullptr;
  std::string vendor;  // amd | nvidia | "" (from metrics)
  // The file's name in the diff headers (`--- a/NAME`); empty: the path as given, or its file
  // name when the path is absolute (never `a//abs/path`).
  std::string display_path;
  // The user's config before any audit round, for rule predicates with `of: original`; null: the
  // config being patched is the original (round 1, `goblin patch`).
  const config::WorkloadConfig* original = nullptr;
  // The config's step time without the profiler (nullopt: not measured): the speedup models take
  // the profiler's host time out of the host classes (docs/audit.md § Profiler correction).
  std::optional<UnprofiledStep> unprofiled;
};

// The Patch of docs/audit.md, field by field in the order the JSON lists them (patch_json.cpp
// holds the one field list). JSON only at the edges: the patch verb, patch.json of the audit.
struct Range {
  double low = 0, high = 0;
};
struct PatchEdit {
  Json from, to;  // config values of any type (the field's own: number, string, bool, null)
  std::string rule_id;
};
struct PatchRationale {
  std::string rule_id, title, citation, targets_bucket;
  std::optional<Range> estimated_recovery_seconds;  // null: the bucket was not observed
  Range expected_recovery_fraction;
  std::string basis;
  std::vector<std::string> evidence, unverified;
  Json transform;  // the rule's transform as the rule base writes it: field -> value or {scale: k}
};
struct PatchSkip {
  std::string rule_id, reason;
};
// A rule that is advice rather than an edit; category and evidence are left out of the findings
// whose edit had no place in the file.
struct PatchFinding {
  std::string rule_id, title;
  std::optional<std::string> category;
  std::string citation, advice;
  std::optional<std::vector<std::string>> evidence;
};
struct PatchConflict {
  std::string field, winner, loser;
};
// Recovery per waste bucket; the figures are left out when the bucket was not observed.
struct BucketCap {
  std::string bucket;
  bool observed = false;
  std::optional<double> bucket_seconds, recovered_low_s, recovered_high_s;
  std::optional<int64_t> rules;
};
struct FractionModel {
  std::optional<double> low, high;
  std::string basis;
};
// Either the parse error of the patched file, or a field it reads differently.
struct RoundtripMismatch {
  std::optional<std::string> error, field;
  std::optional<Json> patched_config, file_parses_to;  // config values of any type
};
struct PatchEvidence {
  bool have_metrics = false;
  std::string vendor, arch;
};
struct Patch {
  std::string source_file, format;
  Json new_config;  // config::config_to_json of the patched config: the config module's own form
  std::map<std::string, PatchEdit> edits;
  std::string diff, patched_file;  // both redacted
  std::vector<PatchRationale> rationale;
  std::vector<PatchSkip> skipped;
  std::vector<PatchFinding> findings;
  std::vector<PatchConflict> conflicts;
  std::vector<BucketCap> bucket_caps;
  std::optional<double> step_time_s;
  FractionModel fraction_model;
  std::optional<double> expected_speedup_low, expected_speedup_high;
  std::string prediction_method;
  // The speedup models' prediction (audit/speedup_model.h) with unpriced_rules; left out without
  // metrics or applied rules.
  std::optional<SpeedupPrediction> speedup_model;
  std::optional<std::string> speedup_note;  // why there is no prediction; left out when there is one
  double evidence_coverage = 0, rule_consistency = 0, confidence = 0;
  std::vector<std::string> unplaced_fields;
  bool roundtrip_ok = true;
  std::vector<RoundtripMismatch> roundtrip_mismatch;
  PatchEvidence evidence;
  // Audit rounds only (audit_round.cpp): how the history calibrated the range; left out otherwise.
  std::optional<HistoryCalibration> calibration;
};
Json patch_to_json(const Patch& p);
Result<Patch> patch_from_json(const Json& j);

struct PatchOutcome {
  Patch result;
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
