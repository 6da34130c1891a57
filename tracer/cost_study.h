// Parts of goblin's CUPTI tracer that serve the per-launch cost study of issue 30
// (bench/results/tracer, third session of 2026-11-26): launch records taken from CUPTI callbacks
// instead of API activity records, and one summary per attach (what that window recorded, per
// API call name, and what the buffer callbacks cost), so that one process can run windows of
// several configurations (goblin_cupti_configure) and each window says what it held.
#pragma once
#include <cupti.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cupti_selection.h"
#include "trace_format.h"

namespace goblin::tracer {

// The process's one CUPTI subscriber (CUPTI allows one at a time), made on first use. Its
// callback records the wanted runtime and driver API calls while enable_launch_callbacks is on,
// and calls `driver_exit` (when given; kept for later calls) at the exit of cuCtxGetCurrent when
// that callback is enabled: the tracer's detach point.
CUptiResult subscriber(CUpti_SubscriberHandle* out, void (*driver_exit)());
// After cuptiFinalize: the subscriber is gone with CUPTI.
void forget_subscriber();

// Switches the callback launch records (Recorded::callback_api) on or off: the runtime and driver
// API calls wanted_api() names (every call with api_mode "all"). Returns the call ids enabled, -1 on error.
int enable_launch_callbacks(const Recorded& rec, bool on);

// Moves every callback record taken so far into `out` (correlation ids as CUPTI gave them; the
// caller offsets them). Safe while callbacks run: each thread's buffer has its own lock.
size_t take_callback_records(std::vector<ApiRec>& out);

// The buffer callbacks' counters (what they cost the program's threads).
struct BufferCounters {
  uint64_t buffers = 0, requests = 0, request_ns = 0, completed_on_main = 0, callback_ns = 0;
};
// Where one attach's records start in the trace, and the counters at that moment.
struct AttachMark {
  std::string config;  // the kinds and API mode of this attach
  size_t kernels = 0, copies = 0, apis = 0, syncs = 0, markers = 0;
  uint64_t buffers = 0, requests = 0, request_ns = 0, completed_on_main = 0, callback_ns = 0;
};

// One JSON object for the records since `m` (the attach's window): counts per kind, API calls by
// name (runtime and driver), kernels whose launch record is in the window, and the buffer
// callbacks' counters over it.
std::string attach_summary_json(const Trace& t, const AttachMark& m, const BufferCounters& now, int64_t window_ns);

}  // namespace goblin::tracer
