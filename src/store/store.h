// The run store (docs/store.md): experiments → trials → runs, with the summary tables the
// dashboard and `goblin gate` query, on SQLite or PostgreSQL (store/engine.h). One schema,
// versioned; migrations only move forward; a store of a newer schema, a file that is not SQLite,
// or a database holding someone else's tables is refused with a clear error and never written.
//
// The read API below is what the CLI verbs (app/verbs_store.cpp) and the dashboard's JSON API
// both call: plain functions over plain structs.
#pragma once
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/engine.h"
#include "store/record.h"

namespace goblin::store {

// The URL `--store` falls back to: $GOBLIN_STORE, empty when unset.
std::string default_store_url();

struct RunFilter {
  std::string workload, gpu, experiment_id, trial_id, verb, tag;
  std::string since, until;  // ISO 8601 prefixes compared as text (created >= since, < until)
  int64_t limit = 100, offset = 0;
};

// One row of the runs list: the run without its tables.
struct RunSummary {
  RunRecord run;  // tables empty; metrics, linkage, tags, environment filled
};

struct TrendPoint {
  int64_t run_id = 0;
  std::string created;
  double value = 0;
  std::string verb;  // the verb that recorded the run: which clock measured the value (figure_source)
};

// Which clock measured a run's step_time_s / tokens_per_sec: "workload_timer" for the runs whose
// step is timed by the workload's own hook without a profiler (bench, a live audit's benches),
// "trace_steps" for everything read from a trace (metrics, triage, ranks, diff, imports). Two
// sources can differ by several percent on the same run (docs/metrics.md § Step time), so a trend
// and the gate compare like with like.
std::string figure_source(const std::string& verb);

struct CalibrationRow {
  std::string rule_id, gpu;
  int audits = 0, held = 0, exceeded = 0, missed = 0, not_predicted = 0;
  std::optional<double> median_measured_over_mid;  // measured / predicted midpoint, median
};

// A step time (seconds) a measurement can give: finite and above zero. The store refuses a run
// with another one, and the gate does not compare against one.
inline bool plausible_seconds(double v) { return std::isfinite(v) && v > 0; }

struct AddOutcome {
  int64_t run_id = 0;
  bool added = false;  // false: the same run was already stored (no-op)
};

class Store {
 public:
  // Opens a store. `create`: an absent SQLite file or an empty database becomes a store of the
  // current schema. Without it, a store that does not exist is NotFound. An older schema is
  // migrated when `migrate`, refused with "run goblin store migrate" otherwise.
  static Result<Store> open(const std::string& url, bool create = false, bool migrate = true);

  static int current_schema();
  int schema_version() const { return version_; }
  const std::string& url() const { return url_.redacted; }
  EngineKind engine_kind() const { return engine_->kind(); }
  // Whether the connection still answers (store/engine.h); the server session behind it.
  bool alive() { return engine_->alive(); }
  std::string session() const { return engine_->session(); }

  // Adds a run in one transaction (all its rows or none). The same content_key twice is a no-op.
  Result<AddOutcome> add(RunRecord r);
  Result<std::vector<RunRecord>> list(const RunFilter& f) const;
  Result<int64_t> count(const RunFilter& f) const;
  Result<RunRecord> get(int64_t run_id) const;  // with every table
  // `metric` over a workload's newest `limit` runs, oldest first.
  Result<std::vector<TrendPoint>> trend(const std::string& workload, const std::string& metric, int64_t limit) const;
  // Past audit predictions against measurements, per rule and GPU.
  Result<std::vector<CalibrationRow>> calibration() const;
  // Every stored audit round, oldest first, with the run's workload and time (the audit's
  // calibration reads these: app/verbs_audit_run.cpp).
  struct PastRound {
    std::string created, workload;
    AuditRoundRow round;
  };
  Result<std::vector<PastRound>> audit_rounds() const;
  // Deletes a run and the artifacts no other run uses. NotFound when absent.
  Status remove(int64_t run_id);
  // Sets a run's tags (replacing them).
  Status set_tags(int64_t run_id, const std::vector<std::string>& tags);
  // Experiments with their trial and run counts.
  Result<Json> experiments() const;
  // An artifact's stored content (text artifacts), by hash.
  Result<std::optional<std::string>> artifact(const std::string& sha256) const;

 private:
  Store() = default;
  Status migrate_to_current();
  std::unique_ptr<Engine> engine_;
  StoreUrl url_;
  int version_ = 0;
};

// goblin gate: is the newest run of a workload worse than its baseline beyond the noise floor?
struct GateOptions {
  std::string workload, metric = "step_time_s";
  std::string baseline = "last-good";  // a run id, or "last-good": the runs before the newest
  int64_t window = 10;                 // how many earlier runs make the baseline sample
};
struct GateVerdict {
  bool regression = false;
  std::string verdict;  // "pass" | "regression" | "insufficient_data" | "invalid"
  std::string metric, workload, reason;
  bool lower_is_better = true;
  int64_t newest_run = 0;
  std::vector<int64_t> baseline_runs;
  double newest = 0, baseline_median = 0, change_pct = 0;
  double noise_floor_pct = 0, interval_low = 0, interval_high = 0;  // bootstrap interval of the baseline median
  std::string source;                                               // figure_source of the newest run
  std::string sources_note;  // baseline runs of another source left out, or "" when none
  // The test (store/change_point.h): one-sided Student t of the newest against the baseline.
  double p_value = 1, alpha = 0.01, threshold = 0;
  int64_t min_baseline_runs = 0;      // below it: insufficient_data ("not enough data")
  double baseline_cv_pct = 0;         // spread of the baseline runs
  std::vector<std::string> warnings;  // a spread (mixed) baseline, a change inside the baseline
};
Result<GateVerdict> gate(const Store& s, const GateOptions& o);
Json gate_to_json(const GateVerdict& g);

}  // namespace goblin::store
