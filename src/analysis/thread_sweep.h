// Point-in-interval queries per thread: for each query time, the stack of host intervals (CPU
// ops, Python frames, annotations) open at that time on the same thread. Shared by the launch
// attribution (kernel_table.cpp), the nn.Module attribution (modules.cpp) and the stage split
// (stages.cpp). O((n + q) log(n + q)) per thread.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace goblin::analysis {

using ThreadKey = std::pair<int64_t, int64_t>;  // (pid, tid)

struct ThreadKeyHash {
  size_t operator()(const ThreadKey& p) const noexcept {
    return std::hash<int64_t>()(p.first * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(p.second));
  }
};

struct SweepQuery {
  int64_t t;
  uint32_t op;  // the caller's index (a gpu_ops row)
};

// Intervals `rows` (indices into the caller's table, with `start(r)`/`end(r)`) sorted by (start
// asc, length desc) and queries sorted by time, walked together with a stack of open intervals.
// `cb(query, stack)` sees the stack outermost first; entries may not contain t when the input
// is not well nested, so callers check containment.
template <class Start, class End, class Cb>
void sweep_intervals(std::vector<uint32_t>& rows, std::vector<SweepQuery>& qs, Start&& start, End&& end, Cb&& cb) {
  std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    if (start(a) != start(b)) return start(a) < start(b);
    return end(a) > end(b);
  });
  std::sort(qs.begin(), qs.end(), [](const SweepQuery& a, const SweepQuery& b) { return a.t < b.t; });
  std::vector<uint32_t> stack;
  size_t j = 0;
  for (const SweepQuery& q : qs) {
    while (j < rows.size() && start(rows[j]) <= q.t) {
      int64_t s = start(rows[j]);
      while (!stack.empty() && end(stack.back()) < s) stack.pop_back();
      stack.push_back(rows[j]);
      ++j;
    }
    while (!stack.empty() && end(stack.back()) < q.t) stack.pop_back();
    cb(q, stack);
  }
}

}  // namespace goblin::analysis
