#include "cupti_clocks.h"

#include <cupti.h>
#include <time.h>

namespace goblin::tracer {

int64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
int64_t mono_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::vector<ClockSample> sample_clocks(int n) {
  std::vector<ClockSample> v;
  for (int i = 0; i < n; ++i) {
    ClockSample s;
    uint64_t c = 0;
    s.real_before_ns = realtime_ns();
    if (cuptiGetTimestamp(&c) != CUPTI_SUCCESS) continue;
    s.real_after_ns = realtime_ns();
    s.cupti_ns = static_cast<int64_t>(c);
    v.push_back(s);
  }
  return v;
}

// The same bracket with CLOCK_MONOTONIC, the clock of goblin's operator observer
// (goblin_cupti_add_ops). Sampled while CUPTI is attached only: cuptiGetTimestamp would attach a
// detached CUPTI.
std::vector<ClockSample> sample_mono_clocks(int n) {
  std::vector<ClockSample> v;
  for (int i = 0; i < n; ++i) {
    ClockSample s;
    uint64_t c = 0;
    s.real_before_ns = mono_ns();
    if (cuptiGetTimestamp(&c) != CUPTI_SUCCESS) continue;
    s.real_after_ns = mono_ns();
    s.cupti_ns = static_cast<int64_t>(c);
    v.push_back(s);
  }
  return v;
}

}  // namespace goblin::tracer
