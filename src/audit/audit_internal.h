// Internals of the audit flow shared by audit_flow.cpp (parse, profile, the rounds loop) and
// audit_round.cpp (one round: query, patch, bench pair, compare, AFTER profile, history). Not a
// public interface.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "audit/audit_flow.h"
#include "audit/history.h"
#include "audit/knowledge.h"
#include "audit/rules.h"
#include "model/timeline.h"

namespace goblin::audit::detail {

std::string f2(double v, int d = 2);
std::string str_of(const Json& j);
void step_begin(AuditOutcome& o, const AuditOptions& opt, const std::string& tool, const std::string& thought);
void step_end(AuditOutcome& o, const AuditOptions& opt, const std::string& outcome, bool ok = true);
std::string metrics_line(const analysis::RunMetrics& m);
std::string profile_line(const analysis::RunMetrics& m);

struct AuditHistory {
  std::optional<HistoryStore> store;         // the history file the rounds are recorded in
  const CalibrationSource* given = nullptr;  // AuditOptions::calibration_source
  std::string note;                          // for the report: where it is, or why there is none / what was recovered
  // What the rounds calibrate from: the given source, else the history file (null: neither).
  const CalibrationSource* source() const { return given ? given : store ? &*store : nullptr; }
};
AuditHistory open_history(const AuditOptions& opt);

struct RoundResult {
  AuditRound summary;  // the round's entry in the report's `rounds`
  bool accepted = false;
  std::string stop_reason;
  double speedup = 1;
  std::optional<double> ci_low, ci_high;
  std::optional<analysis::RunMetrics> after_profile;
  // The patched config's unprofiled step time (the bench's median): with after_profile, the next
  // round's measure of how much the profiler lengthens that config's step.
  std::optional<UnprofiledStep> after_unprofiled;
  std::string after_profile_trace;  // the trace behind after_profile ("" when the runner has none)
  std::string patched_text;
  std::optional<Error> error;
};
// Round r on the config at `path` (parsed: cfg) whose profile is `prof`. Round 1 fills the
// outcome's top-level fields (symptoms, rule ids, patch, before/after, report).
// `prof_trace` is the trace behind `prof` ("" when none): the BEFORE side of the report's kernel diff.
// `prof_timeline`: that trace as the runner read it (null: not kept), for the critical-path
// what-if; released once the what-if is done, before the pair is benchmarked.
// `unprofiled`: the config's step time measured without the profiler, with its source (round 1: the
// profile's own untraced steps when the runner measured them; later rounds: the previous round's
// bench), for the speedup models' profiler correction (docs/audit.md § Profiler correction).
RoundResult run_round(int r, const std::string& path, const config::WorkloadConfig& cfg,
                      const analysis::RunMetrics& prof, const std::string& prof_trace,
                      std::shared_ptr<const Timeline> prof_timeline, const std::optional<UnprofiledStep>& unprofiled,
                      Runner& runner, const AuditOptions& opt, const Knowledge& kb, AuditHistory& hist,
                      AuditOutcome& o);
// Writes round r's patched text as ROUND_DIR/round-<r>.<ext of path>; its path.
Result<std::string> write_round_config(const AuditOptions& opt, int r, const std::string& path,
                                       const std::string& text);

}  // namespace goblin::audit::detail
