// What goblin's CUPTI tracer records: the activity kinds, and which runtime/driver API calls.
// Switched on and off as a whole at each resume and pause (goblin_cupti.cpp).
#pragma once
#include <cupti.h>

#include <string>
#include <vector>

namespace goblin::tracer {

struct Recorded {
  std::vector<CUpti_ActivityKind> kinds;  // besides the API calls
  bool runtime_api = true, driver_api = true;
  // Kind word "cb": the wanted runtime API calls recorded from CUPTI callbacks (a subscriber's
  // entry/exit timestamps) instead of CUPTI_ACTIVITY_KIND_RUNTIME records: the issue-30 study of
  // what an API activity record costs per launch beside a callback-only launch record.
  bool callback_api = false;
  std::string kinds_text = "all";   // GOBLIN_CUPTI_KINDS as given, for the trace's metadata
  std::string api_mode = "launch";  // "launch": the calls wanted_api() names; "all": every call
};

// CUPTI's text for a result code, for stderr lines and the trace's metadata ("?" when it has none).
const char* cupti_error(CUptiResult r);

// The calls that create GPU work, move memory, block the host or build graphs (by name).
bool wanted_api(const char* name);

// GOBLIN_CUPTI_KINDS: "all" (default, or null) or a comma list of kernel, memcpy, memset, sync,
// marker, overhead, runtime, driver, api (= runtime,driver), kernel_serial
// (CUPTI_ACTIVITY_KIND_KERNEL, which serialises kernels, instead of CONCURRENT_KERNEL), cb
// (launch records from callbacks, Recorded::callback_api) and none (attached, nothing enabled).
// Unknown names are reported on stderr and ignored.
void choose_kinds(const char* spec, Recorded& out);

// Switches every recorded kind and API domain on or off; `report` names each failure on stderr
// (at start-up; pause/resume stay quiet).
void enable_recorded(const Recorded& r, bool on, bool report = false);

// GOBLIN_CUPTI_TUNE: a comma list of CUPTI options, for the per-launch cost study of
// bench/results/tracer (what each costs the host on Hopper): shared (one activity buffer for
// all threads instead of CUPTI 13's per-thread buffers), devbuf=MB (device buffer for kernel
// timestamps, CUPTI default 3 MB), semaphores=N (profiling semaphore pool, default
// 25000), hwtrace (kernel timestamps from hardware events: CUPTI 13 offers it on Blackwell only,
// the result is kept). Call before CUPTI attaches; returns "option=ok" or "option=CUPTI error"
// per option (the trace's goblin_tracer.tune), "" for none. On the H200 (CUDA 13.0) semaphores
// and hwtrace were refused and the others did not lower the cost (bench/results/tracer, 2026-11-26).
std::string apply_tune(const char* spec);

}  // namespace goblin::tracer
