// The clocks of libgoblin_cupti.so: wall and monotonic time, and brackets of either around
// cuptiGetTimestamp (align_clocks, trace_format.h, turns them into CUPTI's offset). Sampling a
// bracket attaches CUPTI when it is detached: call the samplers while it is attached only.
#pragma once
#include <cstdint>
#include <vector>

#include "trace_format.h"

namespace goblin::tracer {

int64_t realtime_ns();  // CLOCK_REALTIME
int64_t mono_ns();      // CLOCK_MONOTONIC
// n brackets CLOCK_REALTIME / cuptiGetTimestamp / CLOCK_REALTIME (failed reads left out).
std::vector<ClockSample> sample_clocks(int n);
// The same with CLOCK_MONOTONIC, the clock of goblin's operator observer.
std::vector<ClockSample> sample_mono_clocks(int n);

}  // namespace goblin::tracer
