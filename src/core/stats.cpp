#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace goblin {

double median(std::vector<double> xs) {
  if (xs.empty()) return 0;
  std::sort(xs.begin(), xs.end());
  size_t n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

namespace {
double percentile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  double pos = q * static_cast<double>(s.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, s.size() - 1);
  double f = pos - static_cast<double>(lo);
  return s[lo] * (1 - f) + s[hi] * f;
}

std::vector<double> resample(const std::vector<double>& xs, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, xs.size() - 1);
  std::vector<double> r(xs.size());
  for (auto& v : r) v = xs[pick(rng)];
  return r;
}
}  // namespace

ConfidenceInterval bootstrap_median(const std::vector<double>& xs, int resamples, double level, uint64_t seed) {
  ConfidenceInterval out;
  if (xs.empty()) return out;
  out.point = median(xs);
  std::mt19937_64 rng(seed);
  std::vector<double> meds;
  meds.reserve(static_cast<size_t>(resamples));
  for (int b = 0; b < resamples; ++b) meds.push_back(median(resample(xs, rng)));
  std::sort(meds.begin(), meds.end());
  double a = (1 - level) / 2;
  out.low = percentile_sorted(meds, a);
  out.high = percentile_sorted(meds, 1 - a);
  return out;
}

ConfidenceInterval bootstrap_ratio(const std::vector<double>& num, const std::vector<double>& den, int resamples,
                                   double level, uint64_t seed) {
  ConfidenceInterval out;
  if (num.empty() || den.empty()) return out;
  double md = median(den);
  out.point = md > 0 ? median(num) / md : 0;
  std::mt19937_64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int b = 0; b < resamples; ++b) {
    // Denominator first: the order of draws is part of the fixed-seed result.
    double d = median(resample(den, rng));
    double n = median(resample(num, rng));
    if (d > 0) ratios.push_back(n / d);
  }
  std::sort(ratios.begin(), ratios.end());
  double a = (1 - level) / 2;
  out.low = percentile_sorted(ratios, a);
  out.high = percentile_sorted(ratios, 1 - a);
  return out;
}

}  // namespace goblin
