// `goblin triage`: the triage artifact contract (README, docs/metrics.md) over one timeline.
//   profile_summary.md, profile_metadata.json, kernel_table.json, overlap_opportunities.json,
//   fuse_opportunities.json, module_table.json (JSON arrays), stage_table.json (object), written
//   to one directory.
// Window: the whole trace, all devices (per-device busy/overlap figures in the summary).
#pragma once
#include <string>
#include <vector>

#include "analysis/exposure.h"
#include "analysis/kernel_table.h"
#include "analysis/modules.h"
#include "analysis/opportunities.h"
#include "analysis/run_metrics.h"
#include "analysis/stages.h"
#include "core/json.h"
#include "core/status.h"
#include "hw/arch.h"
#include "hw/ceiling.h"
#include "model/timeline.h"

namespace goblin::analysis {

struct TriageOptions {
  std::string stage;        // --stage (else from stage annotations or attention op names, else the file name)
  std::string target_arch;  // --target-arch
  std::string source_path;  // the trace path (made absolute)
  int top = 15;             // rows in the readable summary
  bool by_module = false;   // --by-module: the terminal summary leads with the module table
  // --experiment / --trial (the linkage fields of every recording verb): profile_metadata.json's
  // experiment_id / trial_id, over what the trace's own metadata says.
  std::string experiment_id, trial_id;
};

// A kernel-table row against its roofline (issue #31): FLOPs and bytes the op models gave its GPU
// ops (hw/roofline.h, data/op_models.yaml), achieved rates over the row's modelled time, and
// roofline time / modelled time when the trace's GPU is in the spec database.
struct KernelRoof {
  double flops = 0, bytes = 0;
  int64_t modelled_ns = 0;  // time of the row's GPU ops that have a model
  double roof_s = 0;        // Σ max(FLOPs / peak, bytes / bandwidth) over ops with a cited roof
  int64_t roofed_ns = 0;    // time of those ops
  double compute_s = 0, memory_s = 0;
  std::string estimate;                     // "" or lower_bound / upper_bound when any op's model is a bound
  std::optional<hw::AbovePeak> above_peak;  // % of roofline above 100: flagged (hw/ceiling.h)
};

// Each step's wall and GPU-busy time and the step time (triage_steps.cpp): profile_metadata.json's
// step_time_s and steps, which the run store records so a triage run trends and gates.
struct TriageSteps {
  std::vector<StepMetrics> steps;
  double step_time_s = 0;  // mean wall of the complete steps (analysis/step_time.h); 0 without a step
  std::string method;      // how the steps were found
};
TriageSteps triage_steps(const Timeline& tl);
Json triage_steps_json(const TriageSteps& s);

struct TriageReport {
  ExposureResult exposure;
  LaunchAttribution attribution;
  KernelTableResult kernels;
  std::vector<KernelRoof> kernel_roof;  // per kernels.rows entry
  std::string roofline_gpu;             // the spec the % of roofline uses ("" when unknown)
  double unmodelled_share = 0;          // GPU-op time without a cost model
  std::vector<OverlapRow> overlap;
  std::vector<FuseRow> fuse;
  ModuleAttribution module_attribution;
  ModuleTable modules;  // module_table.json (modules.h)
  StageSplit stages;    // stage_table.json (stages.h)
  TriageSteps steps;
  hw::Vendor vendor = hw::Vendor::Unknown;
  Json metadata;  // profile_metadata.json
  std::string summary_md;
  std::vector<Warning> notes;  // degraded-mode explanations; profile_metadata.json lists them as warnings
};

struct AnalysisKnowledge;  // analysis/knowledge.h

// Runs every analysis with the knowledge in `k`. Errors only for unusable data files.
Result<TriageReport> run_triage(const Timeline& tl, const AnalysisKnowledge& k, const TriageOptions& opt);
// The same with the process's knowledge (analysis_knowledge()); for tests and one-shot tools.
Result<TriageReport> run_triage(const Timeline& tl, const TriageOptions& opt);

Json kernel_table_to_json(const KernelTableResult& kt, const std::vector<KernelRoof>* roof = nullptr);
Json overlap_table_to_json(const std::vector<OverlapRow>& rows);
Json fuse_table_to_json(const std::vector<FuseRow>& rows);

// The artifact file names, in the order they are written.
const std::vector<std::string>& triage_artifact_names();

// Writes the artifacts into `dir` (created if missing).
Status write_triage_artifacts(const TriageReport& r, const std::string& dir);

// Terminal summary (top kernels, busy/idle, top opportunities; with `by_module` the module
// table first).
std::string triage_human_summary(const TriageReport& r, int top, bool by_module = false);

}  // namespace goblin::analysis
