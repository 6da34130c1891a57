// The one step time (docs/metrics.md § Step time).
#include "analysis/step_time.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace goblin::analysis {

std::optional<double> workload_step_time(const Timeline& tl) {
  auto it = tl.meta.extra.find("step_time_seconds");
  if (it == tl.meta.extra.end()) return std::nullopt;
  std::string t = it->second;  // JSON text: a number, or a number in quotes
  if (!t.empty() && t.front() == '"') t = t.substr(1, t.size() >= 2 ? t.size() - 2 : 0);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

}  // namespace goblin::analysis
