#include "model/timeline.h"

#include <algorithm>
#include <limits>
#include <map>

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
void extend(std::pair<int64_t, int64_t>& s, bool& any, const GpuOpColumns& c) {
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
template <class T>
void extend_t(std::pair<int64_t, int64_t>& s, bool& any, const T& c) {
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
  extend_t(s, any, runtime);
  extend_t(s, any, cpu_ops);
  extend_t(s, any, annotations);
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
