// The knowledge context: every data file an analysis reads (taxonomy, overlap/fusion advice,
// collectives, serving stages, and the hardware part: GPU specs, measured ceilings, arch tables,
// NCU rules — hw/knowledge.h), parsed once and passed to analyses as `const AnalysisKnowledge&`
// instead of each analysis loading its own. It is a hw::HwKnowledge, so hw code takes it as is. The audit extends it
// with the rule base and the speedup-model factors (audit/knowledge.h). Front doors (app verbs, MCP) obtain it once
// from analysis_knowledge() / audit::knowledge(); the parsed files are shared by every later call of the process
// (read-only, so safe across MCP's concurrent calls).
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
#include "hw/knowledge.h"

namespace goblin::analysis {

struct AnalysisKnowledge : hw::HwKnowledge {
  Taxonomy taxonomy;                            // data/taxonomy.yaml
  OverlapHeuristics overlap;                    // data/overlap_heuristics.yaml
  std::vector<FusePattern> fusion;              // data/fusion_patterns.yaml
  CollectiveKnowledge collectives;              // data/collectives.yaml
  std::shared_ptr<const StagePatterns> stages;  // data/serving_stages.yaml
  // Inherited: gpus, ceilings, arch, ncu_rules, ncu_metric_schema; gpu(name), measured(gpu).

  // Parses every analysis file above now (no cache): an unreadable or malformed file is its
  // loader's error, naming the file and line. The hardware part is the process's hw_knowledge()
  // (parsed once per data directory, shared).
  static Result<AnalysisKnowledge> load();
};

// The process's analysis knowledge: loaded on first use, then shared (one load per data
// directory: --data-dir / GOBLIN_DATA_DIR). Thread-safe. A failed load is not cached (the next
// call reports the same error again). The one place the default context is loaded.
Result<std::shared_ptr<const AnalysisKnowledge>> analysis_knowledge();
// How many times AnalysisKnowledge::load() ran in this process (tests: loaded once per verb run).
int64_t analysis_knowledge_loads();

}  // namespace goblin::analysis
