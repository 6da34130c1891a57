// RunMetrics' JSON form (docs/metrics.md), declared once as field lists (core/fields.h): the
// writer (`goblin metrics --json`, run.json) and the reader (`goblin compare`, the audit) are
// generated from them.
#include "analysis/run_metrics.h"
#include "core/fields.h"
#include "model/warning_json.h"

namespace goblin::analysis {
namespace {

// A figure where 0 means "not measured": written null, never a 0 that reads as a measurement;
// null (or absent) reads back as 0.
struct PositiveOrNull {
  int digits;
  Json write(double v) const { return v > 0 ? Json(round_to(v, digits)) : Json(nullptr); }
  Status read(const Json& j, double& v, const std::string& at) const {
    if (j.is_null()) {
      v = 0;
      return Status::Ok();
    }
    return fields::Num{}.read(j, v, at);
  }
};

// gpu_util_pct: null when no GPU activity was read at all (gpu_activity false), so the one key
// carries both members.
struct GpuUtil {
  bool names(std::string_view k) const { return k == "gpu_util_pct"; }
  void write(const RunMetrics& m, Json& o) const {
    o["gpu_util_pct"] = m.gpu_activity ? Json(round_to(m.gpu_util_pct, 3)) : Json(nullptr);
  }
  Status read(const Json& o, RunMetrics& m, const std::string& at) const {
    auto it = o.find("gpu_util_pct");
    if (it == o.end()) return Status::Ok();
    m.gpu_activity = !it->is_null();
    return m.gpu_activity ? fields::Num{}.read(*it, m.gpu_util_pct, fields::at_key(at, "gpu_util_pct")) : Status::Ok();
  }
};

// The eight buckets, one key each, from WasteBudget::kBuckets (the one list of buckets); an
// absent bucket reads as 0 (metrics_io lists it as unobserved).
struct Buckets {
  bool names(std::string_view key) const {
    for (const auto& b : WasteBudget::kBuckets)
      if (key == b.name) return true;
    return false;
  }
  void write(const WasteBudget& w, Json& o) const {
    for (const auto& b : WasteBudget::kBuckets) o[b.name] = round_to(w.*b.field, 9);
  }
  Status read(const Json& o, WasteBudget& w, const std::string& at) const {
    for (const auto& b : WasteBudget::kBuckets)
      if (auto it = o.find(b.name); it != o.end())
        RETURN_IF_ERROR(fields::Num{}.read(*it, w.*b.field, fields::at_key(at, b.name)));
    return Status::Ok();
  }
};

// The cost profile has its own list (analysis/cost_profile.cpp kFields); a value that is not an
// object reads as "no profile", as older metrics files have none.
struct Cost {
  Json write(const std::optional<CostProfile>& c) const { return c ? cost_profile_to_json(*c) : Json(nullptr); }
  Status read(const Json& j, std::optional<CostProfile>& c, const std::string&) const {
    c = cost_profile_from_json(j);
    return Status::Ok();
  }
};

}  // namespace

}  // namespace goblin::analysis

namespace goblin::fields {
template <>
struct List<analysis::StepMetrics> {
  static inline const auto fields = std::tuple{
      field("name", &analysis::StepMetrics::name), field("wall_s", &analysis::StepMetrics::wall_s, Num{9}),
      field("busy_s", &analysis::StepMetrics::busy_s, Num{9}), field("partial", &analysis::StepMetrics::partial)};
};

template <>
struct List<analysis::TopKernel> {
  static inline const auto fields = std::tuple{field("name", &analysis::TopKernel::name),
                                               field("category", &analysis::TopKernel::category),
                                               field("family", &analysis::TopKernel::family),
                                               field("pct_time", &analysis::TopKernel::pct_time, Num{3}),
                                               field("time_s", &analysis::TopKernel::time_s, Num{9}),
                                               field("count", &analysis::TopKernel::count)};
};

template <>
struct List<analysis::WasteBudget> {
  static inline const auto fields =
      std::tuple{analysis::Buckets{}, field("step_time_s", &analysis::WasteBudget::step_time_s, Num{9}),
                 Const<analysis::WasteBudget>{"unit", "seconds per step"},
                 field("unobserved", &analysis::WasteBudget::unobserved)};
};

template <>
struct List<analysis::RunMetrics> {
  using M = analysis::RunMetrics;
  // Nullable: a runner that could not analyse its run writes null for what it lacks
  // (run/run_results.cpp minimal_run_metrics: "waste_budget": null); read as not measured.
  // workload_step_time_s is left out without a workload timer (most traces, older files).
  static inline const auto fields =
      std::tuple{field("steps", &M::steps, Nullable),
                 field("step_time_s", &M::step_time_s, analysis::PositiveOrNull{9}),
                 field("workload_step_time_s", &M::workload_step_time_s, Opt<Num>{{9}}, Omit),
                 analysis::GpuUtil{},
                 field("waste_budget", &M::waste_budget, Nullable),
                 field("cost_profile", &M::cost, analysis::Cost{}),
                 field("top_kernels", &M::top_kernels, Nullable),
                 field("tokens_per_sec", &M::tokens_per_sec, Opt<Num>{{3}}),
                 field("tokens_per_sec_source", &M::tokens_per_sec_source, Omit),
                 field("mfu_pct", &M::mfu_pct, Opt<Num>{{3}}),
                 field("mfu_dtype_path_pct", &M::mfu_dtype_path_pct, Opt<Num>{{3}}),
                 field("flops_per_step", &M::flops_per_step),
                 field("mfu_basis", &M::mfu_basis),
                 field("hbm_peak_gb", &M::hbm_peak_gb, Opt<Num>{{3}}),
                 field("hbm_avg_gb", &M::hbm_avg_gb, Opt<Num>{{3}}),
                 field("hbm_total_gb", &M::hbm_total_gb, Opt<Num>{{3}}),
                 field("memory_headroom_gb", &M::memory_headroom_gb, Opt<Num>{{3}}),
                 field("batch_scale_fits", &M::batch_scale_fits, Opt<Num>{{3}}, Omit),
                 field("memory_basis", &M::memory_basis, Omit),
                 field("gpu_util_telemetry_pct", &M::gpu_util_telemetry_pct, Opt<Num>{{2}}),
                 field("attention_kernel_loaded", &M::attention_kernel_loaded),
                 field("warnings", &M::warnings, Vec<WarningCodec>{}, Nullable),
                 field("versions", &M::versions, Nullable),
                 field("gpu_name", &M::gpu_name),
                 field("runner_kind", &M::runner_kind),
                 field("window", &M::window)};
};
}  // namespace goblin::fields

namespace goblin::analysis {

Json run_metrics_to_json(const RunMetrics& m) { return fields::to_json(m); }

Json waste_budget_to_json(const WasteBudget& w) { return fields::to_json(w); }

Status waste_budget_from_json(const Json& j, WasteBudget& w, const std::string& at) { return fields::read(j, w, at); }

Result<RunMetrics> run_metrics_from_json(const Json& in) {
  // Accept the envelope too.
  const Json& j = (in.is_object() && in.contains("result") && in.contains("ok")) ? in["result"] : in;
  if (!j.is_object()) return make_error(ErrorKind::Malformed, "run metrics: expected a JSON object");
  return fields::from_json<RunMetrics>(j, "run metrics");
}

}  // namespace goblin::analysis
