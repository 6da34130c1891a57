// Step detection. The window of a step (documented in StepDetection::method and docs/metrics.md
// § Steps), one rule for every step, the last included:
//
//   CPU ProfilerStep#N annotations (user_annotation, or cpu_op in old traces): a step's own GPU
//     work is the GPU ops (kernels, memcpy, memset) whose launching runtime call (matched by
//     correlation id, on any thread) began inside its CPU span; g_first_i / g_last_i are its first
//     start and last end.
//       start_i = min(g_first_i, max(cpu_start_i, end of the GPU activity before g_first_i)),
//                 never before start_{i-1}
//       end_i   = min(max(cpu_end_i, g_last_i), start_{i+1})
//     The start is the step's first GPU op moved back over GPU idle time, to no earlier than its
//     CPU start: the host loading a batch or launching while the GPU waits is the step's own
//     waste, GPU time still running for earlier launches (a GPU-bound loop's queue, the previous
//     step's tail) is not. A step without recorded GPU work is its CPU span. Earlier rules cut
//     every window at the next step's CPU start, so in a GPU-bound loop each window held the
//     previous step's queued tail and the last one, running to the end of its own GPU work, held
//     both (the H100 fp32 Llama fixture: 266.0 ms against 206.7 ms); with this rule every window
//     holds exactly the work its step launched when steps do not overlap on the GPU.
//     The last step is `partial` when its CPU span reaches the end of the trace, when launches
//     made inside it have no recorded GPU activity (profiling stopped, or the trace was cut,
//     mid-step) or when the read was damaged (an input_damaged warning: a truncated file loses
//     its last events).
//   gpu_user_annotation ProfilerStep#N (no CPU ones): the GPU-side range itself (hull over
//     streams of the same name), clipped to the next one's start.
//   Neither: one window from the first GPU activity start to the last GPU activity end.
//
//   Before the first step: GPU ops that start before W_1 (typically kernels launched before the
//   profiler started, so without a launch record in the trace, still running when the first step
//   began) get their own window [first such start, W_1.start), reported beside the steps.
#include "analysis/steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "model/profiler_step.h"

namespace goblin::analysis {

namespace {

// A GPU-side step range "covers" the step's GPU work up to this slack (timestamp rounding).
constexpr int64_t kCoverSlackNs = 1000;

bool is_launch_call(std::string_view n) {
  return n.find("Launch") != std::string_view::npos || n.find("launch") != std::string_view::npos;
}

struct Raw {
  std::string name;
  int64_t start, end;
};

std::string ms(int64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }

void clip_overlaps(std::vector<Step>& steps) {
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    if (steps[i].end_ns > steps[i + 1].start_ns) steps[i].end_ns = std::max(steps[i].start_ns, steps[i + 1].start_ns);
  }
}

// One loop's ProfilerStep annotations follow one another; one that starts more than 1 µs before an
// earlier one ends is a damaged or stray annotation (or two loops in one file). Clipping alone
// would silently split a step in two and cut the mean step time, so both steps are reported but
// kept out of per-step means (`partial`), with a note (docs/metrics.md § Steps).
void flag_overlapping_annotations(const std::vector<Raw>& cpu, StepDetection& d) {
  size_t latest = 0;  // the step whose annotation ends last so far
  int64_t flagged = 0;
  std::string first;
  for (size_t s = 1; s < cpu.size(); ++s) {
    if (cpu[s].start + kCoverSlackNs < cpu[latest].end) {
      for (size_t k : {latest, s}) {
        if (!d.steps[k].partial) ++flagged;
        d.steps[k].partial = true;
      }
      if (first.empty())
        first = cpu[s].name + " starts " + ms(cpu[latest].end - cpu[s].start) + " before " + cpu[latest].name + " ends";
    }
    if (cpu[s].end > cpu[latest].end) latest = s;
  }
  if (flagged > 0)
    d.notes.push_back("overlapping step annotations: " + first + "; " + fmt::to_string(flagged) +
                      " step(s) whose ProfilerStep annotations overlap are reported but excluded from per-step means "
                      "(clipping them would split a step and cut the step time)");
}

// The warning of a read that stopped early (a truncated or corrupt file, trace/read_path.cpp), or
// null: the trace's last events may be missing.
const Diagnostic* read_damage(const Timeline& tl) {
  for (const Diagnostic& w : tl.warnings)
    if (w.id == W::input_damaged) return &w;
  return nullptr;
}

// GPU-side ProfilerStep ranges: name → hull over streams.
std::map<std::string, std::pair<int64_t, int64_t>> gpu_step_ranges(const Timeline& tl) {
  std::map<std::string, std::pair<int64_t, int64_t>> gpu;
  for (size_t i = 0; i < tl.annotations.size(); ++i) {
    if (!tl.annotations.on_gpu[i]) continue;
    std::string_view n = tl.str(tl.annotations.name[i]);
    if (!is_numbered_profiler_step(n)) continue;
    auto [it, inserted] = gpu.try_emplace(std::string(n), tl.annotations.start_ns[i], tl.annotations.end_ns(i));
    if (!inserted) {
      it->second.first = std::min(it->second.first, tl.annotations.start_ns[i]);
      it->second.second = std::max(it->second.second, tl.annotations.end_ns(i));
    }
  }
  return gpu;
}

// Ops whose correlation has no runtime row: launched before the profiler started (or by a
// thread it did not trace).
bool has_launch_record(const Timeline& tl, int64_t corr) {
  return corr != kNone && tl.runtime_by_correlation(corr).has_value();
}

// Correlation id → a step index and two flags. Correlation ids are counters (CUPTI, roctracer):
// one trace's ids fill a few ranges not much wider than their number, so they are kept in flat
// blocks of 4,096 ids, a load or a store per row, where hash maps allocated a node per runtime
// and GPU-op row (most of find_steps' time, ~5 % of goblin summarize on a 284 MB rank). Ids too
// spread out for blocks (damaged traces) go to hash maps, as before; the two give the same
// answers. The runtime flag (a launch record exists) is kept in blocks only.
class CorrIndex {
 public:
  static constexpr uint8_t kGpuOp = 1, kRuntime = 2;  // flags: a GPU op / a runtime row has this id
  explicit CorrIndex(const Timeline& tl) {
    std::vector<int64_t> blocks;
    size_t n = 0;
    auto see = [&](int64_t c) {
      if (c == kNone) return;
      ++n;
      if (blocks.empty() || blocks.back() != (c >> kBits)) blocks.push_back(c >> kBits);
    };
    for (size_t r = 0; r < tl.runtime.size(); ++r) see(tl.runtime.correlation[r]);
    for (size_t i = 0; i < tl.gpu_ops.size(); ++i) see(tl.gpu_ops.correlation[i]);
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    if (blocks.size() * kBlock > 8 * n + 65536) return;  // sparse: hash maps
    blocks_ = std::move(blocks);
    step_.assign(blocks_.size() * kBlock, -1);
    flags_.assign(blocks_.size() * kBlock, 0);
    flat_ = true;
  }
  bool flat() const { return flat_; }
  // The first step recorded for `corr` wins (as map emplace did).
  void set_step_if_unset(int64_t corr, int32_t s) {
    if (!flat_) {
      step_map_.emplace(corr, s);
      return;
    }
    int32_t& v = step_[slot(corr)];
    if (v < 0) v = s;
  }
  int32_t step(int64_t corr) const {
    if (flat_) return step_[slot(corr)];
    auto it = step_map_.find(corr);
    return it == step_map_.end() ? -1 : it->second;
  }
  void flag(int64_t corr, uint8_t f) {
    if (flat_)
      flags_[slot(corr)] |= f;
    else if (f == kGpuOp)
      gpu_ops_.insert(corr);
  }
  bool has(int64_t corr, uint8_t f) const {
    if (flat_) return (flags_[slot(corr)] & f) != 0;
    return f == kGpuOp && gpu_ops_.count(corr) > 0;
  }

 private:
  static constexpr int kBits = 12;
  static constexpr int64_t kBlock = int64_t{1} << kBits;
  // Only ids seen in the constructor's pass are asked for, so their block is there. Rows come in
  // time order and ids mostly in that order too: the last block found is tried first.
  size_t slot(int64_t corr) const {
    const int64_t b = corr >> kBits;
    if (blocks_[last_] != b)
      last_ = static_cast<size_t>(std::lower_bound(blocks_.begin(), blocks_.end(), b) - blocks_.begin());
    return last_ * kBlock + static_cast<size_t>(corr & (kBlock - 1));
  }
  bool flat_ = false;
  std::vector<int64_t> blocks_;
  mutable size_t last_ = 0;
  std::vector<int32_t> step_;
  std::vector<uint8_t> flags_;
  std::unordered_map<int64_t, int32_t> step_map_;
  std::unordered_set<int64_t> gpu_ops_;
};

// The window before the first step: every GPU op that starts before it. `launched` answers
// whether a correlation id has a launch record (has_launch_record) when the caller has the index.
void find_before_first_step(const Timeline& tl, StepDetection& d, const CorrIndex* launched = nullptr) {
  if (d.steps.empty() || d.steps.front().name == "window") return;
  const int64_t w1 = d.steps.front().start_ns;
  int64_t first = INT64_MAX;
  const GpuOpTable& c = tl.gpu_ops;
  for (size_t i = 0; i < c.size() && c.start_ns[i] < w1; ++i) {  // in start order (Timeline::finish)
    first = std::min(first, c.start_ns[i]);
    ++d.before_first_step_ops;
    const int64_t corr = c.correlation[i];
    const bool has = launched ? corr != kNone && launched->has(corr, CorrIndex::kRuntime) : has_launch_record(tl, corr);
    if (!has) ++d.before_first_step_orphans;
  }
  if (d.before_first_step_ops == 0) return;
  d.has_before_first_step = true;
  d.before_first_step =
      Step{"before " + d.steps.front().name, first, w1, false, "GPU work that started before the first step's window"};
  d.notes.push_back(fmt::to_string(d.before_first_step_ops) + " GPU op(s) started before " + d.steps.front().name +
                    "'s window (" + ms(w1 - first) + " window, " + fmt::to_string(d.before_first_step_orphans) +
                    " of them with no launch record in the trace: launched before the profiler started); reported as "
                    "before_first_step, in no step");
}

}  // namespace

namespace {
// The numbered ProfilerStep ranges of the CPU side (annotations and CPU ops), by start, once each.
std::vector<Raw> cpu_step_ranges(const Timeline& tl) {
  std::vector<Raw> cpu;
  for (size_t i = 0; i < tl.annotations.size(); ++i) {
    if (tl.annotations.on_gpu[i]) continue;
    std::string_view n = tl.str(tl.annotations.name[i]);
    if (is_numbered_profiler_step(n))
      cpu.push_back({std::string(n), tl.annotations.start_ns[i], tl.annotations.end_ns(i)});
  }
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) {
    std::string_view n = tl.str(tl.cpu_ops.name[i]);
    if (is_numbered_profiler_step(n)) cpu.push_back({std::string(n), tl.cpu_ops.start_ns[i], tl.cpu_ops.end_ns(i)});
  }
  std::sort(cpu.begin(), cpu.end(),
            [](const Raw& a, const Raw& b) { return a.start != b.start ? a.start < b.start : a.name < b.name; });
  cpu.erase(std::unique(cpu.begin(), cpu.end(),
                        [](const Raw& a, const Raw& b) { return a.start == b.start && a.name == b.name; }),
            cpu.end());

  return cpu;
}

// The last step is partial when its CPU span reaches the trace's end, its launches lost their GPU
// work, or the read was damaged: reported, excluded from per-step means.
void mark_partial_last_step(const Timeline& tl, const std::vector<Raw>& cpu, int64_t lost_last, StepDetection& d) {
  const int64_t span_last = tl.span().second;
  Step& last = d.steps.back();
  std::string why;
  if (cpu.back().end >= span_last)
    why = "its CPU span reaches the end of the trace";
  else if (lost_last > 0)
    why = "launches without recorded GPU activity: the profiler stopped or the trace was cut mid-step";
  else if (const Diagnostic* dmg = read_damage(tl))
    why = "the read was damaged (" + dmg->message + "), so the events of its end may be missing";
  if (!why.empty()) {
    last.partial = true;
    d.notes.push_back(last.name + " is partial (" + why + "): reported, excluded from per-step means");
  }
}

// Steps from the CPU-side ProfilerStep ranges and the GPU work each launched (docs/metrics.md § Steps).
void steps_from_cpu_ranges(const Timeline& tl, const std::vector<Raw>& cpu, StepDetection& d) {
  // Latest end of GPU activity (kernels, memcpy, memset) at or before t; t itself when an op is
  // running at t, INT64_MIN when none ran before. Built lazily (only traces with CPU steps that
  // launched GPU work ask): ops by start (their table order) with a running maximum of their
  // ends, O(log n) a query.
  std::vector<std::pair<int64_t, int64_t>> by_start;  // (start, running max end)
  auto last_gpu_end_before = [&tl, &by_start](int64_t t) {
    if (by_start.empty()) {
      by_start.reserve(tl.gpu_op_count());
      const GpuOpTable& c = tl.gpu_ops;
      for (size_t i = 0; i < c.size(); ++i) by_start.emplace_back(c.start_ns[i], c.end_ns(i));
      for (size_t i = 1; i < by_start.size(); ++i)
        by_start[i].second = std::max(by_start[i].second, by_start[i - 1].second);
    }
    auto it = std::lower_bound(by_start.begin(), by_start.end(), std::make_pair(t, INT64_MIN));
    if (it == by_start.begin()) return INT64_MIN;
    return std::min(std::prev(it)->second, t);
  };

  const size_t ns = cpu.size();
  std::vector<int64_t> gfirst(ns, INT64_MAX), glast(ns, INT64_MIN);
  std::vector<int64_t> lost(ns, 0);
  // runtime call → step (by its start inside the step's CPU span); O(R log S).
  CorrIndex corr(tl);
  std::vector<int64_t> starts(ns);
  for (size_t s = 0; s < ns; ++s) starts[s] = cpu[s].start;
  for (size_t r = 0; r < tl.runtime.size(); ++r) {
    int64_t cr = tl.runtime.correlation[r];
    if (cr == kNone) continue;
    if (corr.flat()) corr.flag(cr, CorrIndex::kRuntime);  // has_launch_record's answer, below
    int64_t t = tl.runtime.start_ns[r];
    auto it = std::upper_bound(starts.begin(), starts.end(), t);
    if (it == starts.begin()) continue;
    size_t s = static_cast<size_t>(it - starts.begin()) - 1;
    if (t >= cpu[s].end) continue;
    corr.set_step_if_unset(cr, static_cast<int32_t>(s));
  }
  const GpuOpTable& c = tl.gpu_ops;
  for (size_t i = 0; i < c.size(); ++i) {
    if (c.correlation[i] == kNone) continue;
    corr.flag(c.correlation[i], CorrIndex::kGpuOp);
    const int32_t st = corr.step(c.correlation[i]);
    if (st < 0) continue;
    const size_t s = static_cast<size_t>(st);
    gfirst[s] = std::min(gfirst[s], c.start_ns[i]);
    glast[s] = std::max(glast[s], c.end_ns(i));
  }
  std::vector<int8_t> launch_name(tl.strings.size(), -1);  // is_launch_call per name, computed once
  for (size_t r = 0; r < tl.runtime.size(); ++r) {
    int64_t cr = tl.runtime.correlation[r];
    if (cr == kNone) continue;
    const StrId id = tl.runtime.name[r];
    int8_t& l = launch_name[id];
    if (l < 0) l = is_launch_call(tl.str(id)) ? 1 : 0;
    if (!l) continue;
    const int32_t st = corr.step(cr);
    if (st >= 0 && !corr.has(cr, CorrIndex::kGpuOp)) ++lost[static_cast<size_t>(st)];
  }
  // One rule for every step, the last included (docs/metrics.md § Steps). A step starts at the
  // first GPU op it launched, moved back over the GPU idle time before that op but not before
  // its CPU start: the host loading or launching while the GPU waits is the step's own waste,
  // GPU time still running for earlier launches is not. It ends where its own work ends (the
  // later of its CPU end and the end of the GPU work it launched), never after the next step's
  // start. A step without recorded GPU work is its CPU span, from no earlier than the end of the
  // previous step's own work (a slice that kept a step's launches but not its kernels: in a
  // GPU-bound loop its CPU start lies inside the previous step's GPU work).
  std::vector<int64_t> w_start(ns), w_end(ns);
  for (size_t s = 0; s < ns; ++s) {
    int64_t a = cpu[s].start;
    if (gfirst[s] != INT64_MAX)
      a = std::min(gfirst[s], std::max(cpu[s].start, last_gpu_end_before(gfirst[s])));
    else if (s > 0)
      a = std::max(a, glast[s - 1] != INT64_MIN ? std::max(cpu[s - 1].end, glast[s - 1]) : cpu[s - 1].end);
    w_start[s] = s > 0 ? std::max(a, w_start[s - 1]) : a;
  }
  for (size_t s = 0; s < ns; ++s) {
    int64_t e = glast[s] != INT64_MIN ? std::max(cpu[s].end, glast[s]) : cpu[s].end;
    if (s + 1 < ns) e = std::min(e, w_start[s + 1]);
    w_end[s] = std::max(e, w_start[s]);
  }
  for (size_t s = 0; s < ns; ++s) {
    Step st;
    st.name = cpu[s].name;
    st.start_ns = w_start[s];
    st.end_ns = w_end[s];
    st.source = "ProfilerStep (cpu annotation) + GPU work it launched";
    st.cpu_start_ns = cpu[s].start;
    st.cpu_end_ns = cpu[s].end;
    d.steps.push_back(std::move(st));
    if (lost[s] > 0)
      d.notes.push_back(cpu[s].name + ": " + fmt::to_string(lost[s]) + " launch call(s) have no recorded GPU activity");
  }
  flag_overlapping_annotations(cpu, d);
  mark_partial_last_step(tl, cpu, lost.back(), d);
  d.method =
      "ProfilerStep#N CPU annotations; a step's window starts at the first GPU op launched (by correlation) "
      "inside its CPU span, moved back over GPU idle time to no earlier than its CPU start, and ends at the later "
      "of its CPU end and the end of the GPU work it launched, clipped to the next step's start";
  find_before_first_step(tl, d, corr.flat() ? &corr : nullptr);
}

}  // namespace

StepDetection find_steps(const Timeline& tl) {
  StepDetection d;
  const std::vector<Raw> cpu = cpu_step_ranges(tl);
  if (!cpu.empty()) {
    steps_from_cpu_ranges(tl, cpu, d);
    return d;
  }
  const auto gpu = gpu_step_ranges(tl);

  // ---- GPU-side ProfilerStep ranges (gpu_user_annotation) ----
  if (!gpu.empty()) {
    for (auto& [name, se] : gpu) d.steps.push_back(Step{name, se.first, se.second, false, "gpu_user_annotation"});
    std::sort(d.steps.begin(), d.steps.end(), [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
    clip_overlaps(d.steps);
    if (d.steps.back().end_ns >= tl.gpu_span().second && tl.gpu_span().second > 0) {
      // A GPU range that ends with the last GPU activity may have been cut by the trace end; we
      // cannot tell, so we say so but keep it complete.
      d.notes.push_back(d.steps.back().name + " ends with the last GPU activity of the trace");
    }
    d.method = "gpu_user_annotation ProfilerStep#N ranges (hull over streams), end clipped to the next step's start";
    find_before_first_step(tl, d);
    return d;
  }

  // ---- fallback ----
  auto [g0, g1] = tl.gpu_span();
  if (g1 > g0) {
    d.steps.push_back(Step{"window", g0, g1, false, "fallback: first to last GPU activity"});
    d.method = "no ProfilerStep annotations: one window from the first GPU activity start to the last GPU activity end";
  } else {
    d.method = "no steps: the trace has no ProfilerStep annotations and no GPU activity";
  }
  return d;
}

}  // namespace goblin::analysis
