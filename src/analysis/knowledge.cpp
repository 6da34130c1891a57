// The analysis knowledge context (analysis/knowledge.h): every data file parsed once per process
// and data directory.
#include "analysis/knowledge.h"

#include <atomic>
#include <mutex>

#include "core/data.h"

namespace goblin {

namespace {
std::atomic<int64_t> g_loads{0};
}  // namespace

Result<GpuSpec> AnalysisKnowledge::gpu(std::string_view name) const { return lookup_gpu_in(gpus, name); }

MeasuredCeilings AnalysisKnowledge::measured(const GpuSpec& g) const {
  auto it = ceilings.find(g.id);
  return it == ceilings.end() ? MeasuredCeilings{} : it->second;
}

Result<AnalysisKnowledge> AnalysisKnowledge::load() {
  ++g_loads;
  AnalysisKnowledge k;
  ASSIGN_OR_RETURN(k.taxonomy, Taxonomy::load());
  ASSIGN_OR_RETURN(k.overlap, OverlapHeuristics::load());
  ASSIGN_OR_RETURN(k.fusion, load_fusion_patterns());
  ASSIGN_OR_RETURN(k.collectives, CollectiveKnowledge::load());
  ASSIGN_OR_RETURN(k.stages, load_stage_patterns());
  // The GPU database is optional for analyses (an unknown GPU is reported where it matters), as
  // it was before the context: a broken gpus.yaml leaves the list empty here and is reported by
  // the verbs that need it (specs, roofline).
  if (auto db = load_gpu_db(); db.ok()) k.gpus = *db;
  for (const auto& g : k.gpus)
    if (MeasuredCeilings m = measured_ceilings_for(g); !m.file.empty()) k.ceilings.emplace(g.id, std::move(m));
  return k;
}

Result<std::shared_ptr<const AnalysisKnowledge>> analysis_knowledge() {
  static std::mutex mu;
  static std::string dir;
  static std::shared_ptr<const AnalysisKnowledge> cached;
  std::lock_guard<std::mutex> lock(mu);
  if (!cached || dir != data_dir_override()) {
    ASSIGN_OR_RETURN(auto k, AnalysisKnowledge::load());
    cached = std::make_shared<const AnalysisKnowledge>(std::move(k));
    dir = data_dir_override();
  }
  return cached;
}

int64_t analysis_knowledge_loads() { return g_loads.load(); }

}  // namespace goblin
