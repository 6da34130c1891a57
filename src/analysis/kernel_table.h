// Kernel table (SGLang's triage workflow): one row per canonical GPU-op name with its category,
// library family, time, share, launch statistics, exposed/hidden time, and the CPU op and
// Python location that launched it.
//
// Window: every kernel, memcpy and memset in the timeline (all devices, whole trace).
// Formulas: share_pct = row time / Σ GPU-op time × 100 (summed op time, not wall time, as
// nsys's cuda_gpu_kern_sum and SGLang do; the shares sum to 100). exposed/hidden: exposure.h.
// cpu_op / python_location: the most frequent attribution among the row's launches, with the
// fraction of launches that agree.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/exposure.h"
#include "analysis/taxonomy.h"
#include "model/timeline.h"

namespace goblin::analysis {

// SGLang-style canonical name: hex literals → 0xADDR, the trailing top-level argument list
// "(...)" dropped, a leading "void " dropped, runs of whitespace collapsed.
std::string canonical_kernel_name(std::string_view name);

// How a GPU op was tied to the CPU op that launched it.
enum class AttributionMethod : uint8_t {
  None,
  CorrelationExternalId,  // correlation → runtime launch → its External id → cpu_op
  KernelExternalId,       // the op's own External id → cpu_op
  TimeContainment,        // innermost cpu_op on the launching thread enclosing the launch
};

// Per gpu_ops row.
struct LaunchAttribution {
  std::vector<int64_t> cpu_op;     // CpuOpTable row, -1 when unknown
  std::vector<StrId> python;       // innermost user Python frame active at launch, kNoStr if none
  std::vector<int64_t> launch_ns;  // runtime launch start (or cpu op start), kNone if unknown
  std::vector<AttributionMethod> method;
  std::vector<std::pair<int64_t, int64_t>> thread;  // (pid, tid) of the launch, (kNone, kNone) if unknown
  std::vector<uint8_t> graph_launch;                // 1: launched by a CUDA/HIP graph launch (graph replay)
  int64_t with_cpu_op = 0, with_python = 0, with_runtime = 0;
  bool has_python_frames = false;
};
LaunchAttribution attribute_launches(const Timeline& tl);

// True when a python_function frame name ("path/file.py(12): fn") points at user/model code
// rather than the interpreter, the standard library or torch internals.
bool is_user_python_frame(std::string_view frame);

struct KernelTableRow {
  std::string name;       // canonical
  std::string full_name;  // the most frequent full name behind the canonical one
  int64_t distinct_full_names = 0;
  GpuOpKind kind = GpuOpKind::Kernel;
  std::string category, family, rule_id;
  int64_t launches = 0;
  int64_t total_ns = 0, min_ns = 0, max_ns = 0;
  int64_t exposed_ns = 0, hidden_ns = 0;
  double share_pct = 0;
  std::string cpu_op;           // "" when unknown
  double cpu_op_agreement = 0;  // fraction of launches attributed to `cpu_op`
  std::string python_location;  // "" when unknown
  std::vector<int32_t> devices;
  std::vector<int64_t> streams;
  double mean_ns() const { return launches ? static_cast<double>(total_ns) / launches : 0; }
};

struct KernelTableResult {
  std::vector<KernelTableRow> rows;  // sorted by total_ns descending
  std::vector<int32_t> op_row;       // per gpu_ops row → row index
  int64_t total_ns = 0;              // Σ dur over all GPU ops
  int64_t ops = 0;
  int64_t attributed_cpu_op = 0, attributed_python = 0;
  bool taxonomy_loaded = false;
};

// `tax` may be null (then category "other", family "unknown").
KernelTableResult build_kernel_table(const Timeline& tl, const ExposureResult& ex, const LaunchAttribution& la,
                                     const Taxonomy* tax);

}  // namespace goblin::analysis
