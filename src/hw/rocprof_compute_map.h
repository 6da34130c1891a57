// rocprofiler-compute metrics onto goblin's metric schema (data/rocprof_compute_metrics.yaml): the
// speed-of-light, DRAM, cache hit-rate and occupancy keys the Nsight Compute classification and
// diagnosis read, derived from AMD's own per-kernel metrics so a CDNA kernel is classified from
// real counters.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "hw/ncu_analysis.h"

namespace goblin::hw {

struct RocprofComputeSource {
  std::string metric;  // "<metric_id> <name>" or "<metric_id> <name> [<statistic>]"
  std::string over;    // empty: the value itself; else value / over × scale
  double scale = 1;
  std::string definition;  // AMD's metric definition (cited in the data file)
};
struct RocprofComputeTarget {
  std::string key, unit;                   // goblin's metric schema key and unit
  std::vector<RocprofComputeSource> from;  // combined by max
};
struct RocprofComputeMap {
  std::vector<RocprofComputeTarget> targets;
  // The empirical roofline: a kernel's FLOP rates (Gflop/s) and HBM bandwidth (GB/s), and the
  // benchmark's keys for the HBM roof (GB/s) and the compute roofs (label, Gflop/s).
  std::vector<std::string> flop_rates;
  std::string hbm_bandwidth, bench_hbm;
  std::vector<std::pair<std::string, std::string>> bench_roofs;
};

// Parses data/rocprof_compute_metrics.yaml's text (hw::HwKnowledge::load reads the file).
Result<RocprofComputeMap> parse_rocprof_compute_map(const std::string& text);

// Adds each target the kernel lacks and whose sources it has; returns how many were added. A
// kernel without rocprofiler-compute metrics (an Nsight Compute or rocprofv3 one) is unchanged.
int add_schema_metrics(CounterKernel& k, const RocprofComputeMap& map);

// A kernel's roofline point from its rocprofiler-compute metrics: FLOP/s and HBM bytes/s; nullopt
// when the kernel lacks the HBM bandwidth or every FLOP rate.
struct ComputePoint {
  double flops_per_s = 0, hbm_bytes_per_s = 0;
};
std::optional<ComputePoint> rocprof_compute_point(const CounterKernel& k, const RocprofComputeMap& map);

// The peaks rocprofiler-compute measured (compute_workload.roofline_bench_extdata, JSON): HBM
// GB/s and the compute roofs in TFLOP/s; nullopt when the JSON lacks the HBM peak.
struct EmpiricalRoofline {
  double hbm_gbps = 0;
  std::vector<std::pair<std::string, double>> roofs_tflops;
};
std::optional<EmpiricalRoofline> empirical_roofline(const std::string& bench_json, const RocprofComputeMap& map);

}  // namespace goblin::hw
