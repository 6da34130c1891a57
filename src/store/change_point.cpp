// Change points and the gate's newest-run test (change_point.h says which methods, and why).
#include "store/change_point.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace goblin::store {
namespace {

// Continued fraction of the regularised incomplete beta function (modified Lentz; Press et al.,
// Numerical Recipes 3rd ed. § 6.4).
double beta_cf(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
    d = 1 + aa * d, c = 1 + aa / c;
    d = std::fabs(d) < kTiny ? 1 / kTiny : 1 / d;
    c = std::fabs(c) < kTiny ? kTiny : c;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
    d = 1 + aa * d, c = 1 + aa / c;
    d = std::fabs(d) < kTiny ? 1 / kTiny : 1 / d;
    c = std::fabs(c) < kTiny ? kTiny : c;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

// I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double lbt = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double bt = std::exp(lbt);
  if (x < (a + 1) / (a + b + 2)) return bt * beta_cf(a, b, x) / a;
  return 1 - bt * beta_cf(b, a, 1 - x) / b;
}

// The t with P(T > t) = p (0 < p < 0.5), by bisection: a threshold is needed once per gate.
double student_t_quantile_upper(double p, double df) {
  double lo = 0, hi = 1;
  while (student_t_sf(hi, df) > p && hi < 1e6) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (student_t_sf(mid, df) > p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

struct Moments {
  double mean = 0, var = 0;  // sample variance (n - 1)
};
Moments moments(const std::vector<double>& xs, size_t lo, size_t hi) {
  Moments m;
  const double n = static_cast<double>(hi - lo);
  for (size_t i = lo; i < hi; ++i) m.mean += xs[i];
  m.mean /= n;
  for (size_t i = lo; i < hi; ++i) m.var += (xs[i] - m.mean) * (xs[i] - m.mean);
  m.var = n > 1 ? m.var / (n - 1) : 0;
  return m;
}

// Two-sided p of the pooled two-sample Student t-test between xs[lo, mid) and xs[mid, hi).
double two_sample_p(const std::vector<double>& xs, size_t lo, size_t mid, size_t hi) {
  const Moments a = moments(xs, lo, mid), b = moments(xs, mid, hi);
  const double na = static_cast<double>(mid - lo), nb = static_cast<double>(hi - mid), df = na + nb - 2;
  if (df <= 0) return 1;
  const double pooled = ((na - 1) * a.var + (nb - 1) * b.var) / df;
  const double se = std::sqrt(pooled * (1 / na + 1 / nb));
  const double diff = std::fabs(a.mean - b.mean);
  if (se <= 0 || !std::isfinite(se)) return diff > 0 ? 0 : 1;
  return 2 * student_t_sf(diff / se, df);
}

// Sums of |x_i - x_j| over rectangular index blocks in O(1), from a 2-D prefix sum.
class DistanceSums {
 public:
  explicit DistanceSums(const std::vector<double>& xs) : n_(xs.size()), p_((n_ + 1) * (n_ + 1), 0) {
    for (size_t i = 0; i < n_; ++i)
      for (size_t j = 0; j < n_; ++j)
        at(i + 1, j + 1) = std::fabs(xs[i] - xs[j]) + at(i, j + 1) + at(i + 1, j) - at(i, j);
  }
  // Σ |x_i - x_j| for i in [a, b), j in [c, d).
  double block(size_t a, size_t b, size_t c, size_t d) const { return get(b, d) - get(a, d) - get(b, c) + get(a, c); }

 private:
  double& at(size_t i, size_t j) { return p_[i * (n_ + 1) + j]; }
  double get(size_t i, size_t j) const { return p_[i * (n_ + 1) + j]; }
  size_t n_;
  std::vector<double> p_;
};

// The split of [lo, hi) with the largest E-divisive statistic (α = 1), or hi when none is allowed.
size_t best_split(const DistanceSums& d, size_t lo, size_t hi, size_t min_segment) {
  size_t best = hi;
  double best_q = -std::numeric_limits<double>::infinity();
  for (size_t tau = lo + min_segment; tau + min_segment <= hi; ++tau) {
    const double m = static_cast<double>(tau - lo), k = static_cast<double>(hi - tau);
    const double between = d.block(lo, tau, tau, hi) * 2 / (m * k);
    const double within_a = m > 1 ? d.block(lo, tau, lo, tau) / (m * (m - 1)) : 0;  // Σ_{i<j} / C(m,2)
    const double within_b = k > 1 ? d.block(tau, hi, tau, hi) / (k * (k - 1)) : 0;
    const double q = m * k / (m + k) * (between - within_a - within_b);
    if (q > best_q) best_q = q, best = tau;
  }
  return best;
}

void split(const std::vector<double>& xs, const DistanceSums& d, size_t lo, size_t hi, const ChangePointOptions& o,
           std::vector<ChangePoint>& out) {
  if (hi - lo < 2 * o.min_segment) return;
  const size_t tau = best_split(d, lo, hi, o.min_segment);
  if (tau >= hi) return;
  const double p = two_sample_p(xs, lo, tau, hi);
  if (p >= o.max_p) return;
  const double before = moments(xs, lo, tau).mean, after = moments(xs, tau, hi).mean;
  const double change = before != 0 ? (after / before - 1) * 100 : 0;
  if (std::fabs(change) < o.min_magnitude_pct) return;
  out.push_back({tau, before, after, change, p});
  split(xs, d, lo, tau, o, out);
  split(xs, d, tau, hi, o, out);
}

}  // namespace

double student_t_sf(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return 1;
  if (std::isinf(t)) return t > 0 ? 0 : 1;
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? tail : 1 - tail;
}

std::vector<ChangePoint> change_points(const std::vector<double>& xs, const ChangePointOptions& o) {
  std::vector<ChangePoint> out;
  const ChangePointOptions opt{o.max_p, std::max<size_t>(o.min_segment, 2), o.min_magnitude_pct};
  if (xs.size() < 2 * opt.min_segment) return out;
  const DistanceSums d(xs);
  split(xs, d, 0, xs.size(), opt, out);
  std::sort(out.begin(), out.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  return out;
}

NewestTest newest_vs_baseline(const std::vector<double>& baseline, double newest, bool lower_is_better, double alpha,
                              size_t min_baseline) {
  NewestTest r;
  r.n = baseline.size();
  if (r.n < std::max<size_t>(min_baseline, 2)) {
    r.why = fmt::format("not enough data: {} baseline run(s), the test needs at least {}", r.n,
                        std::max<size_t>(min_baseline, 2));
    return r;
  }
  const Moments m = moments(baseline, 0, r.n);
  r.enough_data = true;
  r.mean = m.mean, r.stddev = std::sqrt(m.var);
  const double df = static_cast<double>(r.n - 1);
  const double scale = r.stddev * std::sqrt(1 + 1 / static_cast<double>(r.n));
  const double worse = lower_is_better ? newest - m.mean : m.mean - newest;
  const double tq = student_t_quantile_upper(alpha, df);
  r.threshold = lower_is_better ? m.mean + tq * scale : m.mean - tq * scale;
  if (scale <= 0) {
    r.t = worse > 0 ? std::numeric_limits<double>::infinity() : 0;
    r.p_worse = worse > 0 ? 0 : 1;
    return r;
  }
  r.t = worse / scale;
  r.p_worse = student_t_sf(r.t, df);
  return r;
}

double coefficient_of_variation_pct(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  const Moments m = moments(xs, 0, xs.size());
  return m.mean != 0 ? std::sqrt(m.var) / std::fabs(m.mean) * 100 : 0;
}

}  // namespace goblin::store
