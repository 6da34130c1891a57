// Counter-based bottleneck classification: Nsight Compute raw-page metrics (speed-of-light
// compute vs memory, classified as NCU's guided analysis does, thresholds in
// data/ncu_rules.yaml) and rocprof counters (rocprofiler-compute's FLOP and HBM-byte formulas).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "hw/gpu_specs.h"
#include "model/timeline.h"

namespace goblin::hw {

// One profiled kernel and its numeric metrics (NCU metric names verbatim, rocprof counter names
// with per-XCC/instance indexes summed).
struct CounterKernel {
  int64_t key = kNone;
  std::string name;
  std::map<std::string, double> m;
  std::map<std::string, std::string> unit;
  // Metrics derived from another profiler's (rocprofiler-compute, hw/rocprof_compute_map.h): where
  // each value came from, shown beside it as evidence.
  std::map<std::string, std::string> source;
  const double* get(const std::string& metric) const {
    auto it = m.find(metric);
    return it == m.end() ? nullptr : &it->second;
  }
};
// Groups Timeline::counters by kernel_key, in key order.
std::vector<CounterKernel> counter_kernels(const Timeline& tl);

// One fix of the diagnosis in one vendor's words (data/ncu_rules.yaml § remedies).
struct RemedyText {
  std::string fix, rationale, source;
};

struct NcuRules {
  double high_pct = 80, latency_pct = 60, small_grid_waves = 1.0, gap_pts = 10;
  std::vector<std::string> compute_metrics, memory_metrics, dram_metrics, waves_metrics;
  double block_multiple = 32, occ_min_pct = 80, occ_gap_pts = 10;
  std::string sol_source;
  // remedies[id][vendor]: vendor "nvidia", "amd" or "any".
  std::map<std::string, std::map<std::string, RemedyText>> remedies;
  // The remedy's text for `vendor` ("nvidia" | "amd"; anything else reads as NVIDIA, whose metric
  // names these are): the vendor's own, else `any`; nullptr when the data has no such remedy.
  const RemedyText* remedy(const std::string& id, const std::string& vendor) const;
};
// Parses data/ncu_rules.yaml's text (hw::HwKnowledge::load, the one place that reads the file).
Result<NcuRules> parse_ncu_rules(const std::string& text);
// The rules of the process's hardware knowledge (tests, one-shot tools); code with a context
// reads k.ncu_rules.
Result<NcuRules> load_ncu_rules();

struct Evidence {
  std::string metric;
  double value = 0;
  std::string unit;
  std::string interpretation;
};

struct NcuClassification {
  int64_t key = kNone;
  std::string kernel;
  std::string bound;   // small_grid | latency_bound | compute_bound | memory_bound | unknown
  std::string reason;  // which rule fired and why
  std::optional<double> compute_pct, memory_pct, dram_pct, waves, duration_ns;
  std::vector<Evidence> evidence;
  // Roofline point where counters allow: FP32/FP64/FP16 SIMT FLOPs from SASS thread-instruction
  // counts (tensor-pipe FLOPs are not derivable from these counters) and DRAM bytes.
  std::optional<double> flops, dram_bytes;
};

NcuClassification classify_ncu_kernel(const CounterKernel& k, const NcuRules& rules);
std::vector<NcuClassification> classify_ncu(const Timeline& tl, const NcuRules& rules);
Json ncu_classification_json(const NcuClassification& c);

// rocprofiler-compute roofline formulas (src/utils/roofline_calc.py in ROCm/rocprofiler-compute):
// FLOPs = 64*(ADD + MUL + 2*FMA + TRANS) per VALU dtype + 512*MFMA_MOPS; HBM bytes (MI300) =
// 128*TCC_BUBBLE + 32*TCC_EA0_RDREQ_32B + 64*(TCC_EA0_RDREQ - TCC_BUBBLE - TCC_EA0_RDREQ_32B)
// + 32*(TCC_EA0_WRREQ - TCC_EA0_WRREQ_64B) + 64*TCC_EA0_WRREQ_64B. Counters absent → nullopt.
struct RocprofRoofline {
  std::optional<double> valu_flops, mfma_flops, hbm_bytes;
  std::vector<std::string> missing;  // counters the formulas needed but the run did not collect
};
RocprofRoofline rocprof_roofline(const CounterKernel& k);

}  // namespace goblin::hw
