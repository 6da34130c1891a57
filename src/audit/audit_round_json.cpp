// An audit round's JSON form (the report's `rounds`, docs/audit.md § Rounds), declared once as
// field lists (core/fields.h).
#include "audit/report_types.h"
#include "core/fields.h"

namespace goblin::fields {
using namespace goblin::audit;

template <>
struct List<RoundPredicted> {
  static inline const auto fields = std::tuple{field("low", &RoundPredicted::low),
                                               field("high", &RoundPredicted::high),
                                               field("method", &RoundPredicted::method),
                                               field("calibration", &RoundPredicted::calibration),
                                               field("what_if_low", &RoundPredicted::what_if_low, Omit),
                                               field("what_if_high", &RoundPredicted::what_if_high, Omit)};
};
template <>
struct List<RoundMeasured> {
  using M = RoundMeasured;
  static inline const auto fields = std::tuple{
      field("speedup", &M::speedup),         field("ci_low", &M::ci_low),           field("ci_high", &M::ci_high),
      field("significant", &M::significant), field("interleaved", &M::interleaved), field("run_order", &M::run_order)};
};
template <>
struct List<AuditRound> {
  using R = AuditRound;
  static inline const auto fields = std::tuple{field("round", &R::round),
                                               field("config", &R::config),
                                               field("symptoms", &R::symptoms),
                                               field("rules", &R::rules, Omit),
                                               field("predicted", &R::predicted, Omit),
                                               field("diff", &R::diff, Omit),
                                               field("error", &R::error, Omit),
                                               field("stopped", &R::stopped, Omit),
                                               field("measured", &R::measured, Omit),
                                               field("prediction_held", &R::prediction_held, Omit),
                                               field("summary_line", &R::summary_line, Omit),
                                               field("accepted_note", &R::accepted_note, Omit),
                                               field("accepted", &R::accepted, Omit),
                                               field("reverted", &R::reverted, Omit),
                                               field("report", &R::report, Omit),
                                               field("history_id", &R::history_id, Omit)};
};
}  // namespace goblin::fields

namespace goblin::audit {
Json audit_round_to_json(const AuditRound& r) { return fields::to_json(r); }
Result<AuditRound> audit_round_from_json(const Json& j) { return fields::from_json<AuditRound>(j, "audit round"); }
}  // namespace goblin::audit
