// Robust statistics for repeated timings: medians (one slow run from a cold cache or a co-tenant
// should not move the figure) with percentile-bootstrap confidence intervals. The one
// implementation behind `goblin bench` (run/stats.h) and `goblin compare` (audit/compare.h).
//
// Bootstrap: B resamples (default 2000) with replacement, percentile interval at `level`
// (default 0.95, linear interpolation between order statistics), a fixed-seed std::mt19937_64
// (seed 0x60B11 unless given), so the same timings always give the same interval.
// Empty input (either side of a ratio) gives {0, 0, 0}: callers check sample counts first and
// say why there is no interval rather than print the zeros.
#pragma once
#include <cstdint>
#include <vector>

namespace goblin {

inline constexpr uint64_t kBootstrapSeed = 0x60B11;

// A point estimate with a confidence interval [low, high]. (Not a time interval: that is
// analysis/intervals.h's Interval.)
struct ConfidenceInterval {
  double point = 0, low = 0, high = 0;
};

// Median; 0 for an empty sample.
double median(std::vector<double> xs);
ConfidenceInterval bootstrap_median(const std::vector<double>& xs, int resamples = 2000, double level = 0.95,
                                    uint64_t seed = kBootstrapSeed);
// Ratio median(num) / median(den) with a bootstrap interval; resamples whose denominator median
// is not positive are dropped, and the point is 0 when median(den) is not positive.
ConfidenceInterval bootstrap_ratio(const std::vector<double>& num, const std::vector<double>& den, int resamples = 2000,
                                   double level = 0.95, uint64_t seed = kBootstrapSeed);

}  // namespace goblin
