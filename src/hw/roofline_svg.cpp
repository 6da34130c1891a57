// The roofline as an SVG chart: roofs, ridge points and one dot per op or kernel group.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "core/text.h"
#include "hw/roofline.h"

namespace goblin::hw {

namespace {
std::string esc(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}
}  // namespace

std::string roofline_svg(const std::string& title, double bw_gbs, const std::vector<SvgRoof>& roofs,
                         const std::vector<SvgPoint>& points) {
  const double W = 720, H = 460, L = 70, R = 20, T = 40, B = 50;
  double xmin = 1e-2, xmax = 1e4, ymin = 1e-3, ymax = 1e4;
  double pmax = 0;
  for (auto& r : roofs) pmax = std::max(pmax, r.peak_tflops);
  for (auto& p : points)
    if (p.tflops > 0 && p.intensity > 0) {
      xmin = std::min(xmin, p.intensity / 2);
      xmax = std::max(xmax, p.intensity * 2);
      ymin = std::min(ymin, p.tflops / 2);
    }
  if (pmax > 0) ymax = std::max(pmax * 2, 1.0);
  xmin = std::pow(10, std::floor(std::log10(xmin)));
  xmax = std::pow(10, std::ceil(std::log10(xmax)));
  ymin = std::pow(10, std::floor(std::log10(ymin)));
  ymax = std::pow(10, std::ceil(std::log10(ymax)));
  auto X = [&](double x) {
    return L + (std::log10(x) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin)) * (W - L - R);
  };
  auto Y = [&](double y) {
    return H - B - (std::log10(y) - std::log10(ymin)) / (std::log10(ymax) - std::log10(ymin)) * (H - T - B);
  };
  // Numbers as a stream printed them (%g, six significant digits): the chart's bytes stay as they were.
  std::string o;
  auto out = std::back_inserter(o);
  fmt::format_to(out,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"goblin-roofline\" width=\"{:g}\" height=\"{:g}\" "
                 "viewBox=\"0 0 {:g} {:g}\" font-family=\"sans-serif\" font-size=\"11\">\n",
                 W, H, W, H);
  o += "<style>.compute{fill:#d62728}.memory{fill:#1f77b4}.unknown{fill:#7f7f7f}.roof{stroke:#222;stroke-width:2;fill:"
       "none}"
       ".grid{stroke:#ddd;stroke-width:1}</style>\n";
  fmt::format_to(out, "<text x=\"{:g}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n", W / 2,
                 esc(title));
  for (double x = xmin; x <= xmax * 1.0001; x *= 10)
    fmt::format_to(out,
                   "<line class=\"grid\" x1=\"{:g}\" y1=\"{:g}\" x2=\"{:g}\" y2=\"{:g}\"/><text x=\"{:g}\" y=\"{:g}\" "
                   "text-anchor=\"middle\">{}</text>\n",
                   X(x), T, X(x), H - B, X(x), H - B + 15, format_sig(x, 3));
  for (double y = ymin; y <= ymax * 1.0001; y *= 10)
    fmt::format_to(out,
                   "<line class=\"grid\" x1=\"{:g}\" y1=\"{:g}\" x2=\"{:g}\" y2=\"{:g}\"/><text x=\"{:g}\" y=\"{:g}\" "
                   "text-anchor=\"end\">{}</text>\n",
                   L, Y(y), W - R, Y(y), L - 5, Y(y) + 4, format_sig(y, 3));
  fmt::format_to(out, "<text x=\"{:g}\" y=\"{:g}\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>\n",
                 (L + W - R) / 2, H - 12);
  fmt::format_to(out, "<text transform=\"rotate(-90)\" x=\"{:g}\" y=\"16\" text-anchor=\"middle\">TFLOP/s</text>\n",
                 -(T + H - B) / 2);
  for (auto& r : roofs) {
    if (r.peak_tflops <= 0) continue;
    if (bw_gbs > 0) {
      double ridge = r.peak_tflops * 1e12 / (bw_gbs * 1e9);
      double x0 = xmin, y0 = x0 * bw_gbs * 1e9 / 1e12;
      if (y0 < ymin) {
        y0 = ymin;
        x0 = ymin * 1e12 / (bw_gbs * 1e9);
      }
      fmt::format_to(out, "<polyline class=\"roof\" points=\"{:g},{:g} {:g},{:g} {:g},{:g}\"/>\n", X(x0), Y(y0),
                     X(ridge), Y(r.peak_tflops), X(xmax), Y(r.peak_tflops));
      fmt::format_to(
          out, "<circle cx=\"{:g}\" cy=\"{:g}\" r=\"3\" fill=\"#222\"><title>ridge {}: {} FLOP/B</title></circle>\n",
          X(ridge), Y(r.peak_tflops), esc(r.label), format_sig(ridge, 4));
    } else {
      fmt::format_to(out, "<line class=\"roof\" x1=\"{:g}\" y1=\"{:g}\" x2=\"{:g}\" y2=\"{:g}\"/>\n", L,
                     Y(r.peak_tflops), W - R, Y(r.peak_tflops));
    }
    fmt::format_to(out, "<text x=\"{:g}\" y=\"{:g}\" text-anchor=\"end\">{} {} TFLOP/s</text>\n", W - R - 4,
                   Y(r.peak_tflops) - 4, esc(r.label), format_sig(r.peak_tflops, 5));
  }
  if (bw_gbs > 0)
    fmt::format_to(out, "<text x=\"{:g}\" y=\"{:g}\">HBM {} GB/s</text>\n", L + 6, T + 14, format_sig(bw_gbs, 5));
  for (auto& p : points) {
    if (p.tflops <= 0 || p.intensity <= 0) continue;
    fmt::format_to(
        out,
        "<circle class=\"{}\" cx=\"{:g}\" cy=\"{:g}\" r=\"4\" fill-opacity=\"0.75\"><title>{}: {} TFLOP/s at {} "
        "FLOP/B</title></circle>\n",
        esc(p.cls.empty() ? "unknown" : p.cls), X(p.intensity), Y(p.tflops), esc(p.label), format_sig(p.tflops, 4),
        format_sig(p.intensity, 4));
  }
  o += "</svg>\n";
  return o;
}

std::string roofline_svg(const RooflineReport& r) {
  std::vector<SvgRoof> roofs;
  for (auto& [k, v] : r.ridges)
    if (auto p = r.gpu.peak_tflops(k)) roofs.push_back({k, *p});
  if (roofs.empty())
    for (const char* k : {"fp32", "bf16"})
      if (auto p = r.gpu.peak_tflops(k)) roofs.push_back({k, *p});
  std::vector<SvgPoint> pts;
  for (auto& p : r.ops) pts.push_back({p.label, p.intensity, p.achieved_tflops, p.bound});
  return roofline_svg("Roofline: " + r.gpu.name, r.bandwidth_gbs, roofs, pts);
}

}  // namespace goblin::hw
