// The knowledge context: every data file an analysis reads (taxonomy, overlap/fusion advice,
// collectives, serving stages, MFU's peaks, and the hardware part: GPU specs, measured ceilings, arch tables,
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

// data/mfu.yaml: which peak MFU divides by (docs/metrics.md § MFU).
struct MfuPeaks {
  std::vector<std::string> own_peak;               // dominant dtypes held against their own peak
  std::string mixed_precision;                     // every other run's peak
  std::map<std::string, std::string> substitutes;  // a peak the GPU lacks → the one used instead
  std::vector<std::string> simt_dtypes;            // dtypes whose GEMMs may run on SIMT cores

  // The peak mfu_pct divides by for a run whose dominant dtype is `dtype`, on a GPU that has a
  // peak for a key when `has_peak(key)`.
  template <class HasPeak>
  std::string training_peak(const std::string& dtype, HasPeak&& has_peak) const {
    std::string key = contains(own_peak, dtype) ? dtype : mixed_precision;
    if (!has_peak(key))
      if (auto it = substitutes.find(key); it != substitutes.end()) key = it->second;
    return key;
  }
  bool may_run_on_simt(const std::string& dtype) const { return contains(simt_dtypes, dtype); }

  // Malformed (origin, line) when a list or name is missing or of the wrong shape.
  static Result<MfuPeaks> parse(const std::string& yaml_text, const std::string& origin);
  static Result<MfuPeaks> load();  // data/mfu.yaml

 private:
  static bool contains(const std::vector<std::string>& v, const std::string& s) {
    for (const auto& x : v)
      if (x == s) return true;
    return false;
  }
};

struct AnalysisKnowledge : hw::HwKnowledge {
  Taxonomy taxonomy;                            // data/taxonomy.yaml
  OverlapHeuristics overlap;                    // data/overlap_heuristics.yaml
  std::vector<FusePattern> fusion;              // data/fusion_patterns.yaml
  CollectiveKnowledge collectives;              // data/collectives.yaml
  std::shared_ptr<const StagePatterns> stages;  // data/serving_stages.yaml
  MfuPeaks mfu;                                 // data/mfu.yaml
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
