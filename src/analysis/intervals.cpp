#include "analysis/intervals.h"

#include <algorithm>

namespace goblin::analysis {

IntervalSet union_of(std::vector<Interval> v) {
  std::erase_if(v, [](const Interval& i) { return i.end <= i.start; });
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  IntervalSet out;
  out.reserve(v.size());
  for (const Interval& i : v) {
    if (!out.empty() && i.start <= out.back().end) {
      out.back().end = std::max(out.back().end, i.end);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

int64_t total_length(const IntervalSet& s) {
  int64_t t = 0;
  for (const Interval& i : s) t += i.length();
  return t;
}

IntervalSet unite(const IntervalSet& a, const IntervalSet& b) {
  std::vector<Interval> v;
  v.reserve(a.size() + b.size());
  v.insert(v.end(), a.begin(), a.end());
  v.insert(v.end(), b.begin(), b.end());
  return union_of(std::move(v));
}

IntervalSet intersect(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t s = std::max(a[i].start, b[j].start);
    int64_t e = std::min(a[i].end, b[j].end);
    if (s < e) out.push_back({s, e});
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

IntervalSet subtract(const IntervalSet& a, const IntervalSet& b) {
  IntervalSet out;
  size_t j = 0;
  for (const Interval& x : a) {
    int64_t cur = x.start;
    while (j < b.size() && b[j].end <= cur) ++j;
    size_t k = j;
    while (k < b.size() && b[k].start < x.end) {
      if (b[k].start > cur) out.push_back({cur, b[k].start});
      cur = std::max(cur, b[k].end);
      if (cur >= x.end) break;
      ++k;
    }
    if (cur < x.end) out.push_back({cur, x.end});
  }
  return out;
}

IntervalSet clip(const IntervalSet& s, Interval window) {
  IntervalSet out;
  if (window.end <= window.start) return out;
  // First interval ending after the window start (binary search: O(log n + k)).
  auto it = std::upper_bound(s.begin(), s.end(), window.start, [](int64_t t, const Interval& i) { return t < i.end; });
  for (; it != s.end() && it->start < window.end; ++it) {
    int64_t st = std::max(it->start, window.start);
    int64_t en = std::min(it->end, window.end);
    if (st < en) out.push_back({st, en});
  }
  return out;
}

IntervalSet gaps(const IntervalSet& s, Interval window) {
  if (window.end <= window.start) return {};
  return subtract(IntervalSet{window}, clip(s, window));
}

}  // namespace goblin::analysis
