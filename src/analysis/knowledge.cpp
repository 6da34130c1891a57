// The analysis knowledge context (analysis/knowledge.h): every data file parsed once per process
// and data directory.
#include "analysis/knowledge.h"

#include <atomic>

#include "core/data.h"

namespace goblin::analysis {

namespace {
std::atomic<int64_t> g_loads{0};
}  // namespace

Result<AnalysisKnowledge> AnalysisKnowledge::load() {
  ++g_loads;
  AnalysisKnowledge k;
  ASSIGN_OR_RETURN(k.taxonomy, Taxonomy::load());
  ASSIGN_OR_RETURN(k.overlap, OverlapHeuristics::load());
  ASSIGN_OR_RETURN(k.fusion, load_fusion_patterns());
  ASSIGN_OR_RETURN(k.collectives, CollectiveKnowledge::load());
  ASSIGN_OR_RETURN(k.stages, load_stage_patterns());
  // The hardware part never fails as a whole: a broken gpus.yaml leaves the list empty (the GPU
  // database is optional for analyses) and is reported by the verbs that need it (specs, roofline).
  static_cast<hw::HwKnowledge&>(k) = *hw::hw_knowledge();
  return k;
}

Result<std::shared_ptr<const AnalysisKnowledge>> analysis_knowledge() {
  static DataDirCache<AnalysisKnowledge> cache;
  return cache.get(AnalysisKnowledge::load);
}

int64_t analysis_knowledge_loads() { return g_loads.load(); }

}  // namespace goblin::analysis
