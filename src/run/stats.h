// Statistics for live timings. Medians, not means (one slow run from a cold cache or a
// co-tenant should not move the figure), with percentile-bootstrap confidence intervals.
//
// The median and bootstrap themselves are core/stats.h's (shared with `goblin compare`). Speedup = median(before) /
// median(after) of step times; its interval resamples both sides independently. A/A noise floor: the before-runs split
// by position (1st, 3rd, ... vs 2nd, 4th, ...) give a ratio that should be 1.0; its interval's larger distance from 1.0
// is the noise floor. A speedup is "significant" when its interval excludes 1.0 and its distance from 1.0 exceeds the
// floor.
#pragma once
#include <cstdint>
#include <vector>

#include "core/json.h"
#include "core/stats.h"

namespace goblin::run {

struct NoiseFloor {
  bool available = false;       // needs ≥ 4 runs
  ConfidenceInterval aa_ratio;  // median(odd runs) / median(even runs)
  double floor_pct = 0;         // max(|low-1|, |high-1|) × 100
};
NoiseFloor aa_noise_floor(const std::vector<double>& runs);

struct Comparison {
  ConfidenceInterval speedup;  // before / after step time
  NoiseFloor noise;
  bool significant = false;
  bool includes_one = true;
};
Comparison compare_step_times(const std::vector<double>& before_step_s, const std::vector<double>& after_step_s);

Json interval_to_json(const ConfidenceInterval& i, int digits = 4);
Json comparison_to_json(const Comparison& c);

}  // namespace goblin::run
