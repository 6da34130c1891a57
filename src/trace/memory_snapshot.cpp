#include "trace/memory_snapshot.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "core/io.h"
#include "trace/pickle.h"

namespace goblin::trace {

namespace {

using K = PickleDoc::Kind;
using Id = PickleDoc::Id;

// Frames kept per stack (innermost first): deeper ones add nothing a person reads.
constexpr size_t kMaxFramesPerStack = 128;

class Builder {
 public:
  Builder(const PickleDoc& d, MemorySnapshot& s) : d_(d), s_(s) { s_.stacks.emplace_back(); }

  // The stack of a "frames" list; lists the pickle shares (memoised) are read once.
  uint32_t stack(Id frames) {
    if (!d_.is(frames, K::List) || d_.items(frames).empty()) return 0;
    auto [it, fresh] = stack_of_.try_emplace(frames, 0);
    if (!fresh) return it->second;
    SnapshotStack st;
    for (Id f : d_.items(frames)) {
      if (st.size() >= kMaxFramesPerStack) break;
      if (!d_.is(f, K::Dict)) continue;
      st.push_back(frame(f));
    }
    s_.stacks.push_back(std::move(st));
    it->second = static_cast<uint32_t>(s_.stacks.size() - 1);
    return it->second;
  }

  int64_t num(Id dict, std::string_view key) const { return d_.integer(d_.get(dict, key)); }
  std::string text(Id dict, std::string_view key) const { return std::string(d_.str(d_.get(dict, key))); }

 private:
  uint32_t frame(Id f) {
    auto [it, fresh] = frame_of_.try_emplace(f, 0);
    if (!fresh) return it->second;
    SnapshotFrame fr{text(f, "filename"), text(f, "name"), num(f, "line")};
    std::string key = fmt::format("{}\n{}\n{}", fr.filename, fr.name, fr.line);
    auto [jt, added] = frame_by_text_.try_emplace(std::move(key), static_cast<uint32_t>(s_.frames.size()));
    if (added) s_.frames.push_back(std::move(fr));
    it->second = jt->second;
    return it->second;
  }

  const PickleDoc& d_;
  MemorySnapshot& s_;
  std::unordered_map<Id, uint32_t> stack_of_, frame_of_;
  std::unordered_map<std::string, uint32_t> frame_by_text_;
};

BlockState block_state(std::string_view s) {
  if (s == "active_allocated") return BlockState::ActiveAllocated;
  if (s == "active_pending_free") return BlockState::ActivePendingFree;
  if (s == "inactive") return BlockState::Inactive;
  return BlockState::Other;
}

MemAction action(std::string_view a) {
  if (a == "alloc") return MemAction::Alloc;
  if (a == "free_requested") return MemAction::FreeRequested;
  if (a == "free_completed") return MemAction::FreeCompleted;
  if (a == "segment_alloc") return MemAction::SegmentAlloc;
  if (a == "segment_free") return MemAction::SegmentFree;
  if (a == "segment_map") return MemAction::SegmentMap;
  if (a == "segment_unmap") return MemAction::SegmentUnmap;
  if (a == "snapshot") return MemAction::Snapshot;
  if (a == "oom") return MemAction::Oom;
  return MemAction::Other;
}

int32_t device_of(int64_t d) { return d >= 0 && d <= INT32_MAX ? static_cast<int32_t>(d) : 0; }

}  // namespace

bool looks_like_pickle(std::string_view prefix) {
  return prefix.size() >= 2 && static_cast<uint8_t>(prefix[0]) == 0x80 && prefix[1] >= 2 && prefix[1] <= 5;
}

Result<MemorySnapshot> parse_memory_snapshot(std::string bytes, const std::string& path) {
  if (!looks_like_pickle(bytes))
    return make_error(ErrorKind::UnknownFormat,
                      "not a PyTorch memory snapshot (a pickle of protocol 2-5, as "
                      "torch.cuda.memory._dump_snapshot writes)",
                      path, 0);
  ASSIGN_OR_RETURN(PickleDoc d, parse_pickle(std::move(bytes), path));
  const Id root = d.root();
  // _snapshot() returns a dict; the oldest releases pickled the bare list of segments.
  Id segs = d.is(root, K::List) ? root : d.get(root, "segments");
  if (!d.is(segs, K::List))
    return make_error(ErrorKind::Malformed, "pickle holds no \"segments\" list: not a PyTorch memory snapshot", path);
  MemorySnapshot s;
  Builder b(d, s);
  for (Id sg : d.items(segs)) {
    if (!d.is(sg, K::Dict)) continue;
    SnapshotSegment seg;
    seg.device = device_of(b.num(sg, "device"));
    seg.address = b.num(sg, "address");
    seg.total_size = b.num(sg, "total_size");
    seg.allocated_size = b.num(sg, "allocated_size");
    seg.active_size = b.num(sg, "active_size");
    seg.requested_size = b.num(sg, "requested_size");
    seg.stream = b.num(sg, "stream");
    seg.type = b.text(sg, "segment_type");
    seg.expandable = b.num(sg, "is_expandable") != 0;
    seg.first_block = s.blocks.size();
    for (Id bl : d.items(d.get(sg, "blocks"))) {
      if (!d.is(bl, K::Dict)) continue;
      SnapshotBlock x;
      x.address = b.num(bl, "address");
      x.size = b.num(bl, "size");
      x.requested_size = b.num(bl, "requested_size");
      x.state = block_state(d.str(d.get(bl, "state")));
      x.stack = b.stack(d.get(bl, "frames"));
      s.blocks.push_back(x);
    }
    seg.blocks = s.blocks.size() - seg.first_block;
    s.segments.push_back(std::move(seg));
  }
  // device_traces: one list per device, indexed by device.
  const auto& traces = d.items(d.get(root, "device_traces"));
  for (size_t dev = 0; dev < traces.size(); ++dev) {
    for (Id e : d.items(traces[dev])) {
      if (!d.is(e, K::Dict)) continue;
      SnapshotEvent ev;
      ev.action = action(d.str(d.get(e, "action")));
      ev.device = static_cast<int32_t>(std::min<size_t>(dev, INT32_MAX));
      ev.addr = b.num(e, "addr");
      ev.size = b.num(e, "size");
      ev.stream = b.num(e, "stream");
      ev.time_us = b.num(e, "time_us");
      ev.stack = b.stack(d.get(e, "frames"));
      s.events.push_back(ev);
    }
  }
  s.has_history = !s.events.empty();
  for (Id a : d.items(d.get(root, "external_annotations"))) {
    if (!d.is(a, K::Dict)) continue;
    s.annotations.push_back(
        {d.str(d.get(a, "stage")) != "END", b.text(a, "name"), device_of(b.num(a, "device")), b.num(a, "time_us")});
  }
  const Id settings = d.get(root, "allocator_settings");
  if (d.is(settings, K::Dict)) {
    s.expandable_segments = b.num(settings, "expandable_segments") != 0;
    // roundup_power2_divisions: {size: divisions}; any non-zero one changes block sizes.
    const auto& kv = d.items(d.get(settings, "roundup_power2_divisions"));
    for (size_t i = 1; i < kv.size(); i += 2) s.default_rounding = s.default_rounding && d.integer(kv[i]) == 0;
  }
  return s;
}

Result<MemorySnapshot> read_memory_snapshot(const std::string& path) {
  IoLimits lim;
  lim.max_inflated_bytes = PickleLimits{}.max_input_bytes;
  ASSIGN_OR_RETURN(std::string bytes, read_all(path, lim));
  return parse_memory_snapshot(std::move(bytes), path);
}

}  // namespace goblin::trace
