// `goblin breakdown`'s analysis: GPU time by kernel category and library family over the whole
// trace, and the per-step window breakdown (breakdown.h) of every detected step.
//
// Denominator of `pct`: the summed duration of all GPU ops (kernels + memcpy + memset) in the
// trace, Σ dur, where concurrent ops on different streams both count (as nsys stats and SGLang
// do). The busy union (|∪ ops|, concurrency counted once) is given beside it, with each
// category's own union time. docs/metrics.md defines the per-step figures.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/breakdown.h"
#include "analysis/steps.h"
#include "analysis/taxonomy.h"
#include "core/json.h"
#include "model/timeline.h"

namespace goblin::analysis {

struct CategoryRow {
  std::string category, family;
  int64_t time_ns = 0;  // Σ dur of the ops in this (category, family)
  int64_t count = 0;
  double pct = 0;  // of total_op_ns
};

struct CategoryBreakdown {
  std::vector<CategoryRow> rows;                     // by time, largest first
  int64_t total_op_ns = 0;                           // Σ dur of every GPU op: the denominator of pct
  int64_t busy_union_ns = 0;                         // |∪ every GPU op|
  std::map<std::string, int64_t> category_union_ns;  // |∪ ops of the category|
  StepDetection steps;
  std::vector<WindowBreakdown> step_breakdowns;  // one per steps.steps, same order
  bool has_before_first_step = false;
  WindowBreakdown before_first_step;  // steps.before_first_step's window (GPU work before the first step)
};

CategoryBreakdown category_breakdown(const Timeline& tl, const Taxonomy& tax);
// The `result` of `goblin breakdown --json` (and the MCP tool `breakdown`).
Json category_breakdown_to_json(const CategoryBreakdown& b);

}  // namespace goblin::analysis
