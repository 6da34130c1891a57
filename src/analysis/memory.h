// Where the GPU memory went (`goblin memory`, docs/memory.md): from a PyTorch memory snapshot
// (trace/memory_snapshot.h), the allocator's allocated and reserved bytes over time, the peak,
// the allocations live at the peak by stack and by category (parameters, gradients, optimizer
// state, activations, temporaries: data/memory_categories.yaml), fragmentation, and the diff of
// two snapshots (what grew, where).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "trace/memory_snapshot.h"

namespace goblin::analysis {

// data/memory_categories.yaml, parsed.
struct MemoryCategoryRules {
  struct FramePattern {
    std::string file, name;  // either may be empty (matches any)
  };
  struct Phase {
    std::string phase;
    std::vector<FramePattern> frames;
  };
  struct Rule {
    std::string category, allocated;
    std::vector<std::string> freed;  // empty: any
  };
  std::vector<Phase> phases;
  std::string empty_stack_phase = "other";
  std::vector<Rule> rules;
  // The caching allocator's large segment (bytes): per-batch growth below one segment is below
  // what the allocator's reservations resolve, so "the batch fits N x" is capped at one segment a
  // batch (`allocator_segment_bytes`). 0: no cap.
  int64_t allocator_segment_bytes = 0;
  // Kineto traces (profile_memory=True) have no stacks: an allocation's phase comes from the names
  // of the CPU ops and annotations enclosing it on its thread (`kineto.phases`: the first phase one
  // of whose name prefixes starts one of those names), `before_first_step_phase` before the first
  // ProfilerStep, and its site is the innermost enclosing op that is not an allocator op.
  struct KinetoPhase {
    std::string phase;
    std::vector<std::string> ops;  // name prefixes
  };
  std::vector<KinetoPhase> kineto_phases;
  std::vector<std::string> allocator_ops;
  std::string before_first_step_phase = "other";
};
// The category of an allocation made in phase `allocated` and freed in phase `freed` ("live":
// never freed): the first rule that matches, else "other".
std::string memory_category(const MemoryCategoryRules& r, const std::string& allocated, const std::string& freed);
// `origin` names the file in errors.
Result<MemoryCategoryRules> parse_memory_categories(std::string_view yaml, const std::string& origin);

struct MemoryPoint {
  int64_t time_us = 0;
  int64_t allocated = 0;  // the most allocated in the stretch of events this point stands for
  int64_t reserved = 0;   // reserved at its end
};

// Allocations live at the peak that share an allocation site (innermost frame) and the user's
// frame that led there (the innermost frame outside the Python installation).
struct MemoryGroup {
  std::string category;
  std::string site;   // "functional.py:6690 multi_head_attention_forward"
  std::string where;  // "train.py:29 step"
  int64_t bytes = 0;
  int64_t count = 0;
};

// One step of a trace (ProfilerStep#N): the most allocated and reserved within it.
struct MemoryStepPeak {
  std::string name;
  int64_t start_us = 0, end_us = 0;
  int64_t allocated_at_start = 0;  // before the step's first event
  int64_t peak_allocated = 0, peak_reserved = 0;
  int64_t events = 0;
};

struct DeviceMemory {
  int32_t device = 0;
  bool has_history = false;
  int64_t peak_allocated = 0;  // bytes, as torch.cuda.max_memory_allocated() counts them
  int64_t peak_reserved = 0;
  int64_t peak_time_us = 0;       // when the allocated peak was reached (the allocator's clock)
  int64_t reserved_at_peak = 0;   // reserved when allocated peaked
  int64_t allocated_at_dump = 0;  // when the snapshot was taken
  int64_t reserved_at_dump = 0;
  int64_t before_history = 0;    // allocated before the history began (at its first event)
  int64_t inactive_at_dump = 0;  // reserved but not allocated, in cached blocks
  int64_t largest_inactive_at_dump = 0;
  double fragmentation_at_dump = 0;  // 1 - largest inactive block / all inactive bytes
  int64_t events = 0;
  std::map<std::string, int64_t> by_category;  // bytes live at the peak
  std::vector<MemoryGroup> by_stack;           // the largest groups live at the peak
  std::vector<MemoryPoint> timeline;
  std::vector<MemoryStepPeak> steps;  // Kineto traces with steps; empty for snapshots
};

struct MemoryReport {
  std::string source;
  // "snapshot" (a PyTorch memory snapshot) or "kineto_trace" (the [memory] events of a trace:
  // "at_dump" then means at the trace's last event, and fragmentation is not known).
  std::string source_kind = "snapshot";
  std::vector<DeviceMemory> devices;
  std::vector<std::string> notes;       // what the reading could not do (no history, custom rounding)
  int64_t allocator_segment_bytes = 0;  // MemoryCategoryRules' (the headroom's cap)
};

// `top`: groups listed per device; `points`: timeline points per device at most.
MemoryReport analyse_memory(const trace::MemorySnapshot& s, const MemoryCategoryRules& rules, int top = 20,
                            int points = 200);

struct MemoryDelta {
  std::string category, site, where;  // site/where empty for a category row
  int64_t before = 0, after = 0, delta = 0;
};

struct MemoryDiff {
  int32_t device = 0;
  int64_t peak_before = 0, peak_after = 0, peak_delta = 0;
  int64_t reserved_before = 0, reserved_after = 0;
  std::vector<MemoryDelta> by_category;  // every category, largest growth first
  std::vector<MemoryDelta> by_stack;     // the `top` largest changes at the peak
  double explained = 0;                  // the categories' net change / the peak's change (1 when it adds up)
};

// Device by device (matched by id) of two analyses of the same workload.
std::vector<MemoryDiff> diff_memory(const MemoryReport& before, const MemoryReport& after, int top = 20);

}  // namespace goblin::analysis
