#include "analysis/memory_events.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/run_metrics.h"
#include "hw/knowledge.h"
#include "model/profiler_step.h"

namespace goblin::analysis {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// What enclosed one memory event on its thread.
struct Context {
  std::string site, where;
  const std::string* phase = nullptr;
};

// A CPU op or CPU annotation on one thread.
struct Interval {
  int64_t start = 0, end = 0;
  StrId name = kNoStr;
};

class Enclosure {
 public:
  Enclosure(const Timeline& tl, const MemoryCategoryRules& r) : tl_(tl), r_(r) {
    for (size_t i = 0; i < tl.annotations.size(); ++i) {
      if (tl.annotations.on_gpu[i]) continue;
      if (is_profiler_step(tl.str(tl.annotations.name[i])))
        steps_.push_back({tl.annotations.start_ns[i], tl.annotations.end_ns(i), tl.annotations.name[i]});
    }
    first_step_ = steps_.empty() ? INT64_MAX : steps_.front().start;  // annotations are sorted by start
  }

  const std::vector<Interval>& steps() const { return steps_; }

  // Each memory event's context, by a sweep per thread over its ops and annotations.
  std::vector<Context> contexts() const {
    const auto& me = tl_.memory_events;
    std::vector<Context> out(me.size());
    std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> events;  // (pid, tid) → rows, in time order
    for (size_t i = 0; i < me.size(); ++i) events[{me.pid[i], me.tid[i]}].push_back(i);
    for (const auto& [thread, rows] : events) {
      std::vector<Interval> iv;
      for (size_t i = 0; i < tl_.cpu_ops.size(); ++i)
        if (tl_.cpu_ops.kind[i] == CpuOpKind::Op && tl_.cpu_ops.pid[i] == thread.first &&
            tl_.cpu_ops.tid[i] == thread.second)
          iv.push_back({tl_.cpu_ops.start_ns[i], tl_.cpu_ops.end_ns(i), tl_.cpu_ops.name[i]});
      for (size_t i = 0; i < tl_.annotations.size(); ++i)
        if (!tl_.annotations.on_gpu[i] && tl_.annotations.pid[i] == thread.first &&
            tl_.annotations.tid[i] == thread.second)
          iv.push_back({tl_.annotations.start_ns[i], tl_.annotations.end_ns(i), tl_.annotations.name[i]});
      // Outer ranges first where two start together.
      std::sort(iv.begin(), iv.end(), [](const Interval& a, const Interval& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
      });
      std::vector<const Interval*> stack;
      size_t next = 0;
      for (size_t row : rows) {
        const int64_t ts = me.ts_ns[row];
        while (next < iv.size() && iv[next].start <= ts) {
          while (!stack.empty() && stack.back()->end < iv[next].start) stack.pop_back();
          stack.push_back(&iv[next++]);
        }
        while (!stack.empty() && stack.back()->end < ts) stack.pop_back();
        out[row] = context_of(stack, ts);
      }
    }
    return out;
  }

 private:
  Context context_of(const std::vector<const Interval*>& stack, int64_t ts) const {
    Context c;
    // Ranges left on the stack that ended before ts (improperly nested) do not enclose it.
    std::vector<std::string_view> names;
    for (const Interval* i : stack)
      if (i->end >= ts) names.push_back(tl_.str(i->name));
    for (auto it = names.rbegin(); it != names.rend() && c.site.empty(); ++it)
      if (std::find(r_.allocator_ops.begin(), r_.allocator_ops.end(), *it) == r_.allocator_ops.end())
        c.site = std::string(*it);
    if (c.site.empty()) c.site = names.empty() ? "(no enclosing op)" : std::string(names.back());
    for (std::string_view n : names)
      if (!is_profiler_step(n)) {
        c.where = std::string(n);
        break;
      }
    if (c.where.empty()) c.where = names.empty() ? "(no enclosing op)" : "(step only)";
    for (const auto& p : r_.kineto_phases) {
      for (std::string_view n : names)
        for (const auto& prefix : p.ops)
          if (starts_with(n, prefix)) {
            c.phase = &p.phase;
            return c;
          }
    }
    static const std::string kOther = "other";
    c.phase = ts < first_step_ ? &r_.before_first_step_phase : &kOther;
    return c;
  }

  const Timeline& tl_;
  const MemoryCategoryRules& r_;
  std::vector<Interval> steps_;
  int64_t first_step_ = INT64_MAX;
};

DeviceMemory analyse_device(const Timeline& tl, const std::vector<size_t>& ev, const std::vector<Context>& ctx,
                            const MemoryCategoryRules& rules, const std::vector<Interval>& steps, int top, int points) {
  const auto& me = tl.memory_events;
  DeviceMemory d;
  d.device = me.device[ev.front()];
  d.has_history = true;
  d.events = static_cast<int64_t>(ev.size());
  // Allocated before the first event: its total with its own change undone.
  d.before_history = std::max<int64_t>(0, me.total_allocated[ev.front()] - me.bytes[ev.front()]);
  d.peak_allocated = d.before_history;
  size_t peak_k = SIZE_MAX;
  int64_t res = 0;
  const size_t per_point = std::max<size_t>(
      1, (ev.size() + static_cast<size_t>(std::max(points, 1)) - 1) / static_cast<size_t>(std::max(points, 1)));
  MemoryPoint pt;
  for (size_t k = 0; k < ev.size(); ++k) {
    const size_t i = ev[k];
    const int64_t cur = me.total_allocated[i];
    if (me.total_reserved[i] >= 0) res = me.total_reserved[i];
    if (cur > d.peak_allocated) {
      d.peak_allocated = cur;
      d.peak_time_us = me.ts_ns[i] / 1000;
      d.reserved_at_peak = res;
      peak_k = k;
    }
    d.peak_reserved = std::max(d.peak_reserved, res);
    if (k % per_point == 0) pt = MemoryPoint{me.ts_ns[i] / 1000, cur, res};
    pt.allocated = std::max(pt.allocated, cur);
    pt.reserved = res;
    if (k % per_point == per_point - 1 || k + 1 == ev.size()) d.timeline.push_back(pt);
  }
  d.allocated_at_dump = me.total_allocated[ev.back()];
  d.reserved_at_dump = res;
  d.inactive_at_dump = std::max<int64_t>(0, res - d.allocated_at_dump);

  // Each allocation's fate: the phase of the event that freed it ("live": never freed).
  std::unordered_map<int64_t, size_t> open;  // addr → k of its allocation
  std::vector<const std::string*> freed_phase(ev.size(), nullptr);
  std::vector<size_t> freed_at(ev.size(), SIZE_MAX);
  for (size_t k = 0; k < ev.size(); ++k) {
    const size_t i = ev[k];
    if (me.addr[i] == kNone) continue;
    if (me.bytes[i] > 0) {
      open[me.addr[i]] = k;
    } else if (me.bytes[i] < 0) {
      auto it = open.find(me.addr[i]);
      if (it == open.end()) continue;  // allocated before the recording
      freed_phase[it->second] = ctx[i].phase;
      freed_at[it->second] = k;
      open.erase(it);
    }
  }
  std::map<std::tuple<std::string, std::string, std::string>, MemoryGroup> groups;
  auto add = [&](const std::string& category, const std::string& site, const std::string& where, int64_t bytes) {
    auto& g = groups[{category, site, where}];
    g.category = category;
    g.site = site;
    g.where = where;
    g.bytes += bytes;
    ++g.count;
    d.by_category[category] += bytes;
  };
  int64_t known = 0;
  if (peak_k != SIZE_MAX)
    for (size_t k = 0; k <= peak_k; ++k) {
      const size_t i = ev[k];
      if (me.bytes[i] <= 0 || freed_at[k] <= peak_k) continue;
      static const std::string kLive = "live";
      const std::string& fp = freed_at[k] == SIZE_MAX ? kLive : *freed_phase[k];
      add(memory_category(rules, *ctx[i].phase, fp), ctx[i].site, ctx[i].where, me.bytes[i]);
      known += me.bytes[i];
    }
  if (d.peak_allocated - known > 0)
    add("before_history", "(allocated before the trace's first memory event)", "", d.peak_allocated - known);
  for (auto& [key, g] : groups) d.by_stack.push_back(std::move(g));
  std::stable_sort(d.by_stack.begin(), d.by_stack.end(),
                   [](const MemoryGroup& a, const MemoryGroup& b) { return a.bytes > b.bytes; });
  if (top >= 0 && d.by_stack.size() > static_cast<size_t>(top)) d.by_stack.resize(static_cast<size_t>(top));

  // Per step: the most allocated and reserved between its start and end on the CPU clock the
  // events are stamped with.
  size_t k = 0;
  int64_t before = d.before_history, res_before = 0;
  for (const auto& s : steps) {
    while (k < ev.size() && me.ts_ns[ev[k]] < s.start) {
      before = me.total_allocated[ev[k]];
      if (me.total_reserved[ev[k]] >= 0) res_before = me.total_reserved[ev[k]];
      ++k;
    }
    MemoryStepPeak sp;
    sp.name = std::string(tl.str(s.name));
    sp.start_us = s.start / 1000;
    sp.end_us = s.end / 1000;
    sp.allocated_at_start = before;
    sp.peak_allocated = before;
    sp.peak_reserved = res_before;
    for (size_t j = k; j < ev.size() && me.ts_ns[ev[j]] < s.end; ++j) {
      sp.peak_allocated = std::max(sp.peak_allocated, me.total_allocated[ev[j]]);
      sp.peak_reserved = std::max(sp.peak_reserved, me.total_reserved[ev[j]]);
      ++sp.events;
    }
    d.steps.push_back(std::move(sp));
  }
  return d;
}

}  // namespace

MemoryReport analyse_memory_events(const Timeline& tl, const MemoryCategoryRules& rules, int top, int points) {
  MemoryReport rep;
  rep.allocator_segment_bytes = rules.allocator_segment_bytes;
  rep.source_kind = "kineto_trace";
  if (!tl.meta.sources.empty()) rep.source = tl.meta.sources.front();
  const auto& me = tl.memory_events;
  Enclosure enc(tl, rules);
  const std::vector<Context> ctx = enc.contexts();
  std::map<int32_t, std::vector<size_t>> per_device;  // accelerator rows (Device Type != CPU)
  size_t host = 0;
  for (size_t i = 0; i < me.size(); ++i) {
    if (me.device_type[i] == 0) {
      ++host;
      continue;
    }
    per_device[me.device[i]].push_back(i);
  }
  for (const auto& [dev, rows] : per_device)
    rep.devices.push_back(analyse_device(tl, rows, ctx, rules, enc.steps(), top, points));
  if (me.size() == 0)
    rep.notes.push_back(
        "the trace has no [memory] events: record it with torch.profiler.profile(profile_memory=True) to see where "
        "the memory went");
  else if (per_device.empty())
    rep.notes.push_back("the trace's [memory] events are all host (CPU) allocations: no device memory to report");
  if (host > 0) rep.notes.push_back(fmt::format("{} host (CPU) allocation events are not reported", host));
  rep.notes.push_back(
      "from the trace's [memory] events: peaks are the allocator's own Total Allocated / Total Reserved; at the end "
      "means at the last event (the dump fields), fragmentation is not known; categories are inferred from the "
      "enclosing ops (data/memory_categories.yaml § kineto)");
  for (const auto& d : rep.devices)
    if (d.before_history > 0)
      rep.notes.push_back(
          fmt::format("device {}: {} bytes were allocated before the trace's first memory event (start the profiler "
                      "before the model is built to see where)",
                      d.device, d.before_history));
  return rep;
}

std::optional<MemoryHeadroom> memory_headroom(const MemoryReport& r, const hw::HwKnowledge& hw,
                                              const std::string& device_name, int64_t device_total_bytes,
                                              std::string& why) {
  if (r.devices.empty()) {
    why = "the memory source holds no device allocations";
    return std::nullopt;
  }
  const DeviceMemory& d = *std::max_element(r.devices.begin(), r.devices.end(), [](const auto& a, const auto& b) {
    return a.peak_reserved < b.peak_reserved;
  });
  MemoryHeadroom h;
  h.source = r.source;
  h.device = d.device;
  h.peak_allocated = d.peak_allocated;
  h.peak_reserved = std::max(d.peak_reserved, d.peak_allocated);
  if (device_total_bytes > 0) {
    h.capacity_bytes = device_total_bytes;
    h.capacity_basis = "the trace's device properties (totalGlobalMem)";
  } else if (!device_name.empty()) {
    auto spec = hw.gpu(device_name);
    const hw::SpecValue* mem = spec ? spec->spec("memory_size") : nullptr;
    if (!mem || !mem->value || mem->unit != "GB") {
      why = fmt::format("no memory size for GPU \"{}\" in data/gpus.yaml", device_name);
      return std::nullopt;
    }
    h.capacity_bytes = static_cast<int64_t>(*mem->value * 1e9);
    h.capacity_basis = fmt::format("data/gpus.yaml {} memory_size {} GB ({})", spec->id, *mem->value, mem->citation());
  } else {
    why = "the device's memory is not known: name the GPU (--gpu) or give a trace with device properties";
    return std::nullopt;
  }
  for (const char* c : {"parameters", "gradients", "optimizer_state", "before_history"})
    if (auto it = d.by_category.find(c); it != d.by_category.end()) h.fixed_bytes += it->second;
  h.per_batch_bytes = std::max<int64_t>(0, d.peak_allocated - h.fixed_bytes);
  const double alloc_share = h.peak_reserved > 0 ? static_cast<double>(h.peak_allocated) / h.peak_reserved : 1.0;
  h.usable_bytes = static_cast<int64_t>(static_cast<double>(h.capacity_bytes) * alloc_share);
  h.headroom_bytes = h.capacity_bytes - h.peak_reserved;
  h.batch_scale_fits =
      h.per_batch_bytes > 0 ? static_cast<double>(h.usable_bytes - h.fixed_bytes) / h.per_batch_bytes : 0.0;
  h.batch_scale_fits_uncapped = h.batch_scale_fits;
  const int64_t seg = r.allocator_segment_bytes;
  if (seg > 0 && h.per_batch_bytes > 0 && h.per_batch_bytes < seg) {
    h.batch_scale_capped = true;
    h.batch_scale_fits = std::max(0.0, static_cast<double>(h.usable_bytes - h.fixed_bytes) / static_cast<double>(seg));
    h.batch_scale_cap = fmt::format(
        "capped at {:.2f}x: the {} B that grow with the batch are less than one caching-allocator segment ({} B, "
        "data/memory_categories.yaml allocator_segment_bytes), too little to scale from; one segment a batch is what "
        "the device's memory allows at most (the linear figure, {:.2f}x, is not a measurement)",
        h.batch_scale_fits, h.per_batch_bytes, seg, h.batch_scale_fits_uncapped);
  }
  h.basis = fmt::format(
      "device {} of {}: peak allocated {} B, peak reserved {} B; capacity {} B from {}; {} B at the peak do not grow "
      "with the batch (parameters, gradients, optimizer state, allocated before the recording) and {} B do "
      "(activations, temporaries, other); at the measured {:.3f} allocated per reserved byte {} B can be allocated, "
      "so the batch fits {:.2f}x (linear in the batch; CUDA context and other processes not counted)",
      h.device, r.source, h.peak_allocated, h.peak_reserved, h.capacity_bytes, h.capacity_basis, h.fixed_bytes,
      h.per_batch_bytes, alloc_share, h.usable_bytes, h.batch_scale_fits_uncapped);
  if (h.batch_scale_capped) h.basis += "; " + h.batch_scale_cap;
  return h;
}

void apply_memory_headroom(RunMetrics& m, const MemoryHeadroom& h) {
  m.hbm_peak_gb = static_cast<double>(h.peak_reserved) / 1e9;
  m.hbm_total_gb = static_cast<double>(h.capacity_bytes) / 1e9;
  m.memory_headroom_gb = static_cast<double>(std::max<int64_t>(0, h.headroom_bytes)) / 1e9;
  m.batch_scale_fits = h.batch_scale_fits;
  m.memory_basis = h.basis;
  auto& un = m.waste_budget.unobserved;
  un.erase(std::remove(un.begin(), un.end(), "memory_headroom"), un.end());
}

}  // namespace goblin::analysis
