// RunMetrics (the audit agent's fields, docs/metrics.md): what one run measured, from one trace or a run
// directory (trace + telemetry + metadata). `goblin metrics --json` prints run_metrics_to_json;
// `goblin compare` reads it back with run_metrics_from_json.
#pragma once
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/cost_profile.h"
#include "core/json.h"
#include "core/status.h"
#include "model/timeline.h"

namespace goblin::analysis {

struct AnalysisKnowledge;  // analysis/knowledge.h

// Seconds per step. Additive: the eight buckets sum to step_time_s (within rounding).
// A bucket that could not be observed is listed in `unobserved` (and is 0 here).
struct WasteBudget {
  double useful_gpu = 0, data_wait = 0, host_gap = 0, comm_excess = 0, memory_headroom = 0, precision_path = 0,
         kernel_shape = 0, unattributed = 0;
  std::vector<std::string> unobserved;
  // The measured step time the buckets partition (mean wall of the steps averaged); additive
  // field, 0 when unknown.
  double step_time_s = 0;

  // The eight buckets with their fields, in the order every output lists them: the one list that
  // readers, writers and loops over buckets use.
  struct Bucket {
    const char* name;
    double WasteBudget::*field;
  };
  static constexpr std::array<Bucket, 8> kBuckets = {{{"useful_gpu", &WasteBudget::useful_gpu},
                                                      {"data_wait", &WasteBudget::data_wait},
                                                      {"host_gap", &WasteBudget::host_gap},
                                                      {"comm_excess", &WasteBudget::comm_excess},
                                                      {"memory_headroom", &WasteBudget::memory_headroom},
                                                      {"precision_path", &WasteBudget::precision_path},
                                                      {"kernel_shape", &WasteBudget::kernel_shape},
                                                      {"unattributed", &WasteBudget::unattributed}}};

  double total() const {
    double t = 0;
    for (const Bucket& b : kBuckets) t += this->*b.field;
    return t;
  }
  bool observed(std::string_view name) const {
    return std::find(unobserved.begin(), unobserved.end(), name) == unobserved.end();
  }
  // Bucket `name`'s seconds; nullopt when it is unobserved or not a bucket.
  std::optional<double> value_of(std::string_view name) const {
    if (!observed(name)) return std::nullopt;
    for (const Bucket& b : kBuckets)
      if (name == b.name) return this->*b.field;
    return std::nullopt;
  }
  // Nothing measured (e.g. an unprofiled bench): every bucket unobserved.
  void mark_all_unobserved() {
    unobserved.clear();
    for (const Bucket& b : kBuckets) unobserved.emplace_back(b.name);
  }
};

struct TopKernel {
  std::string name, category, family;
  double pct_time = 0;  // share of summed kernel time
  double time_s = 0;
  int64_t count = 0;
};

struct StepMetrics {
  std::string name;
  double wall_s = 0, busy_s = 0;
  bool partial = false;
};

struct RunMetrics {
  std::vector<StepMetrics> steps;
  // The step time: mean wall of the complete steps (analysis/step_time.h, docs/metrics.md § Step
  // time), the same figure in every verb.
  double step_time_s = 0;
  // The workload's own timer (trace metadata step_time_seconds), reported beside the step time,
  // never as it; nullopt when the trace carries none.
  std::optional<double> workload_step_time_s;
  std::optional<double> tokens_per_sec;  // from trace metadata, or steps × --tokens-per-step
  // Where tokens_per_sec came from: trace_metadata (the workload's own figure, kept when the steps
  // agree) or trace_steps (tokens per step over the measured step); the other is named in `window`.
  std::optional<std::string> tokens_per_sec_source;
  // MFU (docs/metrics.md § MFU): flops_per_step = executed GEMM/attention/conv FLOPs per profiled
  // step, from recorded shapes (hw/flop_count.h); mfu_pct = flops_per_step / (step_time_s × the
  // GPU's dense tensor peak for the run's training dtype; bf16 for fp32/tf32 runs);
  // mfu_dtype_path_pct = the same against the peak of the path the dominant dtype ran on (fp32
  // SIMT → fp32 vector peak, fp32 on tensor cores → tf32). mfu_basis names the peaks, the step
  // time and the FLOP count behind them. All null (with a warning) when unknown.
  std::optional<double> mfu_pct;
  std::optional<double> mfu_dtype_path_pct;
  std::optional<double> flops_per_step;
  std::string mfu_basis;
  std::optional<double> hbm_peak_gb, hbm_avg_gb;  // telemetry, else unobserved
  // Capacity of the device with the HBM peak (telemetry's memory.total, else the trace's device
  // properties) and what the peak left free: total - peak (GB = 1e9 bytes). Unobserved without
  // both. The waste budget's memory_headroom bucket stays 0 s (capacity is not time) and counts as
  // observed once this is measured; rules read it as hbm_peak_frac / memory_headroom_gb.
  std::optional<double> hbm_total_gb, memory_headroom_gb;
  // From a memory source (`--memory`: a PyTorch memory snapshot or a profile_memory trace,
  // analysis/memory_events.h): how many times larger the batch fits in the device's memory and the
  // figures behind it; absent (left out of the JSON) without one. With one, hbm_peak_gb,
  // hbm_total_gb and memory_headroom_gb are the allocator's measured peak reserved bytes against
  // the device's capacity.
  std::optional<double> batch_scale_fits;
  std::optional<std::string> memory_basis;
  double gpu_util_pct = 0;   // busy union / wall over the step window
  bool gpu_activity = true;  // false: no kernel, memcpy or memset was read (gpu_util_pct is null in JSON)
  // Telemetry's view (nvidia-smi utilization.gpu, amd-smi gfx activity): the mean over busy
  // samples (util > 0) of the device with the HBM peak (else the one with most samples), the whole
  // telemetry capture; unobserved (nullopt) without samples. Not clipped to the trace window.
  std::optional<double> gpu_util_telemetry_pct;
  std::vector<TopKernel> top_kernels;
  std::string attention_kernel_loaded;  // flash | sdpa_flash | sdpa_mem_efficient | eager | ... | none
  WasteBudget waste_budget;
  // Per-step GPU time by what a patch can change, FLOPs, idle (analysis/cost_profile.h): the
  // audit's speedup models read it. nullopt without complete steps (and in older metrics files).
  std::optional<CostProfile> cost;
  // Each names its catalogue entry (model/warnings.h); the live runner's window_on_prefetched_batches
  // becomes the audit finding validity.window_on_prefetched_batches.
  std::vector<Warning> warnings;
  std::map<std::string, std::string> versions;  // pytorch, cuda/rocm, driver, gpu
  std::string gpu_name;
  std::string runner_kind = "trace";  // "trace" (from a file), "replay", "live"
  std::string window;                 // documented window the figures cover
};

struct MetricsOptions {
  std::optional<double> tokens_per_step;  // --tokens-per-step: tokens/s = this / step_time_s
};

// RunMetrics from a Timeline (one trace, or a run directory read into one timeline with its
// telemetry samples). Figures and windows: see src/analysis/breakdown.h and docs/metrics.md.
// The taxonomy comes from `k` (analysis/knowledge.h). A trace without GPU activity gives empty
// steps and a warning.
Result<RunMetrics> compute_run_metrics(const Timeline& tl, const AnalysisKnowledge& k, const MetricsOptions& opt = {});
// The same with the process's knowledge (analysis_knowledge()); fails (Malformed) only when it
// cannot be loaded. For tests and one-shot tools.
Result<RunMetrics> compute_run_metrics(const Timeline& tl, const MetricsOptions& opt = {});

Json run_metrics_to_json(const RunMetrics& m);
Result<RunMetrics> run_metrics_from_json(const Json& j);
// A waste budget alone, as run_metrics_to_json writes its `waste_budget` (the audit report quotes
// the profiles' budgets in this form); `at` names the value in read errors.
Json waste_budget_to_json(const WasteBudget& w);
Status waste_budget_from_json(const Json& j, WasteBudget& w, const std::string& at);

}  // namespace goblin::analysis
