// Where the GPU memory went, from a Kineto trace recorded with profile_memory=True
// (`goblin memory TRACE`, docs/memory.md § Kineto traces): the allocator events of
// Timeline::memory_events give the allocated and reserved bytes over time and per step, the
// allocations live at the peak by the CPU op that made them and by category, in the same
// MemoryReport a snapshot gives (so rendering and the two-run diff are shared). And the audit's
// memory feed: a report's peak against the device's memory, how much larger a batch fits.
#pragma once
#include <optional>
#include <string>

#include "analysis/memory.h"
#include "model/timeline.h"

namespace goblin::hw {
struct HwKnowledge;
}
namespace goblin::analysis {
struct RunMetrics;
}

namespace goblin::analysis {

// `top`: groups kept per device (-1: all); `points`: timeline points per device at most.
MemoryReport analyse_memory_events(const Timeline& tl, const MemoryCategoryRules& rules, int top = 20,
                                   int points = 200);

// A measured peak against the device's memory: what the memory_headroom bucket and the batch
// rules read when a memory source (snapshot or trace) is given.
struct MemoryHeadroom {
  std::string source;  // the snapshot or trace
  int32_t device = 0;  // the device with the largest peak
  int64_t peak_allocated = 0, peak_reserved = 0;
  int64_t capacity_bytes = 0;
  std::string capacity_basis;  // where the capacity comes from (trace device properties, data/gpus.yaml)
  // Bytes live at the peak that do not grow with the batch (parameters, gradients, optimizer
  // state, allocations older than the recording) and those that do (activations, temporaries, other).
  int64_t fixed_bytes = 0, per_batch_bytes = 0;
  // Capacity the allocator can hand out at the measured ratio of allocated to reserved bytes.
  int64_t usable_bytes = 0;
  int64_t headroom_bytes = 0;   // capacity - peak reserved
  double batch_scale_fits = 0;  // (usable - fixed) / per_batch, capped: the batch can grow this many times
  // The linear figure and whether it was capped: per-batch bytes below one allocator segment
  // (MemoryCategoryRules::allocator_segment_bytes) are below what the measurement resolves, and
  // the figure becomes (usable - fixed) / segment.
  double batch_scale_fits_uncapped = 0;
  bool batch_scale_capped = false;
  std::string batch_scale_cap;  // why, in words ("" when not capped)
  std::string basis;            // the figures and assumptions, in words
};

// nullopt (with `why`) when the report has no device or the capacity is unknown. `device_name`
// (optional) names the GPU for data/gpus.yaml when the trace's device properties give no memory
// size; `device_total_bytes` (0: unknown) is the measured capacity (Kineto deviceProperties).
std::optional<MemoryHeadroom> memory_headroom(const MemoryReport& r, const hw::HwKnowledge& hw,
                                              const std::string& device_name, int64_t device_total_bytes,
                                              std::string& why);

// Puts a memory source's figures into the run's metrics (the memory rules' evidence:
// hbm_peak_frac, memory_headroom_gb, batch_scale_fits) and marks the memory_headroom bucket observed.
void apply_memory_headroom(RunMetrics& m, const MemoryHeadroom& h);

}  // namespace goblin::analysis
