// The critical path of each step (docs/critical_path.md): from the step's last event, binding
// edges are followed back to the step's start; each event on the way and each gap between an
// event and the one that released it is one segment, clipped to the part of the step not yet
// covered, so the segments tile the step exactly and the attribution sums to the step time.
#include "analysis/critical_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "analysis/critical_path_graph.h"
#include "analysis/taxonomy.h"

namespace goblin::analysis {

using namespace critical_path_detail;

const char* path_bucket_name(PathBucket b) {
  switch (b) {
    case PathBucket::CpuLaunch:
      return "cpu_launch";
    case PathBucket::CpuRuntime:
      return "cpu_runtime";
    case PathBucket::CpuPython:
      return "cpu_python";
    case PathBucket::CpuDataLoading:
      return "cpu_data_loading";
    case PathBucket::GpuCompute:
      return "gpu_compute";
    case PathBucket::Communication:
      return "communication";
    case PathBucket::CommunicationWait:
      return "communication_wait";
    case PathBucket::Synchronization:
      return "synchronization";
    case PathBucket::Idle:
      return "idle";
    case PathBucket::kCount:
      break;
  }
  return "?";
}

namespace {

// A trailing stretch of the step after its last event is CPU work when the step's CPU span
// reaches there (up to this slack), else idle.
constexpr int64_t kTrailSlackNs = 1000;
// A kernel that starts more than max(10 × the trace's median launch latency, 100 µs) after its
// launch call, with its stream idle, waited on something else (docs/critical_path.md).
constexpr int64_t kLaunchExcessFactor = 10;
constexpr int64_t kLaunchExcessFloorNs = 100000;

// Collects one step's segments.
struct Walker {
  const Graph& g;
  const Timeline& tl;
  StepPath& out;
  int64_t S;
  // Per what-if scenario: its factors (null: no what-if), and its time saved along the path by
  // subtraction (one walk serves every scenario: the path does not depend on the what-if).
  const std::vector<const std::vector<float>*>& factors;
  const std::vector<int64_t>* comm_floor = nullptr;    // per collective ordinal, or null
  const std::vector<int32_t>* comm_ordinal = nullptr;  // per GPU op: its collective ordinal, -1
  // The path's segments; names as views into the timeline's strings (or literals): only the
  // longest few become PathSegments, so a step of 10^5 events allocates no string per event.
  struct Seg {
    int64_t start_ns, end_ns;
    PathBucket bucket;
    std::string_view what;
  };
  std::vector<Seg> segs;
  std::vector<double> saved = std::vector<double>(factors.size(), 0.0);

  void add(int64_t lo, int64_t hi, PathBucket b, std::string_view what, int32_t cat = -1) {
    lo = std::max(lo, S);
    if (hi <= lo) return;
    out.bucket_ns[static_cast<size_t>(b)] += hi - lo;
    if (cat >= 0) out.gpu_by_category_ns[g.categories[cat]] += hi - lo;
    segs.push_back({lo, hi, b, what});
  }
  // CPU work between calls: the part inside input-pipeline spans is data loading.
  void add_cpu(int64_t lo, int64_t hi, std::string_view what) {
    lo = std::max(lo, S);
    if (hi <= lo) return;
    int64_t cur = lo;
    auto it = std::upper_bound(g.loader.begin(), g.loader.end(), lo,
                               [](int64_t t, const Interval& iv) { return t < iv.end; });
    for (; it != g.loader.end() && it->start < hi; ++it) {
      const int64_t a = std::max(it->start, lo), b = std::min(it->end, hi);
      if (a > cur) add(cur, a, PathBucket::CpuPython, what);
      add(a, b, PathBucket::CpuDataLoading, "data loading");
      cur = std::max(cur, b);
    }
    if (hi > cur) add(cur, hi, PathBucket::CpuPython, what);
  }
  PathBucket node_bucket(int32_t v) const {
    if (g.gpu(v)) return g.categories[g.cls[v]] == "communication" ? PathBucket::Communication : PathBucket::GpuCompute;
    switch (g.rt_kind[v - g.ng]) {
      case kRtLaunch:
        return PathBucket::CpuLaunch;
      case kRtSync:
        return PathBucket::Synchronization;
      default:
        return PathBucket::CpuRuntime;
    }
  }
  std::string_view name(int32_t v) const {
    return g.gpu(v) ? tl.str(tl.gpu_ops.name[v]) : tl.str(tl.runtime.name[v - g.ng]);
  }

  // Walks back from node z (the step's last event) to S; t: the covered part is [t, E).
  void walk(int32_t z, int64_t t, int64_t max_steps) {
    int32_t v = z;
    for (int64_t n = 0; v >= 0 && t > S && n < max_steps; ++n) {
      ++out.events;
      const int64_t sv = g.start(v);
      const int32_t w = g.gpu(v) ? -1 : g.link[v];
      if (w >= 0 && t > sv && g.end(w) > sv) {
        // A host sync that returned after GPU op w: the return is synchronisation, w is the path.
        add(g.end(w), t, PathBucket::Synchronization, name(v));
        t = std::min(t, g.end(w));
        v = w;
        continue;
      }
      if (g.gpu(v) && t > std::max(sv, S))
        for (size_t k = 0; k < factors.size(); ++k)
          if (factors[k]) saved[k] += static_cast<double>(t - std::max(sv, S)) * (1.0 - 1.0 / (*factors[k])[v]);
      if (comm_floor && g.gpu(v) && (*comm_ordinal)[v] >= 0) {
        // Only the kernel's last `floor` ns moved data; before that it waited for the other ranks.
        const int64_t split = std::max(sv, g.end(v) - (*comm_floor)[(*comm_ordinal)[v]]);
        add(split, t, PathBucket::Communication, name(v), g.cls[v]);
        add(sv, std::min(split, t), PathBucket::CommunicationWait, name(v));
      } else {
        add(sv, t, node_bucket(v), name(v), g.gpu(v) ? g.cls[v] : -1);
      }
      t = std::min(t, sv);
      const uint8_t e = g.bind[v];
      int32_t p = -1;
      if (e == kSame || e == kNested) p = g.same[v];
      if (e == kLaunch) p = g.link[v];
      if (e == kCross) p = g.cross[v];
      if (p < 0) break;
      const int64_t r = g.ready(p, e);
      switch (e) {
        case kLaunch: {
          // Up to a launch latency the wait is the launch's; far beyond it the kernel waited on
          // something the trace does not show (an event recorded by untraced work, another
          // process on the GPU): idle, not launch.
          const int64_t cap = r + std::max(kLaunchExcessFactor * g.launch_latency_ns, kLaunchExcessFloorNs);
          add(std::min(cap, t), t, PathBucket::Idle, "waited beyond its launch latency (untraced event or work)");
          add(r, std::min(cap, t), PathBucket::CpuLaunch, "launch latency");
          break;
        }
        case kCross:
          if (g.gpu(v))
            add(r, t, PathBucket::Synchronization, "cross-stream wait");
          else
            add_cpu(r, t, "CPU after another thread's call");
          break;
        case kNested:
          add(r, t, node_bucket(p), name(p));
          break;
        default:
          if (g.gpu(v))
            add(r, t, PathBucket::Idle, "stream gap");
          else
            add_cpu(r, t, "CPU between runtime calls");
      }
      t = std::min(t, r);
      v = p;
    }
    if (t > S) {
      // Before the path's first event: CPU work when the walk ended on the CPU, else idle.
      if (v >= 0 && !g.gpu(v))
        add_cpu(S, t, "CPU before the first call");
      else
        add(S, t, PathBucket::Idle, "before the path's first event");
    }
  }
};

// The step's last event: the node ending latest at or before E among those starting in [S, E)
// (GPU ops first on a tie). -1 when none.
int32_t last_event(const Graph& g, const Timeline& tl, int64_t S, int64_t E) {
  int32_t best = -1;
  int64_t best_end = INT64_MIN;
  auto scan = [&](const Column<int64_t>& starts, int32_t n, int32_t base) {
    auto lo = std::lower_bound(starts.begin(), starts.begin() + n, S);
    for (auto it = lo; it != starts.begin() + n && *it < E; ++it) {
      const int32_t v = base + static_cast<int32_t>(it - starts.begin());
      if (!g.gpu(v) && g.rt_kind[v - g.ng] == kRtGpuSide) continue;
      const int64_t e = g.end(v);
      if (e <= E && e > best_end) best = v, best_end = e;
    }
  };
  scan(tl.gpu_ops.start_ns, g.ng, 0);
  scan(tl.runtime.start_ns, g.nr, g.ng);
  return best;
}

std::vector<Step> annotation_windows(const Timeline& tl, const std::string& name) {
  std::vector<Step> w;
  for (size_t i = 0; i < tl.annotations.size(); ++i)
    if (!tl.annotations.on_gpu[i] && tl.str(tl.annotations.name[i]) == name)
      w.push_back(
          Step{name, tl.annotations.start_ns[i], tl.annotations.end_ns(i), false, fmt::format("annotation {}", name)});
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i)
    if (tl.str(tl.cpu_ops.name[i]) == name)
      w.push_back(Step{name, tl.cpu_ops.start_ns[i], tl.cpu_ops.end_ns(i), false, fmt::format("CPU op {}", name)});
  std::sort(w.begin(), w.end(), [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
  for (size_t i = 0; i < w.size(); ++i) w[i].name = fmt::format("{}#{}", name, i);
  return w;
}

}  // namespace

std::vector<CriticalPathResult> critical_path_what_ifs(const Timeline& tl, const Taxonomy& tax,
                                                       const CriticalPathOptions& opt,
                                                       const std::vector<WhatIf>& scenarios) {
  if (scenarios.empty()) return {};
  CriticalPathResult res;
  if (opt.annotation.empty()) {
    res.steps = find_steps(tl);
  } else {
    res.steps.steps = annotation_windows(tl, opt.annotation);
    res.steps.method = fmt::format("every CPU annotation or op named '{}' (instances numbered from 0)", opt.annotation);
  }
  const Graph g = build_graph(tl, tax);
  res.nodes = g.size();
  res.launch_edges = g.launch_edges;
  res.stream_edges = g.stream_edges;
  res.thread_edges = g.thread_edges;
  res.cross_stream_edges = g.cross_edges;
  res.cross_stream_from_args = g.cross_edges_from_args;
  res.thread_waits = g.thread_waits;
  res.blocked_launches = g.blocked_launches;
  res.sync_edges = g.sync_edges;
  res.graph_replay_kernels = g.replays;
  res.launch_latency_ns = g.launch_latency_ns;

  // Per scenario: how much faster it makes each node (1: unchanged) and the recomputed times.
  struct Scenario {
    std::vector<float> factor;
    std::vector<int64_t> s2, e2;
    int64_t ops = 0;
  };
  std::vector<Scenario> sc(scenarios.size());
  std::vector<const std::vector<float>*> factors(scenarios.size(), nullptr);
  for (size_t k = 0; k < scenarios.size(); ++k) {
    if (!scenarios[k].active()) continue;
    Scenario& x = sc[k];
    x.factor.assign(g.size(), 1.0f);
    for (int32_t i = 0; i < g.ng; ++i) {
      for (const WhatIfTerm& term : scenarios[k].terms) {
        const bool m = (!term.category.empty() && g.categories[g.cls[i]] == term.category) ||
                       (!term.kernel.empty() && tl.str(tl.gpu_ops.name[i]).find(term.kernel) != std::string_view::npos);
        if (!m) continue;
        x.factor[i] = static_cast<float>(term.speedup);
        ++x.ops;
        break;
      }
    }
    recompute(g, x.factor, x.s2, x.e2);
    factors[k] = &x.factor;
  }
  const bool any_what_if = std::any_of(factors.begin(), factors.end(), [](const auto* f) { return f != nullptr; });

  // Collective kernels' ordinals, when the ranks' floors line up with this trace's.
  std::vector<int32_t> comm_ordinal;
  if (!opt.comm_floor_ns.empty()) {
    comm_ordinal.assign(g.ng, -1);
    int32_t n = 0;
    for (int32_t i = 0; i < g.ng; ++i)
      if (tl.gpu_ops.kind[i] == GpuOpKind::Kernel && g.categories[g.cls[i]] == "communication") comm_ordinal[i] = n++;
    if (static_cast<size_t>(n) != opt.comm_floor_ns.size()) {
      comm_ordinal.clear();
      res.notes.push_back(
          fmt::format("{} collective kernels here, {} in the ranks' common list: waits on other ranks not split", n,
                      opt.comm_floor_ns.size()));
    }
  }

  // Per scenario and step: the what-if's step length and the subtraction's.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> what_if(scenarios.size());
  for (const Step& st : res.steps.steps) {
    StepPath sp;
    sp.step = st;
    const int64_t S = st.start_ns, E = std::max(st.start_ns, st.end_ns);
    sp.step_ns = E - S;
    Walker w{g, tl, sp, S, factors, nullptr, nullptr, {}};
    if (!comm_ordinal.empty()) w.comm_floor = &opt.comm_floor_ns, w.comm_ordinal = &comm_ordinal;
    const int32_t z = last_event(g, tl, S, E);
    int64_t t = E;
    if (z >= 0 && g.end(z) < E) {
      const bool cpu_tail = st.cpu_end_ns != kNone && st.cpu_end_ns + kTrailSlackNs >= E;
      if (cpu_tail)
        w.add_cpu(g.end(z), E, "CPU after the last event");
      else
        w.add(g.end(z), E, PathBucket::Idle, "after the last event");
      t = std::max(S, g.end(z));
    }
    if (z >= 0) {
      w.walk(z, t, static_cast<int64_t>(g.size()) + 1);
    } else {
      w.add(S, E, PathBucket::Idle, "no event in the step");
    }
    for (const Walker::Seg& s : w.segs) sp.length_ns += s.end_ns - s.start_ns;
    // The what-if: the step's start and end moved as the graph says. The step's first event does
    // not depend on the scenario.
    int32_t first = -1;
    if (z >= 0 && any_what_if) {
      auto lo_r = std::lower_bound(tl.runtime.start_ns.begin(), tl.runtime.start_ns.begin() + g.nr, S);
      for (auto it = lo_r; it != tl.runtime.start_ns.begin() + g.nr && *it < E; ++it) {
        const int32_t v = g.ng + static_cast<int32_t>(it - tl.runtime.start_ns.begin());
        if (g.rt_kind[v - g.ng] != kRtGpuSide) {
          first = v;
          break;
        }
      }
      if (first < 0) {
        auto lo_g = std::lower_bound(tl.gpu_ops.start_ns.begin(), tl.gpu_ops.start_ns.begin() + g.ng, S);
        if (lo_g != tl.gpu_ops.start_ns.begin() + g.ng && *lo_g < E)
          first = static_cast<int32_t>(lo_g - tl.gpu_ops.start_ns.begin());
      }
    }
    for (size_t k = 0; k < scenarios.size(); ++k) {
      if (!factors[k]) {
        what_if[k].emplace_back(kNone, kNone);
        continue;
      }
      if (z < 0) {
        what_if[k].emplace_back(sp.length_ns, sp.length_ns);  // nothing in it to speed up
        continue;
      }
      const std::vector<int64_t>&s2 = sc[k].s2, &e2 = sc[k].e2;
      const int64_t S2 = first >= 0 ? S - (g.start(first) - s2[first]) : S;
      int64_t E2 = e2[z] + (E - std::min(E, g.end(z)));
      auto later = [&](const Column<int64_t>& starts, int32_t n, int32_t base) {
        auto lo = std::lower_bound(starts.begin(), starts.begin() + n, S);
        for (auto it = lo; it != starts.begin() + n && *it < E; ++it) {
          const int32_t v = base + static_cast<int32_t>(it - starts.begin());
          if (g.end(v) <= E && (g.gpu(v) || g.rt_kind[v - g.ng] != kRtGpuSide)) E2 = std::max(E2, e2[v]);
        }
      };
      later(tl.gpu_ops.start_ns, g.ng, 0);
      later(tl.runtime.start_ns, g.nr, g.ng);
      // Subtraction along the path, for comparison: the sped-up GPU time on it × (1 - 1/k).
      what_if[k].emplace_back(std::max<int64_t>(0, E2 - S2), sp.length_ns - static_cast<int64_t>(w.saved[k]));
    }
    const size_t keep = std::min(opt.top, w.segs.size());
    std::partial_sort(
        w.segs.begin(), w.segs.begin() + static_cast<ptrdiff_t>(keep), w.segs.end(),
        [](const Walker::Seg& a, const Walker::Seg& b) { return a.end_ns - a.start_ns > b.end_ns - b.start_ns; });
    for (size_t i = 0; i < keep; ++i) {
      const Walker::Seg& x = w.segs[i];
      sp.top.push_back({x.start_ns, x.end_ns, x.bucket, std::string(x.what)});
    }
    res.paths.push_back(std::move(sp));
  }
  if (res.cross_stream_from_args > 0)
    res.notes.push_back(
        fmt::format("{} cross-stream wait(s) read from Stream Wait Event arguments (wait_on_stream, the event record's "
                    "correlation): exact",
                    res.cross_stream_from_args));
  if (res.cross_stream_edges > res.cross_stream_from_args)
    res.notes.push_back(fmt::format(
        "{} cross-stream wait(s) inferred: an op starting after both its stream predecessor and its launch, right "
        "after an op of another stream ended",
        res.cross_stream_edges - res.cross_stream_from_args));
  if (res.graph_replay_kernels > 0)
    res.notes.push_back(
        fmt::format("{} kernel(s) replayed by CUDA/HIP graphs: launched by their graph launch call, in stream order",
                    res.graph_replay_kernels));

  // One result per scenario: the shared walk with that scenario's figures (the last one moved).
  std::vector<CriticalPathResult> out;
  out.reserve(scenarios.size());
  for (size_t k = 0; k < scenarios.size(); ++k) {
    CriticalPathResult r;
    if (k + 1 < scenarios.size())
      r = res;
    else
      r = std::move(res);
    r.what_if = scenarios[k];
    r.what_if_ops = sc[k].ops;
    for (size_t i = 0; i < r.paths.size(); ++i) std::tie(r.paths[i].what_if_ns, r.paths[i].subtract_ns) = what_if[k][i];
    out.push_back(std::move(r));
  }
  return out;
}

CriticalPathResult critical_path(const Timeline& tl, const Taxonomy& tax, const CriticalPathOptions& opt) {
  return std::move(critical_path_what_ifs(tl, tax, opt, {opt.what_if}).front());
}

}  // namespace goblin::analysis

namespace goblin::analysis {

std::vector<int64_t> collective_durations(const Timeline& tl, const Taxonomy& tax) {
  std::vector<int64_t> d;
  // Classified as the graph classifies them (kernel name and launching op), so the ordinals agree.
  std::unordered_map<uint64_t, bool> is_comm;
  const GpuOpTable& k = tl.gpu_ops;
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.kind[i] != GpuOpKind::Kernel) continue;
    StrId cpu = kNoStr;
    if (k.external_id[i] != kNone)
      if (auto op = tl.cpu_op_by_external_id(k.external_id[i])) cpu = tl.cpu_ops.name[*op];
    const uint64_t key = (static_cast<uint64_t>(k.name[i]) << 32) | cpu;
    auto it = is_comm.find(key);
    if (it == is_comm.end())
      it = is_comm.emplace(key, tax.classify(tl.str(k.name[i]), tl.str(cpu)).category == "communication").first;
    if (it->second) d.push_back(k.dur_ns[i]);
  }
  return d;
}

std::vector<int64_t> collective_floors(const std::vector<std::vector<int64_t>>& per_rank, std::string* why) {
  if (per_rank.size() < 2) return {};
  for (const auto& r : per_rank)
    if (r.size() != per_rank[0].size()) {
      if (why)
        *why = fmt::format(
            "the ranks ran different numbers of collective kernels ({} and {}): waits on other ranks not split",
            per_rank[0].size(), r.size());
      return {};
    }
  std::vector<int64_t> f = per_rank[0];
  for (const auto& r : per_rank)
    for (size_t i = 0; i < f.size(); ++i) f[i] = std::min(f[i], std::max<int64_t>(0, r[i]));
  return f;
}

}  // namespace goblin::analysis
