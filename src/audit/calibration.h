// How the audit history calibrated a round's predicted range (docs/audit.md § History): the
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
