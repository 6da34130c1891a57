// Calibration over past rounds (audit/calibration.h) and its JSON form, one field list per struct.
#include "audit/calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/fields.h"

namespace goblin::fields {
using namespace goblin::audit;

template <>
struct List<RuleCalibration> {
  using R = RuleCalibration;
  static inline const auto fields = std::tuple{
      field("rule_id", &R::rule_id),   field("audits", &R::audits), field("held", &R::held),
      field("exceeded", &R::exceeded), field("missed", &R::missed), field("not_predicted", &R::not_predicted)};
};
template <>
struct List<HistoryCalibration> {
  using C = HistoryCalibration;
  static inline const auto fields = std::tuple{field("store", &C::store),
                                               field("action", &C::action),
                                               field("reason", &C::reason),
                                               field("matching_audits", &C::matching_audits, Omit),
                                               field("model_low", &C::model_low, Omit),
                                               field("model_high", &C::model_high, Omit),
                                               field("by_rule", &C::by_rule, Omit)};
};

}  // namespace goblin::fields

namespace goblin::audit {

Json history_calibration_to_json(const HistoryCalibration& c) { return fields::to_json(c); }

Status history_calibration_from_json(const Json& j, HistoryCalibration& c, const std::string& at) {
  return fields::read(j, c, at);
}

Result<std::vector<RuleCalibration>> calibration_by_rule(const CalibrationSource& source) {
  ASSIGN_OR_RETURN(auto recs, source.past_predictions());
  std::map<std::string, RuleCalibration> by;
  for (const auto& r : recs) {
    if (!r.measured) continue;
    for (const auto& id : r.rules) {
      RuleCalibration& c = by[id];
      c.rule_id = id;
      ++c.audits;
      if (!r.predicted_low || !r.predicted_high) ++c.not_predicted;
      if (r.prediction_held == "held") ++c.held;
      if (r.prediction_held == "exceeded") ++c.exceeded;
      if (r.prediction_held == "missed") ++c.missed;
    }
  }
  std::vector<RuleCalibration> out;
  for (auto& [k, v] : by) out.push_back(v);
  return out;
}

Calibrated calibrate(const CalibrationSource& source, const std::vector<std::string>& rules, const std::string& gpu,
                     double low, double high, int min_audits) {
  Calibrated c;
  c.low = low;
  c.high = high;
  c.action = "none";
  auto recs = source.past_predictions();
  if (!recs || low <= 0 || high < low) {
    c.reason = recs ? "no range to calibrate" : recs.error().message;
    return c;
  }
  std::set<std::string> want(rules.begin(), rules.end());
  std::vector<double> ratio;  // measured / predicted geometric midpoint
  int above = 0, below = 0;
  for (const auto& r : *recs) {
    if (!r.measured || !r.predicted_low || !r.predicted_high || *r.predicted_low <= 0) continue;
    if (!gpu.empty() && !r.gpu.empty() && r.gpu != gpu) continue;
    if (std::none_of(r.rules.begin(), r.rules.end(), [&](const std::string& x) { return want.count(x) > 0; })) continue;
    double mid = std::sqrt(*r.predicted_low * *r.predicted_high);
    ratio.push_back(*r.measured / mid);
    above += *r.measured > *r.predicted_high;
    below += *r.measured < *r.predicted_low;
  }
  c.matching_audits = static_cast<int>(ratio.size());
  if (c.matching_audits < min_audits) {
    c.reason = fmt::to_string(c.matching_audits) + " past audit(s) with these rules" +
               (gpu.empty() ? "" : " on " + gpu) + " (calibration needs " + fmt::to_string(min_audits) + ")";
    return c;
  }
  std::sort(ratio.begin(), ratio.end());
  const double mid = std::sqrt(low * high);
  std::string why;
  if (above >= min_audits && below == 0) {
    double med = ratio[ratio.size() / 2];
    c.low *= med, c.high *= med;
    c.action = "shifted";
    why = fmt::to_string(above) + " of " + fmt::to_string(ratio.size()) +
          " past audits measured above their range: shifted by their median measured/midpoint ratio " +
          fmt::format("{:f}", med).substr(0, 5);
  } else if (below >= min_audits && above == 0) {
    double med = ratio[ratio.size() / 2];
    c.low *= med, c.high *= med;
    c.action = "shifted";
    why = fmt::to_string(below) + " of " + fmt::to_string(ratio.size()) +
          " past audits measured below their range: shifted by their median measured/midpoint ratio " +
          fmt::format("{:f}", med).substr(0, 5);
  }
  // Widen to cover every matching past measurement relative to its own midpoint.
  double lo = std::min(c.low, mid * ratio.front()), hi = std::max(c.high, mid * ratio.back());
  if (lo < c.low - 1e-9 || hi > c.high + 1e-9) {
    c.action = c.action == "shifted" ? "shifted+widened" : "widened";
    why += std::string(why.empty() ? "" : "; ") + "widened to cover the " + fmt::to_string(ratio.size()) +
           " past measurements relative to their predicted midpoints";
    c.low = lo, c.high = hi;
  }
  c.changed = c.action != "none";
  c.reason = c.changed ? why : fmt::to_string(ratio.size()) + " past audits with these rules all fell inside the range";
  return c;
}

}  // namespace goblin::audit
