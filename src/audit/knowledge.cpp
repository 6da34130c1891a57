// The audit knowledge context (audit/knowledge.h) and data/speedup_model.yaml.
#include "audit/knowledge.h"

#include <yaml-cpp/yaml.h>

#include <atomic>
#include <cmath>
#include <utility>

#include "core/data.h"

namespace goblin::audit {

namespace {
std::atomic<int64_t> g_loads{0};

// The file's factor names and where each lands.
const std::pair<const char*, double SpeedupFactors::*> kFactors[] = {
    {"gemm_measured_slow_of_median", &SpeedupFactors::gemm_measured_slow_of_median},
    {"gemm_datasheet_fast", &SpeedupFactors::gemm_datasheet_fast},
    {"gemm_datasheet_slow", &SpeedupFactors::gemm_datasheet_slow},
    {"gemm_peak_ratio_slow_multiplier", &SpeedupFactors::gemm_peak_ratio_slow_multiplier},
    {"attention_flops_fast", &SpeedupFactors::attention_flops_fast},
    {"attention_flops_slow", &SpeedupFactors::attention_flops_slow},
    {"attention_peak_fast", &SpeedupFactors::attention_peak_fast},
    {"attention_peak_slow", &SpeedupFactors::attention_peak_slow},
    {"fused_optimizer_fast", &SpeedupFactors::fused_optimizer_fast},
    {"fused_optimizer_slow", &SpeedupFactors::fused_optimizer_slow},
    {"compile_membound_fast", &SpeedupFactors::compile_membound_fast},
    {"compile_membound_slow", &SpeedupFactors::compile_membound_slow},
    {"compile_host_gap_fast", &SpeedupFactors::compile_host_gap_fast},
    {"compile_host_gap_slow", &SpeedupFactors::compile_host_gap_slow},
    {"pin_memory_fast", &SpeedupFactors::pin_memory_fast},
    {"pin_memory_slow", &SpeedupFactors::pin_memory_slow},
};
}  // namespace

Result<SpeedupFactors> SpeedupFactors::parse(const std::string& yaml_text, const std::string& origin) {
  SpeedupFactors f;
  try {
    YAML::Node root = YAML::Load(yaml_text);
    YAML::Node fs = root.IsMap() ? root["factors"] : YAML::Node();
    if (!fs || !fs.IsMap()) return make_error(ErrorKind::Malformed, "speedup_model: `factors` map missing", origin);
    for (const auto& [name, member] : kFactors) {
      YAML::Node n = fs[name];
      if (!n)
        return make_error(ErrorKind::Malformed, std::string("speedup_model: factor `") + name + "` missing", origin, -1,
                          fs.Mark().line + 1);
      if (!n.IsMap() || !n["value"] || !n["basis"] || n["basis"].Scalar().empty())
        return make_error(ErrorKind::Malformed,
                          std::string("speedup_model: factor `") + name + "` needs `value` and `basis`", origin, -1,
                          n.Mark().line + 1);
      const double v = n["value"].as<double>();
      if (!std::isfinite(v) || v < 0)
        return make_error(ErrorKind::Malformed,
                          std::string("speedup_model: factor `") + name + "` must be a finite number >= 0", origin, -1,
                          n["value"].Mark().line + 1);
      f.*member = v;
    }
    // Optional: without it the report has no critical-path second opinion.
    if (YAML::Node w = root["what_if_targets"]) {
      if (!w.IsMap())
        return make_error(ErrorKind::Malformed, "speedup_model: `what_if_targets` must be a map", origin, -1,
                          w.Mark().line + 1);
      for (const auto& kv : w) {
        const YAML::Node& t = kv.second;
        if (!t.IsMap() || !t["targets"] || !t["targets"].IsSequence() || t["targets"].size() == 0 || !t["basis"] ||
            t["basis"].Scalar().empty())
          return make_error(
              ErrorKind::Malformed,
              "speedup_model: what_if_targets." + kv.first.Scalar() + " needs a non-empty `targets` list and a `basis`",
              origin, -1, t.Mark().line + 1);
        SpeedupFactors::WhatIfTargets x{kv.first.Scalar(), {}};
        for (const auto& s : t["targets"]) x.targets.push_back(s.Scalar());
        f.what_if_targets.push_back(std::move(x));
      }
    }
    // Optional: without it the profiler's host time is not taken out of the host classes.
    if (YAML::Node pc = root["profiler_correction"]) {
      YAML::Node order = pc.IsMap() ? pc["order"] : YAML::Node();
      if (!order || !order.IsSequence() || order.size() == 0 || !pc["basis"] || pc["basis"].Scalar().empty())
        return make_error(ErrorKind::Malformed,
                          "speedup_model: profiler_correction needs a non-empty `order` list and a `basis`", origin, -1,
                          pc.Mark().line + 1);
      for (const auto& c : order) {
        const std::string n = c.Scalar();
        if (n != "data_wait" && n != "host_gap" && n != "unattributed")
          return make_error(ErrorKind::Malformed,
                            "speedup_model: profiler_correction.order lists `" + n +
                                "`; only the host classes data_wait, host_gap and unattributed hold host time",
                            origin, -1, c.Mark().line + 1);
        f.profiler_correction_order.push_back(n);
      }
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("speedup_model: ") + e.what(), origin, -1, e.mark.line + 1);
  }
  return f;
}

Result<SpeedupFactors> SpeedupFactors::load() {
  ASSIGN_OR_RETURN(auto text, load_data_file("speedup_model.yaml"));
  return parse(text, data_file_origin("speedup_model.yaml"));
}

Result<std::shared_ptr<const Knowledge>> knowledge() {
  static DataDirCache<Knowledge> cache;
  return cache.get([]() -> Result<Knowledge> {
    ++g_loads;
    Knowledge k;
    ASSIGN_OR_RETURN(k.analysis_ptr, analysis::analysis_knowledge());
    ASSIGN_OR_RETURN(k.rules, load_rule_base());
    ASSIGN_OR_RETURN(k.speedup, SpeedupFactors::load());
    ASSIGN_OR_RETURN(k.config_ptr, config::config_knowledge());
    return k;
  });
}

int64_t knowledge_loads() { return g_loads.load(); }

}  // namespace goblin::audit
