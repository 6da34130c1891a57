// goblin diff: per-run profiles (groups of GPU ops with their per-step time) and their matching.
// Formulas: diff.h and docs/metrics.md § diff.
#include "analysis/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/exposure.h"
#include "analysis/intervals.h"
#include "analysis/kernel_table.h"
#include "analysis/knowledge.h"
#include "analysis/opportunities.h"
#include "analysis/step_time.h"
#include "analysis/steps.h"
#include "model/profiler_step.h"
#include "trace/load.h"

namespace goblin::analysis {

std::string kernel_base_name(std::string_view canon) {
  std::string out;
  out.reserve(canon.size());
  int depth = 0;
  for (char c : canon) {
    if (c == '<') {
      ++depth;
      continue;
    }
    if (c == '>' && depth > 0) {
      --depth;
      continue;
    }
    if (depth == 0) out.push_back(c);
  }
  return out;
}

namespace {

struct PairHash {
  size_t operator()(const std::pair<int64_t, int64_t>& p) const noexcept {
    return std::hash<int64_t>()(p.first * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(p.second));
  }
};

// Innermost CPU annotation (user ranges, not ProfilerStep) around a time on one thread.
class ScopeFinder {
 public:
  explicit ScopeFinder(const Timeline& tl) : tl_(tl) {
    const AnnotationTable& a = tl.annotations;
    for (size_t i = 0; i < a.size(); ++i) {
      if (a.on_gpu[i] || is_profiler_step(tl.str(a.name[i]))) continue;
      by_thread_[{a.pid[i], a.tid[i]}].push_back(static_cast<uint32_t>(i));  // in start order
    }
  }
  StrId find(int64_t pid, int64_t tid, int64_t t) const {
    auto it = by_thread_.find({pid, tid});
    if (it == by_thread_.end()) return kNoStr;
    const AnnotationTable& a = tl_.annotations;
    const auto& v = it->second;
    auto ub = std::upper_bound(v.begin(), v.end(), t, [&](int64_t x, uint32_t r) { return x < a.start_ns[r]; });
    // The latest-starting range that still contains t is the innermost of well-nested ranges.
    int looked = 0;
    for (auto p = ub; p != v.begin() && looked < 256; ++looked) {
      --p;
      if (a.end_ns(*p) > t) return a.name[*p];
    }
    return kNoStr;
  }

 private:
  const Timeline& tl_;
  std::unordered_map<std::pair<int64_t, int64_t>, std::vector<uint32_t>, PairHash> by_thread_;
};

std::string device_name(const Timeline& tl) {
  for (const auto& d : tl.meta.devices)
    if (!d.name.empty()) return d.name;
  return {};
}

}  // namespace

DiffProfile diff_profile(const Timeline& tl, const Taxonomy& tax, const std::string& source) {
  DiffProfile p;
  p.source = source;
  p.vendor = hw::vendor_name(detect_vendor(tl));
  p.gpu = device_name(tl);
  StepDetection sd = find_steps(tl);
  p.step_method = sd.method;
  p.workload_step_s = workload_step_time(tl);
  // The steps averaged: those of the one step time (docs/metrics.md § Step time).
  const analysis::StepTime st = analysis::step_time(sd);
  std::vector<Interval> windows;
  for (size_t i : st.averaged) {
    windows.push_back({sd.steps[i].start_ns, sd.steps[i].end_ns});
    p.step_names.push_back(sd.steps[i].name);
  }
  if (st.every_step_partial)
    p.notes.push_back(source + ": every step is partial; per-step figures average partial steps");
  p.steps = static_cast<int64_t>(windows.size());
  if (windows.empty()) {
    p.notes.push_back(source + ": no GPU activity and no steps: nothing to compare");
    return p;
  }
  for (const Interval& w : windows) p.wall_ns += w.length();

  const GpuOpTable& ops = tl.gpu_ops;
  const size_t n = ops.size();
  LaunchAttribution la = attribute_launches(tl);
  ScopeFinder scopes(tl);

  // Busy union per window.
  {
    std::vector<Interval> all;
    all.reserve(n);
    for (size_t i = 0; i < n; ++i) all.push_back({ops.start_ns[i], ops.end_ns(i)});
    IntervalSet u = union_of(std::move(all));
    for (const Interval& w : windows) p.busy_ns += total_length(clip(u, w));
  }

  std::unordered_map<StrId, std::string> canon;
  std::unordered_map<std::string, size_t> canon_id;
  std::vector<std::string> canon_names;
  auto canon_of = [&](StrId id) -> size_t {
    auto it = canon.find(id);
    std::string c = it != canon.end() ? it->second : canon.emplace(id, canonical_kernel_name(tl.str(id))).first->second;
    auto [ci, ins] = canon_id.try_emplace(c, canon_names.size());
    if (ins) canon_names.push_back(c);
    return ci->second;
  };
  struct Acc {
    DiffGroup g;
    std::unordered_map<StrId, int64_t> full, scope;
  };
  std::unordered_map<std::pair<int64_t, int64_t>, size_t, PairHash> index;  // (canon id, op name id)
  std::vector<Acc> acc;

  for (size_t i = 0; i < n; ++i) {
    const int64_t s = ops.start_ns[i], e = ops.end_ns(i);
    // First window ending after s; windows are sorted and disjoint.
    auto w =
        std::upper_bound(windows.begin(), windows.end(), s, [](int64_t t, const Interval& x) { return t < x.end; });
    int64_t clipped = 0;
    bool starts_inside = false;
    for (; w != windows.end() && w->start < e; ++w) {
      clipped += std::min(e, w->end) - std::max(s, w->start);
      if (s >= w->start && s < w->end) starts_inside = true;
    }
    if (clipped <= 0 && !starts_inside) continue;
    const int64_t op_row = la.cpu_op[i];
    const StrId op_name = op_row >= 0 ? tl.cpu_ops.name[static_cast<size_t>(op_row)] : kNoStr;
    const size_t cid = canon_of(ops.name[i]);
    auto [it, inserted] = index.try_emplace({static_cast<int64_t>(cid), static_cast<int64_t>(op_name)}, acc.size());
    if (inserted) {
      Acc a;
      a.g.name = canon_names[cid];
      a.g.base = kernel_base_name(a.g.name);
      a.g.op = op_name == kNoStr ? "" : std::string(tl.str(op_name));
      const GpuOpKind k = ops.kind[i];
      a.g.kind = gpu_op_kind_name(k);
      if (k == GpuOpKind::Kernel) {
        KernelClass kc = tax.classify(tl.str(ops.name[i]), a.g.op);
        a.g.category = kc.category;
        a.g.family = kc.family;
      } else {
        a.g.category = k == GpuOpKind::Memcpy ? "memcpy" : "memset";
        a.g.family = "runtime";
      }
      acc.push_back(std::move(a));
    }
    Acc& a = acc[it->second];
    a.g.time_ns += std::max<int64_t>(clipped, 0);
    if (starts_inside) ++a.g.launches;
    ++a.full[ops.name[i]];
    // Scope: the launch's thread and time (runtime call by correlation, else the CPU op).
    int64_t pid = kNone, tid = kNone, t = la.launch_ns[i];
    if (auto rt = ops.correlation[i] != kNone ? tl.runtime_by_correlation(ops.correlation[i]) : std::nullopt) {
      pid = tl.runtime.pid[*rt];
      tid = tl.runtime.tid[*rt];
    } else if (op_row >= 0) {
      pid = tl.cpu_ops.pid[static_cast<size_t>(op_row)];
      tid = tl.cpu_ops.tid[static_cast<size_t>(op_row)];
    }
    if (t != kNone) {
      StrId sc = scopes.find(pid, tid, t);
      if (sc != kNoStr) ++a.scope[sc];
    }
  }
  p.groups.reserve(acc.size());
  for (Acc& a : acc) {
    int64_t best = -1;
    for (auto& [id, c] : a.full)
      if (c > best) best = c, a.g.full_name = std::string(tl.str(id));
    best = -1;
    StrId sc = kNoStr;
    for (auto& [id, c] : a.scope)
      if (c > best) best = c, sc = id;
    // A scope is named when at least half of the group's launches ran inside it.
    if (sc != kNoStr && best > 0 && 2 * best >= a.g.launches) a.g.scope = std::string(tl.str(sc));
    p.op_ns += a.g.time_ns;
    p.groups.push_back(std::move(a.g));
  }
  return p;
}

namespace {

using Key = std::pair<std::string, std::string>;  // (name, op)

struct Side {
  double time_s = 0, launches = 0;
  std::map<std::string, double> full;  // full name → time, for the representative
  std::string category, family, kind, scope, name;
  bool any = false;
  void add(const DiffGroup& g, const DiffProfile& p) {
    time_s += p.per_step(g.time_ns) / 1e9;
    launches += p.per_step(g.launches);
    full[g.full_name] += static_cast<double>(g.time_ns);
    if (!any || scope.empty()) scope = g.scope;
    if (!any) category = g.category, family = g.family, kind = g.kind, name = g.name;
    any = true;
  }
  DiffSideFigures figures() const {
    DiffSideFigures f;
    f.time_s = time_s;
    f.launches = launches;
    double best = -1;
    for (auto& [n, t] : full)
      if (t > best) best = t, f.full_name = n;
    return f;
  }
};

DiffRow make_row(const Side* b, const Side* a, const std::string& match, const std::string& name,
                 const std::string& op) {
  DiffRow r;
  r.match = match;
  r.name = name;
  r.op = op;
  const Side* any = b ? b : a;
  r.category = any->category;
  r.family = any->family;
  r.kind = any->kind;
  r.scope = b && !b->scope.empty() ? b->scope : (a ? a->scope : "");
  if (b) r.before = b->figures();
  if (a) r.after = a->figures();
  const double bt = b ? b->time_s : 0, at = a ? a->time_s : 0;
  r.change_s = at - bt;
  if (!b)
    r.status = "new";
  else if (!a)
    r.status = "gone";
  else if (std::fabs(r.change_s) <= 0.01 * bt)
    r.status = "unchanged";
  else
    r.status = r.change_s < 0 ? "faster" : "slower";
  return r;
}

}  // namespace

DiffResult diff_runs(DiffProfile before, DiffProfile after) {
  DiffResult d;
  d.before = std::move(before);
  d.after = std::move(after);
  const DiffProfile& B = d.before;
  const DiffProfile& A = d.after;
  for (const auto& n : B.notes) d.notes.push_back(n);
  for (const auto& n : A.notes) d.notes.push_back(n);
  auto step_s = [](const DiffProfile& p, int64_t ns) { return p.per_step(ns) / 1e9; };
  d.before_step_s = step_s(B, B.wall_ns);
  d.after_step_s = step_s(A, A.wall_ns);
  d.step_change_s = d.after_step_s - d.before_step_s;
  // The speedup by the workload's own timer beside the trace steps' one: more than 2 % apart, the
  // two sources disagree about the change itself (docs/metrics.md § Throughput sources).
  if (B.workload_step_s && A.workload_step_s && *A.workload_step_s > 0 && d.after_step_s > 0) {
    const double by_steps = d.before_step_s / d.after_step_s, by_timer = *B.workload_step_s / *A.workload_step_s;
    if (std::fabs(by_timer - by_steps) > 0.02 * by_steps)
      d.notes.push_back(fmt::format(
          "throughput_sources_disagree: the trace steps give {:.3f}x ({:.3f} -> {:.3f} ms), the workloads' own "
          "timers {:.3f}x ({:.3f} -> {:.3f} ms); step_time_s and the decomposition are the trace steps'",
          by_steps, d.before_step_s * 1e3, d.after_step_s * 1e3, by_timer, *B.workload_step_s * 1e3,
          *A.workload_step_s * 1e3));
  }
  const double b_idle = step_s(B, B.wall_ns - B.busy_ns), a_idle = step_s(A, A.wall_ns - A.busy_ns);
  const double b_ovl = step_s(B, B.op_ns - B.busy_ns), a_ovl = step_s(A, A.op_ns - A.busy_ns);
  d.kernels_change_s = step_s(A, A.op_ns) - step_s(B, B.op_ns);
  d.idle_change_s = a_idle - b_idle;
  d.overlap_term_s = -(a_ovl - b_ovl);
  d.sum_s = d.kernels_change_s + d.idle_change_s + d.overlap_term_s;

  // Categories.
  std::map<std::string, DiffCategory> cats;
  for (const auto& g : B.groups) {
    auto& c = cats[g.category];
    c.category = g.category;
    c.before_s += step_s(B, g.time_ns);
  }
  for (const auto& g : A.groups) {
    auto& c = cats[g.category];
    c.category = g.category;
    c.after_s += step_s(A, g.time_ns);
  }
  for (auto& [k, c] : cats) {
    c.change_s = c.after_s - c.before_s;
    d.categories.push_back(c);
  }
  auto by_change = [](const auto& x, const auto& y) {
    if (std::fabs(x.change_s) != std::fabs(y.change_s)) return std::fabs(x.change_s) > std::fabs(y.change_s);
    return x.category < y.category;
  };
  std::stable_sort(d.categories.begin(), d.categories.end(), by_change);

  if (B.vendor != A.vendor && B.vendor != "unknown" && A.vendor != "unknown") {
    d.kernel_level = false;
    d.notes.push_back("before ran on " + B.vendor + ", after on " + A.vendor +
                      ": kernel names do not correspond across vendors, so only categories are compared");
    return d;
  }

  // Pass 1: exact (canonical name, op).
  std::map<Key, Side> bs, as;
  for (const auto& g : B.groups) bs[{g.name, g.op}].add(g, B);
  for (const auto& g : A.groups) as[{g.name, g.op}].add(g, A);
  for (auto it = bs.begin(); it != bs.end();) {
    auto m = as.find(it->first);
    if (m == as.end()) {
      ++it;
      continue;
    }
    d.rows.push_back(make_row(&it->second, &m->second, "exact", it->first.first, it->first.second));
    as.erase(m);
    it = bs.erase(it);
  }
  // Pass 2: base name (template arguments dropped) and op, over what is left on both sides; the
  // groups of one base key are merged into one row. Left over after that: new or gone.
  auto by_base = [](std::map<Key, Side>& m) {
    std::map<Key, std::vector<std::map<Key, Side>::iterator>> out;
    for (auto it = m.begin(); it != m.end(); ++it)
      out[{kernel_base_name(it->first.first), it->first.second}].push_back(it);
    return out;
  };
  auto merge = [](const std::vector<std::map<Key, Side>::iterator>& v) {
    Side x;
    for (auto it : v) {
      const Side& s = it->second;
      if (!x.any)
        x = s;
      else {
        x.time_s += s.time_s;
        x.launches += s.launches;
        for (auto& [fn, t] : s.full) x.full[fn] += t;
        if (x.scope.empty()) x.scope = s.scope;
      }
    }
    return x;
  };
  auto bb = by_base(bs), ab = by_base(as);
  for (auto& [k, v] : bb) {
    auto m = ab.find(k);
    if (m == ab.end()) {
      for (auto it : v) d.rows.push_back(make_row(&it->second, nullptr, "", it->first.first, it->first.second));
      continue;
    }
    Side b = merge(v), a = merge(m->second);
    d.rows.push_back(make_row(&b, &a, "base_name", k.first, k.second));
    ab.erase(m);
  }
  for (auto& [k, v] : ab)
    for (auto it : v) d.rows.push_back(make_row(nullptr, &it->second, "", it->first.first, it->first.second));
  std::stable_sort(d.rows.begin(), d.rows.end(), [](const DiffRow& x, const DiffRow& y) {
    if (std::fabs(x.change_s) != std::fabs(y.change_s)) return std::fabs(x.change_s) > std::fabs(y.change_s);
    if (x.name != y.name) return x.name < y.name;
    return x.op < y.op;
  });
  return d;
}

Result<DiffResult> diff_paths(const std::string& before, const std::string& after) {
  ASSIGN_OR_RETURN(auto k, analysis_knowledge());
  return diff_paths(before, after, *k);
}

Result<DiffResult> diff_paths(const std::string& before, const std::string& after, const AnalysisKnowledge& k) {
  const Taxonomy& tax = k.taxonomy;
  DiffProfile side[2];
  std::optional<Error> damage;
  const std::string* paths[2] = {&before, &after};
  for (int i = 0; i < 2; ++i) {
    // One Timeline at a time: each run is reduced to its profile before the next is read.
    auto in = trace::load_trace(*paths[i], trace::kNeedGpuOps);
    if (!in) {
      Error e = in.error();
      e.message = std::string(i == 0 ? "before" : "after") + ": " + e.message;
      return e;
    }
    if (Status st = trace::require_gpu_activity(in->timeline, *paths[i]); !st.ok()) {
      Error e = st.error();
      e.message = std::string(i == 0 ? "before" : "after") + ": " + e.message;
      return e;
    }
    side[i] = diff_profile(in->timeline, tax, *paths[i]);
    if (in->damage) {
      side[i].notes.push_back(std::string(i == 0 ? "before" : "after") +
                              " input damaged, figures cover what was read: " + in->damage->describe());
      if (!damage) damage = in->damage;
    }
  }
  DiffResult d = diff_runs(std::move(side[0]), std::move(side[1]));
  d.damage = damage;
  return d;
}

}  // namespace goblin::analysis
