#include "analysis/exposure.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace goblin::analysis {

namespace {
struct Edge {
  int64_t t;
  uint32_t op;
  bool is_start;
};
}  // namespace

ExposureResult compute_exposure(const Timeline& tl) {
  const GpuOpTable& ops = tl.gpu_ops;
  ExposureResult r;
  r.hidden_ns.assign(ops.size(), 0);

  // Group op indices by device.
  std::unordered_map<int32_t, std::vector<uint32_t>> by_dev;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.dur_ns[i] < 0) {
      ++r.negative_duration_ops;
      continue;
    }
    by_dev[ops.device[i]].push_back(static_cast<uint32_t>(i));
  }
  std::vector<int32_t> devs;
  for (auto& [d, _] : by_dev) devs.push_back(d);
  std::sort(devs.begin(), devs.end());

  std::vector<Edge> edges;
  std::vector<int64_t> h_at_start(ops.size(), 0);
  for (int32_t dev : devs) {
    const auto& idx = by_dev[dev];
    DeviceExposure de;
    de.device = dev;
    de.ops = static_cast<int64_t>(idx.size());
    edges.clear();
    edges.reserve(idx.size() * 2);
    // By track (one per stream of this device); a row of a timeline not finished (built by
    // hand, no track yet) counts by its stream, so it is never merged with other streams.
    std::map<std::pair<int32_t, int64_t>, int> stream_active;
    auto stream_of = [&](size_t i) {
      return std::pair<int32_t, int64_t>{ops.track[i], ops.track[i] == kNone ? ops.stream[i] : 0};
    };
    int64_t wmin = INT64_MAX, wmax = INT64_MIN;
    for (uint32_t i : idx) {
      int64_t s = ops.start_ns[i], e = ops.end_ns(i);
      de.op_time_ns += e - s;
      wmin = std::min(wmin, s);
      wmax = std::max(wmax, e);
      stream_active.emplace(stream_of(i), 0);
      if (e == s) continue;  // zero-duration ops: no time, no edges (hidden stays 0)
      edges.push_back({s, i, true});
      edges.push_back({e, i, false});
    }
    de.streams = static_cast<int>(stream_active.size());
    de.window_start_ns = idx.empty() ? 0 : wmin;
    de.window_end_ns = idx.empty() ? 0 : wmax;
    // Half-open intervals: at equal times, ends before starts.
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
      if (a.t != b.t) return a.t < b.t;
      return a.is_start < b.is_start;
    });
    int distinct = 0;
    int64_t H = 0, prev = edges.empty() ? 0 : edges.front().t;
    for (const Edge& ev : edges) {
      if (ev.t != prev) {
        int64_t dt = ev.t - prev;
        if (distinct >= 1) de.busy_ns += dt;
        if (distinct >= 2) H += dt;
        prev = ev.t;
      }
      int& cnt = stream_active[stream_of(ev.op)];
      if (ev.is_start) {
        h_at_start[ev.op] = H;
        if (cnt++ == 0) ++distinct;
        de.peak_concurrency = std::max(de.peak_concurrency, distinct);
      } else {
        r.hidden_ns[ev.op] = H - h_at_start[ev.op];
        if (--cnt == 0) --distinct;
      }
    }
    de.multi_stream_ns = H;
    for (uint32_t i : idx) {
      de.hidden_ns += r.hidden_ns[i];
      de.exposed_ns += ops.dur_ns[i] - r.hidden_ns[i];
    }
    r.devices.push_back(de);
  }
  return r;
}

}  // namespace goblin::analysis
