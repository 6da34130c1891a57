// The pure half of goblin's CUPTI tracer: the compact records the buffer callback copies out of
// CUPTI's activity buffers, and the writer that turns them into a Kineto-compatible chrome trace
// at exit. Nothing here includes a CUPTI header, so it compiles and is unit-tested on machines
// without the CUDA toolkit (tracer/trace_format_test.cpp); goblin_cupti.cpp fills a Trace.
//
// Why compact records: the buffer callback runs on CUPTI's worker thread while the program
// runs; copying ~64 bytes per record into a vector costs tens of ns, while formatting JSON per
// record would cost microseconds (docs/tracer.md, "Buffers").
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace goblin::tracer {

inline constexpr const char* kTracerName = "goblin-cupti";
inline constexpr const char* kTracerVersion = "0.1.0";
inline constexpr uint32_t kNoId = UINT32_MAX;

// A kernel (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL). Times are CUPTI timestamps (ns).
struct KernelRec {
  uint64_t start = 0, end = 0;
  uint32_t name = 0;  // index into Trace::strings
  uint32_t correlation = 0, device = 0, context = 0, stream = 0;
  int32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  uint32_t registers = 0, static_smem = 0, dynamic_smem = 0;
  uint32_t graph_id = 0;       // 0: not launched from a CUDA graph
  uint64_t graph_node_id = 0;  // 0 with graph_id 0
};

// A memcpy or memset (CUPTI_ACTIVITY_KIND_MEMCPY / MEMSET). Kinds carry CUPTI's enum values
// (CUpti_ActivityMemcpyKind, CUpti_ActivityMemoryKind), named by copy_kind_name/memory_kind_name.
struct CopyRec {
  uint64_t start = 0, end = 0, bytes = 0;
  uint32_t correlation = 0, device = 0, context = 0, stream = 0;
  uint32_t graph_id = 0;
  uint8_t copy_kind = 0, src_kind = 0, dst_kind = 0;  // memset: dst_kind = memory kind
  bool is_memset = false;
  uint32_t value = 0;  // memset value
};

// A runtime or driver API call (CUpti_ActivityAPI).
struct ApiRec {
  uint64_t start = 0, end = 0;
  uint32_t cbid = 0, correlation = 0, pid = 0, tid = 0;
  bool driver = false;
};

// CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: type is CUpti_ActivitySynchronizationType.
struct SyncRec {
  uint64_t start = 0, end = 0;
  uint32_t correlation = 0, context = 0, stream = 0, type = 0;
};

// NVTX marker halves (CUPTI_ACTIVITY_KIND_MARKER). A push/pop or start/end range is two
// records with one id; `name` is set on the start (and on instant marks).
struct MarkerRec {
  enum Flag : uint8_t { Instant = 1, Start = 2, End = 4 };
  uint64_t ts = 0;
  uint32_t id = 0, name = kNoId, tid = 0, pid = 0;
  uint8_t flags = 0;
};

// An operator or nn.Module range of goblin's operator observer (workloads/goblin_hook/
// goblin_ops.cpp, handed over through goblin_cupti_add_ops), times in CUPTI's clock. Written as a
// Kineto cpu_op (External id, Sequence number, Input Dims, Input type) or, for a module, a python_function
// "nn.Module: <Class>_<n>" frame, as torch.profiler writes them.
struct OpRec {
  uint64_t start = 0, end = 0;
  int64_t seq = -1;
  uint32_t name = 0;       // index into Trace::strings
  uint32_t dims = kNoId;   // index into Trace::strings: the Input Dims JSON array; kNoId: none
  uint32_t types = kNoId;  // index into Trace::strings: the Input type JSON array; kNoId: none
  uint32_t thread = 0;     // index into Trace::op_threads
  bool module = false;
};
// The observer's thread ids: gettid() and the low 32 bits of pthread_self(); the writer keeps
// whichever of the two the trace's API records use (resolve_op_threads).
struct OpThread {
  uint32_t pthread_lo = 0, tid = 0;
};

// CUPTI's own overhead (CUPTI_ACTIVITY_KIND_OVERHEAD): kind is CUpti_ActivityOverheadKind.
struct OverheadRec {
  uint64_t start = 0, end = 0;
  uint32_t kind = 0, tid = 0;
};

struct DeviceRec {
  uint32_t id = 0;
  std::string name;
  int major = -1, minor = -1, sms = -1, warp_size = -1;
  uint64_t total_memory = 0;
};

// One paired reading of CUPTI's clock between two reads of CLOCK_REALTIME.
struct ClockSample {
  int64_t real_before_ns = 0, cupti_ns = 0, real_after_ns = 0;
};
struct ClockAlignment {
  int64_t offset_ns = 0;       // epoch ns = CUPTI ns + offset_ns
  int64_t uncertainty_ns = 0;  // half the tightest bracket
  int samples = 0;
  bool valid = false;
};
// Offset from the sample with the tightest realtime bracket (the least preempted reading):
// offset = midpoint(before, after) - cupti. Invalid with no usable (after >= before) sample.
ClockAlignment align_clocks(const std::vector<ClockSample>& samples);

// Everything one process recorded, plus what the writer needs to name it.
struct Trace {
  std::vector<std::string> strings;  // kernel and marker names
  std::vector<KernelRec> kernels;
  std::vector<CopyRec> copies;
  std::vector<ApiRec> apis;
  std::vector<SyncRec> syncs;
  std::vector<MarkerRec> markers;
  std::vector<OverheadRec> overheads;
  std::vector<OpRec> ops;
  std::vector<OpThread> op_threads;
  std::vector<DeviceRec> devices;
  // (driver ? 1 : 0) << 32 | cbid → API name, filled at exit from cuptiGetCallbackName.
  std::map<uint64_t, std::string> api_names;
  ClockAlignment clock;
  uint32_t pid = 0;
  std::string process_name;
  // "*_version" keys become Timeline versions in goblin's Kineto reader.
  std::map<std::string, std::string> versions;
  // Extra JSON-valued top-level entries (already-serialised JSON text), e.g. "goblin_tracer".
  std::map<std::string, std::string> metadata_json;
};

inline uint64_t api_key(bool driver, uint32_t cbid) { return (uint64_t(driver ? 1 : 0) << 32) | cbid; }

const char* copy_kind_name(uint8_t k);    // "HtoD", "DtoH", ... ("Unknown" otherwise)
const char* memory_kind_name(uint8_t k);  // "Pageable", "Pinned", "Device", ...
const char* sync_type_name(uint32_t t);   // "Event Sync", "Stream Sync", ...
const char* overhead_kind_name(uint32_t k);

// Appends `s` as a JSON string literal (with quotes): escapes quotes, backslashes and control
// characters, and replaces bytes that are not valid UTF-8 with U+FFFD so the output always
// parses (goblin's reader rejects invalid UTF-8).
void append_json_string(std::string& out, std::string_view s);

// Appends t_ns (>= 0) as microseconds with exactly three decimals ("12.345"), the text
// goblin's reader converts back to ns exactly.
void append_us(std::string& out, int64_t t_ns);

// What the tracer says about its own run: the "goblin_tracer" metadata object of docs/tracer.md
// (how the trace was written, what was recorded and dropped, the pauses, the clock alignment).
// Plain values, so it is built and tested without CUPTI.
struct TracerRun {
  std::string written_at;  // "exit", "signal", "goblin_cupti_write_now"
  std::string api_mode, kinds, command;
  std::string tune;  // GOBLIN_CUPTI_TUNE options and what CUPTI answered to each; empty: none
  uint64_t buffers = 0, records = 0, dropped_records = 0, unknown_records = 0, buffer_callback_ns = 0;
  uint64_t recording_pauses = 0, recording_paused_ns = 0;
  bool started_paused = false, paused_at_exit = false, detach_on_pause = true;
  uint64_t resume_call_ns = 0, first_resume_call_ns = 0, pause_call_ns = 0;
  uint64_t cupti_attaches = 0, cupti_detaches = 0;
  std::string detach_error;  // empty: none
  int64_t exit_flush_ns = 0;
  std::map<std::string, uint64_t> cupti_overhead_ns;  // per overhead kind
  ClockAlignment clock;
  int64_t drift_at_exit_ns = 0;
};
std::string tracer_run_json(const TracerRun& r);

// Counts of what the writer emitted, for the summary line and the metadata.
struct WriteStats {
  uint64_t events = 0, kernels = 0, copies = 0, apis = 0, syncs = 0, ranges = 0, flows = 0;
  uint64_t unmatched_markers = 0;
  // Operator attribution: cpu_op events (PyTorch's NVTX operator ranges) and the kernels (count,
  // GPU ns) whose launch fell inside one.
  uint64_t cpu_ops = 0, kernels_with_op = 0, kernel_ns = 0, kernel_ns_with_op = 0;
  uint64_t module_frames = 0, unclosed_ops = 0;  // goblin's observer: nn.Module frames, ops never closed
  int64_t base_epoch_ns = 0;
};

// Writes the Kineto chrome trace. `sink` receives the text in pieces (about 1 MiB each) so a
// large trace is never held whole. Times: epoch ns (CUPTI + clock.offset) minus the earliest
// record's, written as relative µs with baseTimeNanoseconds = that earliest epoch ns.
WriteStats write_kineto(const Trace& t, const std::function<void(std::string_view)>& sink);

}  // namespace goblin::tracer
