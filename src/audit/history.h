// The local audit history (docs/audit.md § History): every audit's rules, predicted range,
// measured speedup with its interval and the environment, in one SQLite file under the user's data
// directory. Calibration reads it: how often a rule's ranges held, and whether past audits say the
// range should be wider or shifted. Schema and migrations: history.cpp (kMigrations), documented in
// docs/audit.md.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "audit/calibration.h"
#include "core/json.h"
#include "core/status.h"

struct sqlite3;

namespace goblin::audit {

// $GOBLIN_HISTORY, else $XDG_DATA_HOME/goblin/history.sqlite, else ~/.local/share/goblin/history.sqlite.
std::string default_history_path();

struct HistoryRecord {
  std::string created;  // ISO 8601 UTC
  std::string workload, config_path, gpu, runner_kind;
  Json environment = Json::object();  // versions, driver, ...
  std::vector<std::string> rules;     // applied rule ids
  std::string prediction_method;      // speedup_models | bucket_fraction | none
  std::optional<double> predicted_low, predicted_high;
  std::optional<double> measured, ci_low, ci_high;
  std::optional<bool> significant;
  std::string prediction_held;  // held | exceeded | missed | not_predicted | not_measured
  int round = 1;                // audit round (goblin audit --rounds)
  std::string calibration;      // what calibration did to the range ("" = none)
};

class HistoryStore : public CalibrationSource {
 public:
  ~HistoryStore();
  HistoryStore(HistoryStore&&) noexcept;
  HistoryStore& operator=(HistoryStore&&) noexcept;
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;

  // Opens (creating the directory and file) and migrates to the current schema. A file that is
  // not a readable goblin history (not SQLite, damaged, a newer schema) is moved aside to
  // PATH.corrupt-<UTC time> — nothing is deleted — and a fresh store is created at PATH;
  // `recovered()` then says what happened. Fails only when even a fresh store cannot be made.
  static Result<HistoryStore> open(const std::string& path);

  static int current_schema();
  int schema_version() const;
  const std::string& path() const { return path_; }
  // Non-empty after open() set a damaged file aside: the message for the user.
  const std::string& recovered() const { return recovered_; }

  Result<int64_t> add(const HistoryRecord& r);
  Result<std::vector<HistoryRecord>> all() const;
  std::string where() const override { return path_; }
  Result<std::vector<PastPrediction>> past_predictions() const override;
  // Per rule, over the audits with a measurement (held/exceeded/missed need a prediction too).
  Result<std::vector<RuleCalibration>> calibration() const;
  // A new range for `rules`, from past audits that applied at least one of them on the same GPU
  // (any GPU when `gpu` is empty): shifted by the median measured/predicted-midpoint ratio when
  // at least `min_audits` of them missed or exceeded on the same side, widened to cover every
  // matching past measurement otherwise. Unchanged with fewer than `min_audits` matches.
  Calibrated calibrate(const std::vector<std::string>& rules, const std::string& gpu, double low, double high,
                       int min_audits = 3) const;

 private:
  HistoryStore() = default;
  sqlite3* db_ = nullptr;
  std::string path_, recovered_;
};

}  // namespace goblin::audit
