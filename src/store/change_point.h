// Change points in a workload's series of runs, and the test `goblin gate` applies to its newest
// run (docs/store.md § Change points). Pure functions over numbers: no store, no clock, no RNG.
//
// Series: E-divisive means (Matteson & James, "A Nonparametric Approach for Multiple Change Point
// Analysis of Multivariate Data", JASA 2014) proposes the split that maximises the energy
// statistic; the split is kept when a two-sample Student t-test between the two sides gives
// p < max_p. That is the method of Apache Otava (incubating; formerly DataStax Hunter: Fleming et
// al., "Hunter: Using Change Point Detection to Hunt for Performance Regressions", ICPE 2023,
// arXiv:2301.03034), which replaced E-divisive's permutation test by the t-test so that the same
// series always gives the same answer. Segments are split again (binary segmentation) until no
// split passes.
//
// Newest run (the gate): is one new value outside what the baseline runs predict? Student's t
// prediction interval of the baseline (mean ± t·s·sqrt(1 + 1/n), one-sided), as Bencher's t-test
// threshold does (https://bencher.dev/docs/explanation/thresholds/). Below min_baseline runs the
// answer is "not enough data", never "pass".
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace goblin::store {

// P(T > t) for Student's t with `df` degrees of freedom (df > 0).
double student_t_sf(double t, double df);

struct ChangePointOptions {
  double max_p = 0.001;    // Otava's default --max-pvalue
  size_t min_segment = 3;  // runs on each side of a split: a change is seen 3 runs after it
  double min_magnitude_pct = 0;
};

struct ChangePoint {
  size_t index = 0;  // the first value of the new segment
  double before_mean = 0, after_mean = 0;
  double change_pct = 0;  // (after / before - 1) × 100
  double p_value = 1;     // two-sided Student t between the two sides
};

// Change points of `xs` (oldest first), in order of index. Non-finite values are a caller's bug
// and are not expected here; the store refuses them.
std::vector<ChangePoint> change_points(const std::vector<double>& xs, const ChangePointOptions& o = {});

// The gate's one-value test.
struct NewestTest {
  bool enough_data = false;
  size_t n = 0;                 // baseline runs
  double mean = 0, stddev = 0;  // of the baseline
  double t = 0, p_worse = 1;    // one-sided: the probability of a value this much worse under no change
  double threshold = 0;         // the value past which the newest is worse at `alpha`
  std::string why;              // when !enough_data: what is missing
};
inline constexpr size_t kMinBaselineRuns = 3;
// `lower_is_better`: worse means larger. alpha: one-sided significance (0.01 by default).
NewestTest newest_vs_baseline(const std::vector<double>& baseline, double newest, bool lower_is_better,
                              double alpha = 0.01, size_t min_baseline = kMinBaselineRuns);

// Mixed baselines: the coefficient of variation (stddev / mean, %) above which the baseline runs
// are too spread to be one population (a change of configuration or hardware among them).
inline constexpr double kMixedBaselineCvPct = 10;
double coefficient_of_variation_pct(const std::vector<double>& xs);

}  // namespace goblin::store
