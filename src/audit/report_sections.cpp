// The audit report's sections added with the speedup models, the AFTER profile, the history and
// the rounds (docs/audit.md § The report): prediction model, waste budget before/after with
// predicted vs realised recovery per bucket, calibration, the rounds chain, and the profile diff
// hook (`profile_diff`, filled by `goblin diff` when the audit is given one: AuditOptions).
#include <fmt/format.h>

#include <iterator>

#include "audit/report.h"
#include "core/escape.h"
#include "core/text.h"

namespace goblin::audit {
namespace {

std::string v(const Json& j, int d = 3) {
  if (j.is_null()) return "n/a";
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_float()) return format_fixed(j.get<double>(), d);
  return j.dump();
}
std::string ms(std::optional<double> s) { return s ? format_fixed(*s * 1e3, 2) : "n/a"; }
std::string xo(std::optional<double> d) { return d ? format_fixed(*d, 2) + "x" : "n/a"; }

// Rows of the sections as cells, rendered by Markdown and HTML alike.
struct Table {
  std::string title, intro;
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> after;  // lines under the table
};

std::vector<Table> sections(const Report& r) {
  std::vector<Table> out;
  if (r.speedup_model && *r.speedup_model && (*r.speedup_model)->predicted) {
    const SpeedupPrediction& m = **r.speedup_model;
    // The figures as the report's JSON rounds them (speedup_prediction_to_json).
    auto r6 = [](double s) { return round_to(s, 6); };
    Table t{
        "Prediction model", "", {"class", "bucket", "before ms", "after ms (fast-slow)", "models", "basis"}, {}, {}};
    const std::string composition = speedup_prediction_to_json(m)["composition"].get<std::string>();
    t.intro = fmt::format("Predicted {} .. {} from the speedup models ({}).", xo(round_to(m.low, 3)),
                          xo(round_to(m.high, 3)), composition);
    for (const ClassPrediction& c : m.classes) {
      if (r6(c.before) <= 0 && r6(c.after_slow) <= 0) continue;
      std::string models;
      for (const auto& s : c.models) models += (models.empty() ? "" : ", ") + s;
      t.rows.push_back({c.name, c.bucket, ms(r6(c.before)), ms(r6(c.after_fast)) + " - " + ms(r6(c.after_slow)),
                        models.empty() ? "-" : models, c.basis});
    }
    for (const auto& n : m.notes) t.after.push_back(n);
    // The critical path's what-if beside the models (a second opinion, not the prediction).
    if (const auto& o = r.critical_path_what_if) {
      if (o->available)
        t.after.push_back("Critical-path what-if (second opinion): " + o->note.value_or("") +
                          " Terms on the BEFORE trace: --what-if " + o->what_if_fast.value_or("") +
                          " (fast ends), --what-if " + o->what_if_slow.value_or("") + " (slow ends).");
      else
        t.after.push_back("Critical-path what-if (second opinion): n/a: " + o->reason.value_or("") + ".");
      if (o->not_on_graph) {
        std::string c;
        for (const auto& x : *o->not_on_graph) c += (c.empty() ? "" : ", ") + x;
        t.after.push_back(
            "Re-priced classes that are no GPU kernels (the graph recomputes them, it does not scale "
            "them): " +
            c + ".");
      }
    }
    out.push_back(t);
    // The profiler's own host time taken out of the host classes before the models ran.
    const ProfilerCorrection& pc = m.profiler_correction;
    Table c{"Profiler correction",
            (pc.applied ? "Applied: " : "Not applied: ") + pc.note + ".",
            {"class", "profiled ms", "removed ms", "corrected ms"},
            {},
            {}};
    for (const CorrectedClass& x : pc.classes)
      c.rows.push_back({x.name, ms(x.profiled), ms(x.removed), ms(x.corrected)});
    out.push_back(c);
  }
  if (r.recovery_by_bucket) {
    Table t{"Waste budget before and after (profiled)",
            "Both sides profiled: the BEFORE profile and a short profiled run of the patched config" +
                (r.after_profile_note ? " (" + *r.after_profile_note + ")" : std::string()) +
                ". Recovery = before - after, ms per step.",
            {"bucket", "before ms", "after ms", "predicted recovery ms", "realised ms", "within"},
            {},
            {}};
    for (const BucketRecovery& b : *r.recovery_by_bucket)
      t.rows.push_back(
          {b.bucket, ms(b.before_s), ms(b.after_s.value_or(std::nullopt)),
           b.predicted_recovery_low_s ? ms(b.predicted_recovery_low_s) + " .. " + ms(b.predicted_recovery_high_s) : "-",
           ms(b.realised_recovery_s), b.within_predicted ? (*b.within_predicted ? "yes" : "no") : "-"});
    out.push_back(t);
  } else if (r.after_profile_note) {
    out.push_back(Table{"Waste budget before and after (profiled)", *r.after_profile_note, {}, {}, {}});
  }
  if (r.calibration) {
    const HistoryCalibration& c = *r.calibration;
    Table t{"Calibration (audit history)",
            "",
            {"rule", "past audits", "held", "exceeded", "missed", "not predicted"},
            {},
            {}};
    t.intro = "History: " + c.store.value_or("n/a") + ". Range " + c.action +
              (c.model_low ? " (model " + xo(c.model_low) + " .. " + xo(c.model_high) + ")" : "") + ": " + c.reason +
              ".";
    if (c.by_rule)
      for (const RuleCalibration& b : *c.by_rule)
        t.rows.push_back({b.rule_id, fmt::format("{}", b.audits), fmt::format("{}", b.held),
                          fmt::format("{}", b.exceeded), fmt::format("{}", b.missed),
                          fmt::format("{}", b.not_predicted)});
    out.push_back(t);
  }
  if (r.rounds && !r.rounds->empty()) {
    Table t{"Rounds", "", {"round", "rules", "predicted", "measured", "held", "outcome"}, {}, {}};
    t.intro = fmt::format(
        "{} of {} round(s) accepted (requested {}); each round benchmarked interleaved against the previous one.",
        r.rounds_accepted.value_or(0), r.rounds->size(), r.rounds_requested.value_or(1));
    for (const AuditRound& rd : *r.rounds) {
      std::string rules;
      for (const auto& s : rd.rules.value_or(std::vector<std::string>{})) rules += (rules.empty() ? "" : ", ") + s;
      const RoundMeasured* m = rd.measured && *rd.measured ? &**rd.measured : nullptr;
      std::string meas = m ? xo(m->speedup) : "n/a";
      if (m && m->ci_low)
        meas += fmt::format(" [{}, {}]", format_fixed(*m->ci_low, 2), format_fixed(m->ci_high.value_or(0.0), 2));
      std::string outcome = rd.accepted.value_or(false) ? "accepted"
                            : rd.reverted               ? *rd.reverted
                            : rd.stopped                ? *rd.stopped
                            : rd.error                  ? "failed: " + *rd.error
                                                        : "-";
      std::string pred = rd.predicted ? xo(rd.predicted->low) + " .. " + xo(rd.predicted->high) : "n/a";
      if (rd.predicted && rd.predicted->what_if_low)
        pred +=
            " (critical-path what-if " + xo(rd.predicted->what_if_low) + " .. " + xo(rd.predicted->what_if_high) + ")";
      t.rows.push_back({fmt::format("{}", rd.round), rules.empty() ? "-" : rules, pred, meas,
                        rd.prediction_held.value_or(""), outcome});
    }
    if (r.total_speedup && *r.total_speedup) {
      const TotalSpeedup& ts = **r.total_speedup;
      t.after.push_back(fmt::format(
          "Total: {}{} ({})", xo(ts.point),
          ts.ci_low ? fmt::format(" [{}, {}]", format_fixed(*ts.ci_low, 2), format_fixed(ts.ci_high.value_or(0.0), 2))
                    : std::string(" (no interval: a round had none)"),
          ts.basis));
    }
    if (r.rounds_stop_reason) t.after.push_back("Stopped: " + *r.rounds_stop_reason + ".");
    out.push_back(t);
  }
  // Hook for `goblin diff` (#12): the report's `profile_diff` (AuditOptions::profile_diff) is
  // shown as its summary lines; the audit leaves it out until a diff implementation is wired in.
  if (r.profile_diff) {
    Table t{"Profile diff (before vs after)", "", {}, {}, {}};
    t.after = r.profile_diff->summary;
    out.push_back(t);
  }
  return out;
}

}  // namespace

std::string calibration_phrase(const Report& r) {
  if (!r.calibration) return "no historical calibration";
  const HistoryCalibration& c = *r.calibration;
  return c.action == "none" ? "range not changed by the history (" + c.reason + ")"
                            : "range " + c.action + " by the history (" + c.reason + ")";
}

std::string audit_sections_markdown(const Report& r) {
  std::string s;
  auto out = std::back_inserter(s);
  for (const Table& t : sections(r)) {
    fmt::format_to(out, "\n## {}\n\n", t.title);
    if (!t.intro.empty()) fmt::format_to(out, "{}\n\n", md_text(t.intro));
    if (!t.head.empty() && !t.rows.empty()) {
      s += "|";
      for (const auto& h : t.head) fmt::format_to(out, " {} |", md_text(h));
      s += "\n|";
      for (size_t i = 0; i < t.head.size(); ++i) s += "---|";
      s += "\n";
      for (const auto& row : t.rows) {
        s += "|";
        for (const auto& c : row) fmt::format_to(out, " {} |", md_text(c));  // values from recordings: escaped
        s += "\n";
      }
      s += "\n";
    }
    for (const auto& l : t.after) fmt::format_to(out, "{}\n\n", md_text(l));
  }
  return s;
}

std::string audit_sections_text(const Report& r) {
  std::string s;
  auto out = std::back_inserter(s);
  for (const Table& t : sections(r)) {
    fmt::format_to(out, "\n{}:\n", t.title);
    if (!t.intro.empty()) fmt::format_to(out, "  {}\n", t.intro);
    for (const auto& row : t.rows) {
      s += " ";
      for (size_t i = 0; i < row.size() && i < 5; ++i)
        fmt::format_to(out, " {}{}", row[i], i + 1 < row.size() ? " |" : "");
      s += "\n";
    }
    for (const auto& l : t.after) fmt::format_to(out, "  {}\n", l);
  }
  return s;
}

std::string audit_sections_html(const Report& r) {
  std::string s;
  auto out = std::back_inserter(s);
  for (const Table& t : sections(r)) {
    fmt::format_to(out, "<h2>{}</h2>\n", html_text(t.title));
    if (!t.intro.empty()) fmt::format_to(out, "<p>{}</p>\n", html_text(t.intro));
    if (!t.head.empty() && !t.rows.empty()) {
      s += "<table><tr>";
      for (const auto& h : t.head) fmt::format_to(out, "<th>{}</th>", html_text(h));
      s += "</tr>\n";
      for (const auto& row : t.rows) {
        s += "<tr>";
        for (const auto& c : row) fmt::format_to(out, "<td>{}</td>", html_text(c));
        s += "</tr>\n";
      }
      s += "</table>\n";
    }
    for (const auto& l : t.after) fmt::format_to(out, "<p>{}</p>\n", html_text(l));
  }
  return s;
}

}  // namespace goblin::audit
