// Per-op exposed vs hidden time on the GPU: a sweep line across all streams of one device.
//
// Window: the whole trace (every kernel, memcpy and memset of each device). Streams are the
// timeline's tracks (Timeline::tracks, one per device and stream; needs Timeline::finish()).
// Formula: at each instant t, S(t) = number of distinct streams of the device with an op in
// flight ([start, end) intervals). A segment of an op is *hidden* when S(t) >= 2 (another stream
// is busy at the same time) and *exposed* otherwise. With H(t) = ∫ [S >= 2] dt, an op's hidden
// time is H(end) - H(start) and exposed = dur - hidden, so exposed + hidden = dur exactly.
// Two ops overlapping on the *same* stream (ROCm queues overlap by tens of ns) do not hide each
// other. Busy = ∫ [S >= 1] dt; multi-stream = ∫ [S >= 2] dt; peak concurrency = max S.
#pragma once
#include <cstdint>
#include <vector>

#include "model/timeline.h"

namespace goblin::analysis {

struct DeviceExposure {
  int32_t device = kNone;
  int64_t window_start_ns = 0, window_end_ns = 0;  // first start .. last end on this device
  int64_t busy_ns = 0;                             // ∫[S>=1]
  int64_t multi_stream_ns = 0;                     // ∫[S>=2]
  int64_t op_time_ns = 0;                          // Σ dur (can exceed busy when streams overlap)
  int64_t exposed_ns = 0, hidden_ns = 0;           // Σ over ops
  int peak_concurrency = 0;                        // max distinct streams in flight
  int streams = 0;                                 // distinct streams seen
  int64_t ops = 0;
};

struct ExposureResult {
  std::vector<int64_t> hidden_ns;       // per gpu_ops row; exposed = dur - hidden (dur<=0: both 0)
  std::vector<DeviceExposure> devices;  // sorted by device id
  int64_t negative_duration_ops = 0;    // skipped (counted as 0)
  int64_t exposed(const GpuOpTable& ops, size_t i) const {
    int64_t d = ops.dur_ns[i];
    return d > 0 ? d - hidden_ns[i] : 0;
  }
};

ExposureResult compute_exposure(const Timeline& tl);

}  // namespace goblin::analysis
