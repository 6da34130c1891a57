// The knowledge context: every data file an analysis reads (taxonomy, overlap/fusion advice,
// collectives, serving stages, GPU specs and measured ceilings), parsed once and passed to analyses as
// `const AnalysisKnowledge&` instead of each analysis loading its own. The audit extends it with
// the rule base and the speedup-model factors (audit/knowledge.h). Front doors (app verbs, MCP)
// obtain it once from analysis_knowledge() / audit::knowledge(); the parsed files are shared by
// every later call of the process (read-only, so safe across MCP's concurrent calls).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/opportunities.h"
#include "analysis/ranks.h"
#include "analysis/stages.h"
#include "analysis/taxonomy.h"
#include "core/status.h"
#include "hw/gpu_specs.h"
#include "hw/measured_ceilings.h"

namespace goblin {

struct AnalysisKnowledge {
  Taxonomy taxonomy;                            // data/taxonomy.yaml
  OverlapHeuristics overlap;                    // data/overlap_heuristics.yaml
  std::vector<FusePattern> fusion;              // data/fusion_patterns.yaml
  CollectiveKnowledge collectives;              // data/collectives.yaml
  std::shared_ptr<const StagePatterns> stages;  // data/serving_stages.yaml
  std::vector<GpuSpec> gpus;                    // data/gpus.yaml
  // data/measured/<id>.json by GpuSpec::id, for the GPUs that ship one.
  std::map<std::string, MeasuredCeilings> ceilings;

  // By GPU id or alias (hw lookup_gpu's rules); NotFound listing the known ids otherwise.
  Result<GpuSpec> gpu(std::string_view name) const;
  // The GPU's measured ceilings; empty (file "") when none ship.
  MeasuredCeilings measured(const GpuSpec& g) const;

  // Parses every file above now (no cache): an unreadable or malformed file is its loader's
  // error, naming the file and line.
  static Result<AnalysisKnowledge> load();
};

// The process's analysis knowledge: loaded on first use, then shared (one load per data
// directory: --data-dir / GOBLIN_DATA_DIR). Thread-safe. A failed load is not cached (the next
// call reports the same error again). The one place the default context is loaded.
Result<std::shared_ptr<const AnalysisKnowledge>> analysis_knowledge();
// How many times AnalysisKnowledge::load() ran in this process (tests: loaded once per verb run).
int64_t analysis_knowledge_loads();

}  // namespace goblin
