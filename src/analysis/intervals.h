// Interval algebra over [start, end) nanosecond intervals: the basis of busy/idle, exposed
// communication, overlap and the additive waste budget.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace goblin::analysis {

struct Interval {
  int64_t start = 0, end = 0;  // [start, end)
  int64_t length() const { return end > start ? end - start : 0; }
  bool operator==(const Interval&) const = default;
};

// A sorted, disjoint, non-adjacent set of intervals.
using IntervalSet = std::vector<Interval>;

IntervalSet union_of(std::vector<Interval> intervals);  // sorts, merges overlapping/touching
int64_t total_length(const IntervalSet& s);
IntervalSet unite(const IntervalSet& a, const IntervalSet& b);  // a ∪ b
IntervalSet intersect(const IntervalSet& a, const IntervalSet& b);
IntervalSet subtract(const IntervalSet& a, const IntervalSet& b);  // a \ b
IntervalSet clip(const IntervalSet& s, Interval window);
// Gaps of `s` inside `window` (window \ s).
IntervalSet gaps(const IntervalSet& s, Interval window);

}  // namespace goblin::analysis
