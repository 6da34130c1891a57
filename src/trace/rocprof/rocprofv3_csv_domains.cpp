#include "trace/rocprof/rocprofv3_csv_domains.h"

#include <fmt/format.h>

#include <array>

#include "model/runtime_call.h"
#include "trace/rocprof/rocprof_stats.h"

namespace goblin::trace::rocprof {

const char* csv_domain_name(CsvDomain d) {
  switch (d) {
    case CsvDomain::KernelTrace:
      return "kernel_trace";
    case CsvDomain::MemoryCopy:
      return "memory_copy_trace";
    case CsvDomain::ApiTrace:
      return "api_trace";
    case CsvDomain::CounterCollection:
      return "counter_collection";
    case CsvDomain::Stats:
      return "stats";
    case CsvDomain::MemoryAllocation:
      return "memory_allocation_trace";
    case CsvDomain::ScratchMemory:
      return "scratch_memory_trace";
    case CsvDomain::PcSampling:
      return "pc_sampling";
    case CsvDomain::AgentInfo:
      return "agent_info";
    case CsvDomain::Unknown:
      break;
  }
  return "unknown";
}

CsvDomain classify_header(const Columns& c) {
  if (c.has("Counter_Name") && c.has("Counter_Value")) return CsvDomain::CounterCollection;
  if (c.has("Kernel_Name") && (c.has("Grid_Size_X") || c.has("Workgroup_Size_X"))) return CsvDomain::KernelTrace;
  if (c.has("Direction") && (c.has("Source_Agent_Id") || c.has("Destination_Agent_Id"))) return CsvDomain::MemoryCopy;
  if (c.has("Domain") && c.has("Function")) return CsvDomain::ApiTrace;
  if (is_stats_header(c)) return CsvDomain::Stats;
  if (c.has("Operation") && (c.has("Allocation_Size") || c.has("Address")) && !c.has("Alloc_Flags"))
    return CsvDomain::MemoryAllocation;
  if (c.has("Operation") && c.has("Alloc_Flags")) return CsvDomain::ScratchMemory;
  if (c.has("Sample_Timestamp")) return CsvDomain::PcSampling;
  if (c.has("Logical_Node_Id") && c.has("Agent_Type")) return CsvDomain::AgentInfo;
  return CsvDomain::Unknown;
}

namespace {

// Correlation id 0 means "none": rocprofiler-sdk's internal ids start at 1, and 2024 builds
// and rocprofv2 write 0 on every row when no API tracing ran.
int64_t correlation_or_none(std::optional<int64_t> v) { return v && *v > 0 ? *v : kNone; }

constexpr std::string_view kNoTimes = "row skipped: no valid Start_Timestamp/End_Timestamp";

class KernelTraceReader : public DomainRowReader {
 public:
  KernelTraceReader(Timeline& tl, const std::string& path, const Columns& c)
      : tl_(tl), f_(tl, path, "kernel_trace", c) {
    agent_ = c.find({"Agent_Id"});
    queue_ = c.find({"Queue_Id"});
    stream_ = c.find({"Stream_Id"});
    name_ = c.find({"Kernel_Name"});
    corr_ = c.find({"Correlation_Id"});
    start_ = c.find({"Start_Timestamp"});
    end_ = c.find({"End_Timestamp"});
    lds_ = c.find({"LDS_Block_Size", "Group_Segment_Size"});  // rocpd-to-csv: Lds_Block_Size (case-folded)
    vgpr_ = c.find({"VGPR_Count", "Arch_VGPR_Count"});
    accum_ = c.find({"Accum_VGPR_Count"});
    wg_ = {c.find({"Workgroup_Size_X"}), c.find({"Workgroup_Size_Y"}), c.find({"Workgroup_Size_Z"})};
    grid_ = {c.find({"Grid_Size_X"}), c.find({"Grid_Size_Y"}), c.find({"Grid_Size_Z"})};
  }

  void row(const std::vector<std::string_view>& fields, int64_t line) override {
    f_.bind(fields, line);
    auto times = f_.times(start_, end_, kNoTimes);
    if (!times) return;
    auto [start, end] = *times;
    GpuOpRow k;
    k.start_ns = start;
    k.dur_ns = end - start;
    std::string_view name = f_.text(name_);
    if (name.empty()) f_.warn(W::rocprof_empty_kernel_name, "kernel with an empty Kernel_Name");
    k.name = tl_.strings.intern(name);
    if (auto a = parse_agent(f_.text(agent_))) {
      k.device = static_cast<int32_t>(*a);
      ensure_device(tl_, *a);
    } else if (!f_.text(agent_).empty()) {
      f_.warn(W::rocprof_bad_agent, "column 'Agent_Id' is not an agent id (\"Agent N\", \"GPU N\" or a number)");
    }
    // HIP stream when the build records it (ROCm 7.x), else the HSA queue: kernels on either
    // run in order, which is what the per-stream analyses need.
    if (auto s = f_.integer(stream_ >= 0 ? stream_ : queue_)) k.stream = *s;
    k.correlation = correlation_or_none(f_.integer(corr_));
    for (int d = 0; d < 3; ++d) {
      auto wg = f_.integer(wg_[d]);
      auto grid = f_.integer(grid_[d]);
      if (wg && *wg > 0 && *wg <= UINT32_MAX) k.block[d] = static_cast<uint32_t>(*wg);
      if (grid && wg) k.grid[d] = grid_items_to_blocks(*grid, *wg);
    }
    if (auto v = f_.integer(vgpr_)) k.registers_per_thread = register_count(*v, f_.integer(accum_).value_or(0));
    if (auto l = f_.integer(lds_)) k.shared_mem_bytes = *l;
    tl_.gpu_ops.push(k);
  }

 private:
  Timeline& tl_;
  RowFields f_;
  int agent_, queue_, stream_, name_, corr_, start_, end_, lds_, vgpr_, accum_;
  std::array<int, 3> wg_, grid_;
};

class MemoryCopyReader : public DomainRowReader {
 public:
  MemoryCopyReader(Timeline& tl, const std::string& path, const Columns& c)
      : tl_(tl), f_(tl, path, "memory_copy_trace", c) {
    dir_ = c.find({"Direction", "Operation"});
    stream_ = c.find({"Stream_Id"});
    src_ = c.find({"Source_Agent_Id"});
    dst_ = c.find({"Destination_Agent_Id"});
    corr_ = c.find({"Correlation_Id"});
    start_ = c.find({"Start_Timestamp"});
    end_ = c.find({"End_Timestamp"});
    bytes_ = c.find({"Bytes", "Size", "Copy_Bytes"});
  }

  void row(const std::vector<std::string_view>& fields, int64_t line) override {
    f_.bind(fields, line);
    auto times = f_.times(start_, end_, kNoTimes);
    if (!times) return;
    auto [start, end] = *times;
    GpuOpRow m;
    m.kind = GpuOpKind::Memcpy;
    m.start_ns = start;
    m.dur_ns = end - start;
    std::string_view dir = f_.text(dir_);
    m.name = tl_.strings.intern(dir.empty() ? std::string_view("MEMORY_COPY") : dir);
    m.copy_kind = copy_kind_from_text(dir);
    auto src = parse_agent(f_.text(src_)), dst = parse_agent(f_.text(dst_));
    // The copy belongs to the GPU end: the source of a device-to-host copy, else the destination.
    auto dev =
        (m.copy_kind == CopyKind::DtoH || m.copy_kind == CopyKind::DtoD || m.copy_kind == CopyKind::PtoP) ? src : dst;
    if (!dev) dev = dst ? dst : src;
    if (dev) {
      m.device = static_cast<int32_t>(*dev);
      ensure_device(tl_, *dev);
    }
    if (auto s = f_.integer(stream_)) m.stream = *s;
    m.correlation = correlation_or_none(f_.integer(corr_));
    if (auto b = f_.integer(bytes_)) m.bytes = *b;
    tl_.gpu_ops.push(m);
  }

 private:
  Timeline& tl_;
  RowFields f_;
  int dir_, stream_, src_, dst_, corr_, start_, end_, bytes_;
};

// hip/hsa/marker/rccl/rocdecode/rocjpeg API traces share one layout; the Domain column says
// which. Markers are user annotations (roctx ranges and marks); everything else is a host API
// call in the runtime table, HSA as the driver level. RCCL calls keep their nccl* names.
class ApiTraceReader : public DomainRowReader {
 public:
  ApiTraceReader(Timeline& tl, const std::string& path, const Columns& c) : tl_(tl), f_(tl, path, "api_trace", c) {
    domain_ = c.find({"Domain"});
    func_ = c.find({"Function"});
    pid_ = c.find({"Process_Id"});
    tid_ = c.find({"Thread_Id"});
    corr_ = c.find({"Correlation_Id"});
    start_ = c.find({"Start_Timestamp"});
    end_ = c.find({"End_Timestamp"});
  }

  void row(const std::vector<std::string_view>& fields, int64_t line) override {
    f_.bind(fields, line);
    auto times = f_.times(start_, end_, kNoTimes);
    if (!times) return;
    auto [start, end] = *times;
    std::string_view domain = f_.text(domain_), func = f_.text(func_);
    auto pid = f_.integer(pid_), tid = f_.integer(tid_);
    if (domain == "MARKER_CORE_API" || domain == "MARKER_CORE_RANGE_API") {
      AnnotationRow a;
      a.start_ns = start;
      a.dur_ns = end - start;  // roctxMark: start == end
      a.name = tl_.strings.intern(func);
      a.pid = pid.value_or(kNone);
      a.tid = tid.value_or(kNone);
      tl_.annotations.push(a);
      return;
    }
    RuntimeRow r;
    r.start_ns = start;
    r.dur_ns = end - start;
    r.name = tl_.strings.intern(func);
    r.pid = pid.value_or(kNone);
    r.tid = tid.value_or(kNone);
    r.correlation = correlation_or_none(f_.integer(corr_));
    r.is_driver = domain.substr(0, 4) == "HSA_";
    r.is_sync = is_sync_call(func);
    tl_.runtime.push(r);
  }

 private:
  Timeline& tl_;
  RowFields f_;
  int domain_, func_, pid_, tid_, corr_, start_, end_;
};

// One row per (dispatch, counter). The dispatch is keyed by its Dispatch_Id (kernel rows may
// come from another file of the run, read before or after this one).
class CounterReader : public DomainRowReader {
 public:
  CounterReader(Timeline& tl, const std::string& path, const Columns& c)
      : tl_(tl), f_(tl, path, "counter_collection", c) {
    dispatch_ = c.find({"Dispatch_Id"});
    corr_ = c.find({"Correlation_Id"});
    agent_ = c.find({"Agent_Id"});
    kname_ = c.find({"Kernel_Name"});
    counter_ = c.find({"Counter_Name"});
    value_ = c.find({"Counter_Value"});
  }

  void row(const std::vector<std::string_view>& fields, int64_t line) override {
    f_.bind(fields, line);
    auto value = f_.number(value_);
    if (!value) {
      f_.warn(W::rocprof_bad_counter, "row skipped: no valid Counter_Value");
      return;
    }
    auto key = f_.integer(dispatch_ >= 0 ? dispatch_ : corr_);
    if (auto a = parse_agent(f_.text(agent_))) ensure_device(tl_, *a);
    tl_.counters.push(key.value_or(kNone), tl_.strings.intern(f_.text(kname_)), tl_.strings.intern(f_.text(counter_)),
                      kNoStr, *value);
  }

 private:
  Timeline& tl_;
  RowFields f_;
  int dispatch_, corr_, agent_, kname_, counter_, value_;
};

// Domains goblin has no table for yet: counted, and reported as not analysed rather than
// silently dropped.
class CountingReader : public DomainRowReader {
 public:
  CountingReader(Timeline& tl, const std::string& path, CsvDomain d) : tl_(tl), path_(path), domain_(d) {}
  void row(const std::vector<std::string_view>&, int64_t) override { ++rows_; }
  void finish() override {
    tl_.warn(W::rocprof_domain_not_analysed,
             fmt::format("{}: {} records read but not analysed (goblin has no timeline table for this domain)",
                         csv_domain_name(domain_), rows_),

             path_);
  }

 private:
  Timeline& tl_;
  const std::string& path_;
  CsvDomain domain_;
  int64_t rows_ = 0;
};

// agent_info.csv: device names and sizes. Ids are Logical_Node_Id, the number rocprofv3's
// default "Agent N" ids use, so devices line up with the kernel rows of the same run.
class AgentInfoReader : public DomainRowReader {
 public:
  AgentInfoReader(Timeline& tl, const std::string& path, const Columns& c) : tl_(tl), f_(tl, path, "agent_info", c) {
    id_ = c.find({"Logical_Node_Id"});
    type_ = c.find({"Agent_Type"});
    name_ = c.find({"Name"});
    product_ = c.find({"Product_Name", "Model_Name"});
    cus_ = c.find({"Cu_Count"});
    wave_ = c.find({"Wave_Front_Size"});
  }
  void row(const std::vector<std::string_view>& fields, int64_t line) override {
    f_.bind(fields, line);
    if (f_.text(type_) != "GPU") return;
    auto id = f_.integer(id_);
    if (!id || *id < 0 || *id > INT32_MAX) {
      f_.warn(W::rocprof_bad_agent, "GPU agent without a valid Logical_Node_Id (skipped)");
      return;
    }
    ensure_device(tl_, *id);
    for (auto& d : tl_.meta.devices) {
      if (d.id != *id) continue;
      d.arch = std::string(f_.text(name_));
      std::string_view product = f_.text(product_);
      d.name = product.empty() ? d.arch : std::string(product);
      if (auto v = f_.integer(cus_)) d.num_sms = static_cast<int>(*v);
      if (auto v = f_.integer(wave_)) d.warp_size = static_cast<int>(*v);
    }
  }

 private:
  Timeline& tl_;
  RowFields f_;
  int id_, type_, name_, product_, cus_, wave_;
};

// Required columns per domain: without them no row can be placed on the timeline.
std::vector<std::string_view> required_columns(CsvDomain d) {
  switch (d) {
    case CsvDomain::KernelTrace:
      return {"Kernel_Name", "Start_Timestamp", "End_Timestamp"};
    case CsvDomain::MemoryCopy:
      return {"Direction", "Start_Timestamp", "End_Timestamp"};
    case CsvDomain::ApiTrace:
      return {"Function", "Start_Timestamp", "End_Timestamp"};
    case CsvDomain::CounterCollection:
      return {"Counter_Name", "Counter_Value"};
    default:
      return {};
  }
}

}  // namespace

Result<std::unique_ptr<DomainRowReader>> make_row_reader(CsvDomain d, Timeline& tl, const std::string& path,
                                                         const Columns& cols, int64_t header_line,
                                                         const std::string& header_text) {
  for (auto need : required_columns(d)) {
    if (!cols.has(need)) {
      return make_error(ErrorKind::Malformed,
                        std::string("rocprofv3 ") + csv_domain_name(d) + " header lacks the required column '" +
                            std::string(need) + "' (header: " + header_text + ")",
                        path, -1, header_line);
    }
  }
  std::unique_ptr<DomainRowReader> r;
  switch (d) {
    case CsvDomain::KernelTrace:
      r = std::make_unique<KernelTraceReader>(tl, path, cols);
      break;
    case CsvDomain::MemoryCopy:
      r = std::make_unique<MemoryCopyReader>(tl, path, cols);
      break;
    case CsvDomain::ApiTrace:
      r = std::make_unique<ApiTraceReader>(tl, path, cols);
      break;
    case CsvDomain::CounterCollection:
      r = std::make_unique<CounterReader>(tl, path, cols);
      break;
    case CsvDomain::AgentInfo:
      r = std::make_unique<AgentInfoReader>(tl, path, cols);
      break;
    case CsvDomain::MemoryAllocation:
    case CsvDomain::ScratchMemory:
    case CsvDomain::PcSampling:
      r = std::make_unique<CountingReader>(tl, path, d);
      break;
    case CsvDomain::Stats:
    case CsvDomain::Unknown:
      return make_error(ErrorKind::Internal, "no row reader for this rocprofv3 CSV domain", path, -1, header_line);
  }
  return r;
}

}  // namespace goblin::trace::rocprof
