#include "analysis/memory.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <unordered_map>

namespace goblin::analysis {

namespace {

using trace::MemAction;
using trace::MemorySnapshot;

// The caching allocator's block size for a request: at least 512 bytes, a multiple of 512
// (kMinBlockSize and round_size() in c10/cuda/CUDACachingAllocator.cpp, with
// roundup_power2_divisions unset). The trace records requested sizes; the allocator's
// allocated_bytes, and so torch.cuda.max_memory_allocated(), count block sizes.
// source: https://github.com/pytorch/pytorch/blob/v2.11.0/c10/cuda/CUDACachingAllocator.cpp
int64_t block_size(int64_t requested) {
  constexpr int64_t kMinBlock = 512;
  if (requested <= kMinBlock) return kMinBlock;
  return (requested + kMinBlock - 1) / kMinBlock * kMinBlock;
}

std::string_view base_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Frames of the Python installation (the library, not the user's code): site/dist-packages and
// the standard library.
bool library_frame(const trace::SnapshotFrame& f) {
  return f.filename.find("-packages/") != std::string::npos || f.filename.find("/lib/python") != std::string::npos ||
         f.filename.empty() || f.filename[0] == '<' || f.filename == "??";
}

class Classifier {
 public:
  Classifier(const trace::MemorySnapshot& s, const MemoryCategoryRules& r) : s_(s), r_(r) {}

  const std::string& phase(uint32_t stack) {
    auto [it, fresh] = phase_of_.try_emplace(stack, nullptr);
    if (fresh) it->second = &find_phase(stack);
    return *it->second;
  }

  std::string category(const std::string& alloc_phase, const std::string& freed_phase) const {
    return memory_category(r_, alloc_phase, freed_phase);
  }

 private:
  const std::string& find_phase(uint32_t stack) const {
    static const std::string kOther = "other";
    const auto& st = s_.stacks[stack];
    if (st.empty()) return r_.empty_stack_phase;
    for (const auto& p : r_.phases)
      for (uint32_t f : st)
        for (const auto& pat : p.frames) {
          const auto& fr = s_.frames[f];
          if ((pat.file.empty() || fr.filename.find(pat.file) != std::string::npos) &&
              (pat.name.empty() || fr.name == pat.name))
            return p.phase;
        }
    return kOther;
  }

  const trace::MemorySnapshot& s_;
  const MemoryCategoryRules& r_;
  std::unordered_map<uint32_t, const std::string*> phase_of_;
};

std::string frame_text(const trace::SnapshotFrame& f) {
  return fmt::format("{}:{} {}", base_name(f.filename), f.line, f.name);
}

std::pair<std::string, std::string> site_where(const trace::MemorySnapshot& s, uint32_t stack) {
  const auto& st = s.stacks[stack];
  if (st.empty()) return {"(no Python frames)", "(no Python frames)"};
  std::string where = "(library code only)";
  for (uint32_t f : st)
    if (!library_frame(s.frames[f])) {
      where = frame_text(s.frames[f]);
      break;
    }
  return {frame_text(s.frames[st.front()]), where};
}

// One live allocation while replaying the trace.
struct Live {
  int64_t size = 0;
  uint32_t stack = 0;
  std::string category;
};

DeviceMemory analyse_device(const trace::MemorySnapshot& s, int32_t dev, Classifier& cls, int top, int points) {
  DeviceMemory d;
  d.device = dev;
  // The state at the dump: the blocks of this device's segments.
  std::unordered_map<int64_t, const trace::SnapshotBlock*> live_at_dump;
  for (const auto& seg : s.segments) {
    if (seg.device != dev) continue;
    d.reserved_at_dump += seg.total_size;
    for (size_t i = seg.first_block; i < seg.first_block + seg.blocks; ++i) {
      const auto& b = s.blocks[i];
      if (b.state == trace::BlockState::ActiveAllocated || b.state == trace::BlockState::ActivePendingFree) {
        d.allocated_at_dump += b.size;
        live_at_dump.emplace(b.address, &b);
      } else if (b.state == trace::BlockState::Inactive) {
        d.inactive_at_dump += b.size;
        d.largest_inactive_at_dump = std::max(d.largest_inactive_at_dump, b.size);
      }
    }
  }
  if (d.inactive_at_dump > 0)
    d.fragmentation_at_dump =
        1.0 - static_cast<double>(d.largest_inactive_at_dump) / static_cast<double>(d.inactive_at_dump);
  std::vector<size_t> ev;  // this device's alloc/free/segment events, in order
  for (size_t i = 0; i < s.events.size(); ++i)
    if (s.events[i].device == dev) ev.push_back(i);
  d.events = static_cast<int64_t>(ev.size());
  d.has_history = !ev.empty();

  // Allocated and reserved before the first event: the dump's totals with the trace undone.
  int64_t alloc0 = d.allocated_at_dump, res0 = d.reserved_at_dump;
  for (size_t i : ev) {
    const auto& e = s.events[i];
    if (e.action == trace::MemAction::Alloc) alloc0 -= block_size(e.size);
    if (e.action == trace::MemAction::FreeCompleted) alloc0 += block_size(e.size);
    if (e.action == trace::MemAction::SegmentAlloc || e.action == trace::MemAction::SegmentMap) res0 -= e.size;
    if (e.action == trace::MemAction::SegmentFree || e.action == trace::MemAction::SegmentUnmap) res0 += e.size;
  }
  d.before_history = d.has_history ? alloc0 : 0;

  // Each allocation's fate: the phase of the event that freed it ("live": never freed).
  std::unordered_map<int64_t, size_t> open;  // address → index in ev of its alloc
  std::vector<std::string> freed_phase(ev.size());
  std::vector<size_t> freed_at(ev.size(), SIZE_MAX);
  for (size_t k = 0; k < ev.size(); ++k) {
    const auto& e = s.events[ev[k]];
    if (e.action == trace::MemAction::Alloc) {
      open[e.addr] = k;
    } else if (e.action == trace::MemAction::FreeCompleted) {
      auto it = open.find(e.addr);
      if (it != open.end()) {
        freed_phase[it->second] = cls.phase(e.stack);
        freed_at[it->second] = k;
        open.erase(it);
      }
    }
  }

  // The replay: the peak (the first time the most bytes were allocated) and the timeline.
  int64_t cur = alloc0, res = res0;
  d.peak_allocated = cur;
  d.peak_reserved = res;
  d.reserved_at_peak = res;
  size_t peak_k = SIZE_MAX;  // SIZE_MAX: the peak is the state before the first event
  const size_t per_point = std::max<size_t>(
      1, (ev.size() + static_cast<size_t>(std::max(points, 1)) - 1) / static_cast<size_t>(std::max(points, 1)));
  MemoryPoint pt;
  for (size_t k = 0; k < ev.size(); ++k) {
    const auto& e = s.events[ev[k]];
    switch (e.action) {
      case trace::MemAction::Alloc:
        cur += block_size(e.size);
        break;
      case trace::MemAction::FreeCompleted:
        cur -= block_size(e.size);
        break;
      case trace::MemAction::SegmentAlloc:
      case trace::MemAction::SegmentMap:
        res += e.size;
        break;
      case trace::MemAction::SegmentFree:
      case trace::MemAction::SegmentUnmap:
        res -= e.size;
        break;
      default:
        break;
    }
    if (cur > d.peak_allocated) {
      d.peak_allocated = cur;
      d.peak_time_us = e.time_us;
      d.reserved_at_peak = res;
      peak_k = k;
    }
    d.peak_reserved = std::max(d.peak_reserved, res);
    if (k % per_point == 0) pt = MemoryPoint{e.time_us, cur, res};
    pt.allocated = std::max(pt.allocated, cur);
    pt.reserved = res;
    if (k % per_point == per_point - 1 || k + 1 == ev.size()) d.timeline.push_back(pt);
  }
  if (!d.has_history) {
    d.peak_allocated = d.allocated_at_dump;
    d.peak_reserved = d.reserved_at_dump;
    d.reserved_at_peak = d.reserved_at_dump;
  }

  // What was live at the peak, grouped. Without history: what is live at the dump.
  std::map<std::tuple<std::string, std::string, std::string>, MemoryGroup> groups;
  auto add = [&](const std::string& category, uint32_t stack, int64_t bytes) {
    auto [site, where] = site_where(s, stack);
    auto& g = groups[{category, site, where}];
    g.category = category;
    g.site = std::move(site);
    g.where = std::move(where);
    g.bytes += bytes;
    ++g.count;
    d.by_category[category] += bytes;
  };
  if (!d.has_history) {
    for (const auto& [addr, b] : live_at_dump) add(cls.category(cls.phase(b->stack), "live"), b->stack, b->size);
  } else {
    if (peak_k != SIZE_MAX) {
      for (size_t k = 0; k <= peak_k; ++k) {
        const auto& e = s.events[ev[k]];
        if (e.action != trace::MemAction::Alloc || freed_at[k] <= peak_k) continue;
        const std::string& fp = freed_at[k] == SIZE_MAX ? std::string("live") : freed_phase[k];
        add(cls.category(cls.phase(e.stack), fp), e.stack, block_size(e.size));
      }
    }
    // Allocations older than the history (their frames, when the dump still holds them, say where).
    int64_t known = 0;
    for (const auto& [cat, bytes] : d.by_category) known += bytes;
    if (d.peak_allocated - known > 0) {
      auto& g = groups[{"before_history", "(allocated before the history began)", ""}];
      g.category = "before_history";
      g.site = "(allocated before the history began)";
      g.bytes += d.peak_allocated - known;
      ++g.count;
      d.by_category["before_history"] += d.peak_allocated - known;
    }
  }
  for (auto& [key, g] : groups) d.by_stack.push_back(std::move(g));
  std::stable_sort(d.by_stack.begin(), d.by_stack.end(),
                   [](const MemoryGroup& a, const MemoryGroup& b) { return a.bytes > b.bytes; });
  if (top >= 0 && d.by_stack.size() > static_cast<size_t>(top)) d.by_stack.resize(static_cast<size_t>(top));
  return d;
}

}  // namespace

std::string memory_category(const MemoryCategoryRules& r, const std::string& allocated, const std::string& freed) {
  for (const auto& rule : r.rules) {
    if (rule.allocated != allocated) continue;
    if (!rule.freed.empty() && std::find(rule.freed.begin(), rule.freed.end(), freed) == rule.freed.end()) continue;
    return rule.category;
  }
  return "other";
}

Result<MemoryCategoryRules> parse_memory_categories(std::string_view yaml, const std::string& origin) {
  MemoryCategoryRules r;
  try {
    YAML::Node y = YAML::Load(std::string(yaml));
    for (const auto& n : y["phases"]) {
      MemoryCategoryRules::Phase p;
      p.phase = n["phase"].as<std::string>();
      for (const auto& f : n["frames"])
        p.frames.push_back(
            {f["file"] ? f["file"].as<std::string>() : "", f["name"] ? f["name"].as<std::string>() : ""});
      r.phases.push_back(std::move(p));
    }
    if (y["empty_stack_phase"]) r.empty_stack_phase = y["empty_stack_phase"].as<std::string>();
    if (y["allocator_segment_bytes"]) r.allocator_segment_bytes = y["allocator_segment_bytes"].as<int64_t>();
    for (const auto& n : y["categories"]) {
      MemoryCategoryRules::Rule rule;
      rule.category = n["category"].as<std::string>();
      rule.allocated = n["allocated"].as<std::string>();
      if (n["freed"]) rule.freed = n["freed"].as<std::vector<std::string>>();
      r.rules.push_back(std::move(rule));
    }
    if (const auto k = y["kineto"]) {
      for (const auto& n : k["phases"])
        r.kineto_phases.push_back({n["phase"].as<std::string>(), n["ops"].as<std::vector<std::string>>()});
      if (k["allocator_ops"]) r.allocator_ops = k["allocator_ops"].as<std::vector<std::string>>();
      if (k["before_first_step_phase"]) r.before_first_step_phase = k["before_first_step_phase"].as<std::string>();
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("memory_categories: ") + e.what(), origin, -1, e.mark.line + 1);
  }
  if (r.phases.empty() || r.rules.empty())
    return make_error(ErrorKind::Malformed, "memory_categories: needs `phases` and `categories`", origin);
  return r;
}

MemoryReport analyse_memory(const trace::MemorySnapshot& s, const MemoryCategoryRules& rules, int top, int points) {
  MemoryReport rep;
  rep.allocator_segment_bytes = rules.allocator_segment_bytes;
  Classifier cls(s, rules);
  std::vector<int32_t> devices;
  for (const auto& seg : s.segments) devices.push_back(seg.device);
  for (const auto& e : s.events) devices.push_back(e.device);
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  for (int32_t dev : devices) rep.devices.push_back(analyse_device(s, dev, cls, top, points));
  if (!s.has_history)
    rep.notes.push_back(
        "no allocation history in the snapshot (torch.cuda.memory._record_memory_history() was off): the peak is "
        "the state at the dump");
  if (!s.default_rounding)
    rep.notes.push_back(
        "the allocator rounded sizes with roundup_power2_divisions: the peak, rebuilt from the trace with the "
        "default 512-byte rounding, may differ from torch.cuda.max_memory_allocated()");
  for (const auto& d : rep.devices)
    if (d.has_history && d.before_history > 0)
      rep.notes.push_back(
          fmt::format("device {}: {} bytes were allocated before the history began (record history before the first "
                      "allocation to see their stacks)",
                      d.device, d.before_history));
  return rep;
}

std::vector<MemoryDiff> diff_memory(const MemoryReport& before, const MemoryReport& after, int top) {
  std::vector<MemoryDiff> out;
  for (const auto& b : before.devices) {
    auto it = std::find_if(after.devices.begin(), after.devices.end(),
                           [&](const DeviceMemory& a) { return a.device == b.device; });
    if (it == after.devices.end()) continue;
    const DeviceMemory& a = *it;
    MemoryDiff d;
    d.device = b.device;
    d.peak_before = b.peak_allocated;
    d.peak_after = a.peak_allocated;
    d.peak_delta = a.peak_allocated - b.peak_allocated;
    d.reserved_before = b.peak_reserved;
    d.reserved_after = a.peak_reserved;
    std::map<std::string, MemoryDelta> cats;
    for (const auto& [c, v] : b.by_category) cats[c].before = v;
    for (const auto& [c, v] : a.by_category) cats[c].after = v;
    int64_t net = 0;
    for (auto& [c, m] : cats) {
      m.category = c;
      m.delta = m.after - m.before;
      net += m.delta;
      d.by_category.push_back(m);
    }
    std::stable_sort(d.by_category.begin(), d.by_category.end(),
                     [](const MemoryDelta& x, const MemoryDelta& y) { return x.delta > y.delta; });
    d.explained = d.peak_delta != 0 ? static_cast<double>(net) / static_cast<double>(d.peak_delta) : 1.0;
    std::map<std::tuple<std::string, std::string, std::string>, MemoryDelta> st;
    for (const auto& g : b.by_stack) st[{g.category, g.site, g.where}].before += g.bytes;
    for (const auto& g : a.by_stack) st[{g.category, g.site, g.where}].after += g.bytes;
    for (auto& [k, m] : st) {
      std::tie(m.category, m.site, m.where) = k;
      m.delta = m.after - m.before;
      if (m.delta != 0) d.by_stack.push_back(m);
    }
    std::stable_sort(d.by_stack.begin(), d.by_stack.end(),
                     [](const MemoryDelta& x, const MemoryDelta& y) { return std::abs(x.delta) > std::abs(y.delta); });
    if (top >= 0 && d.by_stack.size() > static_cast<size_t>(top)) d.by_stack.resize(static_cast<size_t>(top));
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace goblin::analysis
