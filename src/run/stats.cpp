#include "run/stats.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace goblin::run {

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

Interval bootstrap_median(const std::vector<double>& xs, int resamples, double level, uint64_t seed) {
  Interval out;
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

Interval bootstrap_ratio(const std::vector<double>& num, const std::vector<double>& den, int resamples, double level,
                         uint64_t seed) {
  Interval out;
  if (num.empty() || den.empty()) return out;
  double md = median(den);
  out.point = md > 0 ? median(num) / md : 0;
  std::mt19937_64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int b = 0; b < resamples; ++b) {
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

Comparison compare_runs(const std::vector<double>& before, const std::vector<double>& after) {
  Comparison c;
  c.speedup = bootstrap_ratio(before, after);
  c.noise = aa_noise_floor(before);
  c.includes_one = c.speedup.low <= 1.0 && c.speedup.high >= 1.0;
  double dist = 100.0 * std::fabs(c.speedup.point - 1.0);
  c.significant = !c.includes_one && (!c.noise.available || dist > c.noise.floor_pct);
  return c;
}

Json interval_to_json(const Interval& i, int digits) {
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
