#include "audit/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <sstream>

#include "audit/compare_parts.h"
#include "audit/knowledge.h"
#include "core/build_info.h"
#include "core/io.h"
#include "core/stats.h"
#include "core/text.h"

namespace goblin::audit {

Result<Json> compare_runs(const RunInput& before, const RunInput& after, const Json& patch, const CompareOptions& opt) {
  // BEFORE as measured, plus the waste budget of its profiled run when the bench had none: the
  // buckets are per-step shares of the profiled window, the step times stay the bench's.
  RunMetrics before_metrics = before.metrics;
  bool before_budget_from_profile = false;
  if (opt.profiled_before && !has_budget(before_metrics) && has_budget(*opt.profiled_before)) {
    before_metrics.waste_budget = opt.profiled_before->waste_budget;
    before_budget_from_profile = true;
  }
  const RunMetrics& B = before_metrics;
  const RunMetrics& A = after.metrics;
  std::shared_ptr<const Knowledge> own_kb;  // the process's knowledge when the caller passed no rules
  const RuleBase* kb = opt.kb;
  if (!kb) {
    auto k = knowledge();
    if (k) own_kb = *k, kb = &own_kb->rules;
  }
  if (!patch.is_object() || !patch.contains("new_config"))
    return make_error(ErrorKind::Malformed, "patch: expected goblin patch --json output with new_config");
  ASSIGN_OR_RETURN(auto nc, config::config_from_json(patch["new_config"]));
  const config::WorkloadConfig& cfg = nc;

  Json rep;
  std::string workload = opt.workload_name;
  if (workload.empty() && cfg.get("model_name").is_string()) workload = cfg.get("model_name").get<std::string>();
  if (workload.empty()) workload = "(unnamed workload)";
  rep["workload_name"] = workload;
  rep["schema"] = "goblin.report/1";
  rep["goblin"] = build_info_json();  // which build wrote the report

  // ---- metric deltas ----
  Json deltas = Json::array();
  deltas.push_back(delta_row("tokens_per_sec", "tokens/s", "higher", B.tokens_per_sec, A.tokens_per_sec, 1));
  auto step = [](const RunMetrics& m) {
    return m.step_time_s > 0 ? std::optional<double>(m.step_time_s) : std::nullopt;
  };
  deltas.push_back(delta_row("step_time_s", "s", "lower", step(B), step(A), 6));
  auto util = [](const RunMetrics& m) {
    return (m.gpu_util_pct > 0 || !m.steps.empty()) ? std::optional<double>(m.gpu_util_pct) : std::nullopt;
  };
  deltas.push_back(delta_row("gpu_util_pct", "%", "higher", util(B), util(A), 2));
  if (B.mfu_pct || A.mfu_pct) deltas.push_back(delta_row("mfu_pct", "%", "higher", B.mfu_pct, A.mfu_pct, 2));
  if (B.hbm_peak_gb || A.hbm_peak_gb)
    deltas.push_back(delta_row("hbm_peak_gb", "GB", "lower", B.hbm_peak_gb, A.hbm_peak_gb, 3));
  for (const auto& b : bucket_names())
    deltas.push_back(delta_row("waste." + b, "s/step", b == "useful_gpu" ? "neutral" : "lower",
                               B.waste_budget.value_of(b), A.waste_budget.value_of(b), 6));
  rep["metric_deltas"] = deltas;
  rep["waste_budget_before"] = has_budget(B) ? budget_json(B.waste_budget) : Json(nullptr);
  rep["waste_budget_before_source"] = !has_budget(B)               ? Json(nullptr)
                                      : before_budget_from_profile ? Json("profile_run")
                                                                   : Json("before");
  rep["waste_budget_after"] = has_budget(A) ? budget_json(A.waste_budget) : Json(nullptr);

  // ---- speedup actual ----
  Json sd;
  std::optional<double> actual;
  bool use_tps = B.tokens_per_sec && A.tokens_per_sec && *B.tokens_per_sec > 0 && *A.tokens_per_sec > 0;
  if (use_tps) {
    actual = *A.tokens_per_sec / *B.tokens_per_sec;
    sd["metric"] = "tokens_per_sec";
    sd["basis"] = "tokens/s after / tokens/s before";
    // tokens/s is often a figure the workload wrote into the trace: checked against the step
    // times both sides measure. Legitimately apart only when the tokens per step changed.
    if (B.step_time_s > 0 && A.step_time_s > 0) {
      const double by_step = B.step_time_s / A.step_time_s;
      if (std::isfinite(by_step) && std::fabs(*actual - by_step) > 0.10 * by_step)
        sd["basis"] = "tokens/s after / tokens/s before; flagged: it gives " + format_sig(*actual, 3) +
                      "x but the measured step times give " + format_sig(by_step, 3) +
                      "x (more than 10 % apart): unless the tokens per step changed, the tokens/s figures are "
                      "not what the runs measured";
    }
  } else if (B.step_time_s > 0 && A.step_time_s > 0) {
    actual = B.step_time_s / A.step_time_s;
    sd["metric"] = "step_time_s";
    sd["basis"] = "step time before / step time after (tokens/s not observed on both sides)";
  } else {
    sd["metric"] = nullptr;
    sd["basis"] = "neither tokens/s nor step time observed on both sides";
  }
  if (actual && !(std::isfinite(*actual) && *actual > 0)) {
    // tokens/s of 1e308 against 1e-300, say: a ratio that is no number is not a speedup ("infx
    // faster"); said, and left unmeasured.
    actual.reset();
    sd["metric"] = nullptr;
    sd["basis"] =
        "the before/after ratio is not a finite positive number (check the inputs' tokens/s and step "
        "times): not measured";
  }
  sd["ci_low"] = nullptr;
  sd["ci_high"] = nullptr;
  sd["ci_method"] = nullptr;
  {
    const BenchSamples &bb = before.bench, &ab = after.bench;
    bool tps_s = bb.tokens_per_sec.size() >= 2 && ab.tokens_per_sec.size() >= 2;
    bool st_s = bb.step_time_s.size() >= 2 && ab.step_time_s.size() >= 2;
    if ((use_tps && tps_s) || (st_s && !(use_tps && tps_s))) {
      bool t = use_tps && tps_s;
      ConfidenceInterval ri =
          t ? bootstrap_ratio(ab.tokens_per_sec, bb.tokens_per_sec) : bootstrap_ratio(bb.step_time_s, ab.step_time_s);
      sd["ci_low"] = round_to(ri.low, 4);
      sd["ci_high"] = round_to(ri.high, 4);
      sd["ci_median_ratio"] = round_to(ri.point, 4);
      size_t nb = t ? bb.tokens_per_sec.size() : bb.step_time_s.size();
      size_t na = t ? ab.tokens_per_sec.size() : ab.step_time_s.size();
      sd["ci_method"] = std::string("percentile bootstrap of the ratio of medians of ") +
                        (t ? "tokens/s (after/before)" : "step time (before/after)") + ", " + std::to_string(nb) +
                        " vs " + std::to_string(na) + " repeats, 2000 resamples, 95 %, seed 0x60B11";
    } else if (bb.ci_low && ab.ci_low && bb.ci_metric == ab.ci_metric && *bb.ci_low > 0 && *ab.ci_low > 0) {
      double lo, hi;
      if (bb.ci_metric == "tokens_per_sec")
        lo = *ab.ci_low / *bb.ci_high, hi = *ab.ci_high / *bb.ci_low;
      else
        lo = *bb.ci_low / *ab.ci_high, hi = *bb.ci_high / *ab.ci_low;
      sd["ci_low"] = round_to(lo, 4);
      sd["ci_high"] = round_to(hi, 4);
      sd["ci_method"] = "ratio of the interval ends of " + bb.ci_metric +
                        " (conservative: worst end over best end; no samples to bootstrap)";
    } else {
      sd["ci_note"] =
          "no repeat samples on both sides (goblin bench --json or a bench object): a single measurement per side, "
          "no interval";
    }
  }
  sd["interleaved"] = opt.interleaved ? Json(*opt.interleaved) : Json(nullptr);
  sd["run_order"] = opt.run_order.empty() ? Json(nullptr) : Json(opt.run_order);
  if (!opt.interleaved)
    sd["run_order_note"] = "run order not known to compare (inputs read from files)";
  else if (*opt.interleaved)
    sd["run_order_note"] = "before and after runs interleaved (A B A B ...): drift hits both sides";
  else
    sd["run_order_note"] =
        "before and after benchmarked in blocks (all before runs, then all after runs): drift "
        "between the blocks is not cancelled";
  if (opt.interleaved && sd["ci_method"].is_string())
    sd["ci_method"] = sd["ci_method"].get<std::string>() +
                      (*opt.interleaved ? ", runs interleaved" + (opt.run_order.empty() ? "" : " " + opt.run_order)
                                        : std::string(", runs in blocks"));
  // Significant when the 95 % interval excludes 1.0; null when there is no interval.
  std::optional<bool> significant;
  if (sd["ci_low"].is_number() && sd["ci_high"].is_number())
    significant = sd["ci_low"].get<double>() > 1.0 || sd["ci_high"].get<double>() < 1.0;
  sd["significant"] = significant ? Json(*significant) : Json(nullptr);
  sd["value"] = actual ? Json(round_to(*actual, 3)) : Json(nullptr);
  rep["speedup_actual"] = actual ? Json(round_to(*actual, 3)) : Json(nullptr);
  rep["speedup_actual_detail"] = sd;

  // ---- prediction ----
  auto pj = [&](const char* k) -> std::optional<double> {
    if (patch.contains(k) && patch[k].is_number()) return patch[k].get<double>();
    return std::nullopt;
  };
  auto plo = pj("expected_speedup_low"), phi = pj("expected_speedup_high");
  rep["speedup_predicted_low"] = num_or_null(plo, 3);
  rep["speedup_predicted_high"] = num_or_null(phi, 3);
  std::string held, held_note;
  if (!plo || !phi) {
    held = "not_predicted";
    held_note =
        "the patch made no speedup prediction" + (patch.contains("speedup_note") && patch["speedup_note"].is_string()
                                                      ? " (" + patch["speedup_note"].get<std::string>() + ")"
                                                      : std::string());
  } else if (!actual) {
    held = "not_measured";
    held_note = "the actual speedup could not be measured";
  } else if (*actual < *plo) {
    held = "missed";
    held_note = "actual " + format_fixed(*actual, 2) + "x is below the predicted " + format_fixed(*plo, 2) + "-" +
                format_fixed(*phi, 2) + "x";
  } else if (*actual > *phi) {
    held = "exceeded";
    held_note = "actual " + format_fixed(*actual, 2) + "x is above the predicted " + format_fixed(*plo, 2) + "-" +
                format_fixed(*phi, 2) + "x (exceeded)";
  } else {
    held = "held";
    held_note = "actual " + format_fixed(*actual, 2) + "x is within the predicted " + format_fixed(*plo, 2) + "-" +
                format_fixed(*phi, 2) + "x";
  }
  if (plo && phi && sd["ci_low"].is_number()) {
    double cl = sd["ci_low"].get<double>(), ch = sd["ci_high"].get<double>();
    bool overlaps = cl <= *phi && ch >= *plo;
    held_note += "; the actual's 95 % interval [" + format_fixed(cl, 2) + ", " + format_fixed(ch, 2) + "] " +
                 (overlaps ? "overlaps" : "does not overlap") + " the predicted range";
  }
  rep["prediction_held"] = held;
  rep["prediction_note"] = held_note;

  // ---- confidence (from the patch) ----
  auto conf = pj("confidence");
  rep["confidence"] = num_or_null(conf, 3);
  Json cd;
  cd["evidence_coverage"] = num_or_null(pj("evidence_coverage"), 3);
  cd["rule_consistency"] = num_or_null(pj("rule_consistency"), 3);
  cd["meaning"] =
      "confidence = evidence_coverage x rule_consistency of the patch; no historical calibration data exists";
  rep["confidence_detail"] = cd;

  // ---- rules and diff ----
  Json rules = Json::array();
  if (patch.contains("rationale") && patch["rationale"].is_array())
    for (const auto& r : patch["rationale"])
      rules.push_back({{"rule_id", r.value("rule_id", "")},
                       {"title", r.value("title", "")},
                       {"citation", r.value("citation", "")},
                       {"targets_bucket", r.value("targets_bucket", "")},
                       {"estimated_recovery_seconds",
                        r.contains("estimated_recovery_seconds") ? r["estimated_recovery_seconds"] : Json(nullptr)},
                       {"transform", r.contains("transform") ? r["transform"] : Json::object()}});
  rep["rules"] = rules;
  rep["diff"] = patch.value("diff", "");

  // ---- measurement scope: what the AFTER run really ran vs the patch ----
  Json scope;
  scope["after_run_is_patched_config"] = true;
  Json not_measured = Json::array(), extra = Json::array();
  if (opt.after_run_config) {
    const config::WorkloadConfig& ar = *opt.after_run_config;
    Json edits = patch.contains("edits") && patch["edits"].is_object() ? patch["edits"] : Json::object();
    std::vector<std::string> fields;
    for (const auto& f : config::config_fields()) fields.push_back(f.name);
    for (const auto& [k, v] : cfg.env_vars) fields.push_back("env." + k);
    for (const auto& [k, v] : ar.env_vars)
      if (!cfg.env_vars.count(k)) fields.push_back("env." + k);
    for (const auto& f : fields) {
      if (f == "model_name" || f == "source_file") continue;
      Json pv = cfg.get(f), rv = ar.get(f);
      if (pv == rv) continue;
      if (edits.contains(f)) {
        std::string rule = edits[f].value("rule_id", "");
        not_measured.push_back({{"field", f}, {"patch_sets", pv}, {"after_run_has", rv}, {"rule_id", rule}});
      } else {
        extra.push_back({{"field", f}, {"patched_config", pv}, {"after_run_has", rv}});
      }
    }
    scope["after_run_is_patched_config"] = not_measured.empty() && extra.empty();
  }
  scope["patch_edits_not_in_after_run"] = not_measured;
  scope["after_run_changes_outside_patch"] = extra;
  std::vector<std::string> scope_notes;
  for (const auto& x : not_measured)
    scope_notes.push_back("the patch sets " + x["field"].get<std::string>() + " = " + x["patch_sets"].dump() +
                          " (rule " + x["rule_id"].get<std::string>() + ") but the measured after-run has " +
                          x["after_run_has"].dump() + ": that rule's effect is NOT in the measured speedup");
  for (const auto& x : extra)
    scope_notes.push_back("the measured after-run also has " + x["field"].get<std::string>() + " = " +
                          x["after_run_has"].dump() + " where the patched config has " + x["patched_config"].dump() +
                          ": part of the measured speedup may come from this change, which the patch did not make");
  scope["notes"] = scope_notes;
  rep["measurement_scope"] = scope;

  // ---- findings ----
  Json findings = Json::array();
  add_config_findings(findings, cfg, B, A, kb);
  bool bp = profiled(B), ap = profiled(A);
  std::string prof_cite =
      rule_citation(kb, "footgun.profiler_left_on", "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html");
  if (ap && !bp)
    add_finding(findings, "measurement.profiler_on_in_after_run", "warning", "A profiler was on in the AFTER run only",
                "the AFTER metrics come from a profiler trace (" + A.runner_kind +
                    ") while the BEFORE run was not profiled: the AFTER timings carry profiler overhead and the "
                    "speedup is understated. Benchmark both sides unprofiled (goblin bench).",
                prof_cite);
  else if (bp && !ap)
    add_finding(findings, "measurement.profiler_on_in_before_run", "warning",
                "A profiler was on in the BEFORE run only",
                "the BEFORE metrics come from a profiler trace while the AFTER run was not profiled: the speedup is "
                "overstated by the profiler's overhead. Benchmark both sides unprofiled (goblin bench).",
                prof_cite);
  else if (ap && bp)
    add_finding(findings, "measurement.both_runs_profiled", "info", "Both runs were measured from profiler traces",
                "step times, utilisation and the waste budgets come from profiled steps (overhead on both sides); "
                "tokens/s is used for the speedup when the workload recorded it.",
                prof_cite);
  for (const char* f : {"profiler_enabled", "anomaly_detection"})
    if (cfg.get(f) == Json(true))
      add_finding(findings, "footgun.profiler_left_on", "warning", "Profiler or anomaly detection left on",
                  std::string("the patched config still has ") + f +
                      " = true: every measured step pays for it. Disable it for regular training.",
                  prof_cite);
  if (before_budget_from_profile)
    add_finding(findings, "evidence.before_budget_from_profile", "info",
                "BEFORE's waste budget comes from its profiled run",
                "the BEFORE bench is unprofiled, so its waste buckets are those of the audit's profile_run (per "
                "step, profiled window); step time and tokens/s come from the bench",
                "");
  for (const auto* side : {&B, &A}) {
    const auto& un = side->waste_budget.unobserved;
    if (un.empty()) continue;
    std::string names;
    for (const auto& n : un) names += (names.empty() ? "" : ", ") + n;
    bool all = un.size() >= bucket_names().size();
    std::string which = side == &B ? "BEFORE" : "AFTER";
    add_finding(
        findings, "evidence.unobserved_buckets_" + std::string(side == &B ? "before" : "after"),
        all ? "warning" : "info", "Waste buckets unobserved in the " + which + " run",
        all ? "no waste budget in the " + which + " metrics (e.g. an unprofiled bench): bucket deltas are unavailable"
            : names +
                  " could not be observed (e.g. no memory telemetry): those buckets count as 0 and the "
                  "predicted range ignores them",
        "");
  }
  if (auto c = pj("evidence_coverage"); c && *c < 0.5)
    add_finding(findings, "evidence.low_coverage", "warning", "Low evidence coverage",
                "evidence_coverage " + format_fixed(*c, 2) +
                    ": most evidence the applied rules rely on was not measured, so confidence is low" +
                    (*c == 0 ? " (0: no metrics were given to the patch)" : ""),
                "");
  // A measured window that ran on batches the DataLoader prefetched before the first step cannot
  // show a data-loading bottleneck (the live runner's note, src/run/prefetch_window.h).
  for (const RunMetrics* side : {&B, &A})
    for (const auto& w : side->warnings)
      if (w.id == W::window_on_prefetched_batches) {
        add_finding(findings, "validity.window_on_prefetched_batches", "warning",
                    "The measured steps ran on batches prefetched before the first step",
                    std::string(side == &B ? "before" : "after") + " run: " + w.message, "");
        break;
      }
  if (!B.gpu_name.empty() && !A.gpu_name.empty() && B.gpu_name != A.gpu_name)
    add_finding(findings, "validity.gpu_mismatch", "warning", "BEFORE and AFTER ran on different GPUs",
                B.gpu_name + " vs " + A.gpu_name + ": the speedup mixes hardware and config changes", "");
  if (!scope_notes.empty())
    add_finding(findings, "measurement.after_run_differs_from_patch", "warning",
                "The measured AFTER run is not exactly the patched config",
                std::to_string(not_measured.size()) + " patch edit(s) not in the measured run, " +
                    std::to_string(extra.size()) + " change(s) outside the patch (see measurement_scope)",
                "");
  if (patch.contains("findings") && patch["findings"].is_array())
    for (const auto& f : patch["findings"])
      add_finding(findings, f.value("rule_id", ""), "info", f.value("title", ""), f.value("advice", ""),
                  f.value("citation", ""));
  // ---- profiler perturbation: profiled step time vs the unprofiled BEFORE bench ----
  rep["profiler_perturbation"] = nullptr;
  // Only against an unprofiled bench (repeat samples): a profiled BEFORE would be compared with itself.
  if (opt.profiled_before && opt.profiled_before->step_time_s > 0 && B.step_time_s > 0 && !before.bench.empty()) {
    const double prof = opt.profiled_before->step_time_s, plain = B.step_time_s;
    const double pct = (prof / plain - 1.0) * 100.0;
    const bool within = std::fabs(pct) <= 10.0;
    rep["profiler_perturbation"] = {{"profiled_step_s", round_to(prof, 6)},
                                    {"unprofiled_step_s", round_to(plain, 6)},
                                    {"pct", round_to(pct, 1)},
                                    {"within_10pct", within}};
    if (!within)
      add_finding(findings, "measurement.profiler_perturbation", "warning", "The profiler perturbs this workload",
                  "the profiled step took " + format_fixed(prof * 1e3, 1) + " ms against " +
                      format_fixed(plain * 1e3, 1) + " ms unprofiled (" + (pct > 0 ? "+" : "") + format_fixed(pct, 1) +
                      " %): the profile's waste budget describes a slowed-down run, so treat its bucket sizes as "
                      "relative; the speedup comes from the unprofiled benches",
                  prof_cite);
  }
  rep["findings"] = findings;

  // ---- validity footer ----
  const RunMetrics& V = A.gpu_name.empty() && !B.gpu_name.empty() ? B : A;
  Json vf = validity_footer(V, B, cfg, workload, opt.runner_kind.empty() ? A.runner_kind : opt.runner_kind);
  rep["validity_footer"] = vf;

  // ---- notes and summary ----
  Json notes = Json::array();
  for (const auto& n : opt.notes) notes.push_back(n);
  for (const auto& n : scope_notes) notes.push_back(n);
  rep["notes"] = notes;
  std::ostringstream sl;
  sl << workload;
  if (!V.gpu_name.empty()) sl << " on " << V.gpu_name;
  sl << ": ";
  if (actual) {
    if (significant && !*significant)
      sl << "no significant change, " << format_fixed(*actual, 2) << "x";
    else if (*actual < 1.0)
      sl << format_fixed(*actual, 2) << "x (slower)";
    else
      sl << format_fixed(*actual, 2) << "x faster";
    if (use_tps)
      sl << " (" << fmt_thousands(*B.tokens_per_sec) << " -> " << fmt_thousands(*A.tokens_per_sec) << " tokens/s)";
    else
      sl << " (step " << format_fixed(B.step_time_s * 1e3, 1) << " -> " << format_fixed(A.step_time_s * 1e3, 1)
         << " ms)";
    if (sd["ci_low"].is_number())
      sl << " [95% CI " << format_fixed(sd["ci_low"].get<double>(), 2) << "-"
         << format_fixed(sd["ci_high"].get<double>(), 2) << (significant && !*significant ? ", includes 1.0]" : "]");
  } else {
    sl << "speedup not measured";
  }
  if (plo && phi)
    sl << "; predicted " << format_fixed(*plo, 2) << "-" << format_fixed(*phi, 2) << "x, prediction " << held;
  else
    sl << "; no prediction";
  if (conf) sl << "; confidence " << format_fixed(*conf, 2);
  if (!not_measured.empty() || !extra.empty()) sl << " (measured run differs from the patch: see notes)";
  rep["summary_line"] = sl.str();
  rep["inputs"] = {
      {"before", before.source}, {"after", after.source}, {"before_shape", before.shape}, {"after_shape", after.shape}};
  return rep;
}

}  // namespace goblin::audit
