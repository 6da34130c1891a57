// The audit report's sections added with the speedup models, the AFTER profile, the history and
// the rounds (docs/audit.md § The report): prediction model, waste budget before/after with
// predicted vs realised recovery per bucket, calibration, the rounds chain, and the profile diff
// hook (`profile_diff`, filled by `goblin diff` when the audit is given one: AuditOptions).
#include <sstream>

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
std::string ms(const Json& j) { return j.is_number() ? format_fixed(j.get<double>() * 1e3, 2) : "n/a"; }
std::string x(const Json& j) { return j.is_number() ? format_fixed(j.get<double>(), 2) + "x" : "n/a"; }

// Rows of the sections as cells, rendered by Markdown and HTML alike.
struct Table {
  std::string title, intro;
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> after;  // lines under the table
};

std::vector<Table> sections(const Json& r) {
  std::vector<Table> out;
  if (r.contains("speedup_model") && r["speedup_model"].is_object() && r["speedup_model"].value("predicted", false)) {
    const Json& m = r["speedup_model"];
    Table t{
        "Prediction model", "", {"class", "bucket", "before ms", "after ms (fast-slow)", "models", "basis"}, {}, {}};
    t.intro =
        "Predicted " + x(m["low"]) + " .. " + x(m["high"]) + " from the speedup models (" + v(m["composition"]) + ").";
    for (const auto& c : m["classes"]) {
      if (c["before_s"].get<double>() <= 0 && c["after_slow_s"].get<double>() <= 0) continue;
      std::string models;
      for (const auto& s : c["models"]) models += (models.empty() ? "" : ", ") + s.get<std::string>();
      t.rows.push_back({v(c["class"]), v(c["bucket"]), ms(c["before_s"]),
                        ms(c["after_fast_s"]) + " - " + ms(c["after_slow_s"]), models.empty() ? "-" : models,
                        v(c["basis"])});
    }
    for (const auto& n : m["notes"]) t.after.push_back(v(n));
    out.push_back(t);
  }
  if (r.contains("recovery_by_bucket") && r["recovery_by_bucket"].is_array()) {
    Table t{"Waste budget before and after (profiled)",
            "Both sides profiled: the BEFORE profile and a short profiled run of the patched config" +
                (r.contains("after_profile_note") ? " (" + v(r["after_profile_note"]) + ")" : std::string()) +
                ". Recovery = before - after, ms per step.",
            {"bucket", "before ms", "after ms", "predicted recovery ms", "realised ms", "within"},
            {},
            {}};
    for (const auto& b : r["recovery_by_bucket"])
      t.rows.push_back({v(b["bucket"]), ms(b["before_s"]), ms(b.value("after_s", Json())),
                        b["predicted_recovery_low_s"].is_number()
                            ? ms(b["predicted_recovery_low_s"]) + " .. " + ms(b["predicted_recovery_high_s"])
                            : "-",
                        ms(b.value("realised_recovery_s", Json())),
                        b.contains("within_predicted") ? (b["within_predicted"].get<bool>() ? "yes" : "no") : "-"});
    out.push_back(t);
  } else if (r.contains("after_profile_note")) {
    out.push_back(Table{"Waste budget before and after (profiled)", v(r["after_profile_note"]), {}, {}, {}});
  }
  if (r.contains("calibration") && r["calibration"].is_object()) {
    const Json& c = r["calibration"];
    Table t{"Calibration (audit history)",
            "",
            {"rule", "past audits", "held", "exceeded", "missed", "not predicted"},
            {},
            {}};
    t.intro = "History: " + v(c.value("store", Json("none"))) + ". Range " + v(c["action"]) +
              (c.contains("model_low") ? " (model " + x(c["model_low"]) + " .. " + x(c["model_high"]) + ")" : "") +
              ": " + v(c.value("reason", Json(""))) + ".";
    if (c.contains("by_rule"))
      for (const auto& b : c["by_rule"])
        t.rows.push_back({v(b["rule_id"]), v(b["audits"]), v(b["held"]), v(b["exceeded"]), v(b["missed"]),
                          v(b.value("not_predicted", Json(0)))});
    out.push_back(t);
  }
  if (r.contains("rounds") && r["rounds"].is_array() && !r["rounds"].empty()) {
    Table t{"Rounds", "", {"round", "rules", "predicted", "measured", "held", "outcome"}, {}, {}};
    t.intro = std::to_string(r.value("rounds_accepted", 0)) + " of " + std::to_string(r["rounds"].size()) +
              " round(s) accepted (requested " + v(r.value("rounds_requested", Json(1))) +
              "); each round benchmarked interleaved against the previous one.";
    for (const auto& rd : r["rounds"]) {
      std::string rules;
      for (const auto& s : rd.value("rules", Json::array()))
        rules += (rules.empty() ? "" : ", ") + s.get<std::string>();
      const Json& p = rd.value("predicted", Json::object());
      const Json& m = rd.value("measured", Json::object());
      std::string meas = m.is_object() && m.contains("speedup") ? x(m["speedup"]) : "n/a";
      if (m.is_object() && m.contains("ci_low") && m["ci_low"].is_number())
        meas += " [" + format_fixed(m["ci_low"].get<double>(), 2) + ", " + format_fixed(m["ci_high"].get<double>(), 2) +
                "]";
      std::string outcome = rd.value("accepted", false) ? "accepted"
                            : rd.contains("reverted")   ? v(rd["reverted"])
                            : rd.contains("stopped")    ? v(rd["stopped"])
                            : rd.contains("error")      ? "failed: " + v(rd["error"])
                                                        : "-";
      t.rows.push_back({v(rd["round"]), rules.empty() ? "-" : rules,
                        p.is_object() && p.contains("low") ? x(p["low"]) + " .. " + x(p["high"]) : "n/a", meas,
                        v(rd.value("prediction_held", Json(""))), outcome});
    }
    if (r.contains("total_speedup") && r["total_speedup"].is_object())
      t.after.push_back("Total: " + x(r["total_speedup"]["point"]) +
                        (r["total_speedup"]["ci_low"].is_number() ? " [" + v(r["total_speedup"]["ci_low"], 2) + ", " +
                                                                        v(r["total_speedup"]["ci_high"], 2) + "]"
                                                                  : std::string(" (no interval: a round had none)")) +
                        " (" + v(r["total_speedup"]["basis"]) + ")");
    if (r.contains("rounds_stop_reason")) t.after.push_back("Stopped: " + v(r["rounds_stop_reason"]) + ".");
    out.push_back(t);
  }
  // Hook for `goblin diff` (#12): a `profile_diff` object in the report (AuditOptions::profile_diff)
  // is shown as its summary lines; the audit leaves it out until a diff implementation is wired in.
  if (r.contains("profile_diff") && !r["profile_diff"].is_null()) {
    Table t{"Profile diff (before vs after)", "", {}, {}, {}};
    const Json& d = r["profile_diff"];
    if (d.is_object() && d.contains("summary") && d["summary"].is_array())
      for (const auto& l : d["summary"]) t.after.push_back(v(l));
    else
      t.after.push_back(d.dump());
    out.push_back(t);
  }
  return out;
}

}  // namespace

std::string calibration_phrase(const Json& r) {
  if (!r.contains("calibration") || !r["calibration"].is_object()) return "no historical calibration";
  const Json& c = r["calibration"];
  std::string a = c.value("action", std::string("none"));
  return a == "none" ? "range not changed by the history (" + c.value("reason", std::string()) + ")"
                     : "range " + a + " by the history (" + c.value("reason", std::string()) + ")";
}

std::string audit_sections_markdown(const Json& r) {
  std::ostringstream os;
  for (const Table& t : sections(r)) {
    os << "\n## " << t.title << "\n\n";
    if (!t.intro.empty()) os << md_text(t.intro) << "\n\n";
    if (!t.head.empty() && !t.rows.empty()) {
      os << "|";
      for (const auto& h : t.head) os << " " << md_text(h) << " |";
      os << "\n|";
      for (size_t i = 0; i < t.head.size(); ++i) os << "---|";
      os << "\n";
      for (const auto& row : t.rows) {
        os << "|";
        for (const auto& c : row) os << " " << md_text(c) << " |";  // values from recordings: escaped
        os << "\n";
      }
      os << "\n";
    }
    for (const auto& l : t.after) os << md_text(l) << "\n\n";
  }
  return os.str();
}

std::string audit_sections_text(const Json& r) {
  std::ostringstream os;
  for (const Table& t : sections(r)) {
    os << "\n" << t.title << ":\n";
    if (!t.intro.empty()) os << "  " << t.intro << "\n";
    for (const auto& row : t.rows) {
      os << " ";
      for (size_t i = 0; i < row.size() && i < 5; ++i) os << " " << row[i] << (i + 1 < row.size() ? " |" : "");
      os << "\n";
    }
    for (const auto& l : t.after) os << "  " << l << "\n";
  }
  return os.str();
}

std::string audit_sections_html(const Json& r) {
  std::ostringstream os;
  for (const Table& t : sections(r)) {
    os << "<h2>" << html_text(t.title) << "</h2>\n";
    if (!t.intro.empty()) os << "<p>" << html_text(t.intro) << "</p>\n";
    if (!t.head.empty() && !t.rows.empty()) {
      os << "<table><tr>";
      for (const auto& h : t.head) os << "<th>" << html_text(h) << "</th>";
      os << "</tr>\n";
      for (const auto& row : t.rows) {
        os << "<tr>";
        for (const auto& c : row) os << "<td>" << html_text(c) << "</td>";
        os << "</tr>\n";
      }
      os << "</table>\n";
    }
    for (const auto& l : t.after) os << "<p>" << html_text(l) << "</p>\n";
  }
  return os.str();
}

}  // namespace goblin::audit
