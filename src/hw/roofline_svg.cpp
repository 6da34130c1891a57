// The roofline as an SVG chart: roofs, ridge points and one dot per op or kernel group.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/text.h"
#include "hw/roofline.h"

namespace goblin {

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
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"goblin-roofline\" width=\"" << W << "\" height=\"" << H
    << "\" viewBox=\"0 0 " << W << " " << H << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o << "<style>.compute{fill:#d62728}.memory{fill:#1f77b4}.unknown{fill:#7f7f7f}.roof{stroke:#222;stroke-width:2;fill:"
       "none}"
       ".grid{stroke:#ddd;stroke-width:1}</style>\n";
  o << "<text x=\"" << W / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">" << esc(title) << "</text>\n";
  for (double x = xmin; x <= xmax * 1.0001; x *= 10)
    o << "<line class=\"grid\" x1=\"" << X(x) << "\" y1=\"" << T << "\" x2=\"" << X(x) << "\" y2=\"" << H - B
      << "\"/><text x=\"" << X(x) << "\" y=\"" << H - B + 15 << "\" text-anchor=\"middle\">" << format_sig(x, 3)
      << "</text>\n";
  for (double y = ymin; y <= ymax * 1.0001; y *= 10)
    o << "<line class=\"grid\" x1=\"" << L << "\" y1=\"" << Y(y) << "\" x2=\"" << W - R << "\" y2=\"" << Y(y)
      << "\"/><text x=\"" << L - 5 << "\" y=\"" << Y(y) + 4 << "\" text-anchor=\"end\">" << format_sig(y, 3)
      << "</text>\n";
  o << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12
    << "\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>\n";
  o << "<text transform=\"rotate(-90)\" x=\"" << -(T + H - B) / 2
    << "\" y=\"16\" text-anchor=\"middle\">TFLOP/s</text>\n";
  for (auto& r : roofs) {
    if (r.peak_tflops <= 0) continue;
    if (bw_gbs > 0) {
      double ridge = r.peak_tflops * 1e12 / (bw_gbs * 1e9);
      double x0 = xmin, y0 = x0 * bw_gbs * 1e9 / 1e12;
      if (y0 < ymin) {
        y0 = ymin;
        x0 = ymin * 1e12 / (bw_gbs * 1e9);
      }
      o << "<polyline class=\"roof\" points=\"" << X(x0) << "," << Y(y0) << " " << X(ridge) << "," << Y(r.peak_tflops)
        << " " << X(xmax) << "," << Y(r.peak_tflops) << "\"/>\n";
      o << "<circle cx=\"" << X(ridge) << "\" cy=\"" << Y(r.peak_tflops) << "\" r=\"3\" fill=\"#222\"><title>ridge "
        << esc(r.label) << ": " << format_sig(ridge, 4) << " FLOP/B</title></circle>\n";
    } else {
      o << "<line class=\"roof\" x1=\"" << L << "\" y1=\"" << Y(r.peak_tflops) << "\" x2=\"" << W - R << "\" y2=\""
        << Y(r.peak_tflops) << "\"/>\n";
    }
    o << "<text x=\"" << W - R - 4 << "\" y=\"" << Y(r.peak_tflops) - 4 << "\" text-anchor=\"end\">" << esc(r.label)
      << " " << format_sig(r.peak_tflops, 5) << " TFLOP/s</text>\n";
  }
  if (bw_gbs > 0)
    o << "<text x=\"" << L + 6 << "\" y=\"" << T + 14 << "\">HBM " << format_sig(bw_gbs, 5) << " GB/s</text>\n";
  for (auto& p : points) {
    if (p.tflops <= 0 || p.intensity <= 0) continue;
    o << "<circle class=\"" << esc(p.cls.empty() ? "unknown" : p.cls) << "\" cx=\"" << X(p.intensity) << "\" cy=\""
      << Y(p.tflops) << "\" r=\"4\" fill-opacity=\"0.75\"><title>" << esc(p.label) << ": " << format_sig(p.tflops, 4)
      << " TFLOP/s at " << format_sig(p.intensity, 4) << " FLOP/B</title></circle>\n";
  }
  o << "</svg>\n";
  return o.str();
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

}  // namespace goblin
