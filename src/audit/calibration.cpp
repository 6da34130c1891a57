// The history calibration's JSON form (audit/calibration.h), one field list per struct.
#include "audit/calibration.h"

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

}  // namespace goblin::audit
