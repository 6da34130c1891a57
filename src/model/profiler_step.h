// The name of a training step's range: torch.profiler's profiler.step() marks each step with a
// "ProfilerStep#N" range (Kineto writes it as a user_annotation, older builds as a cpu_op), and
// goblin's tracer (NVTX ranges) and the JAX reader (XProf step markers) use the same name, so one
// step detection serves every source (docs/metrics.md § Steps). Every reader and analysis that
// looks for steps asks these, instead of spelling the prefix itself.
#pragma once
#include <string_view>

namespace goblin {

inline constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";

// Any name that starts with the prefix ("ProfilerStep#3", also "ProfilerStep#" or
// "ProfilerStep#x"): what readers keep and what analyses skip as the step's own range.
inline bool is_profiler_step(std::string_view name) { return name.starts_with(kProfilerStepPrefix); }

// The prefix followed by one or more decimal digits and nothing else: what step detection
// counts as a step (analysis/steps.cpp). The digits are not bounded (no number is parsed).
inline bool is_numbered_profiler_step(std::string_view name) {
  if (name.size() <= kProfilerStepPrefix.size() || !is_profiler_step(name)) return false;
  for (char c : name.substr(kProfilerStepPrefix.size()))
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace goblin
