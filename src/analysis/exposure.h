// Per-op exposed vs hidden time on the GPU: a sweep line across all streams of one device.
//
// Window: the whole trace (every kernel, memcpy and memset of each device).
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

namespace goblin {

enum class GpuOpKind : uint8_t { Kernel, Memcpy, Memset };
const char* gpu_op_kind_name(GpuOpKind k);

// A flat view over the three GPU-op tables: index i in [0, size()) covers kernels first, then
// memcpys, then memsets. No copies.
class GpuOps {
 public:
  explicit GpuOps(const Timeline& tl)
      : tl_(&tl), nk_(tl.kernels.size()), nc_(tl.memcpys.size()), ns_(tl.memsets.size()) {}
  size_t size() const { return nk_ + nc_ + ns_; }
  GpuOpKind kind(size_t i) const {
    return i < nk_ ? GpuOpKind::Kernel : (i < nk_ + nc_ ? GpuOpKind::Memcpy : GpuOpKind::Memset);
  }
  const GpuOpColumns& cols(size_t i) const {
    return i < nk_ ? static_cast<const GpuOpColumns&>(tl_->kernels)
                   : (i < nk_ + nc_ ? static_cast<const GpuOpColumns&>(tl_->memcpys)
                                    : static_cast<const GpuOpColumns&>(tl_->memsets));
  }
  size_t row(size_t i) const { return i < nk_ ? i : (i < nk_ + nc_ ? i - nk_ : i - nk_ - nc_); }
  int64_t start(size_t i) const { return cols(i).start_ns[row(i)]; }
  int64_t dur(size_t i) const { return cols(i).dur_ns[row(i)]; }
  int64_t end(size_t i) const { return start(i) + dur(i); }
  StrId name(size_t i) const { return cols(i).name[row(i)]; }
  int32_t device(size_t i) const { return cols(i).device[row(i)]; }
  int64_t stream(size_t i) const { return cols(i).stream[row(i)]; }
  int64_t correlation(size_t i) const { return cols(i).correlation[row(i)]; }
  int64_t external_id(size_t i) const { return cols(i).external_id[row(i)]; }

 private:
  const Timeline* tl_;
  size_t nk_, nc_, ns_;
};

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
  std::vector<int64_t> hidden_ns;       // per GpuOps index; exposed = dur - hidden (dur<=0: both 0)
  std::vector<DeviceExposure> devices;  // sorted by device id
  int64_t negative_duration_ops = 0;    // skipped (counted as 0)
  int64_t exposed(const GpuOps& ops, size_t i) const {
    int64_t d = ops.dur(i);
    return d > 0 ? d - hidden_ns[i] : 0;
  }
};

ExposureResult compute_exposure(const Timeline& tl);

}  // namespace goblin
