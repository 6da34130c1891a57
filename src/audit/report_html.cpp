// The Report as a self-contained HTML page (no external assets: inline CSS and an inline SVG chart
// of the waste budget before and after, the diff escaped and coloured, every rule with its citation
// as a link). Read from the Report struct.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <sstream>

#include "audit/report.h"
#include "audit/report_diff.h"
#include "audit/report_render.h"
#include "core/escape.h"
#include "core/text.h"

namespace goblin::audit {

namespace {

// One colour per waste bucket, in WasteBudget::kBuckets order.
constexpr const char* kColors[] = {"#4caf50", "#ff9800", "#f44336", "#9c27b0",
                                   "#607d8b", "#2196f3", "#795548", "#bdbdbd"};
static_assert(std::size(kColors) == analysis::WasteBudget::kBuckets.size());

// A bucket's seconds as report.json holds them (9 decimals), so the chart matches the file;
// nullopt when unobserved.
std::optional<double> bucket_s(const analysis::WasteBudget& w, size_t k) {
  const auto& b = analysis::WasteBudget::kBuckets[k];
  if (!w.observed(b.name)) return std::nullopt;
  return round_to(w.*b.field, 9);
}

constexpr const char* kStyle =
    "body{font-family:-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:24px auto;padding:0 16px;"
    "color:#222;line-height:1.45}\n"
    "h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}\n"
    ".summary{font-size:16px;background:#f3f6fa;border-left:4px solid #2196f3;padding:10px 14px}\n"
    ".cards{display:flex;gap:12px;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;padding:10px "
    "14px;min-width:170px}\n"
    ".card .v{font-size:24px;font-weight:600}.card .l{color:#666;font-size:12px}\n"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:4px 8px}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}td a{word-break:break-all}\n"
    "pre.diff{background:#fafafa;border:1px solid #ddd;padding:8px;overflow-x:auto;font-size:12px}\n"
    ".add{color:#1b7f2a;background:#e9f7ec;display:block}.del{color:#b3261e;background:#fdecea;display:block}"
    ".hunk{color:#6a4fb3;display:block}\n"
    ".warning{color:#b3261e;font-weight:600}.info{color:#555;font-weight:600}\n"
    ".held{color:#1b7f2a}.exceeded{color:#1b7f2a}.missed{color:#b3261e}\n"
    "footer{margin-top:30px;border-top:1px solid #ddd;padding-top:8px;color:#555;font-size:13px}\n";

}  // namespace

using namespace render;

std::string waste_budget_svg(const std::optional<analysis::WasteBudget>& before,
                             const std::optional<analysis::WasteBudget>& after) {
  const int W = 760, H = 300, left = 90, top = 20, barH = 70, gap = 40;
  double mx = 0;
  for (const auto* b : {&before, &after})
    if (*b) {
      double t = 0;
      for (size_t k = 0; k < analysis::WasteBudget::kBuckets.size(); ++k) t += bucket_s(**b, k).value_or(0.0);
      mx = std::max(mx, t);
    }
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"waste budget before and after\">\n",
      W, H);
  auto out = std::back_inserter(s);
  s += "<style>text{font:12px sans-serif;fill:#222}</style>\n";
  if (mx <= 0) {
    s += "<text x=\"10\" y=\"30\">no waste budget observed</text></svg>";
    return s;
  }
  double scale = (W - left - 120) / mx;
  const char* labels[] = {"before", "after"};
  int i = 0;
  for (const auto* b : {&before, &after}) {
    int y = top + i * (barH + gap);
    fmt::format_to(out, "<text x=\"8\" y=\"{}\">{}</text>\n", y + barH / 2 + 4, labels[i]);
    if (!*b) {
      fmt::format_to(out, "<text x=\"{}\" y=\"{}\">not observed</text>\n", left, y + barH / 2 + 4);
      ++i;
      continue;
    }
    double x = left, total = 0;
    for (size_t k = 0; k < analysis::WasteBudget::kBuckets.size(); ++k) {
      const char* name = analysis::WasteBudget::kBuckets[k].name;
      const std::optional<double> v = bucket_s(**b, k);
      if (!v || *v <= 0) continue;
      double w = *v * scale;
      total += *v;
      fmt::format_to(out,
                     "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: {} ms/step</title>"
                     "</rect>\n",
                     format_fixed(x, 1), y, format_fixed(std::max(w, 0.5), 1), barH, kColors[k], name,
                     format_fixed(*v * 1e3, 2));
      if (w > 60)
        fmt::format_to(out, "<text x=\"{}\" y=\"{}\" style=\"fill:#fff\">{} ms</text>\n", format_fixed(x + 4, 1),
                       y + barH / 2 + 4, format_fixed(*v * 1e3, 1));
      x += w;
    }
    fmt::format_to(out, "<text x=\"{}\" y=\"{}\">{} ms/step</text>\n", format_fixed(x + 6, 1), y + barH / 2 + 4,
                   format_fixed(total * 1e3, 1));
    ++i;
  }
  int ly = top + 2 * (barH + gap) - 10;
  for (size_t k = 0; k < analysis::WasteBudget::kBuckets.size(); ++k) {
    const int lx = left + static_cast<int>(k % 4) * 165, yy = ly + static_cast<int>(k / 4) * 20;
    fmt::format_to(
        out, "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n", lx,
        yy - 10, kColors[k], lx + 16, yy, analysis::WasteBudget::kBuckets[k].name);
  }
  s += "</svg>";
  return s;
}

std::string report_html(const Report& r) {
  auto e = [](const std::string& x) { return html_text(x); };
  std::string s;
  auto out = std::back_inserter(s);
  fmt::format_to(out,
                 "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>goblin audit: {}</title>\n"
                 "<style>\n{}</style></head><body>\n",
                 e(r.workload_name), kStyle);
  fmt::format_to(out, "<h1>goblin audit report: {}</h1>\n<p class=\"summary\">{}</p>\n", e(r.workload_name),
                 e(r.summary_line));
  const SpeedupDetail& d = r.speedup_actual_detail;
  const std::string& held = r.prediction_held;
  s += "<div class=\"cards\">\n";
  fmt::format_to(out,
                 "<div class=\"card\"><div class=\"l\">actual speedup</div><div class=\"v\">{}</div><div "
                 "class=\"l\">{}",
                 e(times(r.speedup_actual)), e(d.basis));
  if (d.ci_low && d.ci_high)
    fmt::format_to(out, "<br>95% CI {}-{}", format_fixed(*d.ci_low, 2), format_fixed(*d.ci_high, 2));
  if (d.interleaved)
    fmt::format_to(out, "<br>{}{}", *d.interleaved ? "runs interleaved" : "runs in blocks",
                   d.run_order ? " " + e(*d.run_order) : std::string());
  s += "</div></div>\n";
  fmt::format_to(out,
                 "<div class=\"card\"><div class=\"l\">predicted speedup</div><div class=\"v\">{} - {}</div><div "
                 "class=\"l\">{}</div></div>\n",
                 e(times(r.speedup_predicted_low)), e(times(r.speedup_predicted_high)),
                 e(r.prediction_method.value_or("from the waste budget")));
  fmt::format_to(out,
                 "<div class=\"card\"><div class=\"l\">prediction</div><div class=\"v {0}\">{0}</div><div "
                 "class=\"l\">{1}</div></div>\n",
                 e(held), e(r.prediction_note));
  fmt::format_to(out,
                 "<div class=\"card\"><div class=\"l\">confidence</div><div class=\"v\">{}</div><div "
                 "class=\"l\">evidence coverage {} &times; rule consistency {}<br>{}</div></div>\n</div>\n",
                 e(num(r.confidence)), e(num(r.confidence_detail.evidence_coverage)),
                 e(num(r.confidence_detail.rule_consistency)), e(calibration_phrase(r)));
  if (auto p = perturbation_line(r); !p.empty()) fmt::format_to(out, "<p>Profiler perturbation: {}</p>\n", e(p));

  fmt::format_to(out, "<h2>Waste budget (seconds per step)</h2>\n{}\n",
                 waste_budget_svg(r.waste_budget_before, r.waste_budget_after));

  s += "<h2>Metrics</h2>\n<table><tr><th>metric</th><th>unit</th><th>before</th><th>after</th><th>delta</th>"
       "<th>%</th></tr>\n";
  for (const auto& row : r.metric_deltas) {
    int dg = digits_for(row.unit);
    fmt::format_to(out,
                   "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                   "<td class=\"n\">{}</td></tr>\n",
                   e(row.metric), e(unit_label(row)), delta_cell(row, row.before, false, dg),
                   delta_cell(row, row.after, false, dg), delta_cell(row, row.delta, false, dg),
                   delta_cell(row, row.pct, true, 1));
  }
  s += "</table>\n";

  if (auto k = kernel_diff_lines(r); !k.empty()) {
    s += "<h2>What got faster</h2>\n<ul>\n";
    for (const auto& l : k) fmt::format_to(out, "<li>{}</li>\n", e(l));
    s += "</ul>\n";
  }
  s += "<h2>Rules applied</h2>\n<table><tr><th>rule</th><th>title</th><th>bucket</th><th>est. recovery "
       "(ms/step)</th><th>citation</th></tr>\n";
  for (const auto& x : r.rules) {
    std::string rec = x.estimated_recovery_seconds ? format_fixed(x.estimated_recovery_seconds->low * 1e3, 2) + " - " +
                                                         format_fixed(x.estimated_recovery_seconds->high * 1e3, 2)
                                                   : "n/a";
    fmt::format_to(out, "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
                   e(x.rule_id), e(x.title), e(x.targets_bucket), rec, html_link(x.citation, x.citation));
  }
  s += "</table>\n";
  if (r.rules.empty()) s += "<p>None: no rule's detect holds against this config.</p>\n";

  if (!r.findings.empty()) {
    s += "<h2>Findings</h2>\n<ul>\n";
    for (const auto& f : r.findings) {
      fmt::format_to(out, "<li><span class=\"{0}\">{0}</span> <b>{1}</b>: {2}", e(f.severity), e(f.title), e(f.detail));
      if (!f.citation.empty()) fmt::format_to(out, " ({})", html_link("source", f.citation));
      s += "</li>\n";
    }
    s += "</ul>\n";
  }
  if (!r.notes.empty()) {
    s += "<h2>What this measurement covers</h2>\n<ul>\n";
    for (const auto& n : r.notes) fmt::format_to(out, "<li>{}</li>\n", e(n));
    s += "</ul>\n";
  }
  s += "<h2>Patch</h2>\n<pre class=\"diff\">";
  std::istringstream ds(r.diff);
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
      fmt::format_to(out, "<span class=\"{}\">{}</span>", cls, e(line));
    else
      fmt::format_to(out, "{}\n", e(line));
  }
  if (!any) s += "(no change)";
  s += "</pre>\n";
  s += audit_sections_html(r);
  if (r.trajectory) {
    s += "<h2>Trajectory</h2>\n<ol>\n";
    for (const auto& st : *r.trajectory)
      fmt::format_to(out, "<li><code>{}</code>: <i>{}</i><br>&rarr; {}</li>\n", e(st.tool), e(st.thought),
                     e(st.outcome));
    s += "</ol>\n";
  }
  fmt::format_to(out, "<footer><b>Validity.</b> {}</footer>\n</body></html>\n", e(r.validity_footer.text));
  return s;
}

}  // namespace goblin::audit
