// The Report's JSON form (docs/audit.md § The report), declared once as field lists
// (core/fields.h): report.json, `goblin compare --json` and the MCP result are written from them,
// and a report read back from disk is read through them.
#include "audit/report_types.h"
#include "core/fields.h"
#include "core/io.h"
#include "core/limits.h"

namespace goblin::audit {
namespace {

// A waste budget as the report shows it: an unobserved bucket is null (not a measured 0), and
// step_time_s falls back to the buckets' sum when the step was not measured.
struct Budget {
  Json write(const analysis::WasteBudget& w) const {
    Json j = Json::object();
    for (const auto& b : analysis::WasteBudget::kBuckets)
      j[b.name] = w.observed(b.name) ? Json(round_to(w.*b.field, 9)) : Json();
    j["step_time_s"] = round_to(w.step_time_s > 0 ? w.step_time_s : w.total(), 9);
    j["unit"] = "seconds per step";
    j["unobserved"] = w.unobserved;
    return j;
  }
  Status read(const Json& j, analysis::WasteBudget& w, const std::string& at) const {
    if (!j.is_object()) return fields::type_error(at, "object", j);
    for (const auto& b : analysis::WasteBudget::kBuckets)
      if (auto it = j.find(b.name); it != j.end() && !it->is_null())
        RETURN_IF_ERROR(fields::Num{}.read(*it, w.*b.field, fields::at_key(at, b.name)));
    if (auto it = j.find("step_time_s"); it != j.end())
      RETURN_IF_ERROR(fields::Num{}.read(*it, w.step_time_s, fields::at_key(at, "step_time_s")));
    if (auto it = j.find("unobserved"); it != j.end())
      RETURN_IF_ERROR(fields::Vec<fields::Str>{}.read(*it, w.unobserved, fields::at_key(at, "unobserved")));
    return Status::Ok();
  }
};

// The profiles' waste budgets as RunMetrics writes its own (every bucket a number).
struct RunBudget {
  Json write(const analysis::WasteBudget& w) const { return analysis::waste_budget_to_json(w); }
  Status read(const Json& j, analysis::WasteBudget& w, const std::string& at) const {
    return analysis::waste_budget_from_json(j, w, at);
  }
};

// A round has its own field list (audit_round_json.cpp).
struct Round {
  Json write(const AuditRound& r) const { return audit_round_to_json(r); }
  Status read(const Json& j, AuditRound& r, const std::string& at) const {
    auto x = audit_round_from_json(j);
    if (!x) return make_error(ErrorKind::Malformed, at + ": " + x.error().message);
    r = std::move(*x);
    return Status::Ok();
  }
};

}  // namespace
}  // namespace goblin::audit

namespace goblin::fields {
using namespace goblin::audit;

template <>
struct List<AuditStep> {
  static inline const auto fields =
      std::tuple{field("tool", &AuditStep::tool), field("thought", &AuditStep::thought),
                 field("outcome", &AuditStep::outcome), field("ok", &AuditStep::ok), field("round", &AuditStep::round)};
};
template <>
struct List<DeltaRow> {
  using D = DeltaRow;
  static inline const auto fields = std::tuple{
      field("metric", &D::metric), field("unit", &D::unit),   field("better", &D::better), field("before", &D::before),
      field("after", &D::after),   field("delta", &D::delta), field("pct", &D::pct)};
};
template <>
struct List<SpeedupDetail> {
  using S = SpeedupDetail;
  static inline const auto fields =
      std::tuple{field("metric", &S::metric),           field("basis", &S::basis),
                 field("ci_low", &S::ci_low),           field("ci_high", &S::ci_high),
                 field("ci_method", &S::ci_method),     field("ci_median_ratio", &S::ci_median_ratio, Omit),
                 field("ci_note", &S::ci_note, Omit),   field("interleaved", &S::interleaved),
                 field("run_order", &S::run_order),     field("run_order_note", &S::run_order_note),
                 field("significant", &S::significant), field("value", &S::value)};
};
template <>
struct List<ConfidenceDetail> {
  using C = ConfidenceDetail;
  static inline const auto fields =
      std::tuple{field("evidence_coverage", &C::evidence_coverage), field("rule_consistency", &C::rule_consistency),
                 field("meaning", &C::meaning)};
};
template <>
struct List<ReportRange> {
  static inline const auto fields = std::tuple{field("low", &ReportRange::low), field("high", &ReportRange::high)};
};
template <>
struct List<ReportRule> {
  using R = ReportRule;
  static inline const auto fields = std::tuple{field("rule_id", &R::rule_id),
                                               field("title", &R::title),
                                               field("citation", &R::citation),
                                               field("targets_bucket", &R::targets_bucket),
                                               field("estimated_recovery_seconds", &R::estimated_recovery_seconds),
                                               field("transform", &R::transform),
                                               field("evidence", &R::evidence)};
};
template <>
struct List<ScopeMissingEdit> {
  using E = ScopeMissingEdit;
  static inline const auto fields =
      std::tuple{field("field", &E::field), field("patch_sets", &E::patch_sets),
                 field("after_run_has", &E::after_run_has), field("rule_id", &E::rule_id)};
};
template <>
struct List<ScopeExtraChange> {
  using E = ScopeExtraChange;
  static inline const auto fields = std::tuple{field("field", &E::field), field("patched_config", &E::patched_config),
                                               field("after_run_has", &E::after_run_has)};
};
template <>
struct List<MeasurementScope> {
  using M = MeasurementScope;
  static inline const auto fields = std::tuple{
      field("after_run_is_patched_config", &M::after_run_is_patched_config),
      field("patch_edits_not_in_after_run", &M::patch_edits_not_in_after_run),
      field("after_run_changes_outside_patch", &M::after_run_changes_outside_patch), field("notes", &M::notes)};
};
template <>
struct List<Perturbation> {
  using P = Perturbation;
  static inline const auto fields =
      std::tuple{field("profiled_step_s", &P::profiled_step_s), field("unprofiled_step_s", &P::unprofiled_step_s),
                 field("pct", &P::pct), field("within_10pct", &P::within_10pct)};
};
template <>
struct List<Finding> {
  static inline const auto fields =
      std::tuple{field("id", &Finding::id), field("severity", &Finding::severity), field("title", &Finding::title),
                 field("detail", &Finding::detail), field("citation", &Finding::citation)};
};
template <>
struct List<ValidityFooter> {
  using V = ValidityFooter;
  static inline const auto fields = std::tuple{field("gpu", &V::gpu),
                                               field("driver", &V::driver),
                                               field("cuda", &V::cuda),
                                               field("rocm", &V::rocm),
                                               field("pytorch", &V::pytorch),
                                               field("workload", &V::workload),
                                               field("model", &V::model),
                                               field("mode", &V::mode),
                                               field("batch_size", &V::batch_size),
                                               field("seq_len", &V::seq_len),
                                               field("grad_accum_steps", &V::grad_accum_steps),
                                               field("measured_by", &V::measured_by),
                                               field("text", &V::text)};
};
template <>
struct List<ReportInputs> {
  using I = ReportInputs;
  static inline const auto fields =
      std::tuple{field("before", &I::before), field("after", &I::after), field("before_shape", &I::before_shape),
                 field("after_shape", &I::after_shape)};
};
template <>
struct List<TotalSpeedup> {
  using T = TotalSpeedup;
  static inline const auto fields = std::tuple{field("point", &T::point), field("ci_low", &T::ci_low),
                                               field("ci_high", &T::ci_high), field("basis", &T::basis)};
};
template <>
struct List<BucketRecovery> {
  using B = BucketRecovery;
  static inline const auto fields = std::tuple{field("bucket", &B::bucket),
                                               field("before_s", &B::before_s),
                                               field("classes", &B::classes),
                                               field("predicted_recovery_low_s", &B::predicted_recovery_low_s),
                                               field("predicted_recovery_high_s", &B::predicted_recovery_high_s),
                                               field("after_s", &B::after_s, Omit),
                                               field("realised_recovery_s", &B::realised_recovery_s, Omit),
                                               field("within_predicted", &B::within_predicted, Omit)};
};
template <>
struct List<KernelDiff> {
  using K = KernelDiff;
  static inline const auto fields = std::tuple{field("available", &K::available),
                                               field("reason", &K::reason, Omit),
                                               field("before_trace", &K::before_trace, Omit),
                                               field("after_trace", &K::after_trace, Omit),
                                               field("step_time_change_s", &K::step_time_change_s, Omit),
                                               field("decomposition", &K::decomposition, Omit),
                                               field("categories", &K::categories, Omit),
                                               field("counts", &K::counts, Omit),
                                               field("faster", &K::faster, Omit),
                                               field("gone", &K::gone, Omit),
                                               field("new", &K::added, Omit),
                                               field("slower", &K::slower, Omit),
                                               field("story", &K::story, Omit)};
};
template <>
struct List<CriticalPathOpinion> {
  using C = CriticalPathOpinion;
  static inline const auto fields = std::tuple{field("role", &C::role),
                                               field("available", &C::available),
                                               field("reason", &C::reason, Omit),
                                               field("trace", &C::trace, Omit),
                                               field("what_if_fast", &C::what_if_fast, Omit),
                                               field("what_if_slow", &C::what_if_slow, Omit),
                                               field("classes", &C::classes, Omit),
                                               field("not_on_graph", &C::not_on_graph, Omit),
                                               field("steps", &C::steps, Omit),
                                               field("step_before_s", &C::step_before_s, Omit),
                                               field("step_after_fast_s", &C::step_after_fast_s, Omit),
                                               field("step_after_slow_s", &C::step_after_slow_s, Omit),
                                               field("low", &C::low, Omit),
                                               field("high", &C::high, Omit),
                                               field("versus_prediction", &C::versus_prediction, Omit),
                                               field("versus_actual", &C::versus_actual, Omit),
                                               field("note", &C::note, Omit)};
};
template <>
struct List<ProfileDiff> {
  static inline const auto fields = std::tuple{field("summary", &ProfileDiff::summary)};
};
template <>
struct List<Report> {
  using R = Report;
  static inline const auto fields =
      std::tuple{field("workload_name", &R::workload_name),
                 field("schema", &R::schema),
                 field("goblin", &R::goblin, Omit),
                 field("metric_deltas", &R::metric_deltas),
                 field("waste_budget_before", &R::waste_budget_before, Opt<Budget>{}),
                 field("waste_budget_before_source", &R::waste_budget_before_source),
                 field("waste_budget_after", &R::waste_budget_after, Opt<Budget>{}),
                 field("speedup_actual", &R::speedup_actual),
                 field("speedup_actual_detail", &R::speedup_actual_detail),
                 field("speedup_predicted_low", &R::speedup_predicted_low),
                 field("speedup_predicted_high", &R::speedup_predicted_high),
                 field("prediction_held", &R::prediction_held),
                 field("prediction_note", &R::prediction_note),
                 field("confidence", &R::confidence),
                 field("confidence_detail", &R::confidence_detail),
                 field("rules", &R::rules),
                 field("diff", &R::diff),
                 field("measurement_scope", &R::measurement_scope),
                 field("profiler_perturbation", &R::profiler_perturbation),
                 field("findings", &R::findings),
                 field("validity_footer", &R::validity_footer),
                 field("notes", &R::notes),
                 field("summary_line", &R::summary_line),
                 field("inputs", &R::inputs),
                 field("throughput_unit", &R::throughput_unit, Omit),
                 field("symptoms", &R::symptoms, Omit),
                 field("speedup_model", &R::speedup_model, Opt<Opt<SpeedupPredictionCodec>>{}, Omit),
                 field("prediction_method", &R::prediction_method, Omit),
                 field("calibration", &R::calibration, Opt<HistoryCalibrationCodec>{}, Omit),
                 field("kernel_diff", &R::kernel_diff, Omit),
                 field("critical_path_what_if", &R::critical_path_what_if, Omit),
                 field("waste_budget_after_profile", &R::waste_budget_after_profile, Opt<RunBudget>{}, Omit),
                 field("waste_budget_before_profile", &R::waste_budget_before_profile, Opt<RunBudget>{}, Omit),
                 field("after_profile_note", &R::after_profile_note, Omit),
                 field("recovery_by_bucket", &R::recovery_by_bucket, Omit),
                 field("profile_diff", &R::profile_diff, Omit),
                 field("rounds", &R::rounds, Opt<Vec<Round>>{}, Omit),
                 field("rounds_requested", &R::rounds_requested, Omit),
                 field("rounds_accepted", &R::rounds_accepted, Omit),
                 field("rounds_stop_reason", &R::rounds_stop_reason, Omit),
                 field("total_speedup", &R::total_speedup, Omit),
                 field("final_config_file", &R::final_config_file, Omit),
                 field("trajectory", &R::trajectory, Omit)};
};
}  // namespace goblin::fields

namespace goblin::audit {

Json report_to_json(const Report& r) { return fields::to_json(r); }

Result<Report> report_from_json(const Json& j, const std::string& file) {
  auto r = fields::from_json<Report>(j, "report");
  if (!r && !file.empty()) {
    Error e = r.error();
    e.file = file;
    return e;
  }
  return r;
}

Result<Report> load_report_file(const std::string& path) {
  ASSIGN_OR_RETURN(auto text, read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxJsonInputBytes}));
  ASSIGN_OR_RETURN(auto j, parse_json_text(text, path, "not valid JSON"));
  return report_from_json(j, path);
}

Json validity_footer_to_json(const ValidityFooter& v) { return fields::to_json(v); }

Json trajectory_to_json(const std::vector<AuditStep>& steps) { return fields::Vec<fields::Obj>{}.write(steps); }

}  // namespace goblin::audit
