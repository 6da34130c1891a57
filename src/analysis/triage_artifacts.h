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
#include "analysis/stages.h"
#include "core/json.h"
#include "core/status.h"
#include "hw/arch.h"
#include "model/timeline.h"

namespace goblin {

struct TriageOptions {
  std::string stage;        // --stage (else from stage annotations or attention op names, else the file name)
  std::string target_arch;  // --target-arch
  std::string source_path;  // the trace path (made absolute)
  int top = 15;             // rows in the readable summary
  bool by_module = false;   // --by-module: the terminal summary leads with the module table
};

struct TriageReport {
  ExposureResult exposure;
  LaunchAttribution attribution;
  KernelTableResult kernels;
  std::vector<OverlapRow> overlap;
  std::vector<FuseRow> fuse;
  ModuleAttribution module_attribution;
  ModuleTable modules;  // module_table.json (modules.h)
  StageSplit stages;    // stage_table.json (stages.h)
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

Json kernel_table_to_json(const KernelTableResult& kt);
Json overlap_table_to_json(const std::vector<OverlapRow>& rows);
Json fuse_table_to_json(const std::vector<FuseRow>& rows);

// The artifact file names, in the order they are written.
const std::vector<std::string>& triage_artifact_names();

// Writes the artifacts into `dir` (created if missing).
Status write_triage_artifacts(const TriageReport& r, const std::string& dir);

// Terminal summary (top kernels, busy/idle, top opportunities; with `by_module` the module
// table first).
std::string triage_human_summary(const TriageReport& r, int top, bool by_module = false);

}  // namespace goblin
