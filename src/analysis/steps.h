// Training/inference steps: the windows every per-step figure is computed over.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/timeline.h"

namespace goblin::analysis {

struct Step {
  std::string name;      // "ProfilerStep#12", or "window" for the fallback
  int64_t start_ns = 0;  // [start, end)
  int64_t end_ns = 0;
  // Trailing step cut by the end of the trace, by damage (a truncated read) or by a slice (its
  // launches have no recorded GPU work), or a step whose annotation overlaps another step's
  // (damaged or foreign annotations): reported, never dropped, never in per-step means.
  bool partial = false;
  std::string source;  // "ProfilerStep (cpu user_annotation)", "gpu_user_annotation",
                       // "fallback: first to last GPU activity", ...
  // The step's CPU ProfilerStep span when the trace has one (kNone otherwise): the window of its
  // CPU ops (MFU's FLOP count), which the step window, on the GPU's time, is shifted from when the
  // CPU runs ahead of the GPU.
  int64_t cpu_start_ns = kNone, cpu_end_ns = kNone;
};

struct StepDetection {
  std::vector<Step> steps;
  std::string method;  // how they were found (documented in the output)
  std::vector<std::string> notes;
  // GPU work that ran before the first step's window (kernels queued before the profiler
  // started, warm-up): its own window [first such op's start, first step's start), never part of
  // a step or of per-step means. Absent when nothing ran before the first step.
  bool has_before_first_step = false;
  Step before_first_step;
  int64_t before_first_step_ops = 0;      // GPU ops starting in that window
  int64_t before_first_step_orphans = 0;  // of them, ops with no launch record in the trace
};

// Finds steps: ProfilerStep#N CPU annotations, each step's window the GPU work it launched (by
// correlation) from its first op, moved back over GPU idle time to no earlier than its CPU start,
// to the later of its CPU end and its last op, clipped to the next step's start (the same rule
// for the last step); GPU-only ProfilerStep ranges; else one fallback window over all GPU
// activity. GPU work before the first step goes to before_first_step (docs/metrics.md § Steps).
StepDetection find_steps(const Timeline& tl);

}  // namespace goblin::analysis
