// critical_path's graph (docs/critical_path.md § The graph). Everything here is one pass over the
// sorted tables (Timeline::finish) plus binary searches: no recursion, no per-node allocation, so
// a huge or hostile trace costs O(n log n) time and three ints a node.
#include "analysis/critical_path_graph.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "analysis/breakdown.h"
#include "analysis/taxonomy.h"

namespace goblin::analysis::critical_path_detail {

namespace {

// A GPU op that starts this much later than both its stream predecessor's end and its launch has
// a start neither explains; an op of another stream of its device that ended within the same
// slack before it is taken as what it waited for (an event wait: cudaStreamWaitEvent /
// hipStreamWaitEvent), on devices whose trace does not name its waits (wait_sources: Kineto's
// cuda_sync "Stream Wait Event" rows with their arguments make the edge exact). 2 µs: above the sub-µs stream-to-stream
// gap of back-to-back kernels on H100/MI300X traces, below a launch.
constexpr int64_t kUnexplainedNs = 2000;
constexpr int64_t kCrossSlackNs = 20000;
// A host synchronisation returns at most this long after the GPU op it waited for ends (timestamp
// rounding of Kineto's µs clocks).
constexpr int64_t kSyncSlackNs = 2000;
// How far back the cross-stream search looks among the device's ops ending before a start.
constexpr int kCrossProbe = 16;
// A CPU thread idle this long between two calls, resuming within kThreadSlackNs of the end of a
// call on another thread of its process, is taken to have waited for that thread (loss.backward()
// on the main thread returns when autograd's device thread is done; a queue handing work over).
constexpr int64_t kThreadGapNs = 50000;
constexpr int64_t kThreadSlackNs = 1000000;
// A launch call longer than max(20 × the median launch call, 100 µs) that returned right after a
// GPU op ended was blocked on the full launch queue (CUDA's pending-launch limit): the H100 fp32
// Llama fixture's main thread spends 237 ms of 4 steps in such calls, up to 10.5 ms each.
constexpr int64_t kBlockedLaunchFactor = 20;
constexpr int64_t kBlockedLaunchFloorNs = 100000;

bool blocking_copy(std::string_view n) {
  // cudaMemcpy / hipMemcpy (and their 2D/3D/ToSymbol forms) without "Async" return after the copy.
  return n.find("Memcpy") != std::string_view::npos && n.find("Async") == std::string_view::npos;
}

void classify_ops(const Timeline& tl, const Taxonomy& tax, Graph& g) {
  const GpuOpTable& k = tl.gpu_ops;
  g.cls.assign(k.size(), 0);
  std::unordered_map<std::string, uint16_t> by_name;
  auto id = [&](const std::string& c) {
    auto [it, fresh] = by_name.try_emplace(c, static_cast<uint16_t>(g.categories.size()));
    if (fresh) g.categories.push_back(c);
    return it->second;
  };
  std::unordered_map<uint64_t, uint16_t> cache;  // (kernel name, launching op name) → category id
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.kind[i] == GpuOpKind::Memcpy) {
      g.cls[i] = id("memcpy");
      continue;
    }
    if (k.kind[i] == GpuOpKind::Memset) {
      g.cls[i] = id("memset");
      continue;
    }
    StrId cpu = kNoStr;
    if (k.external_id[i] != kNone)
      if (auto op = tl.cpu_op_by_external_id(k.external_id[i])) cpu = tl.cpu_ops.name[*op];
    const uint64_t key = (static_cast<uint64_t>(k.name[i]) << 32) | cpu;
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, id(tax.classify(tl.str(k.name[i]), tl.str(cpu)).category)).first;
    g.cls[i] = it->second;
  }
}

void loader_spans(const Timeline& tl, const Taxonomy& tax, Graph& g) { g.loader = dataloader_spans(tl, tax); }

// Runtime rows: their kind and the per-thread chain. Kineto writes cuda_sync rows (Stream Sync,
// Event Sync, Stream Wait Event) on the GPU's own track (pid = device, tid = stream): those are
// no host calls and stay out of the chains.
void thread_chains(const Timeline& tl, Graph& g) {
  const RuntimeTable& r = tl.runtime;
  std::set<std::pair<int64_t, int64_t>> gpu_tracks;
  std::set<int64_t> devices;
  for (size_t t = 0; t < tl.tracks.size(); ++t) {
    gpu_tracks.emplace(tl.tracks.device[t], tl.tracks.stream[t]);
    devices.insert(tl.tracks.device[t]);
  }
  std::map<std::pair<int64_t, int64_t>, int32_t> top;  // thread → its last outermost call (runtime row)
  for (int32_t i = 0; i < g.nr; ++i) {
    if (r.is_sync[i] && devices.count(r.pid[i]) && (r.tid[i] == kNone || gpu_tracks.count({r.pid[i], r.tid[i]}))) {
      g.rt_kind[i] = kRtGpuSide;
      continue;
    }
    if (r.is_sync[i] || blocking_copy(tl.str(r.name[i]))) g.rt_kind[i] = kRtSync;
    const int32_t v = g.ng + i;
    auto [it, fresh] = top.try_emplace({r.pid[i], r.tid[i]}, i);
    if (fresh) continue;
    const int32_t p = it->second;
    g.same[v] = g.ng + p;
    if (r.start_ns[i] < r.end_ns(p)) {
      g.bind[v] = kNested;  // inside p: p stays the thread's outermost call
    } else {
      g.bind[v] = kSame;
      it->second = i;
    }
    ++g.thread_edges;
  }
}

// Cross-thread waits: a long gap on a thread that ends right after another thread's call did.
void thread_waits(const Timeline& tl, Graph& g) {
  const RuntimeTable& r = tl.runtime;
  std::vector<std::pair<int64_t, int32_t>> by_end;  // (end, row) of host calls
  for (int32_t i = 0; i < g.nr; ++i)
    if (g.rt_kind[i] != kRtGpuSide && g.bind[g.ng + i] != kNested) by_end.emplace_back(r.end_ns(i), i);
  std::sort(by_end.begin(), by_end.end());
  for (int32_t i = 0; i < g.nr; ++i) {
    const int32_t v = g.ng + i;
    // A thread's first call, or one after a gap on it.
    if (g.bind[v] != kSame && !(g.bind[v] == kNoEdge && g.same[v] < 0)) continue;
    if (g.rt_kind[i] == kRtGpuSide) continue;
    const int64_t s = r.start_ns[i], prev_end = g.same[v] >= 0 ? g.end(g.same[v]) : s - kThreadSlackNs - 1;
    if (s - prev_end < kThreadGapNs) continue;
    auto it = std::upper_bound(by_end.begin(), by_end.end(), std::make_pair(s, INT32_MAX));
    for (int probe = 0; probe < kCrossProbe && it != by_end.begin(); ++probe) {
      --it;
      if (it->first <= prev_end || it->first < s - kThreadSlackNs) break;
      const int32_t o = it->second;
      if (r.tid[o] == r.tid[i] || r.pid[o] != r.pid[i]) continue;
      g.cross[v] = g.ng + o;
      g.bind[v] = kCross;
      ++g.thread_waits;
      break;
    }
  }
}

// Host syncs: the GPU op whose end the call returned after (the latest end inside the call).
void sync_waits(const Timeline& tl, Graph& g) {
  const GpuOpTable& k = tl.gpu_ops;
  std::vector<std::pair<int64_t, int32_t>> by_end;  // (end, op), all devices
  for (int32_t i = 0; i < g.ng; ++i)
    if (k.dur_ns[i] >= 0) by_end.emplace_back(k.end_ns(i), i);
  std::sort(by_end.begin(), by_end.end());
  const RuntimeTable& r = tl.runtime;
  // A launch call far longer than the trace's median launch call blocked on a full launch queue:
  // it returned when a slot freed, i.e. when an earlier GPU op ended (a sync in all but name).
  std::vector<int64_t> launch_durs;
  for (int32_t i = 0; i < g.nr; ++i)
    if (g.rt_kind[i] == kRtLaunch) launch_durs.push_back(r.dur_ns[i]);
  int64_t blocked = INT64_MAX;
  if (!launch_durs.empty()) {
    std::nth_element(launch_durs.begin(), launch_durs.begin() + launch_durs.size() / 2, launch_durs.end());
    blocked = std::max(kBlockedLaunchFactor * launch_durs[launch_durs.size() / 2], kBlockedLaunchFloorNs);
  }
  for (int32_t i = 0; i < g.nr; ++i) {
    const bool blocked_launch = g.rt_kind[i] == kRtLaunch && r.dur_ns[i] > blocked;
    if (g.rt_kind[i] != kRtSync && !blocked_launch) continue;
    auto it = std::upper_bound(by_end.begin(), by_end.end(), std::make_pair(r.end_ns(i) + kSyncSlackNs, INT32_MAX));
    // The latest-ending op that started before the call returned and ended inside it.
    for (int probe = 0; probe < kCrossProbe && it != by_end.begin(); ++probe) {
      --it;
      if (it->first <= r.start_ns[i]) break;
      if (k.start_ns[it->second] < r.end_ns(i)) {
        g.link[g.ng + i] = it->second;
        if (blocked_launch) g.rt_kind[i] = kRtSync, ++g.blocked_launches;
        ++g.sync_edges;
        break;
      }
    }
  }
}

// Cross-stream waits from Kineto's cuda_sync "Stream Wait Event" rows (GPU side: pid = device,
// tid = the waiting stream), whose args name the stream waited on and the correlation of the
// cudaEventRecord that recorded the event: the waiting stream's next op (first correlation after
// the wait's) depends on the last op of that stream enqueued before the record (correlation ids
// count API calls in issue order, CUPTI). Per op its exact source (-1: none); `exact_devices`:
// devices whose waits carry the args, where the timing inference stays off.
std::vector<int32_t> wait_sources(const Timeline& tl, const Graph& g, std::set<int32_t>& exact_devices) {
  const GpuOpTable& k = tl.gpu_ops;
  const RuntimeTable& r = tl.runtime;
  std::vector<int32_t> src(g.ng, -1);
  std::map<std::pair<int32_t, int64_t>, std::vector<std::pair<int64_t, int32_t>>> by_corr;  // stream → (corr, op)
  bool any = false;
  for (int32_t i = 0; i < g.nr && !any; ++i)
    any = g.rt_kind[i] == kRtGpuSide && r.wait_stream[i] != kNone && r.wait_record_correlation[i] != kNone;
  if (!any) return src;
  for (int32_t i = 0; i < g.ng; ++i)
    if (k.correlation[i] != kNone) by_corr[{k.device[i], k.stream[i]}].emplace_back(k.correlation[i], i);
  for (auto& [key, v] : by_corr) std::sort(v.begin(), v.end());
  for (int32_t i = 0; i < g.nr; ++i) {
    if (g.rt_kind[i] != kRtGpuSide || r.wait_stream[i] == kNone || r.wait_record_correlation[i] == kNone) continue;
    if (r.pid[i] < INT32_MIN || r.pid[i] > INT32_MAX || r.correlation[i] == kNone) continue;
    const auto dev = static_cast<int32_t>(r.pid[i]);
    exact_devices.insert(dev);
    auto w = by_corr.find({dev, r.tid[i]});
    auto o = by_corr.find({dev, r.wait_stream[i]});
    if (w == by_corr.end() || o == by_corr.end()) continue;
    auto next = std::upper_bound(w->second.begin(), w->second.end(), std::make_pair(r.correlation[i], INT32_MAX));
    auto prev = std::lower_bound(o->second.begin(), o->second.end(), std::make_pair(r.wait_record_correlation[i], -1));
    if (next == w->second.end() || prev == o->second.begin()) continue;
    const int32_t to = next->second, from = std::prev(prev)->second;
    // Several waits before one op: the source that ended last is the one that held it.
    if (k.start_ns[from] < k.start_ns[to] && (src[to] < 0 || k.end_ns(from) > k.end_ns(src[to]))) src[to] = from;
  }
  return src;
}

// GPU ops: stream order, launch edges, cross-stream waits; the binding edge of each.
void gpu_edges(const Timeline& tl, Graph& g, bool use_wait_args) {
  const GpuOpTable& k = tl.gpu_ops;
  std::map<std::pair<int32_t, int64_t>, int32_t> last;  // (device, stream) → last op
  std::map<int32_t, std::vector<std::pair<int64_t, int32_t>>> dev_by_end;
  for (int32_t i = 0; i < g.ng; ++i) dev_by_end[k.device[i]].emplace_back(k.end_ns(i), i);
  for (auto& [d, v] : dev_by_end) std::sort(v.begin(), v.end());
  std::set<int32_t> exact_devices;
  const std::vector<int32_t> exact = use_wait_args ? wait_sources(tl, g, exact_devices) : std::vector<int32_t>();
  g.devices_with_wait_args = static_cast<int64_t>(exact_devices.size());
  std::vector<int64_t> latencies;
  for (int32_t i = 0; i < g.ng; ++i) {
    const int64_t s = k.start_ns[i];
    auto [it, fresh] = last.try_emplace({k.device[i], k.stream[i]}, i);
    if (!fresh) {
      g.same[i] = it->second;
      it->second = i;
      ++g.stream_edges;
    }
    if (k.correlation[i] != kNone)
      if (auto rt = tl.runtime_by_correlation(k.correlation[i]);
          rt && tl.runtime.start_ns[*rt] <= s && g.rt_kind[*rt] != kRtGpuSide) {
        g.link[i] = g.ng + static_cast<int32_t>(*rt);
        // A graph replay's kernels carry the graph launch's correlation (CUPTI, Kineto, rocprof).
        if (k.graph_id[i] != kNone || tl.str(tl.runtime.name[*rt]).find("GraphLaunch") != std::string_view::npos)
          ++g.replays;
        if (g.rt_kind[*rt] == kRtOther) g.rt_kind[*rt] = kRtLaunch;
        ++g.launch_edges;
      }
    int64_t best = INT64_MIN;
    uint8_t edge = kNoEdge;
    if (g.same[i] >= 0 && g.end(g.same[i]) <= s + kUnexplainedNs) best = g.end(g.same[i]), edge = kSame;
    if (g.link[i] >= 0 && g.start(g.link[i]) > best) best = g.start(g.link[i]), edge = kLaunch;
    if (edge == kLaunch) latencies.push_back(s - best);
    if (!exact.empty() && exact[i] >= 0) {
      // The wait the trace names: binding when its source ended after the other predecessors' release.
      g.cross[i] = exact[i];
      ++g.cross_edges, ++g.cross_edges_from_args;
      if (k.end_ns(exact[i]) > best || edge == kNoEdge) best = k.end_ns(exact[i]), edge = kCross;
    } else if (!exact_devices.count(k.device[i]) && (edge == kNoEdge || s - best > kUnexplainedNs)) {
      const auto& v = dev_by_end[k.device[i]];
      auto e = std::upper_bound(v.begin(), v.end(), std::make_pair(s, INT32_MAX));
      for (int probe = 0; probe < kCrossProbe && e != v.begin(); ++probe) {
        --e;
        if (e->first < s - kCrossSlackNs || e->first <= best) break;
        if (k.stream[e->second] == k.stream[i] || k.start_ns[e->second] >= s) continue;
        g.cross[i] = e->second;
        best = e->first, edge = kCross;
        ++g.cross_edges;
        break;
      }
    }
    g.bind[i] = edge;
  }
  if (!latencies.empty()) {
    std::nth_element(latencies.begin(), latencies.begin() + latencies.size() / 2, latencies.end());
    g.launch_latency_ns = latencies[latencies.size() / 2];
  }
}

}  // namespace

Graph build_graph(const Timeline& tl, const Taxonomy& tax, bool use_wait_args) {
  Graph g;
  g.tl = &tl;
  // Node ids are int32: three per node keep a billion-event trace's graph in 12 bytes a node.
  // Past that (no real trace comes near), the rows beyond are left out of the graph.
  const size_t cap = static_cast<size_t>(INT32_MAX / 2);
  g.ng = static_cast<int32_t>(std::min(tl.gpu_ops.size(), cap));
  g.nr = static_cast<int32_t>(std::min(tl.runtime.size(), cap));
  const size_t n = static_cast<size_t>(g.ng) + static_cast<size_t>(g.nr);
  g.same.assign(n, -1);
  g.link.assign(n, -1);
  g.cross.assign(n, -1);
  g.bind.assign(n, kNoEdge);
  g.rt_kind.assign(g.nr, kRtOther);
  classify_ops(tl, tax, g);
  loader_spans(tl, tax, g);
  thread_chains(tl, g);
  thread_waits(tl, g);
  gpu_edges(tl, g, use_wait_args);
  sync_waits(tl, g);
  return g;
}

void recompute(const Graph& g, const std::vector<float>& factor, std::vector<int64_t>& s2, std::vector<int64_t>& e2) {
  const int32_t n = g.size();
  s2.resize(n);
  e2.resize(n);
  for (int32_t v = 0; v < n; ++v) s2[v] = g.start(v), e2[v] = g.end(v);
  // A non-binding edge keeps the slack it had, up to this lag: a stream or cross-stream
  // predecessor lets its successor go at once, a launch after the trace's median launch latency.
  auto lag = [&](int32_t v, int32_t p, uint8_t edge, bool binding) {
    const int64_t gap = g.start(v) - g.ready(p, edge);
    if (binding) return gap;
    return std::min(gap, edge == kLaunch ? g.launch_latency_ns : 0);
  };
  auto ready2 = [&](int32_t p, uint8_t edge) { return edge == kLaunch || edge == kNested ? s2[p] : e2[p]; };
  auto visit_start = [&](int32_t v) {
    int64_t s = INT64_MIN;
    auto pred = [&](int32_t p, uint8_t edge) {
      if (p >= 0) s = std::max(s, ready2(p, edge) + lag(v, p, edge, g.bind[v] == edge));
    };
    if (g.gpu(v)) {
      pred(g.same[v], kSame);
      pred(g.link[v], kLaunch);
      pred(g.cross[v], kCross);
    } else {
      pred(g.same[v], g.bind[v] == kCross ? kSame : g.bind[v]);
      pred(g.cross[v], kCross);
    }
    if (s != INT64_MIN) s2[v] = s;
    const int64_t d = g.end(v) - g.start(v);
    e2[v] = s2[v] + (g.gpu(v) && factor[v] != 1.0f ? static_cast<int64_t>(static_cast<double>(d) / factor[v]) : d);
  };
  // A host sync returns when the op it waited for ends (and at least its own time after that).
  auto visit_sync_end = [&](int32_t v) {
    const int32_t w = g.link[v];
    const int64_t own = g.end(v) - std::max(g.start(v), g.end(w));
    e2[v] = std::max(s2[v] + own, e2[w] + (g.end(v) - g.end(w)));
  };
  // In time order: sync returns, then runtime starts, then GPU starts at equal times (each table
  // is in start order; sync returns sorted here). A predecessor visited later (damaged times)
  // contributes its trace times.
  std::vector<std::pair<int64_t, int32_t>> sync_ends;
  for (int32_t r = 0; r < g.nr; ++r)
    if (g.link[g.ng + r] >= 0) sync_ends.emplace_back(g.end(g.ng + r), g.ng + r);
  std::sort(sync_ends.begin(), sync_ends.end());
  int32_t a = 0, b = 0;
  size_t c = 0;
  while (a < g.ng || b < g.nr || c < sync_ends.size()) {
    const int64_t ta = a < g.ng ? g.start(a) : INT64_MAX;
    const int64_t tb = b < g.nr ? g.start(g.ng + b) : INT64_MAX;
    const int64_t tc = c < sync_ends.size() ? sync_ends[c].first : INT64_MAX;
    if (c < sync_ends.size() && tc <= ta && tc <= tb) {
      visit_sync_end(sync_ends[c++].second);
    } else if (b < g.nr && tb <= ta) {
      visit_start(g.ng + b++);
    } else {
      visit_start(a++);
    }
  }
}

}  // namespace goblin::analysis::critical_path_detail
