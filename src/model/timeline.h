// The one in-memory model every reader produces and every analysis reads.
//
// Columnar: one struct-of-arrays table per event kind, names interned once in `strings`.
// Times are integer nanoseconds on the trace's own clock (Kineto: ts×1000 exactly, relative to
// baseTimeNanoseconds when present; rocprofv3: CLOCK_BOOTTIME ns; nsys: ns since session
// start). `clock_base_ns` says how to get epoch ns where the format allows.
//
// Links: a kernel/memcpy/memset row carries `correlation` (= the launching runtime call's
// correlation) and `external_id` (= the enclosing CPU op's External id). Use
// `Timeline::build_indexes()` once after reading to get O(1) correlation lookups.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/string_pool.h"

namespace goblin {

inline constexpr int64_t kNone = -1;  // "absent" for ids, devices, streams

enum class Format {
  Unknown,
  Kineto,
  RocprofV3Csv,
  RocprofV3Json,
  RocprofV1,
  NsysSqlite,
  NcuCsv,
  NvidiaSmi,
  AmdSmi,
  RocmSmi,
};
const char* format_name(Format f);  // the `format` strings of `goblin info --json`

// ---- GPU-side activity ---------------------------------------------------------------------

// Fields shared by kernels, memcpys and memsets.
struct GpuOpColumns {
  std::vector<int64_t> start_ns;
  std::vector<int64_t> dur_ns;
  std::vector<StrId> name;
  std::vector<int32_t> device;   // kNone when unknown
  std::vector<int64_t> stream;   // stream / queue id; kNone when unknown
  std::vector<int64_t> correlation;
  std::vector<int64_t> external_id;
  size_t size() const { return start_ns.size(); }
  int64_t end_ns(size_t i) const { return start_ns[i] + dur_ns[i]; }
};

struct KernelRow {
  int64_t start_ns = 0, dur_ns = 0;
  StrId name = kNoStr;
  int32_t device = kNone;
  int64_t stream = kNone, correlation = kNone, external_id = kNone;
  // Grid in *blocks* (CUDA semantics; rocprofv3 work-item grids are divided by the workgroup
  // size on ingest) and block in threads. 0 when unknown.
  std::array<uint32_t, 3> grid{0, 0, 0};
  std::array<uint32_t, 3> block{0, 0, 0};
  int32_t registers_per_thread = kNone;
  int64_t shared_mem_bytes = kNone;  // static + dynamic (LDS on AMD)
  int64_t graph_id = kNone;
};

struct KernelTable : GpuOpColumns {
  std::vector<std::array<uint32_t, 3>> grid, block;
  std::vector<int32_t> registers_per_thread;
  std::vector<int64_t> shared_mem_bytes;
  std::vector<int64_t> graph_id;
  void push(const KernelRow& r);
  void reserve(size_t n);
};

enum class CopyKind : uint8_t { Unknown, HtoD, DtoH, DtoD, HtoH, PtoP };
const char* copy_kind_name(CopyKind k);

struct MemcpyRow {
  int64_t start_ns = 0, dur_ns = 0;
  StrId name = kNoStr;
  int32_t device = kNone;
  int64_t stream = kNone, correlation = kNone, external_id = kNone;
  int64_t bytes = kNone;
  CopyKind kind = CopyKind::Unknown;
};

struct MemcpyTable : GpuOpColumns {
  std::vector<int64_t> bytes;
  std::vector<CopyKind> kind;
  void push(const MemcpyRow& r);
};

struct MemsetRow {
  int64_t start_ns = 0, dur_ns = 0;
  StrId name = kNoStr;
  int32_t device = kNone;
  int64_t stream = kNone, correlation = kNone, external_id = kNone;
  int64_t bytes = kNone;
};

struct MemsetTable : GpuOpColumns {
  std::vector<int64_t> bytes;
  void push(const MemsetRow& r);
};

// ---- host side ------------------------------------------------------------------------------

// CUDA/HIP runtime and driver API calls (cudaLaunchKernel, hipMemcpyAsync, cudaDeviceSynchronize...).
struct RuntimeRow {
  int64_t start_ns = 0, dur_ns = 0;
  StrId name = kNoStr;
  int64_t pid = kNone, tid = kNone;
  int64_t correlation = kNone, external_id = kNone;
  int32_t cbid = kNone;
  bool is_driver = false;  // cuda_driver vs cuda_runtime
  bool is_sync = false;    // cuda_sync category / synchronize-type call
};

struct RuntimeTable {
  std::vector<int64_t> start_ns, dur_ns;
  std::vector<StrId> name;
  std::vector<int64_t> pid, tid, correlation, external_id;
  std::vector<int32_t> cbid;
  std::vector<uint8_t> is_driver, is_sync;
  size_t size() const { return start_ns.size(); }
  int64_t end_ns(size_t i) const { return start_ns[i] + dur_ns[i]; }
  void push(const RuntimeRow& r);
};

enum class CpuOpKind : uint8_t { Op, PythonFunction };

// PyTorch operators (cpu_op) and, when with_stack was on, python_function frames.
struct CpuOpRow {
  int64_t start_ns = 0, dur_ns = 0;
  StrId name = kNoStr;
  int64_t pid = kNone, tid = kNone;
  int64_t external_id = kNone;
  int64_t sequence_number = kNone;
  CpuOpKind kind = CpuOpKind::Op;
  // Raw JSON text of args as recorded (record_shapes): e.g. "[[8192, 32000], []]". Interned;
  // analyses that need shapes parse these (roofline). kNoStr when absent.
  StrId input_dims = kNoStr;
  StrId input_types = kNoStr;
  StrId concrete_inputs = kNoStr;
  int64_t python_id = kNone, python_parent_id = kNone;  // python_function frames
};

struct CpuOpTable {
  std::vector<int64_t> start_ns, dur_ns;
  std::vector<StrId> name;
  std::vector<int64_t> pid, tid, external_id, sequence_number;
  std::vector<CpuOpKind> kind;
  std::vector<StrId> input_dims, input_types, concrete_inputs;
  std::vector<int64_t> python_id, python_parent_id;
  size_t size() const { return start_ns.size(); }
  int64_t end_ns(size_t i) const { return start_ns[i] + dur_ns[i]; }
  void push(const CpuOpRow& r);
};

// User annotations: record_function / NVTX / roctx ranges on the CPU (ProfilerStep#N, optimizer
// spans) and their GPU-side projections (gpu_user_annotation).
struct AnnotationRow {
  int64_t start_ns = 0, dur_ns = 0;
  StrId name = kNoStr;
  bool on_gpu = false;
  int64_t pid = kNone, tid = kNone;  // CPU side
  int32_t device = kNone;            // GPU side
  int64_t stream = kNone;
  int64_t external_id = kNone;
};

struct AnnotationTable {
  std::vector<int64_t> start_ns, dur_ns;
  std::vector<StrId> name;
  std::vector<uint8_t> on_gpu;
  std::vector<int64_t> pid, tid;
  std::vector<int32_t> device;
  std::vector<int64_t> stream, external_id;
  size_t size() const { return start_ns.size(); }
  int64_t end_ns(size_t i) const { return start_ns[i] + dur_ns[i]; }
  void push(const AnnotationRow& r);
};

// Flow arrows (Kineto ac2g launch→kernel, fwdbwd forward→backward). One row per s/f pair half.
struct FlowRow {
  int64_t id = kNone;
  StrId category = kNoStr;  // "ac2g", "fwdbwd", ...
  bool is_start = true;     // 's' vs 'f'
  int64_t ts_ns = 0;
  int64_t pid = kNone, tid = kNone;
};

struct FlowTable {
  std::vector<int64_t> id;
  std::vector<StrId> category;
  std::vector<uint8_t> is_start;
  std::vector<int64_t> ts_ns, pid, tid;
  size_t size() const { return id.size(); }
  void push(const FlowRow& r);
};

// ---- telemetry and counters -----------------------------------------------------------------

// One telemetry reading: (time, device, metric) = value. Metric names are normalised across
// nvidia-smi / amd-smi / rocm-smi: "gpu_util_pct", "mem_util_pct", "mem_used_bytes",
// "mem_total_bytes", "power_w", "power_limit_w", "temp_c", "sm_clock_mhz", "mem_clock_mhz".
// Vendor-specific metrics keep their own name.
struct SampleTable {
  std::vector<int64_t> ts_ns;  // epoch ns when the source has wall time, else sample index×period
  std::vector<int32_t> device;
  std::vector<StrId> metric;
  std::vector<double> value;
  size_t size() const { return ts_ns.size(); }
  void push(int64_t ts, int32_t dev, StrId metric_id, double v);
};

// Hardware counters per kernel dispatch (rocprofv3 counter_collection, Nsight Compute).
// `kernel_key` identifies the dispatch: the kernel row index when the kernel is in this
// timeline, else the source's dispatch/ID number.
struct CounterTable {
  std::vector<int64_t> kernel_key;
  std::vector<StrId> kernel_name;
  std::vector<StrId> counter;
  std::vector<StrId> unit;  // kNoStr when unitless/unknown
  std::vector<double> value;
  size_t size() const { return kernel_key.size(); }
  void push(int64_t key, StrId kname, StrId counter_id, StrId unit_id, double v);
};

// Nsight Compute rule results (`--page details` rule rows): the profiler's own findings per
// kernel ("SOLBottleneck", "AchievedOccupancy"). A table of their own rather than counters
// because the description text is the advice and a counter row can only carry a number.
struct RuleResultRow {
  int64_t kernel_key = kNone;  // as CounterTable::kernel_key
  StrId kernel_name = kNoStr;
  StrId section = kNoStr;       // section identifier, e.g. "SpeedOfLight"
  StrId rule = kNoStr;          // e.g. "SOLBottleneck"
  StrId type = kNoStr;          // "OPT", "WRN", "INF", ...
  StrId description = kNoStr;
  StrId speedup_type = kNoStr;  // "global", "local" or kNoStr
  double est_speedup_pct = -1;  // -1 when the rule gives no estimate
};

struct RuleResultTable {
  std::vector<int64_t> kernel_key;
  std::vector<StrId> kernel_name, section, rule, type, description, speedup_type;
  std::vector<double> est_speedup_pct;
  size_t size() const { return kernel_key.size(); }
  void push(const RuleResultRow& r) {
    kernel_key.push_back(r.kernel_key);
    kernel_name.push_back(r.kernel_name);
    section.push_back(r.section);
    rule.push_back(r.rule);
    type.push_back(r.type);
    description.push_back(r.description);
    speedup_type.push_back(r.speedup_type);
    est_speedup_pct.push_back(r.est_speedup_pct);
  }
};

// ---- metadata -------------------------------------------------------------------------------

struct DeviceInfo {
  int32_t id = kNone;
  std::string name;          // "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X", "gfx942"
  std::string arch;          // "sm_90", "gfx942"; empty when unknown
  int compute_major = -1, compute_minor = -1;
  int64_t total_memory_bytes = kNone;
  int num_sms = -1;          // SMs / CUs
  int warp_size = -1;
};

struct DistributedInfo {
  int64_t rank = kNone;
  int64_t world_size = kNone;
  std::string backend;
};

struct Diagnostic {
  std::string message;
  std::string file;
  int64_t byte_offset = -1;
  int64_t line = -1;
  int64_t count = 1;  // identical diagnostics are folded; count says how many
};

struct TraceMetadata {
  std::vector<Format> formats;             // one per input read into this timeline
  std::vector<std::string> sources;        // input paths
  std::vector<DeviceInfo> devices;
  DistributedInfo distributed;
  std::map<std::string, std::string> versions;  // "pytorch", "cuda_runtime", "rocm", "cupti", "driver", ...
  // Workload-written metadata kept verbatim as JSON text (tokens_per_sec, step_time_seconds, ...).
  std::map<std::string, std::string> extra;
  int64_t clock_base_ns = 0;  // add to a timestamp to get epoch ns (0 when unknown)
  bool clock_is_epoch = false;
};

class Timeline {
 public:
  StringPool strings;
  KernelTable kernels;
  MemcpyTable memcpys;
  MemsetTable memsets;
  RuntimeTable runtime;
  CpuOpTable cpu_ops;
  AnnotationTable annotations;
  FlowTable flows;
  SampleTable samples;
  CounterTable counters;
  RuleResultTable rules;  // Nsight Compute rule results
  TraceMetadata meta;
  std::vector<Diagnostic> warnings;

  // Adds a warning, folding repeats of the same message (so a million bad events give one line
  // with a count and the first offset, not a million lines).
  void warn(std::string message, std::string file = {}, int64_t byte_offset = -1, int64_t line = -1);

  std::string_view str(StrId id) const { return strings.view(id); }

  // Appends every row of `other` after this timeline's rows, re-interning its strings in their
  // id order (so ids come out as if one reader had interned both in sequence), and folds its
  // warnings in (counts added; a new message keeps its own offset). `other`'s columns are freed
  // one by one as they are copied, so peak memory grows by one column, not by `other`. Metadata
  // is not merged. Used by readers that parse parts of one file on several threads;
  // `two_threads` copies the CPU-op columns on a helper thread meanwhile.
  void append(Timeline&& other, bool two_threads = false);

  // Rows of GPU activity (kernels + memcpy + memset). A reader that failed but kept some of
  // these still gives an analysis something to work on (the verbs report partial results).
  size_t gpu_op_count() const { return kernels.size() + memcpys.size() + memsets.size(); }

  // [first start, last end] over all GPU activity (kernels, memcpy, memset); {0,0} if none.
  std::pair<int64_t, int64_t> gpu_span() const;
  // Same over every timed event in the timeline.
  std::pair<int64_t, int64_t> span() const;

  // Correlation → row lookups, built on demand by build_indexes().
  void build_indexes();
  std::optional<size_t> runtime_by_correlation(int64_t corr) const;
  std::optional<size_t> cpu_op_by_external_id(int64_t ext) const;

  // Sanity checks after reading: kernels overlapping on one (device, stream) beyond
  // `tolerance_ns` (ROCm streams overlap by tens of ns), zero-duration kernels (CUPTI 0/0),
  // negative durations. Each problem becomes a folded warning.
  void validate(int64_t overlap_tolerance_ns = 1000);

 private:
  std::unordered_map<int64_t, size_t> runtime_by_corr_;
  std::unordered_map<int64_t, size_t> cpu_op_by_ext_;
  std::unordered_map<std::string, size_t> warning_index_;
};

}  // namespace goblin
