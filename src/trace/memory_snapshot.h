// PyTorch CUDA memory snapshots (torch.cuda.memory._dump_snapshot / _snapshot(), pickled): the
// allocator's segments and blocks at the moment of the dump, and, when
// torch.cuda.memory._record_memory_history() was on, its trace of allocations, frees and segment
// (cudaMalloc) events with the Python stacks that made them. Read through the data-only pickle
// reader (trace/pickle.h): nothing in the file is ever run. docs/memory.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin::trace {

struct SnapshotFrame {
  std::string filename, name;
  int64_t line = 0;
};

// One stack: frame ids, innermost first (as PyTorch records them).
using SnapshotStack = std::vector<uint32_t>;

enum class BlockState : uint8_t { ActiveAllocated, ActivePendingFree, Inactive, Other };

struct SnapshotBlock {
  int64_t address = 0, size = 0, requested_size = 0;
  BlockState state = BlockState::Other;
  uint32_t stack = 0;  // index into MemorySnapshot::stacks (0: the empty stack)
};

struct SnapshotSegment {
  int32_t device = 0;
  int64_t address = 0, total_size = 0, allocated_size = 0, active_size = 0, requested_size = 0, stream = 0;
  std::string type;  // "large", "small"
  bool expandable = false;
  size_t first_block = 0, blocks = 0;  // MemorySnapshot::blocks[first_block, first_block + blocks)
};

enum class MemAction : uint8_t {
  Alloc,
  FreeRequested,
  FreeCompleted,
  SegmentAlloc,
  SegmentFree,
  SegmentMap,
  SegmentUnmap,
  Snapshot,
  Oom,
  Other
};

struct SnapshotEvent {
  MemAction action = MemAction::Other;
  int32_t device = 0;
  int64_t addr = 0, size = 0, stream = 0, time_us = 0;
  uint32_t stack = 0;
};

// record_function ranges PyTorch noted while history was on ("Optimizer.step#AdamW.step").
struct SnapshotAnnotation {
  bool start = true;
  std::string name;
  int32_t device = 0;
  int64_t time_us = 0;
};

struct MemorySnapshot {
  std::vector<SnapshotSegment> segments;
  std::vector<SnapshotBlock> blocks;
  std::vector<SnapshotEvent> events;  // every device's trace, in recorded order per device
  std::vector<SnapshotAnnotation> annotations;
  std::vector<SnapshotFrame> frames;
  std::vector<SnapshotStack> stacks;  // stacks[0] is the empty stack
  bool has_history = false;           // device_traces held at least one event
  // allocator_settings: whether block sizes follow the default rounding (multiples of 512 bytes),
  // which the peak's reconstruction from the trace relies on (analysis/memory.h).
  bool default_rounding = true;
  bool expandable_segments = false;
};

// Reads a snapshot file (gzip inflated transparently). Malformed: not a pickle, outside the
// data-only subset, or not shaped like a snapshot (no "segments" list).
Result<MemorySnapshot> read_memory_snapshot(const std::string& path);
// The same over bytes already read (tests, the fuzzer).
Result<MemorySnapshot> parse_memory_snapshot(std::string bytes, const std::string& path);
// Whether the first bytes look like a pickle (PROTO opcode 0x80 and a protocol 2-5).
bool looks_like_pickle(std::string_view prefix);

}  // namespace goblin::trace
