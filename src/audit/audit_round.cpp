// One audit round (docs/audit.md § Rounds): query_kb → propose_patch (+ calibration from the
// history) → benchmark_pair → compare_runs → profile_after → history; and the history's opening.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>

#include "audit/after_profile.h"
#include "audit/audit_internal.h"
#include "audit/compare.h"
#include "audit/patch.h"
#include "audit/replay_runner.h"
#include "audit/report_diff.h"
#include "audit/speedup_model.h"
#include "audit/what_if.h"
#include "core/build_info.h"
#include "core/io.h"

namespace fs = std::filesystem;

namespace goblin::audit::detail {

AuditHistory open_history(const AuditOptions& opt) {
  AuditHistory h;
  if (opt.calibration_source) {
    h.given = opt.calibration_source;
    h.note = "audit history: " + h.given->where();
    return h;
  }
  if (opt.history_path.empty()) {
    h.note = "audit history: off (none given; a live `goblin audit` uses $XDG_DATA_HOME/goblin/history.sqlite)";
    return h;
  }
  const std::string& path = opt.history_path;
  auto s = HistoryStore::open(path);
  if (!s) {
    h.note = "audit history unavailable, nothing recorded: " + s.error().describe();
    return h;
  }
  h.note = s->recovered().empty() ? "audit history: " + path : "audit history: " + s->recovered();
  h.store.emplace(std::move(*s));
  return h;
}

Result<std::string> write_round_config(const AuditOptions& opt, int r, const std::string& path,
                                       const std::string& text) {
  std::string dir = opt.round_dir;
  std::error_code ec;
  if (dir.empty()) dir = (fs::temp_directory_path(ec) / fmt::format("goblin-rounds-{}", ::getpid())).string();
  fs::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create the rounds folder: " + ec.message(), dir);
  std::string out = (fs::path(dir) / fmt::format("round-{}{}", r, fs::path(path).extension().string())).string();
  RETURN_IF_ERROR(write_file(out, text));
  return out;
}

namespace {

// Whether two recordings (trace files or run directories) are one: the same file (a path, a link
// or a hard link to it) or two files of identical bytes. Returns how, or nullopt when they differ,
// either is empty or unreadable. A pair measured from one recording measured nothing.
std::optional<std::string> same_recording(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return std::nullopt;
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return "the same file " + fs::path(a).filename().string();
  if (!fs::is_regular_file(a, ec) || !fs::is_regular_file(b, ec)) return std::nullopt;
  const auto size = fs::file_size(a, ec);
  if (ec || size != fs::file_size(b, ec) || ec) return std::nullopt;
  // Same size: compare the bytes as stored (two copies of one .json.gz are byte-identical).
  auto fa = open_source(a, IoLimits{}), fb = open_source(b, IoLimits{});
  if (!fa || !fb) return std::nullopt;
  constexpr size_t kBlock = 1u << 20;
  std::string ba(kBlock, '\0'), bb(kBlock, '\0');
  for (;;) {
    auto na = (*fa)->read(ba.data(), kBlock);
    auto nb = (*fb)->read(bb.data(), kBlock);
    if (!na || !nb || *na != *nb) return std::nullopt;
    if (*na == 0) break;
    if (std::string_view(ba.data(), *na) != std::string_view(bb.data(), *nb)) return std::nullopt;
  }
  return fmt::format("{} and {}, files of identical content ({} bytes)", fs::path(a).filename().string(),
                     fs::path(b).filename().string(), size);
}

// The round's Report when its two sides were one recording: the speedup is not measured and the
// prediction not tested (`not_measured`), never "1.00x, prediction missed"; `how` says why, in
// every form of the report (JSON, Markdown, HTML: they render these fields).
void mark_not_measured(Report& r, const std::string& how) {
  r.speedup_actual.reset();
  r.speedup_actual_detail.value.reset();
  r.speedup_actual_detail.metric.reset();
  r.speedup_actual_detail.ci_low.reset();
  r.speedup_actual_detail.ci_high.reset();
  r.speedup_actual_detail.significant.reset();
  r.speedup_actual_detail.basis = "not measured: the before and after sides are one recording (" + how +
                                  "); a run compared with itself says "
                                  "nothing about the patch";
  r.prediction_held = "not_measured";
  r.prediction_note =
      "not measured: the before and after sides are one recording (" + how + "), so the prediction was not tested";
  // The summary line up to its first ": " names the workload and GPU; the rest is replaced.
  const size_t colon = r.summary_line.find(": ");
  std::string sl = colon == std::string::npos ? r.workload_name : r.summary_line.substr(0, colon);
  sl += ": speedup not measured (before and after are one recording)";
  if (r.speedup_predicted_low && r.speedup_predicted_high)
    fmt::format_to(std::back_inserter(sl), "; predicted {:.2f}-{:.2f}x, prediction not_measured",
                   *r.speedup_predicted_low, *r.speedup_predicted_high);
  r.summary_line = std::move(sl);
}

}  // namespace

RoundResult run_round(int r, const std::string& path, const config::WorkloadConfig& cfg,
                      const analysis::RunMetrics& prof, const std::string& prof_trace,
                      std::shared_ptr<const Timeline> prof_timeline, const std::optional<UnprofiledStep>& unprofiled,
                      Runner& runner, const AuditOptions& opt, const Knowledge& kn, AuditHistory& hist,
                      AuditOutcome& o) {
  const RuleBase& kb = kn.rules;
  RoundResult rr;
  const bool first = r == 1;
  rr.summary.round = r;
  rr.summary.config = path;
  auto fail = [&](const Error& e) {
    step_end(o, opt, e.describe(), false);
    rr.error = e;
    rr.summary.error = e.describe();
    return rr;
  };

  // query_kb
  auto derived = derive_symptoms(cfg, &prof, opt.vendor.empty() ? vendor_of(prof) : opt.vendor);
  if (!derived) return fail(derived.error());
  std::vector<std::string> symptoms = std::move(*derived);
  std::vector<std::string> rule_ids;
  Json hits = Json::array();
  step_begin(o, opt, "query_kb",
             "Query the rule base with " + fmt::format("{}", symptoms.size()) +
                 " symptoms derived from BOTH the config and the waste budget" +
                 (first ? "" : " of the previous round's AFTER profile") + ", in one batched call.");
  if (symptoms.empty()) {
    step_end(o, opt, "no non-optimal config field and no waste bucket: nothing to look up");
  } else {
    std::set<std::string> seen;
    for (const auto& h : kb_query(kb, symptoms, opt.top_k)) {
      if (seen.insert(h.rule->id).second) rule_ids.push_back(h.rule->id);
      hits.push_back({{"rule_id", h.rule->id}, {"score", round_to(h.score, 3)}, {"queries", h.matched_queries}});
    }
    step_end(o, opt, fmt::format("{} candidate rules (deduplicated union over the symptoms)", rule_ids.size()));
  }
  if (first) {
    o.symptoms = symptoms;
    o.rule_ids = rule_ids;
    o.kb_hits = hits;
  }
  rr.summary.symptoms = symptoms;

  // propose_patch
  step_begin(o, opt, "propose_patch",
             "Apply the candidate rules whose detect holds against the config and the measured evidence; predict the "
             "speedup with the speedup models (cost profile x GPU), calibrated by the audit history.");
  if (rule_ids.empty()) {
    if (first) return fail(make_error(ErrorKind::NotFound, "the rule base returned no candidate rule"));
    step_end(o, opt, "no candidate rule");
    rr.stop_reason = fmt::format("round {}: the rule base returned no candidate rule", r);
    rr.summary.stopped = rr.stop_reason;
    return rr;
  }
  PatchOptions po;
  po.rule_ids = rule_ids;
  po.metrics = &prof;
  po.vendor = opt.vendor;
  po.unprofiled = unprofiled;
  po.original = &o.config;  // the user's config: guards about the user's own choices read it
  auto patch = make_patch(path, po, kn);
  if (!patch) return fail(patch.error());
  if (patch->unsafe) return fail(*patch->unsafe);  // the edit would damage the user's file
  Patch pj = patch->result;
  std::vector<std::string> applied;
  for (const auto& x : pj.rationale) applied.push_back(x.rule_id);
  // Calibration from the history (the report says what it did).
  HistoryCalibration cal;
  if (hist.source()) cal.store = hist.source()->where();
  if (hist.source() && pj.expected_speedup_low) {
    double lo = *pj.expected_speedup_low, hi = pj.expected_speedup_high.value_or(0);
    Calibrated c = calibrate(*hist.source(), applied, prof.gpu_name, lo, hi);
    cal.action = c.action;
    cal.reason = c.reason;
    cal.matching_audits = c.matching_audits;
    cal.model_low = lo;
    cal.model_high = hi;
    if (c.changed) {
      pj.expected_speedup_low = round_to(c.low, 3);
      pj.expected_speedup_high = round_to(c.high, 3);
    }
  } else if (!hist.source()) {
    cal.reason = hist.note;
  } else {
    cal.reason = "no predicted range to calibrate (the profile has no waste budget or cost profile)";
  }
  if (hist.source()) {
    cal.by_rule.emplace();
    if (auto rc = calibration_by_rule(*hist.source()))
      for (const auto& x : *rc)
        if (std::find(applied.begin(), applied.end(), x.rule_id) != applied.end()) cal.by_rule->push_back(x);
  }
  pj.calibration = cal;
  {
    std::string s = fmt::format("{} rules applied", applied.size());
    auto out = std::back_inserter(s);
    if (pj.expected_speedup_low)
      fmt::format_to(out, ", predicted {}-{}x ({})", f2(*pj.expected_speedup_low),
                     f2(pj.expected_speedup_high.value_or(0)), pj.prediction_method);
    if (cal.action != "none") fmt::format_to(out, ", calibration {}", cal.action);
    fmt::format_to(out, ", confidence {}", Json(pj.confidence).dump());
    step_end(o, opt, s);
  }
  rr.summary.rules = applied;
  rr.summary.predicted =
      RoundPredicted{pj.expected_speedup_low, pj.expected_speedup_high, pj.prediction_method, cal.action, {}, {}};
  // The critical path's what-if on the BEFORE trace beside the prediction (a second opinion).
  std::optional<CriticalPathOpinion> opinion;
  if (pj.speedup_model) opinion = critical_path_opinion(kn, *pj.speedup_model, prof_trace, prof_timeline.get());
  prof_timeline.reset();  // not needed past the what-if: the pair's traces are read next
  if (opinion && opinion->available) {
    rr.summary.predicted->what_if_low = opinion->low;
    rr.summary.predicted->what_if_high = opinion->high;
  }
  rr.summary.diff = pj.diff;
  rr.patched_text = patch->patched_text;
  if (first) {
    o.patch = pj;
    o.patched_text = patch->patched_text;
  }
  if (!first && applied.empty()) {
    rr.stop_reason = fmt::format("round {}: no rule applies to the patched config", r);
    rr.summary.stopped = rr.stop_reason;
    return rr;
  }

  // benchmark_pair: this round's config against its patch, interleaved when the runner can.
  step_begin(o, opt, "benchmark_pair",
             "Benchmark " + std::string(first ? "the original" : "the previous round's") +
                 " and the patched config as a pair (" + runner.kind() +
                 " runner): interleaved A B A B ... when the runner can, so drift hits both sides, with per-run "
                 "samples for the speedup's interval.");
  auto pair = runner.bench_pair(cfg, patch->new_config);
  if (!pair) return fail(pair.error());
  {
    std::string s = fmt::format("before: {}; after: {}{}; {}", metrics_line(pair->before), metrics_line(pair->after),
                                pair->after_ran ? " (the recorded run standing in for the patched config)" : "",
                                pair->interleaved ? "interleaved" : "blocks");
    auto out = std::back_inserter(s);
    if (!pair->order.empty()) fmt::format_to(out, ", run order {}", pair->order);
    fmt::format_to(out, ", {}+{} per-run samples", pair->before_samples.step_time_s.size(),
                   pair->after_samples.step_time_s.size());
    step_end(o, opt, s);
  }
  if (first) {
    o.before = pair->before;
    o.after = pair->after;
    o.interleaved = pair->interleaved;
    o.run_order = pair->order;
  }
  // A runner that measured one recording for both sides (a replay without a run for this round's
  // config) measured nothing about this round.
  // The same holds in any round when both sides' traces are one recording (one file, or two files
  // of identical bytes): a replay whose after-run is the before-run's own trace.
  const std::optional<std::string> one_recording = same_recording(pair->before_trace, pair->after_trace);
  const std::string one_recording_how = one_recording.value_or(
      "the runner has no run of this round's patched config: one recording stood in for both sides");
  const bool same_recording = one_recording || (!first && pair->before_ran && pair->after_ran &&
                                                config_differences(*pair->before_ran, *pair->after_ran).empty());
  // The AFTER side's unprofiled step: a bench's own step time when the bench ran unprofiled (no
  // cost profile: a live bench); a profiled recording's is what its profile_after measured
  // without the profiler (below).
  if (!same_recording && !pair->after.cost && pair->after.step_time_s > 0)
    rr.after_unprofiled = UnprofiledStep{
        pair->after.step_time_s, fmt::format("round {}'s unprofiled bench of the patched config (median step)", r)};

  // compare_runs
  step_begin(o, opt, "compare_runs", "Compare before and after against the prediction: the round's Report.");
  RunInput bi{pair->before, {}, fmt::format("benchmark(round {} before)", r), "metrics"};
  RunInput ai{pair->after, {}, fmt::format("benchmark(round {} patched)", r), "metrics"};
  bi.bench.step_time_s = pair->before_samples.step_time_s;
  bi.bench.tokens_per_sec = pair->before_samples.tokens_per_sec;
  ai.bench.step_time_s = pair->after_samples.step_time_s;
  ai.bench.tokens_per_sec = pair->after_samples.tokens_per_sec;
  for (auto [in, side] : {std::pair{&bi, &pair->before_samples}, std::pair{&ai, &pair->after_samples}}) {
    in->bench.throughput = side->throughput;
    in->bench.throughput_median = side->throughput_median;
    in->bench.throughput_unit = side->throughput_unit;
  }
  CompareOptions co;
  co.workload_name = opt.workload_name;
  co.after_run_config = pair->after_ran;
  co.runner_kind = runner.kind();
  co.notes = opt.notes;
  co.kb = &kb;
  co.interleaved = pair->interleaved;
  co.run_order = pair->order;
  co.profiled_before = prof;
  if (!pair->note.empty()) co.notes.push_back(pair->note);
  if (pair->before_ran && first) {
    std::string f;
    for (const auto& x : config_differences(cfg, *pair->before_ran)) f += (f.empty() ? "" : ", ") + x;
    if (!f.empty())
      co.notes.push_back("the measured BEFORE run is not exactly the given config (differs on " + f + ")");
  }
  auto rep = compare_runs(bi, ai, pj, co);
  if (!rep) return fail(rep.error());
  Report report = std::move(*rep);
  if (same_recording) mark_not_measured(report, one_recording_how);
  report.symptoms = symptoms;
  report.speedup_model.emplace(pj.speedup_model);
  report.prediction_method = pj.prediction_method;
  report.calibration = cal;
  if (opinion) {
    compare_opinion(*opinion, report.speedup_predicted_low, report.speedup_predicted_high,
                    same_recording ? std::nullopt : report.speedup_actual);
    report.critical_path_what_if = std::move(opinion);
  }
  // One recording on both sides compares a run with itself: "1.00x, prediction missed" would be a
  // claim about the patch that nothing measured.
  step_end(o, opt, same_recording ? "not measured: " + one_recording_how : report.summary_line);

  // profile_after: the patched config profiled too (waste budget before and after, predicted
  // against realised recovery per bucket; the next round's starting profile).
  if (opt.profile_after) {
    step_begin(o, opt, "profile_after",
               "Profile the patched config (" + runner.kind() +
                   ") so the report shows the waste budget after and the realised recovery per bucket.");
    auto ap = runner.profile_after(patch->new_config);
    if (ap) {
      rr.after_profile = *ap;
      rr.after_profile_trace = runner.last_trace();
      if (!rr.after_unprofiled) rr.after_unprofiled = runner.last_unprofiled_step();
      step_end(o, opt, profile_line(*ap));
      report.waste_budget_after_profile = ap->waste_budget;
      report.waste_budget_before_profile = prof.waste_budget;
      if (auto lr = runner.last_run_config()) {
        std::string f;
        for (const auto& x : config_differences(patch->new_config, *lr)) f += (f.empty() ? "" : ", ") + x;
        if (!f.empty()) report.after_profile_note = "the AFTER profile is a recording that differs on " + f;
      }
      SpeedupPrediction sp = predict_speedup(kn, prof, cfg, patch->new_config, unprofiled);
      report.recovery_by_bucket = recovery_by_bucket(sp, prof, &*ap);
      if (opt.profile_diff) report.profile_diff = opt.profile_diff(prof, *ap);
      // An unprofiled AFTER bench (live) leaves the metrics table without an after budget: the
      // patched config's profile gives it, as the profile_run gives BEFORE's.
      use_after_profile_budget(report, *ap);
    } else {
      step_end(o, opt, ap.error().describe(), false);
      report.after_profile_note = "the AFTER side could not be profiled: " + ap.error().describe();
    }
  }
  // What got faster: `goblin diff` of the two profiles. The AFTER side is the bench's own trace
  // when it was profiled (a replay), else the profile of the patched config (the live audit's
  // bench is unprofiled); same recording on both sides measured nothing.
  report.kernel_diff = kernel_diff_for_report(
      prof_trace, !pair->after_trace.empty() || same_recording ? pair->after_trace : rr.after_profile_trace);

  // The round's outcome: accepted when significantly faster.
  const SpeedupDetail& d = report.speedup_actual_detail;
  const std::optional<double> actual = report.speedup_actual;
  rr.speedup = actual.value_or(1.0);
  rr.ci_low = d.ci_low;
  rr.ci_high = d.ci_high;
  const bool sig_known = d.significant.has_value();
  const bool significant = sig_known && *d.significant;
  rr.summary.measured = RoundMeasured{
      actual,     rr.ci_low, rr.ci_high, sig_known ? std::optional<bool>(significant) : std::nullopt, pair->interleaved,
      pair->order};
  rr.summary.prediction_held = report.prediction_held;
  rr.summary.summary_line = report.summary_line;
  if (same_recording) {
    rr.summary.measured = std::optional<RoundMeasured>();
    rr.summary.prediction_held = "not_measured";
    rr.stop_reason = fmt::format("round {}: not measured, {}; reverted, nothing measured", r, one_recording_how);
  } else if (!sig_known && runner.kind() == "replay" && rr.speedup > 1.0) {
    // One recording per side has no interval: significance is unknown, not refuted. A replay goes
    // on (as far as its recordings allow) and says so; a live round without an interval does not.
    rr.accepted = true;
    rr.summary.accepted_note =
        "accepted without an interval: one recording per side, so significance is not established";
    o.final_config_text = patch->patched_text;
    o.final_config_name = "patched_final" + fs::path(path).extension().string();
  } else if (!significant || rr.speedup <= 1.0) {
    rr.stop_reason = fmt::format("round {}", r) +
                     " reverted: " + (significant ? "it made the workload slower" : "its speedup is not significant") +
                     " (" + report.summary_line + ")";
  } else {
    rr.accepted = true;
    o.final_config_text = patch->patched_text;
    o.final_config_name = "patched_final" + fs::path(path).extension().string();
  }
  rr.summary.accepted = rr.accepted;
  if (!rr.accepted) rr.summary.reverted = rr.stop_reason;
  if (first) {
    o.report = report;
    o.after_profile = rr.after_profile;
  } else {
    rr.summary.report = report_to_json(report);
  }

  // history: every measured round, accepted or not.
  if (hist.store && !same_recording) {
    HistoryRecord h;
    h.workload = opt.workload_name.empty() ? str_of(cfg.get("model_name")) : opt.workload_name;
    h.config_path = path;
    h.gpu = pair->before.gpu_name.empty() ? prof.gpu_name : pair->before.gpu_name;
    h.runner_kind = runner.kind();
    h.environment = validity_footer_to_json(report.validity_footer);
    h.environment["goblin"] = build_info_json();
    h.rules = applied;
    h.prediction_method = pj.prediction_method;
    h.predicted_low = pj.expected_speedup_low;
    h.predicted_high = pj.expected_speedup_high;
    h.measured = actual;
    h.ci_low = rr.ci_low;
    h.ci_high = rr.ci_high;
    if (sig_known) h.significant = significant;
    h.prediction_held = report.prediction_held;
    h.round = r;
    h.calibration = cal.action;
    auto id = hist.store->add(h);
    rr.summary.history_id = id ? std::optional<int64_t>(*id) : std::nullopt;
    if (!id) o.notes.push_back(fmt::format("audit history: round {} not recorded: {}", r, id.error().describe()));
  }
  return rr;
}

}  // namespace goblin::audit::detail
