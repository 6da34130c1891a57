// The audit trajectory (docs/audit.md): parse_config → profile_run → query_kb (symptoms from BOTH the
// config and the waste budget) → propose_patch → benchmark before and after as a pair
// (Runner::bench_pair: interleaved on the live runner, blocks on the replay) → compare_runs.
// One code path for every Runner: `goblin audit --replay DIR` passes a ReplayRunner, the live
// audit passes a live runner; nothing else changes.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/memory.h"
#include "analysis/run_metrics.h"
#include "audit/calibration.h"
#include "audit/patch.h"
#include "audit/report_types.h"
#include "audit/runner.h"
#include "config/workload_config.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin::audit {

struct AuditOptions {
  int top_k = 5;                   // kb query hits per symptom
  std::string vendor;              // amd | nvidia | "" (from the metrics)
  std::string workload_name;       // "" → model_name
  std::vector<std::string> notes;  // carried into the report (e.g. replay caveats)
  // Called before each tool call with its thought, and after it with its outcome (the CLI
  // prints these on stderr). step: "parse_config", "profile_run", ...
  std::function<void(const std::string& step, const std::string& line)> progress;
  // Rounds (docs/audit.md § Rounds): after an accepted round, profile the patched config, derive
  // the symptoms again, patch again; stop when no rule applies, the rounds end, or a round is not
  // a significant speedup (that round is reverted). 1 = one round, as before.
  int rounds = 1;
  // Profile the AFTER side (Runner::profile_after) of every round: waste budget before and
  // after, predicted against realised recovery per bucket; the next round's profile.
  bool profile_after = true;
  // The audit history file (audit/history.h); "" = none. The CLI passes default_history_path()
  // for live audits unless --no-history.
  std::string history_path;
  // Past rounds to calibrate from instead of the history file's (not owned; e.g. the run store's
  // audit rounds: store/calibration_source.h). Set, the rounds calibrate from it and no history
  // file is opened or written (the store records the audit itself).
  const CalibrationSource* calibration_source = nullptr;
  // Where round N's patched config is written to be run by round N+1 ("" = a temporary folder).
  std::string round_dir;
  // Hook for `goblin diff` (#12): given the BEFORE and AFTER profiles of a round, the report's
  // `profile_diff` (rendered when present). Unset: no diff section.
  std::function<ProfileDiff(const analysis::RunMetrics& before, const analysis::RunMetrics& after)> profile_diff;
  // Asked before each round after the first: true stops the audit there (the report covers the
  // rounds that ran). Unset: never.
  std::function<bool()> cancelled;
  // --memory (docs/memory.md § The audit's memory feed): a memory snapshot's or profile_memory
  // trace's report of the workload. Its peak against the device's memory (memory_device_total
  // bytes when the source knows it, else memory_device_name's or the profile's GPU in
  // data/gpus.yaml) replaces the profile's HBM figures: the memory_headroom bucket and the batch
  // rules' hbm_peak_frac, memory_headroom_gb and batch_scale_fits. Unset: as before.
  std::optional<analysis::MemoryReport> memory;
  std::string memory_device_name;
  int64_t memory_device_total = 0;
};

struct AuditOutcome {
  config::WorkloadConfig config;
  std::optional<analysis::RunMetrics> profile, before, after;
  std::vector<std::string> symptoms;
  std::vector<std::string> rule_ids;
  Json kb_hits = Json::array();
  std::optional<Patch> patch;  // round 1's patch (goblin patch --json's result, with its calibration)
  std::string patched_text;    // the patched file (user's format)
  Report report;               // compare_runs' Report plus the audit's sections (empty until compare ran)
  std::vector<AuditStep> trajectory;
  std::string runner_kind;
  bool interleaved = false;    // before/after runs alternated A B A B ... (Runner::bench_pair)
  std::string run_order;       // e.g. "ABABAB"; "" when the runner could not say
  std::optional<Error> error;  // a step failed: the outcome holds what was done before it
  std::vector<AuditRound> rounds;
  int current_round = 0;
  std::optional<analysis::RunMetrics> after_profile;  // round 1's AFTER profile
  std::vector<std::string> notes;                    // history and round notes, carried into the report
  std::string final_config_text, final_config_name;  // the last accepted round's patched file
};

// Symptom strings for the kb query (data/audit_symptoms.yaml): one per non-optimal config field and one
// per non-zero waste bucket of the profile, worded for `vendor` (amd | nvidia | "" either). An error
// names the data file and line when it cannot be read.
Result<std::vector<std::string>> derive_symptoms(const config::WorkloadConfig& c, const analysis::RunMetrics* profile,
                                                 const std::string& vendor);

// Runs the whole trajectory. Fails outright only when the config cannot be read; a later failure
// is returned in `outcome.error` with the partial outcome.
Result<AuditOutcome> run_audit(const std::string& config_path, Runner& runner, const AuditOptions& opt);

Json trajectory_to_json(const AuditOutcome& o);

}  // namespace goblin::audit
