// The audit Report (docs/audit.md § The report) as a struct: compare_runs fills the sections it
// measures, an audit round and the rounds loop add theirs (the Omit members below). The JSON form
// (report.json, `goblin compare --json`, MCP) is one field list per struct (report_json.cpp);
// renderers (report.h) read the struct. Members are in the order the JSON lists the keys.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "audit/calibration.h"
#include "audit/speedup_model.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin::audit {

// ---- the rounds and the trajectory of an audit ----------------------------------------------

struct AuditStep {
  std::string tool;     // parse_config | profile_run | query_kb | propose_patch | benchmark_pair |
                        // compare_runs
  std::string thought;  // why this call, before it ran
  std::string outcome;  // one line: what it returned
  bool ok = true;
  int round = 0;  // 0: before the rounds (parse, profile); N: audit round N
};

// One audit round's entry in the report's `rounds` (docs/audit.md § Rounds), in the order the JSON
// lists the keys; a key is left out until the round gets that far (a round that stopped or failed
// early has no measurement). The field list is in audit_round_json.cpp.
struct RoundPredicted {
  std::optional<double> low, high;
  std::string method;
  std::string calibration;  // the history calibration's action: none | ...
  // The critical path's what-if range beside it (a second opinion: CriticalPathOpinion); left
  // out when there is none.
  std::optional<double> what_if_low, what_if_high;
};
struct RoundMeasured {
  std::optional<double> speedup, ci_low, ci_high;
  std::optional<bool> significant;
  bool interleaved = false;
  std::string run_order;
};
struct AuditRound {
  int round = 0;
  std::string config;
  std::vector<std::string> symptoms;
  std::optional<std::vector<std::string>> rules;
  std::optional<RoundPredicted> predicted;
  std::optional<std::string> diff;
  std::optional<std::string> error;    // the step that failed, described
  std::optional<std::string> stopped;  // why the round ended before its benchmark
  // null: nothing was measured (one recording stood in for both sides).
  std::optional<std::optional<RoundMeasured>> measured;
  std::optional<std::string> prediction_held, summary_line, accepted_note;
  std::optional<bool> accepted;
  std::optional<std::string> reverted;
  // Rounds after the first: that round's Report as report_to_json writes it (a Report holding
  // rounds cannot hold a Report by value; the first round's is the audit's report).
  std::optional<Json> report;
  std::optional<std::optional<int64_t>> history_id;  // null: the history did not record it
};
Json audit_round_to_json(const AuditRound& r);
Result<AuditRound> audit_round_from_json(const Json& j);

// ---- the Report's sections ------------------------------------------------------------------

// One row of metric_deltas; the figures are rounded when the row is made (delta_row).
struct DeltaRow {
  std::string metric, unit, better;  // better: higher | lower | neutral
  std::optional<double> before, after, delta, pct;
};
struct SpeedupDetail {
  std::optional<std::string> metric;  // tokens_per_sec | throughput (images, samples) | step_time_s | null
  std::string basis;
  std::optional<double> ci_low, ci_high;
  std::optional<std::string> ci_method;
  std::optional<double> ci_median_ratio;  // left out unless bootstrapped
  std::optional<std::string> ci_note;     // left out unless there is no interval
  std::optional<bool> interleaved;        // null: not known (inputs read from files)
  std::optional<std::string> run_order;
  std::string run_order_note;
  std::optional<bool> significant;  // the 95 % interval excludes 1.0; null without interval
  std::optional<double> value;
};
struct ConfidenceDetail {
  std::optional<double> evidence_coverage, rule_consistency;
  std::string meaning;
};
struct ReportRange {
  double low = 0, high = 0;
};
struct ReportRule {
  std::string rule_id, title, citation, targets_bucket;
  std::optional<ReportRange> estimated_recovery_seconds;  // null: the bucket was not observed
  Json transform;  // the rule's transform as the rule base writes it (PatchRationale::transform)
  // The measured evidence that held (PatchRationale::evidence), a fallback named as such.
  std::vector<std::string> evidence;
};
// A patch edit the measured AFTER run does not have; config values of any type.
struct ScopeMissingEdit {
  std::string field;
  Json patch_sets, after_run_has;
  std::string rule_id;
};
// A change of the measured AFTER run that the patch did not make; config values of any type.
struct ScopeExtraChange {
  std::string field;
  Json patched_config, after_run_has;
};
struct MeasurementScope {
  bool after_run_is_patched_config = true;
  std::vector<ScopeMissingEdit> patch_edits_not_in_after_run;
  std::vector<ScopeExtraChange> after_run_changes_outside_patch;
  std::vector<std::string> notes;
};
struct Perturbation {
  double profiled_step_s = 0, unprofiled_step_s = 0, pct = 0;
  bool within_10pct = true;
};
struct Finding {
  std::string id, severity, title, detail, citation;
};
struct ValidityFooter {
  std::optional<std::string> gpu, driver, cuda, rocm, pytorch;  // null: not recorded
  std::string workload;
  Json model, mode, batch_size, seq_len, grad_accum_steps;  // config values of any type (null: unset)
  std::string measured_by;
  std::string text;
};
struct ReportInputs {
  std::string before, after, before_shape, after_shape;
};
struct TotalSpeedup {
  double point = 0;
  std::optional<double> ci_low, ci_high;
  std::string basis;
};
// The report's `kernel_diff` (audit/report_diff.h): `goblin diff` of the profiled BEFORE trace and
// the AFTER trace, or why there is none. The figures and rows are diff_to_json's (analysis/diff.h,
// their own writer), quoted as it writes them.
struct KernelDiff {
  bool available = false;
  std::optional<std::string> reason;  // only when not available
  std::optional<std::string> before_trace, after_trace;
  std::optional<Json> step_time_change_s, decomposition, categories, counts;
  std::optional<Json> faster, gone, added, slower;  // top rows of each status (`added`: the key "new")
  std::optional<std::vector<std::string>> story;
};
// The report's `profile_diff`: what the AuditOptions::profile_diff hook (audit_flow.h) says about a
// round's BEFORE and AFTER profiles, as the lines the report shows.
struct ProfileDiff {
  std::vector<std::string> summary;
};

// The report's `critical_path_what_if` (audit/what_if.h, docs/critical_path.md § The audit's
// prediction and the what-if): the critical path's what-if on the BEFORE trace, with the GPU
// classes the speedup models re-priced made as much faster as the models say (their fast and
// slow ends). A second opinion shown beside the prediction, which stays the models' range.
struct CriticalPathOpinion {
  std::string role;
  bool available = false;
  std::optional<std::string> reason;  // only when not available
  std::optional<std::string> trace;
  // The terms, as `goblin critical-path TRACE --what-if` takes them (fast and slow ends).
  std::optional<std::string> what_if_fast, what_if_slow;
  std::optional<std::vector<std::string>> classes;       // the re-priced classes given terms
  std::optional<std::vector<std::string>> not_on_graph;  // re-priced classes that are no GPU kernels
  std::optional<int> steps;                              // complete steps averaged
  std::optional<double> step_before_s, step_after_fast_s, step_after_slow_s;
  std::optional<double> low, high;  // speedup: tokens-per-step scale x step before / step after
  // Against the models' range: overlaps | below | above; against the measured speedup: within |
  // above | below | not_measured.
  std::optional<std::string> versus_prediction, versus_actual;
  std::optional<std::string> note;
};

struct Report {
  std::string workload_name;
  std::string schema = "goblin.report/1";
  Json goblin;  // build_info_json() (core's own writer); left out when null (reports older than it)
  std::vector<DeltaRow> metric_deltas;
  // Written with the unobserved buckets null and step_time_s the buckets' sum when not measured.
  std::optional<analysis::WasteBudget> waste_budget_before;
  std::optional<std::string> waste_budget_before_source;  // before | profile_run; null: no budget
  std::optional<analysis::WasteBudget> waste_budget_after;
  std::optional<double> speedup_actual;
  SpeedupDetail speedup_actual_detail;
  std::optional<double> speedup_predicted_low, speedup_predicted_high;
  std::string prediction_held;  // held | exceeded | missed | not_measured | not_predicted
  std::string prediction_note;
  std::optional<double> confidence;
  ConfidenceDetail confidence_detail;
  std::vector<ReportRule> rules;
  std::string diff;
  MeasurementScope measurement_scope;
  std::optional<Perturbation> profiler_perturbation;  // null: not measured
  std::vector<Finding> findings;
  ValidityFooter validity_footer;
  std::vector<std::string> notes;
  std::string summary_line;
  ReportInputs inputs;
  // The unit the workload's throughput is counted in when it is not tokens ("images", "samples"):
  // metric_deltas then has a `throughput` row in it and the summary line speaks it. Left out
  // for a token workload.
  std::optional<std::string> throughput_unit;

  // An audit's additions (left out of `goblin compare`'s report).
  std::optional<std::vector<std::string>> symptoms;
  std::optional<std::optional<SpeedupPrediction>> speedup_model;  // null: no prediction model
  std::optional<std::string> prediction_method;
  std::optional<HistoryCalibration> calibration;
  std::optional<KernelDiff> kernel_diff;
  std::optional<CriticalPathOpinion> critical_path_what_if;  // absent without a prediction
  // The profiles' budgets as RunMetrics writes them (analysis/run_metrics.h waste_budget_to_json).
  std::optional<analysis::WasteBudget> waste_budget_after_profile, waste_budget_before_profile;
  std::optional<std::string> after_profile_note;
  std::optional<std::vector<BucketRecovery>> recovery_by_bucket;
  std::optional<ProfileDiff> profile_diff;
  std::optional<std::vector<AuditRound>> rounds;
  std::optional<int> rounds_requested, rounds_accepted;
  std::optional<std::string> rounds_stop_reason;
  std::optional<std::optional<TotalSpeedup>> total_speedup;  // null: no round accepted
  std::optional<std::string> final_config_file;
  std::optional<std::vector<AuditStep>> trajectory;
};

// The one writer and the one reader of the Report's JSON (report_json.cpp). Reading fails with a
// Malformed error naming `file` (when given) and the field ("rules[2].title: expected string").
Json report_to_json(const Report& r);
Result<Report> report_from_json(const Json& j, const std::string& file = {});
// Reads report.json (goblin compare / audit output) from disk through report_from_json.
Result<Report> load_report_file(const std::string& path);
Json validity_footer_to_json(const ValidityFooter& v);
Json trajectory_to_json(const std::vector<AuditStep>& steps);

}  // namespace goblin::audit
