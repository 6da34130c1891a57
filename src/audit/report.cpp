#include "audit/report.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <sstream>

#include "analysis/run_metrics.h"
#include "audit/report_diff.h"
#include "core/escape.h"
#include "core/io.h"
#include "core/text.h"

namespace goblin::audit {

namespace {

// One colour per waste bucket, in WasteBudget::kBuckets order.
constexpr const char* kColors[] = {"#4caf50", "#ff9800", "#f44336", "#9c27b0",
                                   "#607d8b", "#2196f3", "#795548", "#bdbdbd"};
static_assert(std::size(kColors) == WasteBudget::kBuckets.size());

std::string s_of(const Json& j, int d = 3) {
  if (j.is_null()) return "n/a";
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_float()) return format_fixed(j.get<double>(), d);
  return j.dump();
}

std::string x_of(const Json& j) {
  return j.is_number() && std::isfinite(j.get<double>()) ? format_fixed(j.get<double>(), 2) + "x" : "n/a";
}

std::string speedup_block(const Json& r) {
  std::ostringstream os;
  const Json& d = r["speedup_actual_detail"];
  os << "actual " << x_of(r["speedup_actual"]);
  if (d.contains("ci_low") && d["ci_low"].is_number())
    os << " (95% CI " << format_fixed(d["ci_low"].get<double>(), 2) << "-"
       << format_fixed(d["ci_high"].get<double>(), 2) << ")";
  os << " from " << s_of(d["basis"]);
  if (d.contains("interleaved") && d["interleaved"].is_boolean())
    os << (d["interleaved"].get<bool>() ? ", runs interleaved" : ", runs in blocks")
       << (d["run_order"].is_string() ? " " + d["run_order"].get<std::string>() : std::string());
  os << "; predicted " << x_of(r["speedup_predicted_low"]) << " .. " << x_of(r["speedup_predicted_high"]);
  os << "; prediction " << s_of(r["prediction_held"]);
  return os.str();
}

bool in_seconds(const Json& row) {
  std::string u = row.value("unit", "");
  return u == "s" || u == "s/step";
}

// Table cell: seconds are shown in milliseconds (waste buckets are often well under 1 ms).
std::string delta_cell(const Json& row, const char* k, int digits) {
  const Json& v = row[k];
  if (!v.is_number()) return "n/a";
  bool pct = std::string(k) == "pct";
  return format_fixed(v.get<double>() * (!pct && in_seconds(row) ? 1e3 : 1.0), digits);
}

std::string unit_label(const Json& row) {
  std::string u = row.value("unit", "");
  return u == "s" ? "ms" : u == "s/step" ? "ms/step" : u;
}

int digits_for(const std::string& unit) { return unit == "s" || unit == "s/step" ? 3 : unit == "tokens/s" ? 0 : 2; }

std::string scale_unit(const Json& row, const Json& v) {
  std::string u = row.value("unit", "");
  if (!v.is_number()) return "n/a";
  double x = v.get<double>();
  if (u == "s" || u == "s/step") return format_fixed(x * 1e3, 2) + " ms";
  if (u == "tokens/s") return format_fixed(x, 0);
  return format_fixed(x, 2) + (u == "%" ? " %" : " " + u);
}

}  // namespace

// "profiled 231.5 ms vs unprofiled 219.7 ms (+5.4 %, within 10 %)", or "" when not measured.
static std::string perturbation_line(const Json& r) {
  if (!r.contains("profiler_perturbation") || !r["profiler_perturbation"].is_object()) return "";
  const Json& p = r["profiler_perturbation"];
  const double pct = p.value("pct", 0.0);
  return "profiled step " + format_fixed(p.value("profiled_step_s", 0.0) * 1e3, 1) + " ms vs unprofiled " +
         format_fixed(p.value("unprofiled_step_s", 0.0) * 1e3, 1) + " ms (" + (pct > 0 ? "+" : "") +
         format_fixed(pct, 1) + " %, " +
         (p.value("within_10pct", false) ? "within 10 %" : "over 10 %: the profile's buckets are relative") + ")";
}

std::string report_text(const Json& r) {
  std::ostringstream os;
  os << "== goblin audit report: " << s_of(r["workload_name"]) << " ==\n";
  os << r.value("summary_line", "") << "\n\n";
  os << "speedup: " << speedup_block(r) << "\n";
  os << "  " << r.value("prediction_note", "") << "\n";
  if (auto p = perturbation_line(r); !p.empty()) os << "profiler perturbation: " << p << "\n";
  os << "confidence: " << s_of(r["confidence"]) << " = evidence_coverage "
     << s_of(r["confidence_detail"]["evidence_coverage"]) << " x rule_consistency "
     << s_of(r["confidence_detail"]["rule_consistency"]) << " (" << calibration_phrase(r) << ")\n\n";
  os << "metric                     before          after           change\n";
  for (const auto& row : r["metric_deltas"]) {
    if (row["before"].is_null() && row["after"].is_null()) continue;
    char b[256];
    std::string pct = row["pct"].is_number() ? format_fixed(row["pct"].get<double>(), 1) + " %" : "";
    std::snprintf(b, sizeof b, "  %-24s %-15s %-15s %s\n", row.value("metric", "").c_str(),
                  scale_unit(row, row["before"]).c_str(), scale_unit(row, row["after"]).c_str(), pct.c_str());
    os << b;
  }
  if (auto k = kernel_diff_lines(r); !k.empty()) {
    os << "\nwhat got faster (goblin diff of the before and after traces):\n";
    for (const auto& l : k) os << "  " << l << "\n";
  }
  os << "\nrules applied:\n";
  for (const auto& x : r["rules"])
    os << "  " << s_of(x["rule_id"]) << " -> " << s_of(x["targets_bucket"]) << "  " << s_of(x["citation"]) << "\n";
  if (!r["findings"].empty()) {
    os << "\nfindings:\n";
    for (const auto& f : r["findings"])
      os << "  [" << s_of(f["severity"]) << "] " << s_of(f["title"]) << ": " << s_of(f["detail"]) << "\n";
  }
  if (!r["notes"].empty()) {
    os << "\nnotes:\n";
    for (const auto& n : r["notes"]) os << "  - " << s_of(n) << "\n";
  }
  os << audit_sections_text(r);
  os << "\ndiff:\n" << r.value("diff", "(no change)") << "\n";
  os << "validity: " << r["validity_footer"].value("text", "") << "\n";
  return os.str();
}

std::string report_markdown(const Json& r) {
  // Names, notes and values come from recordings and configs: escaped for Markdown (core/escape.h).
  auto t = [](const Json& j) { return md_text(s_of(j)); };
  auto v = [&](const char* key) { return md_text(r.value(key, std::string())); };
  std::ostringstream os;
  os << "# goblin audit report: " << t(r["workload_name"]) << "\n\n";
  os << "**" << v("summary_line") << "**\n\n";
  os << "## Speedup\n\n| | value |\n|---|---|\n";
  const Json& d = r["speedup_actual_detail"];
  os << "| actual | " << x_of(r["speedup_actual"]) << " (" << t(d["basis"]) << ") |\n";
  if (d["ci_low"].is_number())
    os << "| actual 95% CI | " << format_fixed(d["ci_low"].get<double>(), 2) << "-"
       << format_fixed(d["ci_high"].get<double>(), 2) << " (" << t(d["ci_method"]) << ") |\n";
  if (d.contains("run_order_note") && d["run_order_note"].is_string())
    os << "| run order | "
       << (d["run_order"].is_string() ? md_text(d["run_order"].get<std::string>()) + ": " : std::string())
       << md_text(d["run_order_note"].get<std::string>()) << " |\n";
  if (auto p = perturbation_line(r); !p.empty()) os << "| profiler perturbation | " << p << " |\n";
  os << "| predicted | " << x_of(r["speedup_predicted_low"]) << " .. " << x_of(r["speedup_predicted_high"]) << " |\n";
  os << "| prediction | **" << t(r["prediction_held"]) << "**: " << v("prediction_note") << " |\n";
  os << "| confidence | " << t(r["confidence"]) << " = evidence_coverage "
     << t(r["confidence_detail"]["evidence_coverage"]) << " x rule_consistency "
     << t(r["confidence_detail"]["rule_consistency"]) << " (" << calibration_phrase(r) << ") |\n\n";
  os << "## Metrics\n\n| metric | before | after | delta | % |\n|---|---:|---:|---:|---:|\n";
  for (const auto& row : r["metric_deltas"]) {
    int dg = digits_for(row.value("unit", ""));
    os << "| " << t(row["metric"]) << " (" << unit_label(row) << ") | " << delta_cell(row, "before", dg) << " | "
       << delta_cell(row, "after", dg) << " | " << delta_cell(row, "delta", dg) << " | " << delta_cell(row, "pct", 1)
       << " |\n";
  }
  if (auto k = kernel_diff_lines(r); !k.empty()) {
    os << "\n## What got faster\n\n";
    for (const auto& l : k) os << "- " << l << "\n";
  }
  os << "\n## Rules applied\n\n";
  // An empty list is a result (the tuned config's audit), not a missing section.
  if (!r["rules"].is_array() || r["rules"].empty())
    os << "None: no rule's detect holds against this config and its measured evidence (`goblin kb query` lists "
          "the candidates; the trajectory's propose_patch step says why each was skipped).\n";
  for (const auto& x : r["rules"])
    os << "- " << md_code(s_of(x["rule_id"])) << " " << t(x["title"]) << " (bucket " << t(x["targets_bucket"])
       << "): " << md_link(s_of(x["citation"]), s_of(x["citation"])) << "\n";
  if (!r["findings"].empty()) {
    os << "\n## Findings\n\n";
    for (const auto& f : r["findings"]) {
      os << "- **" << t(f["severity"]) << "** " << t(f["title"]) << ": " << t(f["detail"]);
      if (f["citation"].is_string() && !f["citation"].get<std::string>().empty())
        os << " (" << md_link("source", f["citation"].get<std::string>()) << ")";
      os << "\n";
    }
  }
  if (!r["notes"].empty()) {
    os << "\n## Notes\n\n";
    for (const auto& n : r["notes"]) os << "- " << t(n) << "\n";
  }
  os << audit_sections_markdown(r);
  if (r.contains("trajectory")) {
    os << "\n## Trajectory\n\n";
    int i = 1;
    for (const auto& s : r["trajectory"])
      os << i++ << ". " << md_code(s_of(s["tool"])) << ": " << t(s["thought"]) << " -> " << t(s["outcome"]) << "\n";
  }
  os << "\n## Diff\n\n" << md_fence(r.value("diff", std::string()), "diff") << "\n";
  os << "---\n*" << md_text(r["validity_footer"].value("text", std::string())) << "*\n";
  return os.str();
}

std::string waste_budget_svg(const Json& before, const Json& after) {
  const int W = 760, H = 300, left = 90, top = 20, barH = 70, gap = 40;
  double mx = 0;
  for (const Json* b : {&before, &after})
    if (b->is_object()) {
      double t = 0;
      for (const auto& k : WasteBudget::kBuckets)
        if ((*b)[k.name].is_number()) t += (*b)[k.name].get<double>();
      mx = std::max(mx, t);
    }
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
     << " " << H << "\" role=\"img\" aria-label=\"waste budget before and after\">\n";
  os << "<style>text{font:12px sans-serif;fill:#222}</style>\n";
  if (mx <= 0) {
    os << "<text x=\"10\" y=\"30\">no waste budget observed</text></svg>";
    return os.str();
  }
  double scale = (W - left - 120) / mx;
  const char* labels[] = {"before", "after"};
  int i = 0;
  for (const Json* b : {&before, &after}) {
    int y = top + i * (barH + gap);
    os << "<text x=\"8\" y=\"" << y + barH / 2 + 4 << "\">" << labels[i] << "</text>\n";
    if (!b->is_object()) {
      os << "<text x=\"" << left << "\" y=\"" << y + barH / 2 + 4 << "\">not observed</text>\n";
      ++i;
      continue;
    }
    double x = left, total = 0;
    for (size_t k = 0; k < WasteBudget::kBuckets.size(); ++k) {
      const char* name = WasteBudget::kBuckets[k].name;
      const Json& v = (*b)[name];
      if (!v.is_number() || v.get<double>() <= 0) continue;
      double w = v.get<double>() * scale;
      total += v.get<double>();
      os << "<rect x=\"" << format_fixed(x, 1) << "\" y=\"" << y << "\" width=\"" << format_fixed(std::max(w, 0.5), 1)
         << "\" height=\"" << barH << "\" fill=\"" << kColors[k] << "\"><title>" << name << ": "
         << format_fixed(v.get<double>() * 1e3, 2) << " ms/step</title></rect>\n";
      if (w > 60)
        os << "<text x=\"" << format_fixed(x + 4, 1) << "\" y=\"" << y + barH / 2 + 4 << "\" style=\"fill:#fff\">"
           << format_fixed(v.get<double>() * 1e3, 1) << " ms</text>\n";
      x += w;
    }
    os << "<text x=\"" << format_fixed(x + 6, 1) << "\" y=\"" << y + barH / 2 + 4 << "\">"
       << format_fixed(total * 1e3, 1) << " ms/step</text>\n";
    ++i;
  }
  int ly = top + 2 * (barH + gap) - 10;
  for (size_t k = 0; k < WasteBudget::kBuckets.size(); ++k) {
    const int lx = left + static_cast<int>(k % 4) * 165, yy = ly + static_cast<int>(k / 4) * 20;
    os << "<rect x=\"" << lx << "\" y=\"" << yy - 10 << "\" width=\"12\" height=\"12\" fill=\"" << kColors[k]
       << "\"/><text x=\"" << lx + 16 << "\" y=\"" << yy << "\">" << WasteBudget::kBuckets[k].name << "</text>\n";
  }
  os << "</svg>";
  return os.str();
}

std::string report_html(const Json& r) {
  auto e = [](const Json& j) { return html_text(s_of(j)); };
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>goblin audit: "
     << e(r["workload_name"]) << "</title>\n<style>\n"
     << "body{font-family:-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:24px auto;padding:0 16px;"
        "color:#222;line-height:1.45}\n"
     << "h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}\n"
     << ".summary{font-size:16px;background:#f3f6fa;border-left:4px solid #2196f3;padding:10px 14px}\n"
     << ".cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;padding:10px "
        "14px;min-width:170px}\n"
     << ".card .v{font-size:24px;font-weight:600}.card .l{color:#666;font-size:12px}\n"
     << "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:4px 8px}"
        "td.n{text-align:right;font-variant-numeric:tabular-nums}td a{word-break:break-all}\n"
     << "pre.diff{background:#fafafa;border:1px solid #ddd;padding:8px;overflow-x:auto;font-size:12px}\n"
     << ".add{color:#1b7f2a;background:#e9f7ec;display:block}.del{color:#b3261e;background:#fdecea;display:block}"
        ".hunk{color:#6a4fb3;display:block}\n"
     << ".warning{color:#b3261e;font-weight:600}.info{color:#555;font-weight:600}\n"
     << ".held{color:#1b7f2a}.exceeded{color:#1b7f2a}.missed{color:#b3261e}\n"
     << "footer{margin-top:30px;border-top:1px solid #ddd;padding-top:8px;color:#555;font-size:13px}\n"
     << "</style></head><body>\n";
  os << "<h1>goblin audit report: " << e(r["workload_name"]) << "</h1>\n";
  os << "<p class=\"summary\">" << e(r["summary_line"]) << "</p>\n";
  const Json& d = r["speedup_actual_detail"];
  std::string held = s_of(r["prediction_held"]);
  os << "<div class=\"cards\">\n";
  os << "<div class=\"card\"><div class=\"l\">actual speedup</div><div class=\"v\">"
     << html_text(x_of(r["speedup_actual"])) << "</div><div class=\"l\">" << e(d["basis"]);
  if (d["ci_low"].is_number())
    os << "<br>95% CI " << format_fixed(d["ci_low"].get<double>(), 2) << "-"
       << format_fixed(d["ci_high"].get<double>(), 2);
  if (d.contains("interleaved") && d["interleaved"].is_boolean())
    os << "<br>" << (d["interleaved"].get<bool>() ? "runs interleaved" : "runs in blocks")
       << (d["run_order"].is_string() ? " " + html_text(d["run_order"].get<std::string>()) : std::string());
  os << "</div></div>\n";
  os << "<div class=\"card\"><div class=\"l\">predicted speedup</div><div class=\"v\">"
     << html_text(x_of(r["speedup_predicted_low"])) << " - " << html_text(x_of(r["speedup_predicted_high"]))
     << "</div><div class=\"l\">" << html_text(r.value("prediction_method", std::string("from the waste budget")))
     << "</div></div>\n";
  os << "<div class=\"card\"><div class=\"l\">prediction</div><div class=\"v " << html_text(held) << "\">"
     << html_text(held) << "</div><div class=\"l\">" << e(r["prediction_note"]) << "</div></div>\n";
  os << "<div class=\"card\"><div class=\"l\">confidence</div><div class=\"v\">" << e(r["confidence"])
     << "</div><div class=\"l\">evidence coverage " << e(r["confidence_detail"]["evidence_coverage"])
     << " &times; rule consistency " << e(r["confidence_detail"]["rule_consistency"]) << "<br>"
     << html_text(calibration_phrase(r)) << "</div></div>\n</div>\n";
  if (auto p = perturbation_line(r); !p.empty()) os << "<p>Profiler perturbation: " << html_text(p) << "</p>\n";

  os << "<h2>Waste budget (seconds per step)</h2>\n"
     << waste_budget_svg(r["waste_budget_before"], r["waste_budget_after"]) << "\n";

  os << "<h2>Metrics</h2>\n<table><tr><th>metric</th><th>unit</th><th>before</th><th>after</th><th>delta</th>"
        "<th>%</th></tr>\n";
  for (const auto& row : r["metric_deltas"]) {
    int dg = digits_for(row.value("unit", ""));
    os << "<tr><td>" << e(row["metric"]) << "</td><td>" << html_text(unit_label(row)) << "</td><td class=\"n\">"
       << delta_cell(row, "before", dg) << "</td><td class=\"n\">" << delta_cell(row, "after", dg)
       << "</td><td class=\"n\">" << delta_cell(row, "delta", dg) << "</td><td class=\"n\">"
       << delta_cell(row, "pct", 1) << "</td></tr>\n";
  }
  os << "</table>\n";

  if (auto k = kernel_diff_lines(r); !k.empty()) {
    os << "<h2>What got faster</h2>\n<ul>\n";
    for (const auto& l : k) os << "<li>" << html_text(l) << "</li>\n";
    os << "</ul>\n";
  }
  os << "<h2>Rules applied</h2>\n<table><tr><th>rule</th><th>title</th><th>bucket</th><th>est. recovery "
        "(ms/step)</th><th>citation</th></tr>\n";
  for (const auto& x : r["rules"]) {
    const Json& est = x["estimated_recovery_seconds"];
    std::string rec = est.is_object() ? format_fixed(est.value("low", 0.0) * 1e3, 2) + " - " +
                                            format_fixed(est.value("high", 0.0) * 1e3, 2)
                                      : "n/a";
    std::string c = s_of(x["citation"]);
    os << "<tr><td><code>" << e(x["rule_id"]) << "</code></td><td>" << e(x["title"]) << "</td><td>"
       << e(x["targets_bucket"]) << "</td><td class=\"n\">" << rec << "</td><td>" << html_link(c, c) << "</td></tr>\n";
  }
  os << "</table>\n";
  if (!r["rules"].is_array() || r["rules"].empty()) os << "<p>None: no rule's detect holds against this config.</p>\n";

  if (!r["findings"].empty()) {
    os << "<h2>Findings</h2>\n<ul>\n";
    for (const auto& f : r["findings"]) {
      os << "<li><span class=\"" << e(f["severity"]) << "\">" << e(f["severity"]) << "</span> <b>" << e(f["title"])
         << "</b>: " << e(f["detail"]);
      std::string c = f["citation"].is_string() ? f["citation"].get<std::string>() : "";
      if (!c.empty()) os << " (" << html_link("source", c) << ")";
      os << "</li>\n";
    }
    os << "</ul>\n";
  }
  if (!r["notes"].empty()) {
    os << "<h2>What this measurement covers</h2>\n<ul>\n";
    for (const auto& n : r["notes"]) os << "<li>" << e(n) << "</li>\n";
    os << "</ul>\n";
  }
  os << "<h2>Patch</h2>\n<pre class=\"diff\">";
  std::istringstream ds(r.value("diff", ""));
  std::string line;
  bool any = false;
  while (std::getline(ds, line)) {
    any = true;
    const char* cls = nullptr;
    if (line.rfind("@@", 0) == 0)
      cls = "hunk";
    else if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0)
      cls = nullptr;
    else if (!line.empty() && line[0] == '+')
      cls = "add";
    else if (!line.empty() && line[0] == '-')
      cls = "del";
    if (cls)
      os << "<span class=\"" << cls << "\">" << html_text(line) << "</span>";
    else
      os << html_text(line) << "\n";
  }
  if (!any) os << "(no change)";
  os << "</pre>\n";
  os << audit_sections_html(r);
  if (r.contains("trajectory")) {
    os << "<h2>Trajectory</h2>\n<ol>\n";
    for (const auto& s : r["trajectory"])
      os << "<li><code>" << e(s["tool"]) << "</code>: <i>" << e(s["thought"]) << "</i><br>&rarr; " << e(s["outcome"])
         << "</li>\n";
    os << "</ol>\n";
  }
  os << "<footer><b>Validity.</b> " << e(r["validity_footer"]["text"]) << "</footer>\n</body></html>\n";
  return os.str();
}

Status write_report_files(const Json& report, const std::string& dir, std::vector<std::string>* written) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create the report directory: " + ec.message(), dir);
  struct F {
    const char* name;
    std::string body;
  } files[] = {{"report.json", report.dump(2) + "\n"},
               {"report.md", report_markdown(report)},
               {"report.html", report_html(report)}};
  for (const auto& f : files) {
    std::string p = (std::filesystem::path(dir) / f.name).string();
    Status s = write_file(p, f.body);
    if (!s) return s;
    if (written) written->push_back(p);
  }
  return Status::Ok();
}

}  // namespace goblin::audit
