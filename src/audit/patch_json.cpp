// The Patch's JSON form (docs/audit.md § patch), declared once as field lists (core/fields.h).
#include "audit/patch.h"
#include "core/fields.h"

namespace goblin::fields {
using namespace goblin::audit;

template <>
struct List<Range> {
  static inline const auto fields = std::tuple{field("low", &Range::low), field("high", &Range::high)};
};
template <>
struct List<PatchEdit> {
  static inline const auto fields =
      std::tuple{field("from", &PatchEdit::from), field("to", &PatchEdit::to), field("rule_id", &PatchEdit::rule_id)};
};
template <>
struct List<PatchRationale> {
  using R = PatchRationale;
  static inline const auto fields = std::tuple{field("rule_id", &R::rule_id),
                                               field("title", &R::title),
                                               field("citation", &R::citation),
                                               field("targets_bucket", &R::targets_bucket),
                                               field("estimated_recovery_seconds", &R::estimated_recovery_seconds),
                                               field("expected_recovery_fraction", &R::expected_recovery_fraction),
                                               field("basis", &R::basis),
                                               field("evidence", &R::evidence),
                                               field("unverified", &R::unverified),
                                               field("transform", &R::transform)};
};
template <>
struct List<PatchSkip> {
  static inline const auto fields =
      std::tuple{field("rule_id", &PatchSkip::rule_id), field("reason", &PatchSkip::reason)};
};
template <>
struct List<PatchFinding> {
  using F = PatchFinding;
  static inline const auto fields =
      std::tuple{field("rule_id", &F::rule_id),   field("title", &F::title),   field("category", &F::category, Omit),
                 field("citation", &F::citation), field("advice", &F::advice), field("evidence", &F::evidence, Omit)};
};
template <>
struct List<PatchConflict> {
  static inline const auto fields =
      std::tuple{field("field", &PatchConflict::field), field("winner", &PatchConflict::winner),
                 field("loser", &PatchConflict::loser)};
};
template <>
struct List<BucketCap> {
  static inline const auto fields = std::tuple{field("bucket", &BucketCap::bucket),
                                               field("observed", &BucketCap::observed),
                                               field("bucket_seconds", &BucketCap::bucket_seconds, Omit),
                                               field("recovered_low_s", &BucketCap::recovered_low_s, Omit),
                                               field("recovered_high_s", &BucketCap::recovered_high_s, Omit),
                                               field("rules", &BucketCap::rules, Omit)};
};
template <>
struct List<FractionModel> {
  static inline const auto fields = std::tuple{field("low", &FractionModel::low), field("high", &FractionModel::high),
                                               field("basis", &FractionModel::basis)};
};
template <>
struct List<RoundtripMismatch> {
  using M = RoundtripMismatch;
  static inline const auto fields =
      std::tuple{field("error", &M::error, Omit), field("field", &M::field, Omit),
                 field("patched_config", &M::patched_config, Omit), field("file_parses_to", &M::file_parses_to, Omit)};
};
template <>
struct List<PatchEvidence> {
  static inline const auto fields =
      std::tuple{field("have_metrics", &PatchEvidence::have_metrics), field("vendor", &PatchEvidence::vendor),
                 field("arch", &PatchEvidence::arch)};
};
template <>
struct List<Patch> {
  using P = Patch;
  static inline const auto fields =
      std::tuple{field("source_file", &P::source_file),
                 field("format", &P::format),
                 field("new_config", &P::new_config),
                 field("edits", &P::edits),
                 field("diff", &P::diff),
                 field("patched_file", &P::patched_file),
                 field("rationale", &P::rationale),
                 field("skipped", &P::skipped),
                 field("findings", &P::findings),
                 field("conflicts", &P::conflicts),
                 field("bucket_caps", &P::bucket_caps),
                 field("step_time_s", &P::step_time_s),
                 field("fraction_model", &P::fraction_model),
                 field("expected_speedup_low", &P::expected_speedup_low),
                 field("expected_speedup_high", &P::expected_speedup_high),
                 field("prediction_method", &P::prediction_method),
                 field("speedup_model", &P::speedup_model, Opt<SpeedupPredictionCodec>{}, Omit),
                 field("speedup_note", &P::speedup_note, Omit),
                 field("evidence_coverage", &P::evidence_coverage),
                 field("rule_consistency", &P::rule_consistency),
                 field("confidence", &P::confidence),
                 field("unplaced_fields", &P::unplaced_fields),
                 field("roundtrip_ok", &P::roundtrip_ok),
                 field("roundtrip_mismatch", &P::roundtrip_mismatch),
                 field("evidence", &P::evidence),
                 field("calibration", &P::calibration, Opt<HistoryCalibrationCodec>{}, Omit)};
};
}  // namespace goblin::fields

namespace goblin::audit {
Json patch_to_json(const Patch& p) { return fields::to_json(p); }
Result<Patch> patch_from_json(const Json& j) { return fields::from_json<Patch>(j, "patch"); }
}  // namespace goblin::audit
