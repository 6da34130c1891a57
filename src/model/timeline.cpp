#include "model/timeline.h"

#include <algorithm>
#include <limits>
#include <map>
#include <thread>

namespace goblin {

const char* format_name(Format f) {
  switch (f) {
    case Format::Kineto: return "kineto";
    case Format::RocprofV3Csv: return "rocprofv3-csv";
    case Format::RocprofV3Json: return "rocprofv3-json";
    case Format::RocprofV1: return "rocprof-v1";
    case Format::NsysSqlite: return "nsys-sqlite";
    case Format::NcuCsv: return "ncu-csv";
    case Format::NvidiaSmi: return "nvidia-smi";
    case Format::AmdSmi: return "amd-smi";
    case Format::RocmSmi: return "rocm-smi";
    case Format::Unknown: break;
  }
  return "unknown";
}

const char* copy_kind_name(CopyKind k) {
  switch (k) {
    case CopyKind::HtoD: return "HtoD";
    case CopyKind::DtoH: return "DtoH";
    case CopyKind::DtoD: return "DtoD";
    case CopyKind::HtoH: return "HtoH";
    case CopyKind::PtoP: return "PtoP";
    case CopyKind::Unknown: break;
  }
  return "unknown";
}

namespace {
template <class Row>
void push_common(GpuOpColumns& c, const Row& r) {
  c.start_ns.push_back(r.start_ns);
  c.dur_ns.push_back(r.dur_ns);
  c.name.push_back(r.name);
  c.device.push_back(r.device);
  c.stream.push_back(r.stream);
  c.correlation.push_back(r.correlation);
  c.external_id.push_back(r.external_id);
}
}  // namespace

void KernelTable::push(const KernelRow& r) {
  push_common(*this, r);
  grid.push_back(r.grid);
  block.push_back(r.block);
  registers_per_thread.push_back(r.registers_per_thread);
  shared_mem_bytes.push_back(r.shared_mem_bytes);
  graph_id.push_back(r.graph_id);
}

void KernelTable::reserve(size_t n) {
  start_ns.reserve(n);
  dur_ns.reserve(n);
  name.reserve(n);
  device.reserve(n);
  stream.reserve(n);
  correlation.reserve(n);
  external_id.reserve(n);
  grid.reserve(n);
  block.reserve(n);
  registers_per_thread.reserve(n);
  shared_mem_bytes.reserve(n);
  graph_id.reserve(n);
}

void MemcpyTable::push(const MemcpyRow& r) {
  push_common(*this, r);
  bytes.push_back(r.bytes);
  kind.push_back(r.kind);
}

void MemsetTable::push(const MemsetRow& r) {
  push_common(*this, r);
  bytes.push_back(r.bytes);
}

void RuntimeTable::push(const RuntimeRow& r) {
  start_ns.push_back(r.start_ns);
  dur_ns.push_back(r.dur_ns);
  name.push_back(r.name);
  pid.push_back(r.pid);
  tid.push_back(r.tid);
  correlation.push_back(r.correlation);
  external_id.push_back(r.external_id);
  cbid.push_back(r.cbid);
  is_driver.push_back(r.is_driver ? 1 : 0);
  is_sync.push_back(r.is_sync ? 1 : 0);
}

void CpuOpTable::push(const CpuOpRow& r) {
  start_ns.push_back(r.start_ns);
  dur_ns.push_back(r.dur_ns);
  name.push_back(r.name);
  pid.push_back(r.pid);
  tid.push_back(r.tid);
  external_id.push_back(r.external_id);
  sequence_number.push_back(r.sequence_number);
  kind.push_back(r.kind);
  input_dims.push_back(r.input_dims);
  input_types.push_back(r.input_types);
  concrete_inputs.push_back(r.concrete_inputs);
  python_id.push_back(r.python_id);
  python_parent_id.push_back(r.python_parent_id);
}

void AnnotationTable::push(const AnnotationRow& r) {
  start_ns.push_back(r.start_ns);
  dur_ns.push_back(r.dur_ns);
  name.push_back(r.name);
  on_gpu.push_back(r.on_gpu ? 1 : 0);
  pid.push_back(r.pid);
  tid.push_back(r.tid);
  device.push_back(r.device);
  stream.push_back(r.stream);
  external_id.push_back(r.external_id);
}

void FlowTable::push(const FlowRow& r) {
  id.push_back(r.id);
  category.push_back(r.category);
  is_start.push_back(r.is_start ? 1 : 0);
  ts_ns.push_back(r.ts_ns);
  pid.push_back(r.pid);
  tid.push_back(r.tid);
}

void SampleTable::push(int64_t ts, int32_t dev, StrId metric_id, double v) {
  ts_ns.push_back(ts);
  device.push_back(dev);
  metric.push_back(metric_id);
  value.push_back(v);
}

void CounterTable::push(int64_t key, StrId kname, StrId counter_id, StrId unit_id, double v) {
  kernel_key.push_back(key);
  kernel_name.push_back(kname);
  counter.push_back(counter_id);
  unit.push_back(unit_id);
  value.push_back(v);
}

void Timeline::warn(std::string message, std::string file, int64_t byte_offset, int64_t line) {
  std::string key = file + '\x1f' + message;
  auto it = warning_index_.find(key);
  if (it != warning_index_.end()) {
    ++warnings[it->second].count;
    return;
  }
  warning_index_.emplace(std::move(key), warnings.size());
  warnings.push_back(Diagnostic{std::move(message), std::move(file), byte_offset, line, 1});
}

namespace {
template <class T>
void append_col(std::vector<T>& dst, std::vector<T>& src) {
  dst.insert(dst.end(), src.begin(), src.end());
  std::vector<T>().swap(src);
}
void append_ids(std::vector<StrId>& dst, std::vector<StrId>& src, const std::vector<StrId>& remap) {
  if (dst.capacity() < dst.size() + src.size()) dst.reserve(dst.size() + src.size());
  for (StrId id : src) dst.push_back(remap[id]);
  std::vector<StrId>().swap(src);
}
void append_gpu(GpuOpColumns& d, GpuOpColumns& s, const std::vector<StrId>& m) {
  append_col(d.start_ns, s.start_ns);
  append_col(d.dur_ns, s.dur_ns);
  append_ids(d.name, s.name, m);
  append_col(d.device, s.device);
  append_col(d.stream, s.stream);
  append_col(d.correlation, s.correlation);
  append_col(d.external_id, s.external_id);
}
}  // namespace

void Timeline::append(Timeline&& o, bool two_threads) {
  std::vector<StrId> m(o.strings.size());
  for (size_t i = 0; i < m.size(); ++i) m[i] = strings.intern(o.strings.view(static_cast<StrId>(i)));

  // Columns are independent once the remap exists: CPU ops (the largest table) on a helper
  // thread when asked, everything else here.
  auto cpu_part = [&] {
    auto& c = cpu_ops;
    auto& oc = o.cpu_ops;
    append_col(c.start_ns, oc.start_ns);
    append_col(c.dur_ns, oc.dur_ns);
    append_ids(c.name, oc.name, m);
    append_col(c.pid, oc.pid);
    append_col(c.tid, oc.tid);
    append_col(c.external_id, oc.external_id);
    append_col(c.sequence_number, oc.sequence_number);
    append_col(c.kind, oc.kind);
    append_ids(c.input_dims, oc.input_dims, m);
    append_ids(c.input_types, oc.input_types, m);
    append_ids(c.concrete_inputs, oc.concrete_inputs, m);
    append_col(c.python_id, oc.python_id);
    append_col(c.python_parent_id, oc.python_parent_id);
  };
  std::thread helper;
  if (two_threads)
    helper = std::thread(cpu_part);
  else
    cpu_part();
  append_gpu(kernels, o.kernels, m);
  append_col(kernels.grid, o.kernels.grid);
  append_col(kernels.block, o.kernels.block);
  append_col(kernels.registers_per_thread, o.kernels.registers_per_thread);
  append_col(kernels.shared_mem_bytes, o.kernels.shared_mem_bytes);
  append_col(kernels.graph_id, o.kernels.graph_id);
  append_gpu(memcpys, o.memcpys, m);
  append_col(memcpys.bytes, o.memcpys.bytes);
  append_col(memcpys.kind, o.memcpys.kind);
  append_gpu(memsets, o.memsets, m);
  append_col(memsets.bytes, o.memsets.bytes);

  auto& r = runtime;
  auto& orr = o.runtime;
  append_col(r.start_ns, orr.start_ns);
  append_col(r.dur_ns, orr.dur_ns);
  append_ids(r.name, orr.name, m);
  append_col(r.pid, orr.pid);
  append_col(r.tid, orr.tid);
  append_col(r.correlation, orr.correlation);
  append_col(r.external_id, orr.external_id);
  append_col(r.cbid, orr.cbid);
  append_col(r.is_driver, orr.is_driver);
  append_col(r.is_sync, orr.is_sync);

  auto& a = annotations;
  auto& oa = o.annotations;
  append_col(a.start_ns, oa.start_ns);
  append_col(a.dur_ns, oa.dur_ns);
  append_ids(a.name, oa.name, m);
  append_col(a.on_gpu, oa.on_gpu);
  append_col(a.pid, oa.pid);
  append_col(a.tid, oa.tid);
  append_col(a.device, oa.device);
  append_col(a.stream, oa.stream);
  append_col(a.external_id, oa.external_id);

  append_col(flows.id, o.flows.id);
  append_ids(flows.category, o.flows.category, m);
  append_col(flows.is_start, o.flows.is_start);
  append_col(flows.ts_ns, o.flows.ts_ns);
  append_col(flows.pid, o.flows.pid);
  append_col(flows.tid, o.flows.tid);

  append_col(samples.ts_ns, o.samples.ts_ns);
  append_col(samples.device, o.samples.device);
  append_ids(samples.metric, o.samples.metric, m);
  append_col(samples.value, o.samples.value);

  append_col(counters.kernel_key, o.counters.kernel_key);
  append_ids(counters.kernel_name, o.counters.kernel_name, m);
  append_ids(counters.counter, o.counters.counter, m);
  append_ids(counters.unit, o.counters.unit, m);
  append_col(counters.value, o.counters.value);

  append_col(rules.kernel_key, o.rules.kernel_key);
  append_ids(rules.kernel_name, o.rules.kernel_name, m);
  append_ids(rules.section, o.rules.section, m);
  append_ids(rules.rule, o.rules.rule, m);
  append_ids(rules.type, o.rules.type, m);
  append_ids(rules.description, o.rules.description, m);
  append_ids(rules.speedup_type, o.rules.speedup_type, m);
  append_col(rules.est_speedup_pct, o.rules.est_speedup_pct);

  if (helper.joinable()) helper.join();

  for (auto& w : o.warnings) {
    std::string key = w.file + '\x1f' + w.message;
    auto it = warning_index_.find(key);
    if (it != warning_index_.end()) {
      warnings[it->second].count += w.count;
      continue;
    }
    warning_index_.emplace(std::move(key), warnings.size());
    warnings.push_back(std::move(w));
  }
  o.warnings.clear();
}

namespace {
// Widens [s.first, s.second] to cover every [start, start+dur) row of a table (any table with
// start_ns/dur_ns columns: GPU ops, runtime calls, CPU ops, annotations).
template <class T>
void extend(std::pair<int64_t, int64_t>& s, bool& any, const T& c) {
  for (size_t i = 0; i < c.size(); ++i) {
    int64_t a = c.start_ns[i], b = c.start_ns[i] + c.dur_ns[i];
    if (!any) {
      s = {a, b};
      any = true;
    } else {
      s.first = std::min(s.first, a);
      s.second = std::max(s.second, b);
    }
  }
}
}  // namespace

std::pair<int64_t, int64_t> Timeline::gpu_span() const {
  std::pair<int64_t, int64_t> s{0, 0};
  bool any = false;
  extend(s, any, kernels);
  extend(s, any, memcpys);
  extend(s, any, memsets);
  return s;
}

std::pair<int64_t, int64_t> Timeline::span() const {
  std::pair<int64_t, int64_t> s{0, 0};
  bool any = false;
  extend(s, any, kernels);
  extend(s, any, memcpys);
  extend(s, any, memsets);
  extend(s, any, runtime);
  extend(s, any, cpu_ops);
  extend(s, any, annotations);
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!any) {
      s = {samples.ts_ns[i], samples.ts_ns[i]};
      any = true;
    }
    s.first = std::min(s.first, samples.ts_ns[i]);
    s.second = std::max(s.second, samples.ts_ns[i]);
  }
  return s;
}

void Timeline::build_indexes() {
  runtime_by_corr_.clear();
  cpu_op_by_ext_.clear();
  runtime_by_corr_.reserve(runtime.size());
  for (size_t i = 0; i < runtime.size(); ++i) {
    if (runtime.correlation[i] != kNone) runtime_by_corr_.emplace(runtime.correlation[i], i);
  }
  cpu_op_by_ext_.reserve(cpu_ops.size());
  for (size_t i = 0; i < cpu_ops.size(); ++i) {
    if (cpu_ops.external_id[i] != kNone && cpu_ops.kind[i] == CpuOpKind::Op) {
      cpu_op_by_ext_.emplace(cpu_ops.external_id[i], i);
    }
  }
}

std::optional<size_t> Timeline::runtime_by_correlation(int64_t corr) const {
  auto it = runtime_by_corr_.find(corr);
  if (it == runtime_by_corr_.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> Timeline::cpu_op_by_external_id(int64_t ext) const {
  auto it = cpu_op_by_ext_.find(ext);
  if (it == cpu_op_by_ext_.end()) return std::nullopt;
  return it->second;
}

void Timeline::validate(int64_t overlap_tolerance_ns) {
  const std::string src = meta.sources.empty() ? std::string() : meta.sources.back();
  // Group kernel rows by (device, stream), sort by start, look for overlaps.
  std::map<std::pair<int32_t, int64_t>, std::vector<size_t>> by_stream;
  int64_t zero = 0, negative = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels.dur_ns[i] < 0) {
      ++negative;
      continue;
    }
    if (kernels.dur_ns[i] == 0) ++zero;
    by_stream[{kernels.device[i], kernels.stream[i]}].push_back(i);
  }
  if (zero > 0) {
    warn(std::to_string(zero) + " kernels have zero duration (the profiler could not time them)", src);
  }
  if (negative > 0) {
    warn(std::to_string(negative) + " kernels have negative duration and were ignored by the overlap check", src);
  }
  for (auto& [key, rows] : by_stream) {
    std::sort(rows.begin(), rows.end(), [&](size_t a, size_t b) { return kernels.start_ns[a] < kernels.start_ns[b]; });
    int64_t overlaps = 0, worst = 0;
    int64_t prev_end = std::numeric_limits<int64_t>::min();
    for (size_t r : rows) {
      int64_t s = kernels.start_ns[r];
      if (prev_end != std::numeric_limits<int64_t>::min() && prev_end - s > overlap_tolerance_ns) {
        ++overlaps;
        worst = std::max(worst, prev_end - s);
      }
      prev_end = std::max(prev_end, kernels.end_ns(r));
    }
    if (overlaps > 0) {
      warn(std::to_string(overlaps) + " kernels overlap an earlier kernel on device " + std::to_string(key.first) +
               " stream " + std::to_string(key.second) + " (worst by " + std::to_string(worst) +
               " ns); busy time uses interval unions, so it is not double counted",
           src);
    }
  }
}

}  // namespace goblin
