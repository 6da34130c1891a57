// The analysis knowledge context (analysis/knowledge.h): every data file parsed once per process
// and data directory.
#include "analysis/knowledge.h"

#include <yaml-cpp/yaml.h>

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
  ASSIGN_OR_RETURN(k.mfu, MfuPeaks::load());
  // The hardware part never fails as a whole: a broken gpus.yaml leaves the list empty (the GPU
  // database is optional for analyses) and is reported by the verbs that need it (specs, roofline).
  static_cast<hw::HwKnowledge&>(k) = *hw::hw_knowledge();
  return k;
}

Result<MfuPeaks> MfuPeaks::parse(const std::string& yaml_text, const std::string& origin) {
  MfuPeaks m;
  auto bad = [&](const std::string& what, const YAML::Node& at) {
    return make_error(ErrorKind::Malformed, "mfu: " + what, origin, -1, at.Mark().line + 1);
  };
  auto names = [&](const YAML::Node& n, const char* what, std::vector<std::string>& out) -> Status {
    if (!n || !n.IsSequence() || n.size() == 0)
      return make_error(ErrorKind::Malformed, std::string("mfu: `") + what + "` must be a non-empty list", origin);
    for (const auto& s : n) {
      if (!s.IsScalar() || s.Scalar().empty()) return bad(std::string("`") + what + "` holds a non-name", s);
      out.push_back(s.Scalar());
    }
    return {};
  };
  try {
    YAML::Node root = YAML::Load(yaml_text);
    if (!root.IsMap()) return make_error(ErrorKind::Malformed, "mfu: not a YAML map", origin);
    YAML::Node tp = root["training_peak"];
    if (!tp || !tp.IsMap() || !tp["source"] || !tp["mixed_precision"] || !tp["mixed_precision"].IsScalar() ||
        tp["mixed_precision"].Scalar().empty())
      return bad("`training_peak` needs `own_peak`, `mixed_precision` and `source`", tp ? tp : root);
    RETURN_IF_ERROR(names(tp["own_peak"], "training_peak.own_peak", m.own_peak));
    m.mixed_precision = tp["mixed_precision"].Scalar();
    if (YAML::Node s = tp["substitutes"]) {
      if (!s.IsMap()) return bad("`training_peak.substitutes` must be a map", s);
      for (const auto& kv : s) m.substitutes[kv.first.Scalar()] = kv.second.Scalar();
    }
    if (!root["simt_source"]) return bad("`simt_dtypes` needs `simt_source`", root);
    RETURN_IF_ERROR(names(root["simt_dtypes"], "simt_dtypes", m.simt_dtypes));
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("mfu: ") + e.what(), origin, -1, e.mark.line + 1);
  }
  return m;
}

Result<MfuPeaks> MfuPeaks::load() {
  ASSIGN_OR_RETURN(auto text, load_data_file("mfu.yaml"));
  return parse(text, data_file_origin("mfu.yaml"));
}

Result<std::shared_ptr<const AnalysisKnowledge>> analysis_knowledge() {
  static DataDirCache<AnalysisKnowledge> cache;
  return cache.get(AnalysisKnowledge::load);
}

int64_t analysis_knowledge_loads() { return g_loads.load(); }

}  // namespace goblin::analysis
