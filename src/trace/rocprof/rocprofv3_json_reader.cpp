// rocprofv3 JSON reader (`--output-format json`, top key "rocprofiler-sdk-tool").
//
// The document is parsed with simdjson On-Demand: one forward pass over the (decompressed)
// text, no DOM, so memory is the text plus the timeline. Records refer to agents, kernel
// symbols and operation names by id; those tables may appear anywhere in the document, so rows
// are written as they stream by and their ids resolved once at the end.
#include <fmt/format.h>
#include <simdjson.h>

#include <iterator>
#include <unordered_map>

#include "model/runtime_call.h"
#include "trace/readers.h"
#include "trace/rocprof/json_prefix_repair.h"
#include "trace/rocprof/rocprof_fields.h"

namespace goblin::trace {

using namespace rocprof;
namespace od = simdjson::ondemand;

namespace {

struct Dim3 {
  uint64_t x = 0, y = 0, z = 0;
};

// The fields of one buffer record that goblin uses (others are skipped by the parser).
struct Record {
  uint64_t kind = 0, operation = 0;
  int64_t thread_id = kNone;
  int64_t corr_internal = kNone, corr_external = kNone;
  int64_t start = 0, end = 0;
  bool has_start = false, has_end = false;
  uint64_t agent = 0, queue = 0, stream = 0, kernel_id = 0, src_agent = 0, dst_agent = 0;
  bool has_agent = false, has_stream = false, has_queue = false, has_src = false, has_dst = false;
  int64_t bytes = kNone, group_segment = kNone;
  Dim3 workgroup, grid;
};

uint64_t as_u64(od::value v) {
  uint64_t u = 0;
  if (!v.get_uint64().get(u)) return u;
  int64_t i = 0;
  if (!v.get_int64().get(i)) return static_cast<uint64_t>(i);
  throw simdjson::simdjson_error(simdjson::INCORRECT_TYPE);
}

int64_t as_i64(od::value v) {
  int64_t i = 0;
  if (!v.get_int64().get(i)) return i;
  uint64_t u = 0;
  if (!v.get_uint64().get(u)) return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(u);
  throw simdjson::simdjson_error(simdjson::INCORRECT_TYPE);
}

// {"handle": N}
uint64_t as_handle(od::value v) {
  od::object o = v.get_object();
  for (od::field f : o) {
    if (f.unescaped_key().value() == "handle") return as_u64(f.value());
  }
  return 0;
}

Dim3 as_dim3(od::value v) {
  Dim3 d;
  od::object o = v.get_object();
  for (od::field f : o) {
    std::string_view k = f.unescaped_key();
    if (k == "x")
      d.x = as_u64(f.value());
    else if (k == "y")
      d.y = as_u64(f.value());
    else if (k == "z")
      d.z = as_u64(f.value());
  }
  return d;
}

void read_dispatch_info(od::value v, Record& r) {
  od::object o = v.get_object();
  for (od::field f : o) {
    std::string_view k = f.unescaped_key();
    if (k == "agent_id")
      r.agent = as_handle(f.value()), r.has_agent = true;
    else if (k == "queue_id")
      r.queue = as_handle(f.value()), r.has_queue = true;
    else if (k == "kernel_id")
      r.kernel_id = as_u64(f.value());
    else if (k == "group_segment_size")
      r.group_segment = as_i64(f.value());
    else if (k == "workgroup_size")
      r.workgroup = as_dim3(f.value());
    else if (k == "grid_size")
      r.grid = as_dim3(f.value());
  }
}

Record read_record(od::object o) {
  Record r;
  for (od::field f : o) {
    std::string_view k = f.unescaped_key();
    if (k == "kind")
      r.kind = as_u64(f.value());
    else if (k == "operation")
      r.operation = as_u64(f.value());
    else if (k == "thread_id")
      r.thread_id = as_i64(f.value());
    else if (k == "start_timestamp")
      r.start = as_i64(f.value()), r.has_start = true;
    else if (k == "end_timestamp")
      r.end = as_i64(f.value()), r.has_end = true;
    else if (k == "correlation_id") {
      od::object c = f.value().get_object();
      for (od::field cf : c) {
        std::string_view ck = cf.unescaped_key();
        if (ck == "internal")
          r.corr_internal = as_i64(cf.value());
        else if (ck == "external")
          r.corr_external = as_i64(cf.value());
      }
    } else if (k == "dispatch_info")
      read_dispatch_info(f.value(), r);
    else if (k == "stream_id")
      r.stream = as_handle(f.value()), r.has_stream = true;
    else if (k == "src_agent_id")
      r.src_agent = as_handle(f.value()), r.has_src = true;
    else if (k == "dst_agent_id")
      r.dst_agent = as_handle(f.value()), r.has_dst = true;
    else if (k == "bytes")
      r.bytes = as_i64(f.value());
  }
  return r;
}

// Ids left to resolve once the whole document has been seen.
struct PendingKernel {
  size_t row;
  uint64_t kernel_id, agent;
  bool has_agent;
};
struct PendingOp {
  size_t row;
  uint64_t kind, operation;
};
struct PendingCopy {
  size_t row;
  uint64_t kind, operation, src, dst;
  bool has_src, has_dst;
};

class JsonRun {
 public:
  JsonRun(Timeline& tl, const std::string& path) : tl_(tl), path_(path) {}

  void read_tool(od::object tool) {
    for (od::field f : tool) {
      std::string_view k = f.unescaped_key();
      if (k == "metadata")
        read_metadata(f.value());
      else if (k == "agents")
        read_agents(f.value());
      else if (k == "strings")
        read_strings(f.value());
      else if (k == "kernel_symbols")
        read_symbols(f.value());
      else if (k == "buffer_records")
        read_buffer_records(f.value());
      else if (k == "callback_records")
        read_callback_records(f.value());
    }
  }

  // Forgets the id tables of a failed pass before the document is read again.
  void restart() {
    kinds_.clear();
    not_analysed_.clear();
  }

  // Records placed on the timeline so far.
  int64_t rows() const { return rows_; }

  // Resolves ids of everything pushed so far (also after a parse error: partial results).
  void resolve() {
    for (const auto& p : kernels_) {
      auto it = symbols_.find(p.kernel_id);
      if (it != symbols_.end()) {
        tl_.gpu_ops.name[p.row] = it->second;
      } else {
        // Per kernel: the stand-in name is built in one reused buffer.
        name_.clear();
        fmt::format_to(std::back_inserter(name_), "kernel_id {}", p.kernel_id);
        tl_.gpu_ops.name[p.row] = tl_.strings.intern(std::string_view(name_.data(), name_.size()));
        tl_.warn(W::rocprof_missing_kernel_symbol,
                 "rocprofv3 json: kernel dispatch names a kernel_id missing from kernel_symbols", path_);
      }
      if (p.has_agent) tl_.gpu_ops.device[p.row] = device_of(p.agent);
    }
    for (const auto& p : runtime_) {
      const std::string name = op_name(p.kind, p.operation);
      tl_.runtime.name[p.row] = tl_.strings.intern(name);
      tl_.runtime.is_sync[p.row] = is_sync_call(name);
      tl_.runtime.is_driver[p.row] = kind_name(p.kind).substr(0, 4) == "HSA_";
    }
    for (const auto& p : markers_) tl_.annotations.name[p.row] = tl_.strings.intern(op_name(p.kind, p.operation));
    for (const auto& p : copies_) {
      const std::string dir = op_name(p.kind, p.operation);
      CopyKind kind = copy_kind_from_text(dir);
      tl_.gpu_ops.name[p.row] = tl_.strings.intern(dir);
      tl_.gpu_ops.copy_kind[p.row] = kind;
      bool from_src = kind == CopyKind::DtoH || kind == CopyKind::DtoD || kind == CopyKind::PtoP;
      if (from_src && p.has_src)
        tl_.gpu_ops.device[p.row] = device_of(p.src);
      else if (p.has_dst)
        tl_.gpu_ops.device[p.row] = device_of(p.dst);
    }
    kernels_.clear();
    runtime_.clear();
    markers_.clear();
    copies_.clear();
    for (const auto& [what, n] : not_analysed_) {
      tl_.warn(W::rocprof_domain_not_analysed,
               fmt::format("rocprofv3 json: {} {} records read but not analysed (goblin has no timeline table for "
                           "them)",
                           n, what),
               path_);
    }
    not_analysed_.clear();
  }

 private:
  void read_metadata(od::value v) {
    od::object o = v.get_object();
    for (od::field f : o) {
      if (f.unescaped_key().value() == "pid") pid_ = as_i64(f.value());
    }
  }

  // GPU agents become devices. The id is logical_node_id: the number behind the default
  // "Agent N" ids of rocprofv3's CSV output, so both outputs of one run agree.
  void read_agents(od::value v) {
    od::array a = v.get_array();
    for (od::value av : a) {
      od::object o = av.get_object();
      uint64_t handle = 0, type = 0;
      int64_t node = kNone, cus = -1, wave = -1;
      std::string name, product;
      for (od::field f : o) {
        std::string_view k = f.unescaped_key();
        if (k == "id")
          handle = as_handle(f.value());
        else if (k == "type")
          type = as_u64(f.value());
        else if (k == "logical_node_id")
          node = as_i64(f.value());
        else if (k == "cu_count")
          cus = as_i64(f.value());
        else if (k == "wave_front_size")
          wave = as_i64(f.value());
        else if (k == "name")
          name = std::string(std::string_view(f.value().get_string()));
        else if (k == "product_name")
          product = std::string(std::string_view(f.value().get_string()));
      }
      if (node < 0 || node > INT32_MAX) continue;
      agent_device_[handle] = static_cast<int32_t>(node);
      if (type != 2) continue;  // 1 = CPU, 2 = GPU (rocprofiler_agent_type_t)
      ensure_device(tl_, node);
      for (auto& d : tl_.meta.devices) {
        if (d.id != node) continue;
        d.arch = name;
        d.name = product.empty() ? name : product;
        d.num_sms = static_cast<int>(cus);
        d.warp_size = static_cast<int>(wave);
      }
    }
  }

  // strings.buffer_records: [{kind: "HIP_RUNTIME_API", operations: [...]}, ...], indexed by
  // the records' numeric kind and operation.
  void read_strings(od::value v) {
    od::object o = v.get_object();
    for (od::field f : o) {
      if (f.unescaped_key().value() != "buffer_records") continue;
      od::array a = f.value().get_array();
      for (od::value ev : a) {
        od::object e = ev.get_object();
        std::string kind;
        std::vector<std::string> ops;
        for (od::field ef : e) {
          std::string_view k = ef.unescaped_key();
          if (k == "kind")
            kind = std::string(std::string_view(ef.value().get_string()));
          else if (k == "operations") {
            od::array opa = ef.value().get_array();
            for (od::value op : opa) ops.emplace_back(std::string_view(op.get_string()));
          }
        }
        kinds_.push_back({std::move(kind), std::move(ops)});
      }
    }
  }

  void read_symbols(od::value v) {
    od::array a = v.get_array();
    for (od::value sv : a) {
      od::object o = sv.get_object();
      uint64_t id = 0;
      std::string formatted, raw;
      for (od::field f : o) {
        std::string_view k = f.unescaped_key();
        if (k == "kernel_id")
          id = as_u64(f.value());
        else if (k == "formatted_kernel_name")
          formatted = std::string(std::string_view(f.value().get_string()));
        else if (k == "kernel_name")
          raw = std::string(std::string_view(f.value().get_string()));
      }
      // formatted_kernel_name is what the CSV output prints (demangled, no ".kd").
      if (formatted.empty()) {
        formatted = raw;
        if (formatted.size() > 3 && formatted.substr(formatted.size() - 3) == ".kd")
          formatted.resize(formatted.size() - 3);
      }
      symbols_[id] = tl_.strings.intern(formatted);
    }
  }

  void read_buffer_records(od::value v) {
    od::object o = v.get_object();
    for (od::field f : o) {
      std::string key(std::string_view(f.unescaped_key()));
      od::array a = f.value().get_array();
      for (od::value rv : a) {
        Record r = read_record(rv.get_object());
        add_record(key, r);
      }
    }
  }

  void read_callback_records(od::value v) {
    od::object o = v.get_object();
    for (od::field f : o) {
      std::string key(std::string_view(f.unescaped_key()));
      od::array a = f.value().get_array();
      for (od::value rv : a) {
        (void)rv;
        ++not_analysed_["callback " + key];
      }
    }
  }

  void add_record(const std::string& key, const Record& r) {
    if (!r.has_start || !r.has_end || !valid_times(r.start, r.end)) {
      if (key == "kernel_dispatch" || key.ends_with("_api") || key == "memory_copy") {
        tl_.warn(W::rocprof_bad_times, "rocprofv3 json: " + key + " record without valid start/end timestamps skipped",
                 path_);
        return;
      }
    }
    int64_t corr = r.corr_internal > 0 ? r.corr_internal : kNone;
    int64_t ext = r.corr_external > 0 ? r.corr_external : kNone;
    if (key == "kernel_dispatch") {
      GpuOpRow k;
      k.start_ns = r.start;
      k.dur_ns = r.end - r.start;
      k.correlation = corr;
      k.external_id = ext;
      // HIP stream when recorded (non-zero handle), else the HSA queue, as for the CSV.
      k.stream = static_cast<int64_t>(r.has_stream && r.stream != 0 ? r.stream : r.queue);
      const uint64_t wg[3] = {r.workgroup.x, r.workgroup.y, r.workgroup.z};
      const uint64_t grid[3] = {r.grid.x, r.grid.y, r.grid.z};
      for (int d = 0; d < 3; ++d) {
        k.block[d] = wg[d] > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(wg[d]);
        k.grid[d] = grid_items_to_blocks(static_cast<int64_t>(grid[d]), static_cast<int64_t>(wg[d]));
      }
      if (r.group_segment >= 0) k.shared_mem_bytes = r.group_segment;
      ++rows_;
      kernels_.push_back({tl_.gpu_ops.size(), r.kernel_id, r.agent, r.has_agent});
      tl_.gpu_ops.push(k);
    } else if (key == "marker_api") {
      AnnotationRow a;
      a.start_ns = r.start;
      a.dur_ns = r.end - r.start;
      a.pid = pid_;
      a.tid = r.thread_id;
      ++rows_;
      markers_.push_back({tl_.annotations.size(), r.kind, r.operation});
      tl_.annotations.push(a);
    } else if (key.ends_with("_api")) {  // hip_api, hsa_api, rccl_api, rocdecode_api, rocjpeg_api
      RuntimeRow rt;
      rt.start_ns = r.start;
      rt.dur_ns = r.end - r.start;
      rt.pid = pid_;
      rt.tid = r.thread_id;
      rt.correlation = corr;
      rt.external_id = ext;
      ++rows_;
      runtime_.push_back({tl_.runtime.size(), r.kind, r.operation});
      tl_.runtime.push(rt);
    } else if (key == "memory_copy") {
      GpuOpRow m;
      m.kind = GpuOpKind::Memcpy;
      m.start_ns = r.start;
      m.dur_ns = r.end - r.start;
      m.correlation = corr;
      m.external_id = ext;
      m.bytes = r.bytes;
      if (r.has_stream) m.stream = static_cast<int64_t>(r.stream);
      ++rows_;
      copies_.push_back({tl_.gpu_ops.size(), r.kind, r.operation, r.src_agent, r.dst_agent, r.has_src, r.has_dst});
      tl_.gpu_ops.push(m);
    } else {
      ++not_analysed_[key];
    }
  }

  int32_t device_of(uint64_t handle) {
    auto it = agent_device_.find(handle);
    if (it != agent_device_.end()) return it->second;
    tl_.warn(W::rocprof_bad_agent, "rocprofv3 json: record names an agent handle missing from 'agents'", path_);
    return static_cast<int32_t>(kNone);
  }

  std::string_view kind_name(uint64_t kind) const {
    return kind < kinds_.size() ? std::string_view(kinds_[kind].first) : std::string_view();
  }

  std::string op_name(uint64_t kind, uint64_t op) {
    if (kind < kinds_.size() && op < kinds_[kind].second.size()) return kinds_[kind].second[op];
    tl_.warn(W::rocprof_missing_operation_name,
             "rocprofv3 json: operation id missing from strings.buffer_records (named by number)", path_);
    return fmt::format("operation {}:{}", kind, op);
  }

  Timeline& tl_;
  const std::string& path_;
  int64_t pid_ = kNone, rows_ = 0;
  std::unordered_map<uint64_t, int32_t> agent_device_;
  std::unordered_map<uint64_t, StrId> symbols_;
  std::vector<std::pair<std::string, std::vector<std::string>>> kinds_;
  std::vector<PendingKernel> kernels_;
  std::vector<PendingOp> runtime_, markers_;
  std::vector<PendingCopy> copies_;
  std::map<std::string, int64_t> not_analysed_;
  fmt::memory_buffer name_;  // resolve()'s stand-in kernel names
};

}  // namespace

Status read_rocprofv3_json(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto text = read_all(path, opt.io);
  if (!text) return text.error();
  if (text->empty()) return make_error(ErrorKind::Malformed, "file is empty: expected rocprofv3 JSON", path, 0);
  simdjson::padded_string buf(*text);
  *text = std::string();  // keep one copy of the document in memory
  JsonRun run(tl, path);
  KeyedArrayRead out = read_keyed_array(
      buf, "rocprofiler-sdk-tool", [&](od::object t) { run.read_tool(t); }, [&] { return run.rows() == 0; },
      [&] { run.restart(); });
  run.resolve();
  if (!out.ok) {
    return make_error(ErrorKind::Malformed,
                      fmt::format("rocprofv3 JSON is damaged or truncated ({}); the {} records before the damage were "
                                  "kept",
                                  out.what, run.rows()),

                      path, out.offset);
  }
  if (!out.found) {
    return make_error(ErrorKind::Malformed, "JSON has no \"rocprofiler-sdk-tool\" array: not rocprofv3 JSON output",
                      path, 0);
  }
  return Status::Ok();
}

}  // namespace goblin::trace
