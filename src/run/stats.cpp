#include "run/stats.h"

#include <algorithm>
#include <cmath>

namespace goblin::run {

NoiseFloor aa_noise_floor(const std::vector<double>& runs) {
  NoiseFloor nf;
  if (runs.size() < 4) return nf;
  std::vector<double> odd, even;
  for (size_t i = 0; i < runs.size(); ++i) (i % 2 ? even : odd).push_back(runs[i]);
  nf.available = true;
  nf.aa_ratio = bootstrap_ratio(odd, even);
  nf.floor_pct = 100.0 * std::max(std::fabs(nf.aa_ratio.low - 1.0), std::fabs(nf.aa_ratio.high - 1.0));
  return nf;
}

Comparison compare_step_times(const std::vector<double>& before, const std::vector<double>& after) {
  Comparison c;
  c.speedup = bootstrap_ratio(before, after);
  c.noise = aa_noise_floor(before);
  c.includes_one = c.speedup.low <= 1.0 && c.speedup.high >= 1.0;
  double dist = 100.0 * std::fabs(c.speedup.point - 1.0);
  c.significant = !c.includes_one && (!c.noise.available || dist > c.noise.floor_pct);
  return c;
}

Json interval_to_json(const ConfidenceInterval& i, int digits) {
  return Json{
      {"point", round_to(i.point, digits)}, {"low", round_to(i.low, digits)}, {"high", round_to(i.high, digits)}};
}

Json comparison_to_json(const Comparison& c) {
  Json j;
  j["speedup"] = interval_to_json(c.speedup);
  j["interval_includes_1"] = c.includes_one;
  j["significant"] = c.significant;
  if (c.noise.available) {
    j["aa_noise_floor"] = Json{{"aa_ratio", interval_to_json(c.noise.aa_ratio)},
                               {"floor_pct", round_to(c.noise.floor_pct, 2)},
                               {"method", "before runs split odd/even positions; bootstrap ratio of medians"}};
  } else {
    j["aa_noise_floor"] = nullptr;
  }
  j["bootstrap"] =
      Json{{"resamples", 2000}, {"level", 0.95}, {"seed", kBootstrapSeed}, {"statistic", "median step time"}};
  return j;
}

}  // namespace goblin::run
