// The audit's knowledge context: the analysis context (analysis/knowledge.h: taxonomy, overlap
// and fusion advice, collectives, GPU specs, measured ceilings) extended with the rule base
// (data/rules/), the speedup-model factors (data/speedup_model.yaml) and the config knowledge
// (config/knowledge.h: attention implementations). Loaded once per process
// and data directory by knowledge(), then passed as `const Knowledge&`.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/knowledge.h"
#include "audit/rules.h"
#include "config/knowledge.h"
#include "core/status.h"

namespace goblin::audit {

// data/speedup_model.yaml: each multiplier of the speedup models (docs/metrics.md § Speedup
// models); the file holds each one's basis and source.
struct SpeedupFactors {
  double gemm_measured_slow_of_median = 0, gemm_datasheet_fast = 0, gemm_datasheet_slow = 0;
  double gemm_peak_ratio_slow_multiplier = 0;
  double attention_flops_fast = 0, attention_flops_slow = 0, attention_peak_fast = 0, attention_peak_slow = 0;
  double fused_optimizer_fast = 0, fused_optimizer_slow = 0;
  double compile_membound_fast = 0, compile_membound_slow = 0, compile_host_gap_fast = 0, compile_host_gap_slow = 0;
  double pin_memory_fast = 0, pin_memory_slow = 0;
  // The critical path's what-if targets of each GPU class a model re-prices (taxonomy categories,
  // else kernel-name substrings), in the file's order (an op takes the first term naming it).
  struct WhatIfTargets {
    std::string cls;
    std::vector<std::string> targets;
  };
  std::vector<WhatIfTargets> what_if_targets;
  // The profiler correction (docs/audit.md § Profiler correction): the host classes the profiler's
  // measured excess is taken from, in this order. Empty (section absent): no correction.
  std::vector<std::string> profiler_correction_order;
  // Every factor above must be present with a finite non-negative value and a basis: Malformed
  // (origin, line) otherwise.
  static Result<SpeedupFactors> parse(const std::string& yaml_text, const std::string& origin);
  static Result<SpeedupFactors> load();  // data/speedup_model.yaml
};

struct Knowledge {
  std::shared_ptr<const analysis::AnalysisKnowledge> analysis_ptr;  // shared with analysis_knowledge()
  RuleBase rules;
  SpeedupFactors speedup;
  // Shared with config::config_knowledge(): the attention implementations (data/attention.yaml)
  // the speedup model asks whether a change fuses attention.
  std::shared_ptr<const config::ConfigKnowledge> config_ptr;
  const analysis::AnalysisKnowledge& analysis() const { return *analysis_ptr; }
  const analysis::Taxonomy& taxonomy() const { return analysis_ptr->taxonomy; }
  const config::AttentionImpls& attention() const { return config_ptr->attention; }
};

// The process's audit knowledge: on first use (per data directory) the analysis context plus the
// rule base and factors, then shared; thread-safe; a failed load is not cached.
Result<std::shared_ptr<const Knowledge>> knowledge();
// How many times the audit knowledge was loaded in this process (tests).
int64_t knowledge_loads();

}  // namespace goblin::audit
