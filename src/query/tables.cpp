#include "query/tables.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

#include "analysis/category_breakdown.h"
#include "analysis/exposure.h"
#include "analysis/kernel_table.h"
#include "analysis/modules.h"
#include "analysis/ranks.h"
#include "analysis/run_metrics.h"
#include "analysis/stages.h"
#include "analysis/steps.h"
#include "core/text.h"
#include "query/columns.h"
#include "query/table_state.h"

namespace goblin::query {

using namespace detail;  // the tables' insides (query/table_state.h)

namespace {

constexpr SqlType I = SqlType::Integer, R = SqlType::Real, T = SqlType::Text;

std::string join_map(const std::map<std::string, int64_t>& m) {
  std::string s;
  for (const auto& [k, v] : m) fmt::format_to(std::back_inserter(s), "{}{}={}", s.empty() ? "" : ",", k, v);
  return s;
}

Table make(const char* name, const char* doc, bool analysis, std::function<size_t(TraceState&)> rows,
           std::vector<Col> cols) {
  Table t;
  t.info.name = name;
  t.info.doc = doc;
  t.info.analysis = analysis;
  t.rows = std::move(rows);
  t.info.columns.push_back(
      {"rank", I, "the trace's distributed rank (else the number in its file name, else its position)"});
  t.info.columns.push_back({"trace", T, "the trace's path as given"});
  for (Col& c : cols) {
    t.info.columns.push_back(c.info);
    t.getters.push_back(std::move(c.get));
  }
  return t;
}

// A collective's payload: max(in, out) elements × the dtype's size; nullopt when either is unknown.
std::optional<int64_t> collective_bytes(TraceState& st, size_t r) {
  const CollectiveTable& c = st.tl().collectives;
  const int64_t n = std::max(c.in_nelems[r], c.out_nelems[r]);
  auto it = st.k->collectives.dtype_bytes.find(ascii_lower(st.tl().str(c.dtype[r])));
  if (n < 0 || it == st.k->collectives.dtype_bytes.end()) return std::nullopt;
  return n * it->second;
}

// Bus bandwidth as nccl-tests defines it: bytes / duration × the algorithm's factor for the group.
void collective_bus_bw(TraceState& st, size_t r, Out& o) {
  const CollectiveTable& c = st.tl().collectives;
  const auto bytes = collective_bytes(st, r);
  const auto* type = st.k->collectives.type_of(st.tl().str(c.collective[r]));
  auto f = type ? analysis::CollectiveKnowledge::factor(type->busbw_factor, c.group_size[r]) : std::nullopt;
  if (!bytes || !f || c.dur_ns[r] <= 0) return o.null();
  o.d(static_cast<double>(*bytes) / static_cast<double>(c.dur_ns[r]) * *f);
}

#define GET [](TraceState & st, size_t r, Out & o)

std::vector<Table> build_tables() {
  std::vector<Table> v;
  // clang-format off: one line per column (name, type, doc, getter)
  v.push_back(make("gpu_ops", "every kernel, memcpy and memset (the model's GPU-op table, sorted by start)", false, [](TraceState& st) { return st.tl().gpu_ops.size(); }, {
    {{"id", I, "row number in the trace's GPU-op table (start order)"}, GET { o.i(static_cast<int64_t>(r)); }},
    {{"kind", T, "kernel, memcpy or memset"}, GET { o.s(gpu_op_kind_name(st.tl().gpu_ops.kind[r])); }},
    {{"device", I, "GPU index"}, GET { o.opt(st.tl().gpu_ops.device[r]); }},
    {{"stream", I, "stream (queue) id"}, GET { o.opt(st.tl().gpu_ops.stream[r]); }},
    {{"track", I, "row of `tracks`: one per (device, stream)"}, GET { o.opt(st.tl().gpu_ops.track[r]); }},
    {{"start_ns", I, "start, ns on the trace's clock"}, GET { o.i(st.tl().gpu_ops.start_ns[r]); }},
    {{"dur_ns", I, "duration, ns"}, GET { o.i(st.tl().gpu_ops.dur_ns[r]); }},
    {{"end_ns", I, "start_ns + dur_ns"}, GET { o.i(st.tl().gpu_ops.end_ns(r)); }},
    {{"name", T, "the kernel's full name (memcpy/memset: the trace's event name)"}, GET { o.str(st.tl(), st.tl().gpu_ops.name[r]); }},
    {{"category", T, "taxonomy category (gemm, attention, communication, ..., memcpy, memset), as `breakdown`"}, GET { o.s(st.op_cls(r).first); }},
    {{"family", T, "library family (cuBLAS, FlashAttention, NCCL, ...; unknown), as `breakdown`"}, GET { o.s(st.op_cls(r).second); }},
    {{"correlation", I, "the launching runtime call's correlation id (api_calls.correlation)"}, GET { o.opt(st.tl().gpu_ops.correlation[r]); }},
    {{"external_id", I, "the enclosing CPU op's External id (cpu_ops.external_id)"}, GET { o.opt(st.tl().gpu_ops.external_id[r]); }},
    {{"graph_id", I, "CUDA/HIP graph id (kernels launched by a graph)"}, GET { o.opt(st.tl().gpu_ops.graph_id[r]); }},
    {{"grid_x", I, "grid in blocks (kernels; NULL when unknown)"}, GET { st.tl().gpu_ops.grid[r][0] ? o.i(st.tl().gpu_ops.grid[r][0]) : o.null(); }},
    {{"grid_y", I, "grid y"}, GET { st.tl().gpu_ops.grid[r][0] ? o.i(st.tl().gpu_ops.grid[r][1]) : o.null(); }},
    {{"grid_z", I, "grid z"}, GET { st.tl().gpu_ops.grid[r][0] ? o.i(st.tl().gpu_ops.grid[r][2]) : o.null(); }},
    {{"block_x", I, "block in threads (kernels; NULL when unknown)"}, GET { st.tl().gpu_ops.block[r][0] ? o.i(st.tl().gpu_ops.block[r][0]) : o.null(); }},
    {{"block_y", I, "block y"}, GET { st.tl().gpu_ops.block[r][0] ? o.i(st.tl().gpu_ops.block[r][1]) : o.null(); }},
    {{"block_z", I, "block z"}, GET { st.tl().gpu_ops.block[r][0] ? o.i(st.tl().gpu_ops.block[r][2]) : o.null(); }},
    {{"registers_per_thread", I, "registers per thread (kernels)"}, GET { o.opt(st.tl().gpu_ops.registers_per_thread[r]); }},
    {{"shared_mem_bytes", I, "static + dynamic shared memory (kernels)"}, GET { o.opt(st.tl().gpu_ops.shared_mem_bytes[r]); }},
    {{"bytes", I, "bytes moved or set (memcpy, memset)"}, GET { o.opt(st.tl().gpu_ops.bytes[r]); }},
    {{"copy_kind", T, "HtoD, DtoH, DtoD, HtoH, PtoP (memcpy)"}, GET {const GpuOpTable& g = st.tl().gpu_ops; g.kind[r] == GpuOpKind::Memcpy ? o.s(copy_kind_name(g.copy_kind[r])) : o.null(); }},
    {{"step", I, "steps.step of the step whose window [start_ns, start_ns + dur_ns) holds the op's start (the first such step in `steps` order); NULL outside every step"}, GET { o.opt(st.gpu_step_of(r)); }},
  }));
  v.push_back(make("cpu_ops", "PyTorch operators and python_function frames on the CPU", false, [](TraceState& st) { return st.tl().cpu_ops.size(); }, {
    {{"id", I, "row number (start order); python_frames.cpu_op refers to it"}, GET { o.i(static_cast<int64_t>(r)); }},
    {{"kind", T, "op or python_function"}, GET { o.s(st.tl().cpu_ops.kind[r] == CpuOpKind::Op ? "op" : "python_function"); }},
    {{"start_ns", I, "start, ns"}, GET { o.i(st.tl().cpu_ops.start_ns[r]); }},
    {{"dur_ns", I, "duration, ns"}, GET { o.i(st.tl().cpu_ops.dur_ns[r]); }},
    {{"name", T, "operator name (aten::mm) or frame"}, GET { o.str(st.tl(), st.tl().cpu_ops.name[r]); }},
    {{"pid", I, "process id"}, GET { o.opt(st.tl().cpu_ops.pid[r]); }},
    {{"tid", I, "thread id"}, GET { o.opt(st.tl().cpu_ops.tid[r]); }},
    {{"external_id", I, "External id (gpu_ops.external_id, api_calls.external_id)"}, GET { o.opt(st.tl().cpu_ops.external_id[r]); }},
    {{"sequence_number", I, "autograd sequence number"}, GET { o.opt(st.tl().cpu_ops.sequence_number[r]); }},
    {{"input_dims", T, "recorded input shapes, JSON text (record_shapes)"}, GET { o.str(st.tl(), st.tl().cpu_ops.input_dims[r]); }},
    {{"input_types", T, "recorded input dtypes, JSON text"}, GET { o.str(st.tl(), st.tl().cpu_ops.input_types[r]); }},
    {{"concrete_inputs", T, "recorded scalar inputs, JSON text"}, GET { o.str(st.tl(), st.tl().cpu_ops.concrete_inputs[r]); }},
    {{"parent_id", I, "id of the innermost row of cpu_ops that encloses this one on the same pid and tid (docs/query.md § CPU-op nesting); NULL at the top"}, GET { o.opt(st.cpu_parent_of(r)); }},
    {{"depth", I, "0 at the top (no parent), else the parent's depth + 1: the length of the parent_id chain"}, GET { o.opt(st.cpu_depth_of(r)); }},
  }));
  v.push_back(make("api_calls", "CUDA/HIP runtime and driver calls (cudaLaunchKernel, hipMemcpyAsync, ...)", false, [](TraceState& st) { return st.tl().runtime.size(); }, {
    {{"start_ns", I, "start, ns"}, GET { o.i(st.tl().runtime.start_ns[r]); }},
    {{"dur_ns", I, "duration, ns"}, GET { o.i(st.tl().runtime.dur_ns[r]); }},
    {{"name", T, "API name"}, GET { o.str(st.tl(), st.tl().runtime.name[r]); }},
    {{"pid", I, "process id"}, GET { o.opt(st.tl().runtime.pid[r]); }},
    {{"tid", I, "thread id"}, GET { o.opt(st.tl().runtime.tid[r]); }},
    {{"correlation", I, "correlation id (gpu_ops.correlation of what it launched)"}, GET { o.opt(st.tl().runtime.correlation[r]); }},
    {{"external_id", I, "the enclosing CPU op's External id"}, GET { o.opt(st.tl().runtime.external_id[r]); }},
    {{"cbid", I, "CUPTI callback id"}, GET { o.opt(st.tl().runtime.cbid[r]); }},
    {{"is_driver", I, "1: driver API, 0: runtime API"}, GET { o.i(st.tl().runtime.is_driver[r]); }},
    {{"is_sync", I, "1: a synchronizing call"}, GET { o.i(st.tl().runtime.is_sync[r]); }},
  }));
  v.push_back(make("annotations", "user annotations: record_function / NVTX / roctx ranges and their GPU projections", false, [](TraceState& st) { return st.tl().annotations.size(); }, {
    {{"start_ns", I, "start, ns"}, GET { o.i(st.tl().annotations.start_ns[r]); }},
    {{"dur_ns", I, "duration, ns"}, GET { o.i(st.tl().annotations.dur_ns[r]); }},
    {{"name", T, "annotation text (ProfilerStep#3, Optimizer.step#AdamW.step, ...)"}, GET { o.str(st.tl(), st.tl().annotations.name[r]); }},
    {{"on_gpu", I, "1: a gpu_user_annotation (device, stream set)"}, GET { o.i(st.tl().annotations.on_gpu[r]); }},
    {{"pid", I, "process id (CPU side)"}, GET { o.opt(st.tl().annotations.pid[r]); }},
    {{"tid", I, "thread id (CPU side)"}, GET { o.opt(st.tl().annotations.tid[r]); }},
    {{"device", I, "GPU (GPU side)"}, GET { o.opt(st.tl().annotations.device[r]); }},
    {{"stream", I, "stream (GPU side)"}, GET { o.opt(st.tl().annotations.stream[r]); }},
    {{"external_id", I, "External id"}, GET { o.opt(st.tl().annotations.external_id[r]); }},
    {{"input_dims", T, "recorded input shapes, JSON text (record_shapes; the nccl:all_reduce, nccl:all_to_all, ... ranges hold their collective's input tensors)"}, GET { o.str(st.tl(), st.tl().annotations.input_dims[r]); }},
    {{"input_types", T, "recorded input dtypes, JSON text"}, GET { o.str(st.tl(), st.tl().annotations.input_types[r]); }},
  }));
  v.push_back(make("steps", "training/inference steps as goblin finds them (docs/metrics.md § Steps)", false, [](TraceState& st) { return st.steps().steps.size(); }, {
    {{"step", I, "N of ProfilerStep#N, else the step's index"}, GET { st.steps(); o.i(st.step_numbers[r]); }},
    {{"name", T, "the step's annotation (or \"window\")"}, GET { o.s(st.steps().steps[r].name); }},
    {{"start_ns", I, "window start, ns"}, GET { o.i(st.steps().steps[r].start_ns); }},
    {{"dur_ns", I, "window length, ns"}, GET { o.i(st.steps().steps[r].end_ns - st.steps().steps[r].start_ns); }},
    {{"partial", I, "1: cut by the trace's end or overlapping another step (not in per-step means)"}, GET { o.i(st.steps().steps[r].partial ? 1 : 0); }},
    {{"source", T, "how the window was found"}, GET { o.s(st.steps().steps[r].source); }},
  }));
  v.push_back(make("collectives", "NCCL/RCCL collectives with PyTorch's metadata (kernel rows: on_gpu = 1)", false, [](TraceState& st) { return st.tl().collectives.size(); }, {
    {{"start_ns", I, "start, ns"}, GET { o.i(st.tl().collectives.start_ns[r]); }},
    {{"dur_ns", I, "duration, ns"}, GET { o.i(st.tl().collectives.dur_ns[r]); }},
    {{"on_gpu", I, "1: the collective's kernel, 0: its CPU op"}, GET { o.i(st.tl().collectives.on_gpu[r]); }},
    {{"device", I, "GPU (kernel rows)"}, GET { o.opt(st.tl().collectives.device[r]); }},
    {{"stream", I, "stream (kernel rows)"}, GET { o.opt(st.tl().collectives.stream[r]); }},
    {{"correlation", I, "correlation id (kernel rows)"}, GET { o.opt(st.tl().collectives.correlation[r]); }},
    {{"external_id", I, "External id"}, GET { o.opt(st.tl().collectives.external_id[r]); }},
    {{"collective", T, "allreduce, allgather, ..."}, GET { o.str(st.tl(), st.tl().collectives.collective[r]); }},
    {{"dtype", T, "element type"}, GET { o.str(st.tl(), st.tl().collectives.dtype[r]); }},
    {{"process_group", T, "process group name (else its description)"}, GET {const CollectiveTable& c = st.tl().collectives; o.str(st.tl(), c.group_name[r] != kNoStr ? c.group_name[r] : c.group_desc[r]); }},
    {{"group_size", I, "ranks in the group"}, GET { o.opt(st.tl().collectives.group_size[r]); }},
    {{"in_nelems", I, "input elements"}, GET { o.opt(st.tl().collectives.in_nelems[r]); }},
    {{"out_nelems", I, "output elements"}, GET { o.opt(st.tl().collectives.out_nelems[r]); }},
    {{"seq", I, "the group's sequence number"}, GET { o.opt(st.tl().collectives.seq[r]); }},
    {{"bytes", I, "max(in, out) elements × dtype size (data/collectives.yaml); NULL when unknown"}, GET { auto b = collective_bytes(st, r); b ? o.i(*b) : o.null(); }},
    {{"bus_bw_gbps", R, "bytes / dur × the collective's bus factor over group_size (nccl-tests busbw, data/collectives.yaml), GB/s = 10^9 bytes/s (TraceLens' tables: GiB/s = this / 1.073741824); NULL when unknown"}, GET { collective_bus_bw(st, r, o); }},
  }));
  v.push_back(make("memory_events", "allocator events of a profile_memory=True trace ([memory]): bytes > 0 an allocation, < 0 a free (docs/memory.md)", false, [](TraceState& st) { return st.tl().memory_events.size(); }, {
    {{"ts_ns", I, "time, ns (the trace's CPU clock)"}, GET { o.i(st.tl().memory_events.ts_ns[r]); }},
    {{"device", I, "device index (-1: the CPU)"}, GET { o.i(st.tl().memory_events.device[r]); }},
    {{"device_type", I, "c10 DeviceType: 0 CPU, 1 CUDA (ROCm too)"}, GET { o.i(st.tl().memory_events.device_type[r]); }},
    {{"addr", I, "the block's address (NULL when absent)"}, GET { o.opt(st.tl().memory_events.addr[r]); }},
    {{"bytes", I, "bytes allocated (> 0) or freed (< 0)"}, GET { o.i(st.tl().memory_events.bytes[r]); }},
    {{"total_allocated", I, "the allocator's allocated bytes on the device after the event"}, GET { o.opt(st.tl().memory_events.total_allocated[r]); }},
    {{"total_reserved", I, "the allocator's reserved bytes on the device after the event (NULL when absent)"}, GET { o.opt(st.tl().memory_events.total_reserved[r]); }},
    {{"pid", I, "process"}, GET { o.opt(st.tl().memory_events.pid[r]); }},
    {{"tid", I, "thread that allocated"}, GET { o.opt(st.tl().memory_events.tid[r]); }},
  }));
  v.push_back(make("python_frames", "ids of python_function frames (with_stack traces)", false, [](TraceState& st) { return st.tl().python_frames.size(); }, {
    {{"cpu_op", I, "the frame's row in cpu_ops (cpu_ops.id)"}, GET { o.opt(st.tl().python_frames.cpu_op[r]); }},
    {{"name", T, "the frame (file.py(12): fn)"}, GET {const int64_t op = st.tl().python_frames.cpu_op[r]; op >= 0 && static_cast<size_t>(op) < st.tl().cpu_ops.size() ? o.str(st.tl(), st.tl().cpu_ops.name[op]) : o.null(); }},
    {{"python_id", I, "Python id"}, GET { o.opt(st.tl().python_frames.python_id[r]); }},
    {{"python_parent_id", I, "Python parent id"}, GET { o.opt(st.tl().python_frames.python_parent_id[r]); }},
  }));
  v.push_back(make("devices", "the GPUs the trace describes", false, [](TraceState& st) { return st.tl().meta.devices.size(); }, {
    {{"device", I, "GPU index"}, GET { o.opt(st.tl().meta.devices[r].id); }},
    {{"name", T, "device name"}, GET { o.s(st.tl().meta.devices[r].name); }},
    {{"arch", T, "sm_90, gfx942, ... (NULL when unknown)"}, GET { st.tl().meta.devices[r].arch.empty() ? o.null() : o.s(st.tl().meta.devices[r].arch); }},
    {{"compute_major", I, "compute capability major"}, GET { o.opt(st.tl().meta.devices[r].compute_major); }},
    {{"compute_minor", I, "compute capability minor"}, GET { o.opt(st.tl().meta.devices[r].compute_minor); }},
    {{"total_memory_bytes", I, "device memory"}, GET { o.opt(st.tl().meta.devices[r].total_memory_bytes); }},
    {{"num_sms", I, "SMs / CUs"}, GET { o.opt(st.tl().meta.devices[r].num_sms); }},
    {{"warp_size", I, "warp / wavefront size"}, GET { o.opt(st.tl().meta.devices[r].warp_size); }},
  }));
  v.push_back(make("tracks", "one row per (device, stream) the GPU ops run on", false, [](TraceState& st) { return st.tl().tracks.size(); }, {
    {{"track", I, "track id (gpu_ops.track)"}, GET { o.i(static_cast<int64_t>(r)); }},
    {{"device", I, "GPU index"}, GET { o.opt(st.tl().tracks.device[r]); }},
    {{"stream", I, "stream (queue) id"}, GET { o.opt(st.tl().tracks.stream[r]); }},
  }));
  v.push_back(make("ranks", "one row per trace: rank, world size and what was read", false, [](TraceState&) { return size_t{1}; }, {
    {{"world_size", I, "the job's world size (NULL when the trace does not say)"}, GET { o.opt(st.tl().meta.distributed.world_size); }},
    {{"backend", T, "nccl, rccl, ... (NULL when unknown)"}, GET { st.tl().meta.distributed.backend.empty() ? o.null() : o.s(st.tl().meta.distributed.backend); }},
    {{"format", T, "the format read (goblin info's `format`)"}, GET { st.tl().meta.formats.empty() ? o.null() : o.s(format_name(st.tl().meta.formats[0])); }},
    {{"gpu_ops", I, "GPU-op rows"}, GET { o.i(static_cast<int64_t>(st.tl().gpu_ops.size())); }},
    {{"span_start_ns", I, "first event start, ns"}, GET { o.i(st.tl().span().first); }},
    {{"span_end_ns", I, "last event end, ns"}, GET { o.i(st.tl().span().second); }},
    {{"clock_base_ns", I, "add to a time for epoch ns (NULL when unknown)"}, GET { st.tl().meta.clock_base_ns ? o.i(st.tl().meta.clock_base_ns) : o.null(); }},
  }));
  // ---- analysis tables ----
  v.push_back(make("kernels", "the kernel table of `goblin triage` (one row per canonical name, by time)", true, [](TraceState& st) { return st.triage().kernels.rows.size(); }, {
    {{"name", T, "canonical kernel name"}, GET { o.s(st.triage().kernels.rows[r].name); }},
    {{"full_name", T, "the most frequent full name behind it"}, GET { o.s(st.triage().kernels.rows[r].full_name); }},
    {{"kind", T, "kernel, memcpy or memset"}, GET { o.s(gpu_op_kind_name(st.triage().kernels.rows[r].kind)); }},
    {{"category", T, "taxonomy category"}, GET { o.s(st.triage().kernels.rows[r].category); }},
    {{"family", T, "library family"}, GET { o.s(st.triage().kernels.rows[r].family); }},
    {{"launches", I, "launches"}, GET { o.i(st.triage().kernels.rows[r].launches); }},
    {{"total_ns", I, "summed duration"}, GET { o.i(st.triage().kernels.rows[r].total_ns); }},
    {{"min_ns", I, "shortest"}, GET { o.i(st.triage().kernels.rows[r].min_ns); }},
    {{"max_ns", I, "longest"}, GET { o.i(st.triage().kernels.rows[r].max_ns); }},
    {{"exposed_ns", I, "time no other stream was busy"}, GET { o.i(st.triage().kernels.rows[r].exposed_ns); }},
    {{"hidden_ns", I, "time overlapped by another stream"}, GET { o.i(st.triage().kernels.rows[r].hidden_ns); }},
    {{"share_pct", R, "share of summed GPU-op time"}, GET { o.d(st.triage().kernels.rows[r].share_pct); }},
    {{"cpu_op", T, "the launching CPU op (most frequent)"}, GET { st.triage().kernels.rows[r].cpu_op.empty() ? o.null() : o.s(st.triage().kernels.rows[r].cpu_op); }},
    {{"python_location", T, "the launching user Python frame (most frequent)"}, GET {const auto& row = st.triage().kernels.rows[r]; row.python_location.empty() ? o.null() : o.s(row.python_location); }},
  }));
  v.push_back(make("categories", "GPU time by category and family, as `goblin breakdown`", true, [](TraceState& st) { return st.breakdown().rows.size(); }, {
    {{"category", T, "taxonomy category"}, GET { o.s(st.breakdown().rows[r].category); }},
    {{"family", T, "library family"}, GET { o.s(st.breakdown().rows[r].family); }},
    {{"time_ns", I, "summed duration of its ops"}, GET { o.i(st.breakdown().rows[r].time_ns); }},
    {{"ops", I, "ops"}, GET { o.i(st.breakdown().rows[r].count); }},
    {{"pct", R, "share of summed GPU-op time"}, GET { o.d(st.breakdown().rows[r].pct); }},
  }));
  v.push_back(make("step_metrics", "per-step figures of `goblin breakdown` (docs/metrics.md)", true, [](TraceState& st) { return st.breakdown().step_breakdowns.size(); }, {
    {{"step", I, "N of ProfilerStep#N, else the step's index"}, GET { o.i(step_number(st.breakdown().step_breakdowns[r].name, r)); }},
    {{"name", T, "the step"}, GET { o.s(st.breakdown().step_breakdowns[r].name); }},
    {{"partial", I, "1: not in per-step means"}, GET { o.i(st.breakdown().step_breakdowns[r].partial ? 1 : 0); }},
    {{"wall_ns", I, "window length"}, GET { o.i(st.breakdown().step_breakdowns[r].wall_ns); }},
    {{"busy_ns", I, "GPU busy (union of ops)"}, GET { o.i(st.breakdown().step_breakdowns[r].busy_ns); }},
    {{"idle_ns", I, "GPU idle"}, GET { o.i(st.breakdown().step_breakdowns[r].idle_ns); }},
    {{"compute_ns", I, "compute (union)"}, GET { o.i(st.breakdown().step_breakdowns[r].compute_ns); }},
    {{"comm_ns", I, "communication (union)"}, GET { o.i(st.breakdown().step_breakdowns[r].comm_ns); }},
    {{"memcpy_ns", I, "memcpy (union)"}, GET { o.i(st.breakdown().step_breakdowns[r].memcpy_ns); }},
    {{"exposed_comm_ns", I, "communication not overlapped by compute"}, GET { o.i(st.breakdown().step_breakdowns[r].exposed_comm_ns); }},
    {{"exposed_memcpy_ns", I, "memcpy not overlapped by compute"}, GET { o.i(st.breakdown().step_breakdowns[r].exposed_memcpy_ns); }},
  }));
  v.push_back(make("waste_budget", "the additive waste budget of `goblin metrics`: seconds per step by bucket", true, [](TraceState&) {
  return analysis::WasteBudget::kBuckets.size(); }, {
    {{"bucket", T, "useful_gpu, data_wait, host_gap, ..."}, GET { o.s(analysis::WasteBudget::kBuckets[r].name);
  }
  }
  , {{"seconds_per_step", R, "the bucket's seconds per step (NULL when unobserved)"},
     GET{auto v = st.metrics().waste_budget.value_of(analysis::WasteBudget::kBuckets[r].name);
  v ? o.d(*v) : o.null();
  }
  }
  , {{"step_time_s", R, "the step time the buckets partition"}, GET{o.d(st.metrics().waste_budget.step_time_s);
  }
  }
  ,
  }));
  v.push_back(make("modules", "GPU time by nn.Module (`goblin triage --by-module`; with_stack traces)", true, [](TraceState& st) { return st.triage().modules.rows.size(); }, {
    {{"module", T, "module class"}, GET { o.s(st.triage().modules.rows[r].module); }},
    {{"path", T, "most frequent class path, outermost first"}, GET { o.s(st.triage().modules.rows[r].path); }},
    {{"instances", I, "distinct instances"}, GET { o.i(st.triage().modules.rows[r].instances); }},
    {{"ops", I, "GPU ops"}, GET { o.i(st.triage().modules.rows[r].ops); }},
    {{"time_ns", I, "summed GPU-op time"}, GET { o.i(st.triage().modules.rows[r].time_ns); }},
    {{"share_pct", R, "share of summed GPU-op time"}, GET { o.d(st.triage().modules.rows[r].share_pct); }},
    {{"top_kernel", T, "the kernel with most time in it"}, GET { o.s(st.triage().modules.rows[r].top_kernel); }},
  }));
  v.push_back(make("stages", "serving stages (prefill/decode/mixed/...) of `goblin breakdown --by stage`", true, [](TraceState& st) { return st.triage().stages.stages.size(); }, {
    {{"stage", T, "prefill, decode, mixed, idle, ..., unstaged"}, GET { o.s(st.triage().stages.stages[r].stage); }},
    {{"batches", I, "batches (annotations) of the stage"}, GET { o.i(st.triage().stages.stages[r].batches); }},
    {{"ops", I, "GPU ops"}, GET { o.i(st.triage().stages.stages[r].ops); }},
    {{"op_time_ns", I, "summed GPU-op time"}, GET { o.i(st.triage().stages.stages[r].op_time_ns); }},
    {{"busy_ns", I, "GPU busy (union)"}, GET { o.i(st.triage().stages.stages[r].busy_ns); }},
    {{"categories", T, "op time per category, category=ns,..."}, GET { o.tmp(join_map(st.triage().stages.stages[r].category_ns)); }},
  }));
  // clang-format on
  // Ordered scans of the name and class columns.
  auto column = [&](const char* table, const char* col) -> std::pair<Table*, int> {
    for (Table& t : v)
      if (t.info.name == table)
        for (size_t c = 0; c < t.info.columns.size(); ++c)
          if (t.info.columns[c].name == col) return {&t, static_cast<int>(c)};
    return {nullptr, -1};
  };
  auto pool_key = [&](const char* table, const char* col, std::function<StrId(const Timeline&, size_t)> id) {
    auto [t, c] = column(table, col);
    t->keys[c] = SortKey{[id](TraceState& st, size_t r) { return id(st.tl(), r); },
                         [](TraceState& st) { return st.tl().strings.size(); },
                         [](TraceState& st, uint32_t i) { return st.tl().str(i); }};
  };
  add_gpu_op_bulk(*column("gpu_ops", "id").first);
  pool_key("gpu_ops", "name", [](const Timeline& tl, size_t r) { return tl.gpu_ops.name[r]; });
  pool_key("cpu_ops", "name", [](const Timeline& tl, size_t r) { return tl.cpu_ops.name[r]; });
  pool_key("api_calls", "name", [](const Timeline& tl, size_t r) { return tl.runtime.name[r]; });
  pool_key("annotations", "name", [](const Timeline& tl, size_t r) { return tl.annotations.name[r]; });
  for (int second = 0; second < 2; ++second) {
    auto [t, c] = column("gpu_ops", second ? "family" : "category");
    t->keys[c] = SortKey{[](TraceState& st, size_t r) {
                           st.op_cls(0);
                           return st.op_class[r] + 1;
                         },
                         [](TraceState& st) {
                           if (st.tl().gpu_ops.size()) st.op_cls(0);
                           return st.classes.size() + 1;
                         },
                         [second](TraceState& st, uint32_t i) -> std::string_view {
                           return second ? st.classes[i - 1].second : st.classes[i - 1].first;
                         }};
  }
  return v;
  }

#undef GET

  }  // namespace

  const std::vector<Table>& detail::tables() {
    static const std::vector<Table> t = build_tables();
    return t;
  }

  void detail::write(TableData::Impl& impl, size_t t, size_t trace, size_t row, int c, Out& o) {
    TraceState& st = impl.traces[trace];
    if (c == 0)
      o.i(st.ref.rank);
    else if (c == 1)
      o.s(st.ref.path);
    else
      tables()[t].getters[static_cast<size_t>(c - 2)](st, row, o);
  }

  int64_t step_number(const std::string& name, size_t index) {
    const auto hash = name.rfind('#');
    if (hash != std::string::npos) {
      int64_t n = 0;
      const char* b = name.data() + hash + 1;
      const char* e = name.data() + name.size();
      auto [p, ec] = std::from_chars(b, e, n);
      if (ec == std::errc{} && p == e && b != e) return n;
    }
    return static_cast<int64_t>(index);
  }

  const char* sql_type_name(SqlType t) {
    switch (t) {
      case SqlType::Integer:
        return "INTEGER";
      case SqlType::Real:
        return "REAL";
      case SqlType::Text:
        return "TEXT";
    }
    return "TEXT";
  }

  const std::vector<TableInfo>& table_infos() {
    static const std::vector<TableInfo> infos = [] {
      std::vector<TableInfo> v;
      for (const Table& t : tables()) v.push_back(t.info);
      return v;
    }();
    return infos;
  }

  std::string schema_markdown() {
    std::string s;
    for (const TableInfo& t : table_infos()) {
      fmt::format_to(std::back_inserter(s), "### {}{}\n\n{}\n\n| column | type | meaning |\n|---|---|---|\n", t.name,
                     t.analysis ? " (analysis)" : "", t.doc);
      for (const ColumnInfo& c : t.columns)
        fmt::format_to(std::back_inserter(s), "| {} | {} | {} |\n", c.name, sql_type_name(c.type), c.doc);
      s += "\n";
    }
    return s;
  }


  bool TableData::can_order(size_t t, int c) const { return tables()[t].keys.count(c) > 0; }

  // Rows of every trace in the column's order: the distinct texts of all traces sorted once (byte
  // order, SQLite's BINARY collation; NULL first), then a counting sort of the rows by their rank.
  const std::vector<uint64_t>& TableData::order(size_t t, int c) {
    auto [it, fresh] = impl_->orders.try_emplace({t, c});
    if (!fresh) return it->second;
    const SortKey& key = tables()[t].keys.at(c);
    auto& traces = impl_->traces;
    struct Distinct {
      std::string_view text;
      uint32_t trace, id;
    };
    std::vector<Distinct> distinct;
    std::vector<std::vector<uint32_t>> rank(traces.size());
    for (size_t k = 0; k < traces.size(); ++k) {
      const size_t n = tables()[t].rows(traces[k]);
      std::vector<uint8_t> seen(n ? key.ids(traces[k]) : 0);
      for (size_t r = 0; r < n; ++r) seen[key.id(traces[k], r)] = 1;
      for (uint32_t i = 1; i < seen.size(); ++i)
        if (seen[i]) distinct.push_back({key.text(traces[k], i), static_cast<uint32_t>(k), i});
      rank[k].assign(seen.size(), 0);
    }
    std::sort(distinct.begin(), distinct.end(), [](const Distinct& a, const Distinct& b) { return a.text < b.text; });
    uint32_t next = 0;
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (i == 0 || distinct[i].text != distinct[i - 1].text) ++next;
      rank[distinct[i].trace][distinct[i].id] = next;
    }
    std::vector<uint64_t> start(next + 2, 0);
    for (size_t k = 0; k < traces.size(); ++k)
      for (size_t r = 0, n = tables()[t].rows(traces[k]); r < n; ++r) ++start[rank[k][key.id(traces[k], r)] + 1];
    for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
    std::vector<uint64_t>& out = it->second;
    out.resize(start.back());
    for (size_t k = 0; k < traces.size(); ++k)
      for (size_t r = 0, n = tables()[t].rows(traces[k]); r < n; ++r)
        out[start[rank[k][key.id(traces[k], r)]]++] = (static_cast<uint64_t>(k) << 40) | r;
    return out;
  }

  TableData::TableData(std::vector<TraceRef> traces, std::shared_ptr<const analysis::AnalysisKnowledge> knowledge)
      : impl_(std::make_unique<Impl>()) {
    impl_->knowledge = std::move(knowledge);
    impl_->traces.resize(traces.size());
    for (size_t i = 0; i < traces.size(); ++i) {
      impl_->traces[i].ref = std::move(traces[i]);
      impl_->traces[i].k = impl_->knowledge.get();
      impl_->traces[i].error = &impl_->error;
    }
  }
  TableData::~TableData() = default;

  size_t TableData::table_count() const { return tables().size(); }
  size_t TableData::trace_count() const { return impl_->traces.size(); }
  size_t TableData::rows(size_t t, size_t trace) { return tables()[t].rows(impl_->traces[trace]); }
  const std::string& TableData::analysis_error() const { return impl_->error; }

  void TableData::value(size_t t, size_t trace, size_t row, int c, void* out) {
    Out o{static_cast<sqlite3_context*>(out)};
    write(*impl_, t, trace, row, c, o);
  }

  std::optional<size_t> TableData::table_index(std::string_view name) const {
    for (size_t t = 0; t < tables().size(); ++t)
      if (tables()[t].info.name == name) return t;
    return std::nullopt;
  }

  }  // namespace goblin::query
