// The one in-memory model every reader produces and every analysis reads.
//
// Columnar: one struct-of-arrays table per event kind, names interned once in `strings`. All
// GPU activity is one table, `gpu_ops`, whose `kind` column says kernel, memcpy or memset
// (analyses that want kernels alone filter on it).
//
// Invariants after a read (Timeline::finish(), called once by read_path):
// - every table with start times is sorted by start (GPU ops: ties by kind, then read order;
//   the others: read order); row references are remapped (python_frames.cpu_op), and analyses
//   never re-sort by start;
// - `tracks` has one row per (device, stream/queue, rank) and each GPU op its track id;
// - times are integer nanoseconds on a clock domain the timeline records (meta.trace_clock for
//   the trace tables, meta.sample_clock for telemetry: Kineto ts×1000 relative to
//   baseTimeNanoseconds; rocprofv3 CLOCK_BOOTTIME; nsys ns since session start; smi epoch wall
//   time or sample index). `clock_base_ns` says how to get epoch ns where the format allows;
//   telemetry meets trace times only through samples_to_trace_offset().
//
// Links: a GPU-op row carries `correlation` (= the launching runtime call's correlation) and
// `external_id` (= the enclosing CPU op's External id). Correlation lookups are O(1) through
// indexes built on first use.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/big_alloc.h"
#include "core/string_pool.h"
#include "model/warnings.h"

namespace goblin {

inline constexpr int64_t kNone = -1;  // "absent" for ids, devices, streams

// A table column: a vector whose large buffers are huge-page advised (core/big_alloc.h).
template <class T>
using Column = std::vector<T, BigAlloc<T>>;

enum class Format {
  Unknown,
  Kineto,
  RocprofV3Csv,
  RocprofV3Json,
  RocprofV1,
  Rocpd,           // rocprofv3's SQLite database (ROCm 7 default output)
  RocprofCompute,  // rocprofiler-compute (Omniperf) SQLite database: per-kernel metrics
  Jax,             // JAX profiler (XProf) Chrome-trace JSON: <host>.trace.json.gz
  NsysSqlite,
  NcuCsv,
  NvidiaSmi,
  AmdSmi,
  RocmSmi,
};
const char* format_name(Format f);  // the `format` strings of `goblin info --json`

// The clock a source's times are on. Times on two domains are never compared as they are: code
// that joins telemetry with trace times asks Timeline::samples_to_trace_offset(), which converts
// explicitly (a trace whose epoch base is known) or says the two cannot be lined up.
enum class ClockDomain : uint8_t {
  Unknown,      // nothing read, or a reader that does not say
  Epoch,        // wall clock, ns since 1970 (smi timestamps; traces stamped in epoch ns)
  KinetoTrace,  // Kineto: ts×1000, relative to baseTimeNanoseconds when the trace has one
  BootTime,     // rocprofv3 / rocprof: CLOCK_BOOTTIME (or MONOTONIC) ns of the traced host
  NsysSession,  // Nsight Systems: ns since the session started
  SampleIndex,  // telemetry without wall time: sample index × the sampling period
  JaxTrace,     // JAX (XProf) trace: ts×1000, relative to the profiling session's start
};
const char* clock_domain_name(ClockDomain d);  // "epoch", "kineto", "boottime", "nsys-session", ...

// ---- column lists ---------------------------------------------------------------------------
//
// Each table's columns are declared once, here, as a list of
//   COL(type, name, default)   a plain column
//   STR(name)                  an interned string (StrId, default kNoStr): re-interned by append()
//   FLAG(name)                 a bool in the row, stored as uint8_t in the column
// From a list, GOBLIN_TABLE_COLUMNS / GOBLIN_ROW_FIELDS generate the table's vectors, its row
// struct, push(), reserve() and the column visitor that append(), the consistency check and the
// model tests use — so a column cannot be forgotten in one of them.

// One table for all GPU activity: kernels, memcpys and memsets are rows of one table with a
// `kind` column (GpuOpKind). Kind-specific columns are declared here once and hold their default
// on the other kinds' rows: grid, block, registers, shared memory and graph id on kernels; bytes
// on memcpys and memsets; copy_kind on memcpys. Grid in *blocks* (CUDA semantics; rocprofv3
// work-item grids are divided by the workgroup size on ingest) and block in threads, 0 when
// unknown; shared memory is static + dynamic (LDS on AMD). `track` is the row's TrackTable id,
// set by Timeline::finish() (kNone before). Bytes per row: 106. Kernel rows of the three
// former tables were 92 B: one table costs kind 1 + track 4 + bytes 8 + copy_kind 1 = 14 B per
// kernel row; memcpy/memset rows (57/56 B before) carry the kernel columns (+49/+50 B), few in
// any trace.
#define GOBLIN_GPU_OP_COLUMNS(COL, STR, FLAG)                                       \
  COL(int64_t, start_ns, 0)                                                         \
  COL(int64_t, dur_ns, 0)                                                           \
  STR(name)                                                                         \
  COL(GpuOpKind, kind, GpuOpKind::Kernel)                                           \
  COL(int32_t, device, kNone) /* kNone when unknown */                              \
  COL(int64_t, stream, kNone) /* stream / queue id */                               \
  COL(int64_t, correlation, kNone)                                                  \
  COL(int64_t, external_id, kNone)                                                  \
  COL(int32_t, track, kNone)                  /* TrackTable row, set by finish() */ \
  COL(Dim3, grid, (Dim3{0, 0, 0}))            /* kernels */                         \
  COL(Dim3, block, (Dim3{0, 0, 0}))           /* kernels */                         \
  COL(int32_t, registers_per_thread, kNone)   /* kernels */                         \
  COL(int64_t, shared_mem_bytes, kNone)       /* kernels */                         \
  COL(int64_t, graph_id, kNone)               /* kernels */                         \
  COL(int64_t, bytes, kNone)                  /* memcpys, memsets */                \
  COL(CopyKind, copy_kind, CopyKind::Unknown) /* memcpys */

// One row per GPU track, a (device, stream/queue, rank) the GPU ops run on, derived by
// Timeline::finish() from the GPU-op table in (device, stream) order, so a track id orders like
// the (device, stream) pair. rank: the timeline's distributed rank (kNone when unknown).
#define GOBLIN_TRACK_COLUMNS(COL, STR, FLAG) \
  COL(int32_t, device, kNone)                \
  COL(int64_t, stream, kNone)                \
  COL(int64_t, rank, kNone)

// CUDA/HIP runtime and driver API calls (cudaLaunchKernel, hipMemcpyAsync, ...). is_driver:
// cuda_driver vs cuda_runtime; is_sync: cuda_sync category or a synchronize-type call.
// wait_stream / wait_record_correlation: a GPU-side "Stream Wait Event" row (Kineto cuda_sync,
// args wait_on_stream and wait_on_cuda_event_record_corr_id): the stream whose event the row's
// stream waited for, and the correlation of the cudaEventRecord call that recorded that event.
#define GOBLIN_RUNTIME_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, start_ns, 0)                    \
  COL(int64_t, dur_ns, 0)                      \
  STR(name)                                    \
  COL(int64_t, pid, kNone)                     \
  COL(int64_t, tid, kNone)                     \
  COL(int64_t, correlation, kNone)             \
  COL(int64_t, external_id, kNone)             \
  COL(int32_t, cbid, kNone)                    \
  COL(int64_t, wait_stream, kNone)             \
  COL(int64_t, wait_record_correlation, kNone) \
  FLAG(is_driver)                              \
  FLAG(is_sync)

// PyTorch operators (cpu_op) and, with with_stack, python_function frames. input_dims /
// input_types / concrete_inputs: raw JSON text of the recorded args (record_shapes), e.g.
// "[[8192, 32000], []]", parsed by the analyses that need shapes (roofline); kNoStr when absent.
// python_function frames' ids: PythonFrameTable.
#define GOBLIN_CPU_OP_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, start_ns, 0)                   \
  COL(int64_t, dur_ns, 0)                     \
  STR(name)                                   \
  COL(int64_t, pid, kNone)                    \
  COL(int64_t, tid, kNone)                    \
  COL(int64_t, external_id, kNone)            \
  COL(int64_t, sequence_number, kNone)        \
  COL(CpuOpKind, kind, CpuOpKind::Op)         \
  STR(input_dims)                             \
  STR(input_types)                            \
  STR(concrete_inputs)

// Python frames' own ids (Kineto python_function events of with_stack traces: "Python id",
// "Python parent id"), one row per frame that has them; cpu_op is the frame's row in cpu_ops. A
// table of its own because only python_function rows carry them: as two CPU-op columns they cost
// 16 bytes on every operator row (21 MB of a 1 GB trace's model, bench/README.md).
#define GOBLIN_PYTHON_FRAME_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, cpu_op, kNone)                       \
  COL(int64_t, python_id, kNone)                    \
  COL(int64_t, python_parent_id, kNone)

// User annotations: record_function / NVTX / roctx ranges on the CPU (ProfilerStep#N, optimizer
// spans) and their GPU-side projections (gpu_user_annotation: on_gpu, device, stream).
// input_dims / input_types: the tensors a record_function was given, as cpu_ops holds them (raw
// JSON text of Kineto's "Input Dims" / "Input type"; kNoStr when absent, as on most rows): PyTorch
// passes a collective's input tensors to its "nccl:<collective>" range (c10d Work.cpp,
// ProcessGroupNCCL::initWork), the only record of an all-reduce's size where c10d::allreduce_
// records its TensorList as []. Kept only when well-formed (the Kineto reader checks them).
#define GOBLIN_ANNOTATION_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, start_ns, 0)                       \
  COL(int64_t, dur_ns, 0)                         \
  STR(name)                                       \
  FLAG(on_gpu)                                    \
  COL(int64_t, pid, kNone)                        \
  COL(int64_t, tid, kNone)                        \
  COL(int32_t, device, kNone)                     \
  COL(int64_t, stream, kNone)                     \
  COL(int64_t, external_id, kNone)                \
  STR(input_dims)                                 \
  STR(input_types)

// Flow arrows: one row per s/f half. Kineto readers store forward→backward flows (fwdbwd) only;
// launch→kernel flows (ac2g) repeat the correlation ids and are counted in
// TraceMetadata::launch_flows. rocprof results.json keeps its own flows;
// category "ac2g", "fwdbwd", ...; is_start: 's' vs 'f'.
#define GOBLIN_FLOW_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, id, kNone)                   \
  STR(category)                             \
  FLAG(is_start)                            \
  COL(int64_t, ts_ns, 0)                    \
  COL(int64_t, pid, kNone)                  \
  COL(int64_t, tid, kNone)

// One telemetry reading: (time, device, metric) = value. Metric names are normalised across
// nvidia-smi / amd-smi / rocm-smi: "gpu_util_pct", "mem_util_pct", "mem_used_bytes",
// "mem_total_bytes", "power_w", "power_limit_w", "temp_c", "sm_clock_mhz", "mem_clock_mhz";
// vendor-specific metrics keep their own name. ts_ns is epoch ns when the source has wall time,
// else sample index × period.
#define GOBLIN_SAMPLE_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, ts_ns, 0)                      \
  COL(int32_t, device, kNone)                 \
  STR(metric)                                 \
  COL(double, value, 0)

// Hardware counters per kernel dispatch (rocprofv3 counter_collection, Nsight Compute).
// kernel_key identifies the dispatch by the source's own number (ncu "ID", rocprof Dispatch_Id),
// never by a GPU-op row index, so sorting the GPU-op table (Timeline::finish) leaves it valid.
// unit: kNoStr when unitless/unknown.
#define GOBLIN_COUNTER_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, kernel_key, kNone)              \
  STR(kernel_name)                             \
  STR(counter)                                 \
  STR(unit)                                    \
  COL(double, value, 0)

// Nsight Compute rule results (`--page details` rule rows): the profiler's own findings per
// kernel ("SOLBottleneck", "AchievedOccupancy"), a table of their own because the description
// text is the advice. section e.g. "SpeedOfLight"; type "OPT", "WRN", "INF"; speedup_type
// "global", "local" or kNoStr; est_speedup_pct -1 when the rule gives no estimate.
#define GOBLIN_RULE_RESULT_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, kernel_key, kNone)                  \
  STR(kernel_name)                                 \
  STR(section)                                     \
  STR(rule)                                        \
  STR(type)                                        \
  STR(description)                                 \
  STR(speedup_type)                                \
  COL(double, est_speedup_pct, -1)

// Collective calls (NCCL/RCCL): the metadata PyTorch attaches to a collective's GPU kernel and to
// its record_param_comms CPU op (Kineto args "Collective name", "dtype", "In msg nelems", "Out msg
// nelems", "Group size", "Process Group Name", "Process Group Description", "Seq"). on_gpu: the
// row describes the kernel (times, device and stream are the kernel's; correlation joins it to
// the kernel row and its launch) rather than the CPU op. Rows are not keyed by table index, so
// append() needs no offsets; in rows' order of appearance in the trace.
#define GOBLIN_COLLECTIVE_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, start_ns, 0)                       \
  COL(int64_t, dur_ns, 0)                         \
  FLAG(on_gpu)                                    \
  COL(int32_t, device, kNone)                     \
  COL(int64_t, stream, kNone)                     \
  COL(int64_t, correlation, kNone)                \
  COL(int64_t, external_id, kNone)                \
  STR(collective)                                 \
  STR(dtype)                                      \
  STR(group_name)                                 \
  STR(group_desc)                                 \
  COL(int64_t, in_nelems, kNone)                  \
  COL(int64_t, out_nelems, kNone)                 \
  COL(int64_t, group_size, kNone)                 \
  COL(int64_t, seq, kNone)

// PyTorch's allocator events of a trace recorded with profile_memory=True (Kineto `[memory]`
// instant events): one row per allocation (bytes > 0) or free (bytes < 0) of `addr`, with the
// allocator's totals for the device after it (`Total Allocated` / `Total Reserved`: bytes, as
// torch.cuda.memory_allocated() / memory_reserved() count them). device_type is c10's DeviceType
// (0 CPU, 1 CUDA; ROCm builds report CUDA too); device its index (-1 for the CPU). pid/tid: the
// thread that allocated, whose enclosing cpu_op made the allocation. Sorted by ts_ns (read order
// for ties) after Timeline::finish().
#define GOBLIN_MEMORY_EVENT_COLUMNS(COL, STR, FLAG) \
  COL(int64_t, ts_ns, 0)                            \
  COL(int32_t, device, kNone)                       \
  COL(int32_t, device_type, kNone)                  \
  COL(int64_t, addr, kNone)                         \
  COL(int64_t, bytes, 0)                            \
  COL(int64_t, total_allocated, kNone)              \
  COL(int64_t, total_reserved, kNone)               \
  COL(int64_t, pid, kNone)                          \
  COL(int64_t, tid, kNone)

// ---- generators -----------------------------------------------------------------------------

#define GOBLIN_X_ROW_COL(T, n, d) T n = d;
#define GOBLIN_X_ROW_STR(n) StrId n = kNoStr;
#define GOBLIN_X_ROW_FLAG(n) bool n = false;
#define GOBLIN_X_VEC_COL(T, n, d) Column<T> n;
#define GOBLIN_X_VEC_STR(n) Column<StrId> n;
#define GOBLIN_X_VEC_FLAG(n) Column<uint8_t> n;
#define GOBLIN_X_PUSH_COL(T, n, d) n.push_back(r.n);
#define GOBLIN_X_PUSH_STR(n) n.push_back(r.n);
#define GOBLIN_X_PUSH_FLAG(n) n.push_back(r.n ? 1 : 0);
#define GOBLIN_X_VISIT_COL(T, n, d) f(#n, n, o.n, ColumnKind::Plain);
#define GOBLIN_X_VISIT_STR(n) f(#n, n, o.n, ColumnKind::String);
#define GOBLIN_X_VISIT_FLAG(n) f(#n, n, o.n, ColumnKind::Plain);
#define GOBLIN_X_VISIT1_COL(T, n, d) f(#n, n, ColumnKind::Plain);
#define GOBLIN_X_VISIT1_STR(n) f(#n, n, ColumnKind::String);
#define GOBLIN_X_VISIT1_FLAG(n) f(#n, n, ColumnKind::Plain);
#define GOBLIN_X_RESERVE_COL(T, n, d) n.reserve(n.size() + extra);
#define GOBLIN_X_RESERVE_STR(n) n.reserve(n.size() + extra);
#define GOBLIN_X_RESERVE_FLAG(n) n.reserve(n.size() + extra);

// Row struct fields of a column list.
#define GOBLIN_ROW_FIELDS(LIST) LIST(GOBLIN_X_ROW_COL, GOBLIN_X_ROW_STR, GOBLIN_X_ROW_FLAG)
// Vectors, push(row), and the visitors of a column list. `Self` is the table type.
#define GOBLIN_TABLE_COLUMNS(Self, LIST)                                                         \
  LIST(GOBLIN_X_VEC_COL, GOBLIN_X_VEC_STR, GOBLIN_X_VEC_FLAG)                                    \
  template <class R> /* any row with these fields (a kernel row fills the shared columns too) */ \
  void push_columns(const R& r) {                                                                \
    LIST(GOBLIN_X_PUSH_COL, GOBLIN_X_PUSH_STR, GOBLIN_X_PUSH_FLAG)                               \
  }                                                                                              \
  template <class F>                                                                             \
  void for_each_column_pair(Self& o, F&& f) {                                                    \
    LIST(GOBLIN_X_VISIT_COL, GOBLIN_X_VISIT_STR, GOBLIN_X_VISIT_FLAG)                            \
  }                                                                                              \
  template <class F>                                                                             \
  void for_each_own_column(F&& f) const {                                                        \
    LIST(GOBLIN_X_VISIT1_COL, GOBLIN_X_VISIT1_STR, GOBLIN_X_VISIT1_FLAG)                         \
  }                                                                                              \
  template <class F>                                                                             \
  void for_each_own_column(F&& f) {                                                              \
    LIST(GOBLIN_X_VISIT1_COL, GOBLIN_X_VISIT1_STR, GOBLIN_X_VISIT1_FLAG)                         \
  }                                                                                              \
  void reserve_columns(size_t extra) { LIST(GOBLIN_X_RESERVE_COL, GOBLIN_X_RESERVE_STR, GOBLIN_X_RESERVE_FLAG) }

// A column's role for generic code: String columns hold StrIds into the timeline's pool.
enum class ColumnKind { Plain, String };
using Dim3 = std::array<uint32_t, 3>;

// ---- GPU-side activity ---------------------------------------------------------------------

enum class CopyKind : uint8_t { Unknown, HtoD, DtoH, DtoD, HtoH, PtoP };
const char* copy_kind_name(CopyKind k);
// A GPU-op row's kind; the enum's order is the tie order of ops that start together.
enum class GpuOpKind : uint8_t { Kernel, Memcpy, Memset };
const char* gpu_op_kind_name(GpuOpKind k);  // "kernel", "memcpy", "memset"
enum class CpuOpKind : uint8_t { Op, PythonFunction };

// A table: one column list; `SIZE` names the column that gives size(); the rest are extra
// members.
#define GOBLIN_PLAIN_TABLE(Table, Row, LIST, SIZE, ...)    \
  struct Row {                                             \
    GOBLIN_ROW_FIELDS(LIST)                                \
  };                                                       \
  struct Table {                                           \
    GOBLIN_TABLE_COLUMNS(Table, LIST)                      \
    size_t size() const { return SIZE.size(); }            \
    void push(const Row& r) { push_columns(r); }           \
    void reserve(size_t extra) { reserve_columns(extra); } \
    template <class F>                                     \
    void for_each_column(F&& f) const {                    \
      for_each_own_column(f);                              \
    }                                                      \
    template <class F>                                     \
    void for_each_column(F&& f) {                          \
      for_each_own_column(f);                              \
    }                                                      \
    __VA_ARGS__                                            \
  };

// Tables of [start, start + dur) rows.
#define GOBLIN_END_NS \
  int64_t end_ns(size_t i) const { return start_ns[i] + dur_ns[i]; }

// Kernels, memcpys and memsets (GOBLIN_GPU_OP_COLUMNS). Sorted by (start_ns, kind) after
// Timeline::finish(); count(kind) scans the one-byte kind column.
GOBLIN_PLAIN_TABLE(
    GpuOpTable, GpuOpRow, GOBLIN_GPU_OP_COLUMNS, start_ns,
    GOBLIN_END_NS size_t count(GpuOpKind k) const {
      size_t n = 0;
      for (GpuOpKind x : kind) n += x == k;
      return n;
    }
    /* the row of the n-th op of kind k in table order, size() when there are fewer; O(rows) */
    size_t nth(GpuOpKind k, size_t n) const {
      for (size_t i = 0; i < kind.size(); ++i)
        if (kind[i] == k && n-- == 0) return i;
      return kind.size();
    })
GOBLIN_PLAIN_TABLE(TrackTable, TrackRow, GOBLIN_TRACK_COLUMNS, device)

// ---- host side ------------------------------------------------------------------------------

GOBLIN_PLAIN_TABLE(RuntimeTable, RuntimeRow, GOBLIN_RUNTIME_COLUMNS, start_ns, GOBLIN_END_NS)
GOBLIN_PLAIN_TABLE(CpuOpTable, CpuOpRow, GOBLIN_CPU_OP_COLUMNS, start_ns, GOBLIN_END_NS)
GOBLIN_PLAIN_TABLE(AnnotationTable, AnnotationRow, GOBLIN_ANNOTATION_COLUMNS, start_ns, GOBLIN_END_NS)
GOBLIN_PLAIN_TABLE(PythonFrameTable, PythonFrameRow, GOBLIN_PYTHON_FRAME_COLUMNS, cpu_op)
GOBLIN_PLAIN_TABLE(FlowTable, FlowRow, GOBLIN_FLOW_COLUMNS, id)
GOBLIN_PLAIN_TABLE(CollectiveTable, CollectiveRow, GOBLIN_COLLECTIVE_COLUMNS, start_ns, GOBLIN_END_NS)
GOBLIN_PLAIN_TABLE(MemoryEventTable, MemoryEventRow, GOBLIN_MEMORY_EVENT_COLUMNS, ts_ns)

// ---- telemetry and counters -----------------------------------------------------------------

GOBLIN_PLAIN_TABLE(
    SampleTable, SampleRow, GOBLIN_SAMPLE_COLUMNS, ts_ns,
    void push(int64_t ts, int32_t dev, StrId metric_id, double v) {
      push_columns(SampleRow{ts, dev, metric_id, v});
    })
GOBLIN_PLAIN_TABLE(
    CounterTable, CounterRow, GOBLIN_COUNTER_COLUMNS, kernel_key,
    void push(int64_t key, StrId kname, StrId counter_id, StrId unit_id, double v) {
      push_columns(CounterRow{key, kname, counter_id, unit_id, v});
    })
GOBLIN_PLAIN_TABLE(RuleResultTable, RuleResultRow, GOBLIN_RULE_RESULT_COLUMNS, kernel_key)

// ---- metadata -------------------------------------------------------------------------------

struct DeviceInfo {
  int32_t id = kNone;
  std::string name;  // "NVIDIA H100 80GB HBM3", "AMD Instinct MI300X", "gfx942"
  std::string arch;  // "sm_90", "gfx942"; empty when unknown
  int compute_major = -1, compute_minor = -1;
  int64_t total_memory_bytes = kNone;
  int num_sms = -1;  // SMs / CUs
  int warp_size = -1;
};

struct DistributedInfo {
  int64_t rank = kNone;
  int64_t world_size = kNone;
  std::string backend;
};

struct TraceMetadata {
  std::vector<Format> formats;       // one per input read into this timeline
  std::vector<std::string> sources;  // input paths
  std::vector<ClockDomain> clocks;   // one per input: the clock its times are on
  std::vector<DeviceInfo> devices;
  DistributedInfo distributed;
  std::map<std::string, std::string> versions;  // "pytorch", "cuda_runtime", "rocm", "cupti", "driver", ...
  // Workload-written metadata kept verbatim as JSON text (tokens_per_sec, step_time_seconds, ...).
  std::map<std::string, std::string> extra;
  int64_t clock_base_ns = 0;  // add to a trace timestamp to get epoch ns (0 when unknown)
  bool clock_is_epoch = false;
  // Which clock the trace tables' times are on (GPU ops, runtime, CPU ops, annotations,
  // collectives, flows) and which clock telemetry samples are on; each reader sets the one it
  // fills. A second source on another domain is recorded as the first source's (the warning
  // clocks_incomparable, read_path.cpp, says so).
  ClockDomain trace_clock = ClockDomain::Unknown;
  ClockDomain sample_clock = ClockDomain::Unknown;
  // Kineto launch flow halves (ac2g) read but not stored in `flows`: each repeats the correlation
  // id of its launch and kernel rows (the kernel ↔ launch join uses those).
  uint64_t launch_flows = 0;
};

class Timeline {
 public:
  StringPool strings;
  GpuOpTable gpu_ops;  // kernels, memcpys and memsets, one `kind` column
  TrackTable tracks;   // derived by finish(): one row per (device, stream, rank) of gpu_ops
  RuntimeTable runtime;
  CpuOpTable cpu_ops;
  PythonFrameTable python_frames;  // ids of python_function rows of cpu_ops
  AnnotationTable annotations;
  FlowTable flows;
  SampleTable samples;
  CounterTable counters;
  RuleResultTable rules;           // Nsight Compute rule results
  CollectiveTable collectives;     // NCCL/RCCL collective metadata (Kineto)
  MemoryEventTable memory_events;  // allocator events (Kineto profile_memory)
  TraceMetadata meta;
  std::vector<Diagnostic> warnings;

  // Adds a warning of catalogue entry `id` (model/warnings.h), folding repeats of the same
  // message (so a million bad events give one line with a count and the first offset, not a
  // million lines). `message` is the detail a person reads; `id` is what scripts match on.
  void warn(WarningId id, std::string message, std::string file = {}, int64_t byte_offset = -1, int64_t line = -1);

  std::string_view str(StrId id) const { return strings.view(id); }

  // Appends every row of `other` after this timeline's rows, re-interning its strings in their
  // id order (so ids come out as if one reader had interned both in sequence), and folds its
  // warnings in (counts added; a new message keeps its own offset). `other`'s columns are freed
  // one by one as they are copied, so peak memory grows by one column, not by `other`. Metadata
  // is not merged. Used by readers that parse parts of one file on several threads;
  // `two_threads` copies the CPU-op columns on a helper thread meanwhile.
  void append(Timeline&& other, bool two_threads = false);
  // The same, but `other` keeps its columns' capacity (rows cleared, warnings reset) so a reader
  // can parse the next part of a file into it without new allocations. Its strings stay:
  // `remap` (kept by the caller between calls) maps its string ids to ours and is extended to
  // the strings it interned since the last call, so each string is re-interned once.
  void append_and_clear(Timeline& other, std::vector<StrId>& remap);

  // Rows of GPU activity (kernels + memcpy + memset). A reader that failed but kept some of
  // these still gives an analysis something to work on (the verbs report partial results).
  size_t gpu_op_count() const { return gpu_ops.size(); }

  // [first start, last end] over all GPU activity (kernels, memcpy, memset); {0,0} if none.
  std::pair<int64_t, int64_t> gpu_span() const;
  // Same over every timed event in the timeline.
  std::pair<int64_t, int64_t> span() const;

  // Correlation → row lookups. Readers build them once at the end (read_path); a lookup on a
  // timeline that changed since (rows pushed by hand, append) rebuilds them first, so a
  // forgotten build_indexes() can never make a join find nothing.
  void build_indexes() const;
  std::optional<size_t> runtime_by_correlation(int64_t corr) const;
  std::optional<size_t> cpu_op_by_external_id(int64_t ext) const;

  // Returns the resident pages past each large column's last row to the system (a read's
  // columns are reserved ahead from an estimate, and a huge page holding the last row is resident
  // whole); the columns keep their capacity. Called once a read is complete.
  void release_spare_capacity();

  // Visits every table read from a source as (name, table&) — the generic part of append() and
  // the model tests. `tracks` is derived (finish()), not read, so it is not visited.
  template <class F>
  void for_each_table(F&& f) {
    f("gpu_ops", gpu_ops);
    f("runtime", runtime);
    f("cpu_ops", cpu_ops);
    f("python_frames", python_frames);
    f("annotations", annotations);
    f("flows", flows);
    f("samples", samples);
    f("counters", counters);
    f("rules", rules);
    f("collectives", collectives);
    f("memory_events", memory_events);
  }
  template <class F>
  void for_each_table(F&& f) const {
    const_cast<Timeline*>(this)->for_each_table([&](const char* n, const auto& t) { f(n, t); });
  }
  // Every column of a table has as many rows as the table: empty when so, else the first
  // table.column that differs (a reader bug).
  std::string column_mismatch() const;

  // Ends a read (read_path calls it once): sorts every table with start times by (start, then a
  // stable tiebreak: GPU ops by kind, then their read order; other tables by read order) and
  // remaps the row references that sorting moves (python_frames.cpu_op); derives `tracks` and
  // each GPU op's track id; then validate(). Analyses rely on the order and never re-sort.
  // Calling it again is cheap when nothing changed (the sort is skipped on sorted tables).
  void finish(int64_t overlap_tolerance_ns = 1000);
  // The first table that is not in start order, or empty: the invariant finish() establishes.
  std::string unsorted_table() const;
  // What to add to a telemetry sample's ts_ns to put it on the trace tables' clock: 0 on one
  // domain, -clock_base_ns for epoch telemetry beside a trace whose epoch base is known;
  // nullopt when the two clocks cannot be lined up (then no sample may be placed on the trace's
  // time axis).
  std::optional<int64_t> samples_to_trace_offset() const;

 private:
  // finish()'s sanity checks, on sorted rows with tracks derived: kernels overlapping on one (device, stream) beyond
  // `tolerance_ns` (ROCm streams overlap by tens of ns) or by more than half their own length,
  // zero-duration kernels (CUPTI 0/0), negative durations (set to 0), correlation / External ids
  // shared by most rows. Each problem becomes a folded warning.
  void validate(int64_t overlap_tolerance_ns = 1000);

  // validate()'s check for correlation / External ids shared by most rows (damaged ids).
  void check_shared_ids(const std::string& src);
  void sort_by_start();  // finish()'s sort and remap
  void derive_tracks();  // finish()'s track table
  struct Indexes {
    std::mutex mu;  // held while (re)building
    // Table sizes when built; read without the lock on every lookup (release/acquire pairs with
    // the maps' construction).
    std::atomic<size_t> runtime_rows{SIZE_MAX}, cpu_op_rows{SIZE_MAX};
    std::unordered_map<int64_t, size_t> runtime_by_corr, cpu_op_by_ext;
  };
  // Owns the indexes (a unique_ptr keeps Timeline movable despite the mutex).
  struct IndexCache {
    std::unique_ptr<Indexes> p = std::make_unique<Indexes>();
  };
  void fold_warnings(Timeline& other);  // other's warnings into ours (folded), other's cleared
  // other's rows after ours, strings remapped by `m`; other's columns freed, or cleared (keep).
  void append_tables(Timeline& other, const std::vector<StrId>& m, bool keep, bool two_threads);
  const Indexes& indexes() const;       // current indexes, rebuilt first when the tables changed
  void rebuild_indexes_locked() const;  // with Indexes::mu held
  IndexCache idx_;
  std::unordered_map<std::string, size_t> warning_index_;
  size_t names_fixed_reported_ = 0, names_cut_reported_ = 0;  // StringPool counts already warned of
};

}  // namespace goblin
