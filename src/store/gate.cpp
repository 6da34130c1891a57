// goblin gate (docs/store.md § Gate): the newest run of a workload against a baseline. The test is
// the change-point detector's (store/change_point.h): a Student t-test of the newest value against
// the baseline runs (Student's two-sample test with one value on the new side, i.e. the baseline's
// one-sided prediction interval, as Bencher's t-test threshold), so the dashboard's alerts and the
// gate agree. Below kMinBaselineRuns baseline runs the answer is "not enough data". The bootstrap
// interval of the baseline median (core/stats.h) and the A/A noise floor (run/stats.h) are still
// reported beside it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/stats.h"
#include "run/stats.h"
#include "store/change_point.h"
#include "store/changes.h"
#include "store/store.h"

namespace goblin::store {
namespace {

// Metrics that are durations in seconds (step_time_s, wall_s, ...): positive when measured.
bool time_metric(const std::string& m) { return m.size() > 2 && m.compare(m.size() - 2, 2, "_s") == 0; }

// The metrics whose value depends on which clock timed the step.
bool source_dependent(const std::string& m) { return m == "step_time_s" || m == "tokens_per_sec"; }

// The values the newest run is tested against, and baseline_runs. With --baseline RUN that run's
// value is the reference and the window's spread around its own mean is the noise (one run has
// none); with last-good, the window itself.
Result<std::vector<double>> baseline_sample(const Store& s, const GateOptions& o, GateVerdict& g,
                                            const std::vector<double>& window, const std::vector<int64_t>& window_ids) {
  if (o.baseline == "last-good" || o.baseline.empty()) {
    g.baseline_runs = window_ids;
    return window;
  }
  char* end = nullptr;
  const long long id = std::strtoll(o.baseline.c_str(), &end, 10);
  if (*end != '\0' || id <= 0) return make_error(ErrorKind::Usage, "gate: --baseline is a run id or last-good");
  ASSIGN_OR_RETURN(RunRecord b, s.get(id));
  if (source_dependent(o.metric) && figure_source(b.verb) != g.source)
    g.sources_note = fmt::format("baseline run {}'s {} comes from {}, the newest run's from {}: sources are mixed", id,
                                 o.metric, figure_source(b.verb), g.source);
  auto it = b.metrics.find(o.metric);
  if (it == b.metrics.end())
    return make_error(ErrorKind::NotFound, fmt::format("gate: run {} records no {}", id, o.metric));
  if (time_metric(o.metric) && !plausible_seconds(it->second))
    return make_error(ErrorKind::Malformed, fmt::format("gate: baseline run {} records {} = {:g}, which is impossible",
                                                        id, o.metric, it->second));
  g.baseline_runs = {id};
  if (window.size() < kMinBaselineRuns) return std::vector<double>{it->second};
  double mean = 0;
  for (double v : window) mean += v / static_cast<double>(window.size());
  std::vector<double> shifted;
  for (double v : window) shifted.push_back(v - mean + it->second);
  g.warnings.push_back(
      fmt::format("baseline run {} is the reference; the noise is the spread of the {} run(s) "
                  "before the newest",
                  id, window.size()));
  return shifted;
}

// The verdict on the newest value against the baseline sample.
void judge(GateVerdict& g, const GateOptions& o, const std::vector<double>& base, const TrendPoint& newest) {
  g.min_baseline_runs = static_cast<int64_t>(kMinBaselineRuns);
  if (base.empty()) {
    g.verdict = "insufficient_data";
    g.reason = "only one run: nothing to compare the newest run with";
    return;
  }
  const ConfidenceInterval ci = bootstrap_median(base);
  g.baseline_median = ci.point;
  g.interval_low = ci.low, g.interval_high = ci.high;
  const run::NoiseFloor nf = run::aa_noise_floor(base);
  g.noise_floor_pct = nf.available ? nf.floor_pct : 0;
  g.change_pct = ci.point != 0 ? (newest.value / ci.point - 1) * 100 : 0;
  g.baseline_cv_pct = coefficient_of_variation_pct(base);
  if (g.baseline_cv_pct > kMixedBaselineCvPct)
    g.warnings.push_back(
        fmt::format("the baseline runs spread {:.1f}% (coefficient of variation, over {:g}%): they "
                    "may mix configurations, GPUs or clocks, and the verdict is weak",
                    g.baseline_cv_pct, kMixedBaselineCvPct));
  // A change point among the baseline runs (the newest counted in, so a change 2 runs before it
  // is seen): the baseline mixes two levels.
  std::vector<double> series = base;
  series.push_back(newest.value);
  for (const ChangePoint& cp : change_points(series)) {
    const int64_t at = cp.index < g.baseline_runs.size() && g.baseline_runs.size() == base.size()
                           ? g.baseline_runs[cp.index]
                           : newest.run_id;
    g.warnings.push_back(fmt::format(
        "the baseline holds a change at run {} ({:+.2f}%): runs before it are at another level", at, cp.change_pct));
  }
  const NewestTest t = newest_vs_baseline(base, newest.value, g.lower_is_better, g.alpha);
  g.p_value = t.p_worse;
  g.threshold = t.threshold;
  const double worse_pct = g.lower_is_better ? g.change_pct : -g.change_pct;
  if (!t.enough_data) {
    g.verdict = "insufficient_data";
    g.reason = fmt::format("run {}: {} {:g} vs baseline median {:g} ({:+.2f}%): {}", newest.run_id, o.metric,
                           newest.value, ci.point, g.change_pct, t.why);
  } else {
    g.regression = t.p_worse < g.alpha && worse_pct > 0;
    g.verdict = g.regression ? "regression" : "pass";
    g.reason = fmt::format(
        "run {}: {} {:g} vs baseline median {:g} over {} run(s) (95% interval {:g}..{:g}), {:+.2f}% "
        "({}), t-test p = {:.2g} (regression below {:g}; threshold {:g}), noise floor {:.2f}%",
        newest.run_id, o.metric, newest.value, ci.point, base.size(), ci.low, ci.high, g.change_pct,
        g.lower_is_better ? "lower is better" : "higher is better", t.p_worse, g.alpha, t.threshold, g.noise_floor_pct);
  }
  if (!g.sources_note.empty()) g.reason += "; " + g.sources_note;
  for (const auto& w : g.warnings) g.reason += "; warning: " + w;
}

}  // namespace

std::string figure_source(const std::string& verb) {
  return verb == "bench" || verb == "audit" ? "workload_timer" : "trace_steps";
}

Result<GateVerdict> gate(const Store& s, const GateOptions& o) {
  GateVerdict g;
  g.metric = o.metric, g.workload = o.workload;
  g.lower_is_better = !higher_is_better_metric(o.metric);
  ASSIGN_OR_RETURN(auto pts, s.trend(o.workload, o.metric, std::max<int64_t>(2, o.window + 1)));
  if (pts.empty()) {
    g.verdict = "insufficient_data";
    g.reason = fmt::format("no run of workload '{}' records {}", o.workload, o.metric);
    return g;
  }
  const TrendPoint newest = pts.back();
  g.newest_run = newest.run_id, g.newest = newest.value;
  g.source = figure_source(newest.verb);
  // Baseline runs timed by another clock are left out when runs of the newest's own source exist
  // (the workload's timer and a trace's steps differ by a few percent on the same run).
  const bool by_source = source_dependent(o.metric);
  size_t same_source = 0;
  for (size_t i = 0; i + 1 < pts.size(); ++i) same_source += figure_source(pts[i].verb) == g.source;
  std::vector<int64_t> other_source;
  // A time metric of zero, below zero or not finite is not a measurement (a store written before
  // the store refused them may hold one): the newest such run is invalid, never a pass, and such
  // a baseline run is left out.
  const bool is_time = time_metric(o.metric);
  if (is_time && !plausible_seconds(newest.value)) {
    g.verdict = "invalid";
    g.reason = fmt::format("run {}: {} = {:g} is impossible (a step takes a positive, finite time)", newest.run_id,
                           o.metric, newest.value);
    return g;
  }
  // The window: the runs before the newest, of its own source when there are such runs.
  std::vector<double> window;
  std::vector<int64_t> window_ids;
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    if (is_time && !plausible_seconds(pts[i].value)) continue;
    if (by_source && figure_source(pts[i].verb) != g.source) {
      if (same_source > 0) {
        other_source.push_back(pts[i].run_id);
        continue;
      }
      g.sources_note = fmt::format(
          "the baseline's {} comes from {} and the newest run's from {}: no baseline run of the newest's own "
          "source, so sources are mixed and a few percent of difference may be the clocks, not the workload",
          o.metric, figure_source(pts[i].verb), g.source);
    }
    window_ids.push_back(pts[i].run_id);
    window.push_back(pts[i].value);
  }
  if (!other_source.empty()) {
    std::string ids;
    for (int64_t id : other_source) ids += fmt::format("{}{}", ids.empty() ? "" : ", ", id);
    g.sources_note = fmt::format(
        "runs {} left out of the baseline: their {} comes from another clock than the "
        "newest run's ({})",
        ids, o.metric, g.source);
  }
  ASSIGN_OR_RETURN(std::vector<double> base, baseline_sample(s, o, g, window, window_ids));
  judge(g, o, base, newest);
  return g;
}

Json gate_to_json(const GateVerdict& g) {
  return Json{{"verdict", g.verdict},
              {"regression", g.regression},
              {"workload", g.workload},
              {"metric", g.metric},
              {"lower_is_better", g.lower_is_better},
              {"newest_run", g.newest_run},
              {"newest", g.newest},
              {"baseline_runs", g.baseline_runs},
              {"baseline_median", g.baseline_median},
              {"baseline_interval", {g.interval_low, g.interval_high}},
              {"change_pct", std::round(g.change_pct * 1e4) / 1e4},
              {"noise_floor_pct", std::round(g.noise_floor_pct * 1e4) / 1e4},
              {"source", g.source},
              {"sources_note", g.sources_note.empty() ? Json(nullptr) : Json(g.sources_note)},
              {"reason", g.reason},
              {"test", "student_t"},
              {"p_value", g.p_value},
              {"alpha", g.alpha},
              {"threshold", g.threshold},
              {"min_baseline_runs", g.min_baseline_runs},
              {"baseline_cv_pct", std::round(g.baseline_cv_pct * 1e4) / 1e4},
              {"warnings", g.warnings}};
}

}  // namespace goblin::store
