#include "audit/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "audit/after_profile.h"
#include "audit/compare_parts.h"
#include "audit/knowledge.h"
#include "core/build_info.h"
#include "core/io.h"
#include "core/stats.h"
#include "core/text.h"

namespace goblin::audit {

namespace {

// batch x seq of a config: null when either is not a positive number.
std::optional<double> tokens_of(const Json& batch, const Json& seq) {
  if (!batch.is_number() || !seq.is_number()) return std::nullopt;
  const double t = batch.get<double>() * seq.get<double>();
  return t > 0 ? std::optional<double>(t) : std::nullopt;
}

// batch x seq of both sides: the BEFORE config is the patched one with the patch's edits undone,
// the AFTER one the run that was measured (a recording) or the patched config.
std::pair<std::optional<double>, std::optional<double>> tokens_per_step(
    const Patch& patch, const config::WorkloadConfig& cfg, const std::optional<config::WorkloadConfig>& after_run) {
  auto before_value = [&](const char* f) {
    auto e = patch.edits.find(f);
    return e != patch.edits.end() ? e->second.from : cfg.get(f);
  };
  const config::WorkloadConfig& a = after_run ? *after_run : cfg;
  return {tokens_of(before_value("batch_size"), before_value("seq_len")),
          tokens_of(a.get("batch_size"), a.get("seq_len"))};
}

// Whether a side's tokens/s contradicts its batch x seq: tokens/s x the step it was timed over
// (the workload's own timer when the trace carries it, else the trace's step) more than 10 % from
// batch x seq. A tokens/s the workload timed on unprofiled steps agrees with its own timer.
bool contradicts(const analysis::RunMetrics& m, std::optional<double> tokens) {
  if (!tokens || !m.tokens_per_sec) return false;
  const double step = m.workload_step_time_s.value_or(m.step_time_s);
  if (!(step > 0)) return false;
  return std::fabs(*m.tokens_per_sec * step - *tokens) > 0.10 * *tokens;
}

}  // namespace

Result<Report> compare_runs(const RunInput& before, const RunInput& after, const Patch& patch,
                            const CompareOptions& opt) {
  // BEFORE as measured, plus the waste budget of its profiled run when the bench had none: the
  // buckets are per-step shares of the profiled window, the step times stay the bench's.
  analysis::RunMetrics before_metrics = before.metrics;
  bool before_budget_from_profile = false;
  if (opt.profiled_before && !has_budget(before_metrics) && has_budget(*opt.profiled_before)) {
    before_metrics.waste_budget = opt.profiled_before->waste_budget;
    before_budget_from_profile = true;
  }
  const analysis::RunMetrics& B = before_metrics;
  const analysis::RunMetrics& A = after.metrics;
  std::shared_ptr<const Knowledge> own_kb;  // the process's knowledge when the caller passed no rules
  const RuleBase* kb = opt.kb;
  if (!kb) {
    auto k = knowledge();
    if (k) own_kb = *k, kb = &own_kb->rules;
  }
  if (patch.new_config.is_null())
    return make_error(ErrorKind::Malformed, "patch: expected goblin patch --json output with new_config");
  ASSIGN_OR_RETURN(auto nc, config::config_from_json(patch.new_config));
  const config::WorkloadConfig& cfg = nc;

  Report rep;
  std::string workload = opt.workload_name;
  if (workload.empty() && cfg.get("model_name").is_string()) workload = cfg.get("model_name").get<std::string>();
  if (workload.empty()) workload = "(unnamed workload)";
  rep.workload_name = workload;
  rep.goblin = build_info_json();  // which build wrote the report

  // ---- metric deltas ----
  std::vector<DeltaRow>& deltas = rep.metric_deltas;
  // A workload counted in images or samples (docs/metrics.md § Throughput unit): its throughput
  // row comes first, and it is the speedup's measure when no tokens/s was observed.
  const std::string unit =
      !after.bench.throughput_unit.empty() ? after.bench.throughput_unit : before.bench.throughput_unit;
  const std::optional<double> thr_b = before.bench.throughput_median, thr_a = after.bench.throughput_median;
  const bool other_unit = !unit.empty() && unit != "tokens";
  if (other_unit) {
    rep.throughput_unit = unit;
    deltas.push_back(delta_row("throughput", unit + "/s", "higher", thr_b, thr_a, 1));
  }
  deltas.push_back(delta_row("tokens_per_sec", "tokens/s", "higher", B.tokens_per_sec, A.tokens_per_sec, 1));
  auto step = [](const analysis::RunMetrics& m) {
    return m.step_time_s > 0 ? std::optional<double>(m.step_time_s) : std::nullopt;
  };
  deltas.push_back(delta_row("step_time_s", "s", "lower", step(B), step(A), 6));
  auto util = [](const analysis::RunMetrics& m) {
    return (m.gpu_util_pct > 0 || !m.steps.empty()) ? std::optional<double>(m.gpu_util_pct) : std::nullopt;
  };
  deltas.push_back(delta_row("gpu_util_pct", "%", "higher", util(B), util(A), 2));
  if (B.mfu_pct || A.mfu_pct) deltas.push_back(delta_row("mfu_pct", "%", "higher", B.mfu_pct, A.mfu_pct, 2));
  if (B.hbm_peak_gb || A.hbm_peak_gb)
    deltas.push_back(delta_row("hbm_peak_gb", "GB", "lower", B.hbm_peak_gb, A.hbm_peak_gb, 3));
  for (const auto& b : bucket_names())
    deltas.push_back(delta_row("waste." + b, "s/step", b == "useful_gpu" ? "neutral" : "lower",
                               B.waste_budget.value_of(b), A.waste_budget.value_of(b), 6));
  if (has_budget(B)) {
    rep.waste_budget_before = B.waste_budget;
    rep.waste_budget_before_source = before_budget_from_profile ? "profile_run" : "before";
  }
  if (has_budget(A)) rep.waste_budget_after = A.waste_budget;

  // ---- speedup actual ----
  SpeedupDetail& sd = rep.speedup_actual_detail;
  std::optional<double> actual;
  std::string tps_refused;       // why the tokens/s figures were not taken as the speedup
  std::string sources_disagree;  // the two sources of the speedup, when more than 2 % apart
  bool use_tps = B.tokens_per_sec && A.tokens_per_sec && *B.tokens_per_sec > 0 && *A.tokens_per_sec > 0;
  // Images or samples per second: the throughput ratio, right also when a rule changed the batch
  // (the step-time ratio is not then).
  const bool use_thr = !use_tps && other_unit && thr_b && thr_a && *thr_b > 0 && *thr_a > 0;
  if (use_thr) {
    actual = *thr_a / *thr_b;
    sd.metric = "throughput";
    sd.basis = fmt::format("{0}/s after / {0}/s before (the workload counts {0}, not tokens)", unit);
  } else if (use_tps) {
    actual = *A.tokens_per_sec / *B.tokens_per_sec;
    sd.metric = "tokens_per_sec";
    sd.basis = "tokens/s after / tokens/s before";
    // tokens/s is often a figure the workload wrote into the trace: checked against the step
    // times both sides measure. Legitimately apart only when the tokens per step changed: with
    // batch x seq known on both sides and equal, a ratio more than 10 % from the step times' is
    // refused as evidence and the step times give the speedup (docs/audit.md § Speedup source).
    if (B.step_time_s > 0 && A.step_time_s > 0) {
      const double by_step = B.step_time_s / A.step_time_s;
      const double off = std::isfinite(by_step) ? std::fabs(*actual - by_step) / by_step : 0.0;
      const auto [tb, ta] = tokens_per_step(patch, cfg, opt.after_run_config);
      const bool refuse = tb && ta && *tb == *ta && (contradicts(B, tb) || contradicts(A, ta));
      const std::string sources = fmt::format(
          "tokens/s {} -> {} give {}x, the measured step time {} -> {} ms gives {}x", fmt_thousands(*B.tokens_per_sec),
          fmt_thousands(*A.tokens_per_sec), format_sig(*actual, 3), format_fixed(B.step_time_s * 1e3, 2),
          format_fixed(A.step_time_s * 1e3, 2), format_sig(by_step, 3));
      if (off > 0.02)
        sources_disagree = fmt::format("{} ({} % apart); the speedup uses {}", sources, format_sig(100 * off, 3),
                                       off > 0.10 && refuse ? "the step times" : "tokens/s");
      if (off > 0.10 && refuse) {
        tps_refused = fmt::format(
            "tokens/s refused as evidence: {} at the same batch x seq, and tokens/s x the timed step is not that "
            "batch x seq on {}",
            sources,
            contradicts(B, tb) && contradicts(A, ta) ? "either side"
            : contradicts(B, tb)                     ? "the before side"
                                                     : "the after side");
        actual = by_step;
        use_tps = false;
        sd.metric = "step_time_s";
        sd.basis = "step time before / step time after; " + tps_refused;
      } else if (off > 0.10) {
        sd.basis = fmt::format(
            "tokens/s after / tokens/s before; flagged: it gives {}x but the measured step times give {}x (more "
            "than 10 % apart): unless the tokens per step changed, the tokens/s figures are not what the runs "
            "measured",
            format_sig(*actual, 3), format_sig(by_step, 3));
      }
    }
  } else if (B.step_time_s > 0 && A.step_time_s > 0) {
    actual = B.step_time_s / A.step_time_s;
    sd.metric = "step_time_s";
    sd.basis = "step time before / step time after (tokens/s not observed on both sides)";
  } else {
    sd.basis = "neither tokens/s nor step time observed on both sides";
  }
  if (actual && !(std::isfinite(*actual) && *actual > 0)) {
    // tokens/s of 1e308 against 1e-300, say: a ratio that is no number is not a speedup ("infx
    // faster"); said, and left unmeasured.
    actual.reset();
    sd.metric.reset();
    sd.basis =
        "the before/after ratio is not a finite positive number (check the inputs' tokens/s and step "
        "times): not measured";
  }
  {
    const BenchSamples &bb = before.bench, &ab = after.bench;
    bool tps_s = bb.tokens_per_sec.size() >= 2 && ab.tokens_per_sec.size() >= 2;
    bool st_s = bb.step_time_s.size() >= 2 && ab.step_time_s.size() >= 2;
    if (use_thr && bb.throughput.size() >= 2 && ab.throughput.size() >= 2) {
      ConfidenceInterval ri = bootstrap_ratio(ab.throughput, bb.throughput);
      sd.ci_low = round_to(ri.low, 4);
      sd.ci_high = round_to(ri.high, 4);
      sd.ci_median_ratio = round_to(ri.point, 4);
      sd.ci_method = fmt::format(
          "percentile bootstrap of the ratio of medians of {}/s (after/before), {} vs {} repeats, 2000 resamples, "
          "95 %, seed 0x60B11",
          unit, bb.throughput.size(), ab.throughput.size());
    } else if ((use_tps && tps_s) || (st_s && !(use_tps && tps_s))) {
      bool t = use_tps && tps_s;
      ConfidenceInterval ri =
          t ? bootstrap_ratio(ab.tokens_per_sec, bb.tokens_per_sec) : bootstrap_ratio(bb.step_time_s, ab.step_time_s);
      sd.ci_low = round_to(ri.low, 4);
      sd.ci_high = round_to(ri.high, 4);
      sd.ci_median_ratio = round_to(ri.point, 4);
      size_t nb = t ? bb.tokens_per_sec.size() : bb.step_time_s.size();
      size_t na = t ? ab.tokens_per_sec.size() : ab.step_time_s.size();
      sd.ci_method = fmt::format(
          "percentile bootstrap of the ratio of medians of {}, {} vs {} repeats, 2000 resamples, 95 %, seed 0x60B11",
          t ? "tokens/s (after/before)" : "step time (before/after)", nb, na);
    } else if (bb.ci_low && ab.ci_low && bb.ci_metric == ab.ci_metric && *bb.ci_low > 0 && *ab.ci_low > 0) {
      double lo, hi;
      if (bb.ci_metric == "tokens_per_sec")
        lo = *ab.ci_low / *bb.ci_high, hi = *ab.ci_high / *bb.ci_low;
      else
        lo = *bb.ci_low / *ab.ci_high, hi = *bb.ci_high / *ab.ci_low;
      sd.ci_low = round_to(lo, 4);
      sd.ci_high = round_to(hi, 4);
      sd.ci_method = "ratio of the interval ends of " + bb.ci_metric +
                     " (conservative: worst end over best end; no samples to bootstrap)";
    } else {
      sd.ci_note =
          "no repeat samples on both sides (goblin bench --json or a bench object): a single measurement per side, "
          "no interval";
    }
  }
  sd.interleaved = opt.interleaved;
  if (!opt.run_order.empty()) sd.run_order = opt.run_order;
  if (!opt.interleaved)
    sd.run_order_note = "run order not known to compare (inputs read from files)";
  else if (*opt.interleaved)
    sd.run_order_note = "before and after runs interleaved (A B A B ...): drift hits both sides";
  else
    sd.run_order_note =
        "before and after benchmarked in blocks (all before runs, then all after runs): drift "
        "between the blocks is not cancelled";
  if (opt.interleaved && sd.ci_method)
    *sd.ci_method += *opt.interleaved ? ", runs interleaved" + (opt.run_order.empty() ? "" : " " + opt.run_order)
                                      : std::string(", runs in blocks");
  // Significant when the 95 % interval excludes 1.0; null when there is no interval.
  std::optional<bool> significant;
  if (sd.ci_low && sd.ci_high) significant = *sd.ci_low > 1.0 || *sd.ci_high < 1.0;
  sd.significant = significant;
  sd.value = rounded(actual, 3);
  rep.speedup_actual = rounded(actual, 3);

  // ---- prediction ----
  const std::optional<double> plo = patch.expected_speedup_low, phi = patch.expected_speedup_high;
  rep.speedup_predicted_low = rounded(plo, 3);
  rep.speedup_predicted_high = rounded(phi, 3);
  std::string held, held_note;
  if (!plo || !phi) {
    held = "not_predicted";
    held_note = "the patch made no speedup prediction" +
                (patch.speedup_note ? " (" + *patch.speedup_note + ")" : std::string());
  } else if (!actual) {
    held = "not_measured";
    held_note = "the actual speedup could not be measured";
  } else if (*actual < *plo) {
    held = "missed";
    held_note = fmt::format("actual {}x is below the predicted {}-{}x", format_fixed(*actual, 2), format_fixed(*plo, 2),
                            format_fixed(*phi, 2));
  } else if (*actual > *phi) {
    held = "exceeded";
    held_note = fmt::format("actual {}x is above the predicted {}-{}x (exceeded)", format_fixed(*actual, 2),
                            format_fixed(*plo, 2), format_fixed(*phi, 2));
  } else {
    held = "held";
    held_note = fmt::format("actual {}x is within the predicted {}-{}x", format_fixed(*actual, 2),
                            format_fixed(*plo, 2), format_fixed(*phi, 2));
  }
  if (plo && phi && sd.ci_low && sd.ci_high) {
    double cl = *sd.ci_low, ch = *sd.ci_high;
    bool overlaps = cl <= *phi && ch >= *plo;
    fmt::format_to(std::back_inserter(held_note), "; the actual's 95 % interval [{}, {}] {} the predicted range",
                   format_fixed(cl, 2), format_fixed(ch, 2), overlaps ? "overlaps" : "does not overlap");
  }
  rep.prediction_held = held;
  rep.prediction_note = held_note;

  // ---- confidence (from the patch) ----
  const std::optional<double> conf = patch.confidence;
  rep.confidence = rounded(conf, 3);
  rep.confidence_detail.evidence_coverage = round_to(patch.evidence_coverage, 3);
  rep.confidence_detail.rule_consistency = round_to(patch.rule_consistency, 3);
  rep.confidence_detail.meaning =
      "confidence = evidence_coverage x rule_consistency of the patch; no historical calibration data exists";

  // ---- rules and diff ----
  for (const auto& r : patch.rationale) {
    ReportRule x{r.rule_id, r.title, r.citation, r.targets_bucket, std::nullopt, r.transform};
    if (r.estimated_recovery_seconds)
      x.estimated_recovery_seconds = ReportRange{r.estimated_recovery_seconds->low, r.estimated_recovery_seconds->high};
    if (x.transform.is_null()) x.transform = Json::object();  // a patch written without transforms
    x.evidence = r.evidence;
    rep.rules.push_back(std::move(x));
  }
  rep.diff = patch.diff;

  // ---- measurement scope: what the AFTER run really ran vs the patch ----
  MeasurementScope& scope = rep.measurement_scope;
  std::vector<ScopeMissingEdit>& not_measured = scope.patch_edits_not_in_after_run;
  std::vector<ScopeExtraChange>& extra = scope.after_run_changes_outside_patch;
  if (opt.after_run_config) {
    const config::WorkloadConfig& ar = *opt.after_run_config;
    std::vector<std::string> fields;
    for (const auto& f : config::config_fields()) fields.push_back(f.name);
    for (const auto& [k, v] : cfg.env_vars) fields.push_back("env." + k);
    for (const auto& [k, v] : ar.env_vars)
      if (!cfg.env_vars.count(k)) fields.push_back("env." + k);
    for (const auto& f : fields) {
      if (f == "model_name" || f == "source_file") continue;
      Json pv = cfg.get(f), rv = ar.get(f);
      if (pv == rv) continue;
      if (auto e = patch.edits.find(f); e != patch.edits.end())
        not_measured.push_back(ScopeMissingEdit{f, pv, rv, e->second.rule_id});
      else
        extra.push_back(ScopeExtraChange{f, pv, rv});
    }
    scope.after_run_is_patched_config = not_measured.empty() && extra.empty();
  }
  std::vector<std::string>& scope_notes = scope.notes;
  for (const auto& x : not_measured)
    scope_notes.push_back(fmt::format(
        "the patch sets {} = {} (rule {}) but the measured after-run has {}: that rule's effect is NOT in the "
        "measured speedup",
        x.field, x.patch_sets.dump(), x.rule_id, x.after_run_has.dump()));
  for (const auto& x : extra)
    scope_notes.push_back(fmt::format(
        "the measured after-run also has {} = {} where the patched config has {}: part of the measured speedup may "
        "come from this change, which the patch did not make",
        x.field, x.after_run_has.dump(), x.patched_config.dump()));

  // ---- findings ----
  std::vector<Finding>& findings = rep.findings;
  add_config_findings(findings, cfg, B, A, kb);
  // The two sources of the speedup more than 2 % apart: said, with both ratios.
  if (!sources_disagree.empty())
    add_finding(findings, "validity.throughput_sources_disagree", "warning",
                "tokens/s and step time give different speedups", sources_disagree, "");
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
  if (const std::optional<double> c = patch.evidence_coverage; c && *c < 0.5)
    add_finding(findings, "evidence.low_coverage", "warning", "Low evidence coverage",
                "evidence_coverage " + format_fixed(*c, 2) +
                    ": most evidence the applied rules rely on was not measured, so confidence is low" +
                    (*c == 0 ? " (0: no metrics were given to the patch)" : ""),
                "");
  // A measured window that ran on batches the DataLoader prefetched before the first step cannot
  // show a data-loading bottleneck (the live runner's note, src/run/prefetch_window.h).
  for (const analysis::RunMetrics* side : {&B, &A})
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
                fmt::format("{} patch edit(s) not in the measured run, {} change(s) outside the patch (see "
                            "measurement_scope)",
                            not_measured.size(), extra.size()),
                "");
  for (const auto& f : patch.findings) add_finding(findings, f.rule_id, "info", f.title, f.advice, f.citation);
  // ---- profiler perturbation: profiled step time vs the unprofiled BEFORE bench ----
  // Only against an unprofiled bench (repeat samples): a profiled BEFORE would be compared with itself.
  if (opt.profiled_before && opt.profiled_before->step_time_s > 0 && B.step_time_s > 0 && !before.bench.empty()) {
    const double prof = opt.profiled_before->step_time_s, plain = B.step_time_s;
    const double pct = (prof / plain - 1.0) * 100.0;
    const bool within = std::fabs(pct) <= 10.0;
    rep.profiler_perturbation = Perturbation{round_to(prof, 6), round_to(plain, 6), round_to(pct, 1), within};
    if (!within)
      add_finding(findings, "measurement.profiler_perturbation", "warning", "The profiler perturbs this workload",
                  fmt::format("the profiled step took {} ms against {} ms unprofiled ({}{} %): the profile's waste "
                              "budget describes a slowed-down run, so treat its bucket sizes as relative; the speedup "
                              "comes from the unprofiled benches",
                              format_fixed(prof * 1e3, 1), format_fixed(plain * 1e3, 1), pct > 0 ? "+" : "",
                              format_fixed(pct, 1)),
                  prof_cite);
  }

  // ---- validity footer ----
  const analysis::RunMetrics& V = A.gpu_name.empty() && !B.gpu_name.empty() ? B : A;
  rep.validity_footer = validity_footer(V, B, cfg, workload, opt.runner_kind.empty() ? A.runner_kind : opt.runner_kind);

  // ---- notes and summary ----
  rep.notes = opt.notes;
  rep.notes.insert(rep.notes.end(), scope_notes.begin(), scope_notes.end());
  std::string sl = workload;
  auto out = std::back_inserter(sl);
  if (!V.gpu_name.empty()) fmt::format_to(out, " on {}", V.gpu_name);
  sl += ": ";
  if (actual) {
    if (significant && !*significant)
      fmt::format_to(out, "no significant change, {}x", format_fixed(*actual, 2));
    else if (*actual < 1.0)
      fmt::format_to(out, "{}x (slower)", format_fixed(*actual, 2));
    else
      fmt::format_to(out, "{}x faster", format_fixed(*actual, 2));
    if (use_tps)
      fmt::format_to(out, " ({} -> {} tokens/s)", fmt_thousands(*B.tokens_per_sec), fmt_thousands(*A.tokens_per_sec));
    else if (use_thr)
      fmt::format_to(out, " ({} -> {} {}/s)", fmt_thousands(*thr_b), fmt_thousands(*thr_a), unit);
    else
      fmt::format_to(out, " (step {} -> {} ms)", format_fixed(B.step_time_s * 1e3, 1),
                     format_fixed(A.step_time_s * 1e3, 1));
    if (sd.ci_low && sd.ci_high)
      fmt::format_to(out, " [95% CI {}-{}{}", format_fixed(*sd.ci_low, 2), format_fixed(*sd.ci_high, 2),
                     significant && !*significant ? ", includes 1.0]" : "]");
  } else {
    sl += "speedup not measured";
  }
  if (plo && phi)
    fmt::format_to(out, "; predicted {}-{}x, prediction {}", format_fixed(*plo, 2), format_fixed(*phi, 2), held);
  else
    sl += "; no prediction";
  if (conf) fmt::format_to(out, "; confidence {}", format_fixed(*conf, 2));
  if (!not_measured.empty() || !extra.empty()) sl += " (measured run differs from the patch: see notes)";
  if (!tps_refused.empty()) sl += "; " + tps_refused;
  rep.summary_line = std::move(sl);
  rep.inputs = ReportInputs{before.source, after.source, before.shape, after.shape};
  return rep;
}

void use_after_profile_budget(Report& rep, const analysis::RunMetrics& after_profile) {
  if (rep.waste_budget_after || !has_budget(after_profile)) return;
  const analysis::WasteBudget& a = after_profile.waste_budget;
  rep.waste_budget_after = a;
  for (DeltaRow& row : rep.metric_deltas) {
    if (row.metric.rfind("waste.", 0) != 0) continue;
    const std::string bucket = row.metric.substr(6);
    const std::optional<double> b =
        rep.waste_budget_before ? rep.waste_budget_before->value_of(bucket) : std::optional<double>();
    row = delta_row(row.metric, row.unit, row.better, b, a.value_of(bucket), 6);
  }
  // The AFTER side's buckets are observed now: the finding that said they were not is dropped.
  std::erase_if(rep.findings, [](const Finding& f) { return f.id == "evidence.unobserved_buckets_after"; });
  add_finding(rep.findings, "evidence.after_budget_from_profile", "info",
              "AFTER's waste budget comes from its profiled run",
              "the AFTER bench is unprofiled, so its waste buckets are those of the audit's profile of the patched "
              "config (profile_after: per step, profiled window); step time and tokens/s come from the bench",
              "");
}

}  // namespace goblin::audit
