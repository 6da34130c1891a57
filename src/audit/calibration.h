// How the audit history calibrates a round's predicted range (docs/audit.md § History): the
// per-rule record of past audits and the calibration an audit round reports, as structs whose
// JSON form is one field list each (calibration.cpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"

namespace goblin::audit {

struct RuleCalibration {
  std::string rule_id;
  int audits = 0, held = 0, exceeded = 0, missed = 0, not_predicted = 0;  // audits with a measurement
};

// The report's and the patch's `calibration`: what the history did to the predicted range.
struct HistoryCalibration {
  std::optional<std::string> store;  // the history's location; null: no history
  std::string action = "none";       // none | widened | shifted | shifted+widened
  std::string reason;
  std::optional<int> matching_audits;                   // left out unless a range was calibrated
  std::optional<double> model_low, model_high;          // the models' range before calibration
  std::optional<std::vector<RuleCalibration>> by_rule;  // left out without a history
};

// A past audit round as calibration reads it: what was predicted and what was measured.
struct PastPrediction {
  std::string gpu;
  std::vector<std::string> rules;  // the rules the round applied
  std::optional<double> predicted_low, predicted_high, measured;
  std::string prediction_held;  // held | exceeded | missed | not_predicted | not_measured
};

// Where the past rounds come from: the audit history file (HistoryStore) or the run store's audit
// rounds (store/calibration_source.h); the audit reads them through this and nothing else.
class CalibrationSource {
 public:
  virtual ~CalibrationSource() = default;
  // What the report names as the calibration's history (a file path, a store URL).
  virtual std::string where() const = 0;
  virtual Result<std::vector<PastPrediction>> past_predictions() const = 0;
};

// What history says about a new prediction: the range to report and why.
struct Calibrated {
  double low = 0, high = 0;
  bool changed = false;
  std::string action;  // "none" | "widened" | "shifted" | "shifted+widened"
  std::string reason;
  int matching_audits = 0;
};

// Per rule, over the rounds with a measurement (held/exceeded/missed need a prediction too).
Result<std::vector<RuleCalibration>> calibration_by_rule(const CalibrationSource& source);
// A new range for `rules`, from past rounds that applied at least one of them on the same GPU
// (any GPU when `gpu` is empty): shifted by the median measured/predicted-midpoint ratio when
// at least `min_audits` of them missed or exceeded on the same side, widened to cover every
// matching past measurement otherwise. Unchanged with fewer than `min_audits` matches.
Calibrated calibrate(const CalibrationSource& source, const std::vector<std::string>& rules, const std::string& gpu,
                     double low, double high, int min_audits = 3);

Json history_calibration_to_json(const HistoryCalibration& c);
Status history_calibration_from_json(const Json& j, HistoryCalibration& c, const std::string& at);

// The codec of a `calibration` member in another struct's field list (core/fields.h).
struct HistoryCalibrationCodec {
  Json write(const HistoryCalibration& c) const { return history_calibration_to_json(c); }
  Status read(const Json& j, HistoryCalibration& c, const std::string& at) const {
    return history_calibration_from_json(j, c, at);
  }
};

}  // namespace goblin::audit
