// Training/inference steps: the windows every per-step figure is computed over.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/timeline.h"

namespace goblin {

struct Step {
  std::string name;          // "ProfilerStep#12", or "window" for the fallback
  int64_t start_ns = 0;      // [start, end)
  int64_t end_ns = 0;
  bool partial = false;      // trailing step cut by the end of the trace: reported, never dropped
  std::string source;        // "ProfilerStep (cpu user_annotation)", "gpu_user_annotation",
                             // "fallback: first to last GPU activity", ...
};

struct StepDetection {
  std::vector<Step> steps;
  std::string method;        // how they were found (documented in the output)
  std::vector<std::string> notes;
};

// Finds steps: ProfilerStep#N annotations (CPU side, projected to the GPU work they launched),
// gpu_user_annotation steps, else one fallback window over all GPU activity.
StepDetection find_steps(const Timeline& tl);

}  // namespace goblin
