// The critical path's what-if as the audit's second opinion (audit/what_if.h).
#include "audit/what_if.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <vector>

#include "analysis/critical_path.h"
#include "core/text.h"
#include "trace/load.h"

namespace goblin::audit {

namespace {

constexpr const char* kRole =
    "second opinion: the critical path's what-if on the BEFORE trace with the re-priced GPU classes as much faster "
    "as the speedup models say; the prediction stays the speedup models' range";

// before/after as a what-if factor, to 4 significant digits so the printed terms rerun exactly;
// a class with no time left is 1e6 times faster (the --what-if limit).
double factor(double before, double after) {
  const double k = after > 0 ? before / after : 1e6;
  return std::clamp(std::stod(fmt::format("{:.4g}", k)), 1e-6, 1e6);
}

// The steps' mean length and what-if length over the complete steps; false without one.
bool mean_step(const analysis::CriticalPathResult& r, double& before_s, double& after_s, int& n) {
  double b = 0, a = 0;
  n = 0;
  for (const analysis::StepPath& p : r.paths) {
    if (p.step.partial || p.what_if_ns == kNone || p.step_ns <= 0) continue;
    b += static_cast<double>(p.step_ns) / 1e9;
    a += static_cast<double>(p.what_if_ns) / 1e9;
    ++n;
  }
  if (n == 0) return false;
  before_s = b / n;
  after_s = a / n;
  return true;
}

std::string xs(double v) { return format_fixed(v, 2) + "x"; }

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::optional<CriticalPathOpinion> critical_path_opinion(const Knowledge& kn, const SpeedupPrediction& p,
                                                         const std::string& before_trace, const Timeline* before_tl) {
  if (!p.predicted) return std::nullopt;
  CriticalPathOpinion o;
  o.role = kRole;
  auto none = [&](std::string why) {
    o.reason = std::move(why);
    return o;
  };
  // Each re-priced class with targets gives one term per target, in the file's order.
  const analysis::Taxonomy& tax = kn.taxonomy();
  analysis::WhatIf fast, slow;
  std::string fast_text, slow_text;
  std::vector<std::string> classes, off_graph;
  for (const ClassPrediction& c : p.classes) {
    const bool repriced = !c.models.empty() && c.before > 0 && (c.after_fast != c.before || c.after_slow != c.before);
    if (!repriced) continue;
    const auto it = std::find_if(kn.speedup.what_if_targets.begin(), kn.speedup.what_if_targets.end(),
                                 [&](const auto& t) { return t.cls == c.name; });
    if (it == kn.speedup.what_if_targets.end()) off_graph.push_back(c.name);
  }
  for (const SpeedupFactors::WhatIfTargets& t : kn.speedup.what_if_targets) {
    const auto c = std::find_if(p.classes.begin(), p.classes.end(), [&](const auto& x) { return x.name == t.cls; });
    if (c == p.classes.end() || c->models.empty() || c->before <= 0) continue;
    const double kf = factor(c->before, c->after_fast), ks = factor(c->before, c->after_slow);
    if (kf == 1 && ks == 1) continue;
    classes.push_back(t.cls);
    for (const std::string& target : t.targets) {
      const bool is_cat = target == "memcpy" || target == "memset" ||
                          std::find(tax.categories().begin(), tax.categories().end(), target) != tax.categories().end();
      analysis::WhatIfTerm term;
      (is_cat ? term.category : term.kernel) = target;
      term.speedup = kf;
      fast.terms.push_back(term);
      term.speedup = ks;
      slow.terms.push_back(term);
      fmt::format_to(std::back_inserter(fast_text), "{}{}={:g}", fast_text.empty() ? "" : ",", target, kf);
      fmt::format_to(std::back_inserter(slow_text), "{}{}={:g}", slow_text.empty() ? "" : ",", target, ks);
    }
  }
  if (!off_graph.empty()) o.not_on_graph = off_graph;
  if (classes.empty())
    return none("the speedup models re-price no GPU kernel class that the critical path can speed up");
  o.classes = classes;
  o.what_if_fast = fast_text;
  o.what_if_slow = slow_text;
  if (before_trace.empty()) return none("no profiler trace of the BEFORE run to build the critical path from");
  o.trace = before_trace;
  std::optional<trace::LoadedTrace> read;  // only when the round has no Timeline of it
  if (!before_tl) {
    auto in = trace::load_trace(before_trace, trace::kNeedGpuOps);
    if (!in) return none("the BEFORE trace could not be read: " + in.error().describe());
    read.emplace(std::move(*in));
    before_tl = &read->timeline;
  }
  analysis::CriticalPathOptions opt;
  opt.top = 0;
  const std::vector<analysis::CriticalPathResult> ends =
      analysis::critical_path_what_ifs(*before_tl, tax, opt, {fast, slow});
  const analysis::CriticalPathResult &rf = ends[0], &rs = ends[1];
  double before = 0, after_fast = 0, after_slow = 0;
  int n = 0, m = 0;
  if (!mean_step(rf, before, after_fast, n) || !mean_step(rs, before, after_slow, m) || after_fast <= 0 ||
      after_slow <= 0)
    return none("the BEFORE trace has no complete step on the critical path");
  o.available = true;
  o.steps = n;
  o.step_before_s = round_to(before, 6);
  o.step_after_fast_s = round_to(after_fast, 6);
  o.step_after_slow_s = round_to(after_slow, 6);
  // The slow end's graph step may come out shorter than the fast end's where the graph's order
  // changes; the range is the two, ordered.
  const double lo = p.tokens_scale * before / std::max(after_fast, after_slow);
  const double hi = p.tokens_scale * before / std::min(after_fast, after_slow);
  o.low = round_to(lo, 3);
  o.high = round_to(hi, 3);
  return o;
}

void compare_opinion(CriticalPathOpinion& o, std::optional<double> predicted_low, std::optional<double> predicted_high,
                     std::optional<double> actual) {
  if (!o.available || !o.low || !o.high) return;
  const double lo = *o.low, hi = *o.high;
  std::string note = fmt::format(
      "On the BEFORE trace's critical path, the re-priced classes ({}) made as much faster as the models say give a "
      "step of {}-{} ms (from {} ms): {} .. {}.",
      joined(o.classes.value_or(std::vector<std::string>{})),
      format_fixed(std::min(*o.step_after_fast_s, *o.step_after_slow_s) * 1e3, 1),
      format_fixed(std::max(*o.step_after_fast_s, *o.step_after_slow_s) * 1e3, 1),
      format_fixed(*o.step_before_s * 1e3, 1), xs(lo), xs(hi));
  auto out = std::back_inserter(note);
  if (predicted_low && predicted_high) {
    const std::string v = hi < *predicted_low ? "below" : lo > *predicted_high ? "above" : "overlaps";
    o.versus_prediction = v;
    if (v == "overlaps")
      fmt::format_to(out, " It overlaps the speedup models' {} .. {}: the two agree.", xs(*predicted_low),
                     xs(*predicted_high));
    else if (v == "below")
      fmt::format_to(out,
                     " The speedup models predict {} .. {}: the graph disagrees, lower. Work the models do not "
                     "re-price stays on the path (the CPU launch chain, Python, synchronisation) and bounds the step; "
                     "the models' Amdahl sum over busy time does not see it.",
                     xs(*predicted_low), xs(*predicted_high));
    else
      fmt::format_to(out,
                     " The speedup models predict {} .. {}: the graph disagrees, higher (idle and overlap the graph "
                     "recomputes, which the models keep as they were).",
                     xs(*predicted_low), xs(*predicted_high));
  }
  if (!actual) {
    o.versus_actual = "not_measured";
  } else {
    const std::string v = *actual < lo ? "below" : *actual > hi ? "above" : "within";
    o.versus_actual = v;
    fmt::format_to(out, " Measured {}: {}.", xs(*actual),
                   v == "within"  ? "within the what-if's range"
                   : v == "above" ? "above the what-if's range (the change also shortened work the what-if keeps, "
                                    "such as the launches a fused kernel replaces)"
                                  : "below the what-if's range");
  }
  fmt::format_to(out, " The prediction stays the speedup models' range.");
  o.note = std::move(note);
}

std::string opinion_line(const CriticalPathOpinion& o) {
  if (!o.available || !o.low || !o.high) return "n/a: " + o.reason.value_or("not computed");
  std::string s = fmt::format("{} .. {} (step {} -> {}-{} ms on the BEFORE trace's graph", xs(*o.low), xs(*o.high),
                              format_fixed(o.step_before_s.value_or(0) * 1e3, 1),
                              format_fixed(std::min(*o.step_after_fast_s, *o.step_after_slow_s) * 1e3, 1),
                              format_fixed(std::max(*o.step_after_fast_s, *o.step_after_slow_s) * 1e3, 1));
  if (o.versus_prediction)
    s += *o.versus_prediction == "overlaps" ? "; agrees with the predicted range"
                                            : "; " + *o.versus_prediction + " the predicted range";
  return s + ")";
}

}  // namespace goblin::audit
