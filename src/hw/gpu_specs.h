// The cited GPU spec database (data/gpus.yaml) and GPU identification.
//
// Every value carries its source (document URL + section) and whether it was verified against
// it. Peak TFLOPS are DENSE (no 2:4 sparsity); the sparse figure is kept separately. Lookups are
// exact (case-insensitive, spaces/-/_ folded) through an alias table: an unknown GPU is refused
// with a NotFound error that lists the known ids — never a fuzzy match, never a default GPU.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "model/timeline.h"

namespace goblin::hw {

struct HwKnowledge;

struct SpecValue {
  std::optional<double> value;  // nullopt: UNKNOWN (no source found) or a text value
  std::string text;             // text values (memory_type)
  std::string unit;
  std::string source_key;  // key into the documents table
  std::string source_url;
  std::string source_title;
  std::string section;
  bool verified = false;
  std::string checked_via;
  std::string note;
  // "<url> § <section>" (+ " [unverified]").
  std::string citation() const;
  bool known() const { return value.has_value() || !text.empty(); }
};

struct PeakValue : SpecValue {
  std::optional<double> sparse;  // 2:4 structured sparsity figure, when the vendor gives one
  std::string engine;            // "vector" | "matrix"
  std::string accumulate;        // "fp32", "fp64", "int32", ...
};

struct GpuSpec {
  std::string id;      // canonical id: "H100-SXM", "MI300X", ...
  std::string vendor;  // "nvidia" | "amd"
  std::string name;
  std::string architecture;
  std::string arch_id;  // "sm_90", "gfx942"
  std::vector<std::string> aliases;
  // Ordered as in the YAML: sm_count, warp_size, memory_size, ...
  std::vector<std::pair<std::string, SpecValue>> specs;
  // fp64, fp64_matrix, fp32, tf32, fp16, bf16, fp8, int8, fp4 (those the GPU has)
  std::vector<std::pair<std::string, PeakValue>> peaks;
  // Hardware facts used to identify a device by architecture.
  int match_sm_count = -1;
  // Dies a module shows as separate devices (gpus.yaml match.devices_per_module; MI250X: 2 GCDs),
  // each with match_sm_count / this many CUs; 1 otherwise.
  int match_devices_per_module = 1;
  double match_mem_gb_min = -1, match_mem_gb_max = -1;
  std::string ambiguous_with;

  const SpecValue* spec(std::string_view key) const;
  const PeakValue* peak(std::string_view dtype) const;
  // Dense peak TFLOPS for a dtype key (fp32, tf32, bf16, ...); nullopt when unknown/absent.
  std::optional<double> peak_tflops(std::string_view dtype) const;
  // Peak memory bandwidth in bytes/s; nullopt when unknown.
  std::optional<double> bandwidth_bytes_per_s() const;
  int sm_count() const;  // -1 when unknown
};

// Parses data/gpus.yaml's text (hw::HwKnowledge::load, the one place that reads the file).
Result<std::vector<GpuSpec>> parse_gpu_db(const std::string& text);
// All GPUs in the database: the process's hardware knowledge (hw/knowledge.h), for tests and
// one-shot tools; code with a context reads k.gpu_db().
Result<std::vector<GpuSpec>> load_gpu_db();
std::vector<std::string> known_gpu_ids(const hw::HwKnowledge& k);

// Normalises a GPU name for alias matching: lower case, runs of space/-/_ folded to one '-'.
std::string normalize_gpu_name(std::string_view name);

// By canonical id or alias. NotFound (exit 6) listing the known ids otherwise.
Result<GpuSpec> lookup_gpu(std::string_view name);
// The same over a database already loaded (the knowledge context's copy).
Result<GpuSpec> lookup_gpu_in(const std::vector<GpuSpec>& db, std::string_view name);

// From a device description (trace metadata, detection): the name through the alias table; a
// generic name ("gfx942", "AMD Radeon Graphics", empty) through arch id + CU/SM count + memory.
// Ambiguous or unknown → NotFound naming the candidates / known ids.
// The overloads without a context read the process's (hw::hw_knowledge()).
Result<GpuSpec> gpu_for_device(const hw::HwKnowledge& k, const DeviceInfo& dev);
Result<GpuSpec> gpu_for_device(const DeviceInfo& dev);
// The GPU of a trace (meta.devices). All devices must resolve to the same GPU. No devices →
// NotFound telling the user to pass --gpu.
Result<GpuSpec> gpu_for_timeline(const hw::HwKnowledge& k, const Timeline& tl);
Result<GpuSpec> gpu_for_timeline(const Timeline& tl);

// The GPU a verb's numbers are for: `name` (--gpu) when given, an unknown name being the error;
// otherwise the trace's GPU, or none with `why_none` (gpu_for_timeline's error) saying why.
struct GpuChoice {
  std::optional<GpuSpec> gpu;
  std::optional<Error> why_none;
};
Result<GpuChoice> choose_gpu(const hw::HwKnowledge& k, const std::string& name, const Timeline& tl);
Result<GpuChoice> choose_gpu(const std::string& name, const Timeline& tl);

// Detection on the running machine: nvidia-smi, then amd-smi, then rocminfo (subprocesses).
// None present → Environment error. The device names found are returned in `names` too.
// One implementation for every verb (specs --detect, the live runners). GOBLIN_ASSUME_NO_GPU=1
// makes it find none (tests).
struct DetectedGpu {
  std::string tool;  // which tool answered
  std::vector<DeviceInfo> devices;
  std::string vendor;  // nvidia | amd
  std::string driver;  // driver version, when the tool gives it (nvidia-smi)
};
Result<DetectedGpu> detect_local_gpus();
// Parsers of the tools' output (exposed for tests).
std::vector<DeviceInfo> parse_nvidia_smi_names(std::string_view csv);
std::vector<DeviceInfo> parse_amd_smi_static(std::string_view text);
std::vector<DeviceInfo> parse_rocminfo(std::string_view text);

// JSON: {id, vendor, name, architecture, arch_id, aliases, peak_tflops{dtype: dense},
// peak_tflops_sparse{...}, specs{key: value}, units{...}, verified{...}, sources{field: citation},
// peaks_detail{dtype: {engine, accumulate, dense:true}}}.
Json gpu_spec_to_json(const GpuSpec& g);
// Seed 004 format, one line per value: "<metric>: <value> <unit> <- <source>".
std::string gpu_spec_cite(const GpuSpec& g);
// A readable table.
std::string gpu_spec_human(const GpuSpec& g);

// Peak to compare a GEMM-like op against, by the op's dtype and whether its kernels ran on the
// matrix engine: fp32 on SIMT → fp32 (vector); fp32 on tensor cores → tf32; bf16/fp16/fp8 →
// their matrix peak; fp64 → fp64 or fp64_matrix. Returns the dtype key used, or empty.
std::string peak_key_for(std::string_view dtype, bool tensor_engine);

}  // namespace goblin::hw
