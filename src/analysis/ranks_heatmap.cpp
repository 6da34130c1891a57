// The skew heatmaps of goblin ranks (docs/scale.md § heatmap), drawn from the result JSON.
#include "analysis/ranks_heatmap.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/escape.h"

namespace goblin::analysis {

namespace {

// White (0) to deep red (1).
std::string heat(double x) {
  x = std::clamp(x, 0.0, 1.0);
  const int g = static_cast<int>(255 - 200 * x), b = static_cast<int>(255 - 230 * x);
  return fmt::format("#ff{:02x}{:02x}", g, b);
}

double num(const Json& j, const char* k) {
  auto it = j.find(k);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// One heatmap: rows are ranks (in the result's order), columns matched steps; `value(step, i)`.
template <class F>
std::string heatmap(const Json& steps, size_t ranks, const std::string& title, F&& value) {
  const size_t S = steps.size();
  if (S == 0 || ranks == 0) return "<p>no matched steps</p>\n";
  const int cw = static_cast<int>(std::clamp<size_t>(720 / S, 12, 120));
  const int ch = static_cast<int>(std::clamp<size_t>(900 / ranks, 1, 16));
  const int left = 70, top = 24;
  std::vector<std::vector<double>> v(ranks, std::vector<double>(S, 0.0));
  double mx = 0;
  for (size_t s = 0; s < S; ++s)
    for (size_t i = 0; i < ranks && i < steps[s]["ranks"].size(); ++i) mx = std::max(mx, v[i][s] = value(s, i));
  std::string o;
  auto out = std::back_inserter(o);
  fmt::format_to(out, "<h2>{}</h2>\n<p>darkest: {:.3f} ms</p>\n", html_text(title), mx * 1e3);
  fmt::format_to(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n", left + cw * S + 10,
                 top + ch * ranks + 10);
  for (size_t s = 0; s < S; ++s)
    fmt::format_to(out, "<text x=\"{}\" y=\"16\" font-size=\"10\">{}</text>\n", left + cw * s + 2,
                   html_text(steps[s].value("step", "").substr(0, 14)));
  for (size_t i = 0; i < ranks; ++i) {
    const Json& r0 = steps[0]["ranks"][i];
    if (ch >= 8)
      fmt::format_to(out, "<text x=\"2\" y=\"{}\" font-size=\"10\">rank {}</text>\n", top + ch * i + ch - 1,
                     r0.value("rank", -1));
    for (size_t s = 0; s < S; ++s)
      fmt::format_to(out,
                     "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>rank {}, {}: {:.3f} "
                     "ms</title></rect>\n",
                     left + cw * s, top + ch * i, cw, ch, heat(mx > 0 ? v[i][s] / mx : 0), r0.value("rank", -1),
                     html_text(steps[s].value("step", "")), v[i][s] * 1e3);
  }
  o += "</svg>\n";
  return o;
}

}  // namespace

std::string ranks_heatmap_html(const Json& r) {
  static const Json kEmpty = Json::array();
  const Json& steps = r.contains("steps") ? r["steps"] : kEmpty;
  const size_t ranks = steps.empty() ? 0 : steps[0]["ranks"].size();
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>goblin ranks: skew</title>\n"
      "<style>body{font:14px sans-serif;margin:2em;color:#222}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#f4f4f4}</style></head><body>\n";
  auto out = std::back_inserter(o);
  fmt::format_to(out, "<h1>goblin ranks: {} ranks</h1>\n", ranks);
  if (r.contains("straggler")) fmt::format_to(out, "<p>{}</p>\n", html_text(r["straggler"].value("summary", "")));
  if (r.contains("topology")) {
    const Json& t = r["topology"];
    fmt::format_to(
        out, "<p>slow node: {}</p>\n",
        html_text(t["slow_node"].value("named", false)
                      ? t["slow_node"].value("host", std::string()) + " (" + t["slow_node"].value("reason", "") + ")"
                      : "none (" + t["slow_node"].value("reason", "") + ")"));
  }
  o += heatmap(steps, ranks, "Time waiting inside collectives, per rank and step",
               [&](size_t s, size_t i) { return num(steps[s]["ranks"][i], "wait_in_collectives_s"); });
  o += heatmap(steps, ranks, "Step time above the step's fastest rank", [&](size_t s, size_t i) {
    double lo = 1e300;
    for (const auto& x : steps[s]["ranks"]) lo = std::min(lo, num(x, "wall_s"));
    return num(steps[s]["ranks"][i], "wall_s") - lo;
  });
  if (r.contains("topology") && !r["topology"]["nodes"].empty()) {
    o += "<h2>Nodes</h2>\n<table><tr><th>host</th><th>ranks</th><th>mean step ms</th><th>waits ms</th>"
         "<th>late ms</th><th>share of lateness</th></tr>\n";
    for (const auto& n : r["topology"]["nodes"])
      fmt::format_to(out,
                     "<tr><td>{}</td><td>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.1f}%</td></tr>\n",
                     html_text(n.value("host", "")), n["ranks"].size(), num(n, "mean_step_s") * 1e3,
                     num(n, "wait_in_collectives_s") * 1e3, num(n, "late_s") * 1e3, 100 * num(n, "late_share"));
    o += "</table>\n";
  }
  o += "</body></html>\n";
  return o;
}

}  // namespace goblin::analysis
