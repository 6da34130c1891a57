// Figures above a physical ceiling (ceiling.h).
#include "hw/ceiling.h"

#include <fmt/format.h>

#include <cmath>

namespace goblin::hw {

std::optional<AbovePeak> above_physical_peak(double pct, std::string_view figure, std::string_view ceiling) {
  if (!std::isfinite(pct) || pct <= 100.0) return std::nullopt;
  AbovePeak a;
  a.pct = pct;
  a.figure = std::string(figure);
  a.ceiling = std::string(ceiling);
  a.message = fmt::format(
      "{} is {:.2f} % of {}: above a physical ceiling, so not a measurement; most often the shape or dtype the "
      "figure was priced with is a wrong guess (FLOPs or bytes overcounted, or the op ran on a faster path than the "
      "peak compared with)",
      a.figure, pct, a.ceiling);
  return a;
}

Json above_peak_json(const std::optional<AbovePeak>& a) {
  if (!a) return nullptr;
  return {
      {"code", kAbovePeakCode}, {"pct", std::round(a->pct * 100) / 100}, {"ceiling", a->ceiling}, {"why", a->message}};
}

std::string above_peak_marker(const std::optional<AbovePeak>& a) {
  return a ? std::string(" ") + std::string(kAbovePeakMarker) + " above the physical peak" : std::string();
}

}  // namespace goblin::hw
