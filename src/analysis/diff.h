// `goblin diff BEFORE AFTER`: what got faster and what got slower between two runs of the same
// workload, per category and per kernel, with each one's share of the step-time change.
//
// Decomposition (docs/metrics.md § diff). Over the complete steps of one run (steps.h; partial
// steps excluded), per step on average:
//
//   T  = mean step wall                         (the measured step time)
//   g_k = Σ |op ∩ W| over the GPU ops of group k (kernel, memcpy, memset), summed over the
//         complete step windows W and divided by their number: group k's GPU time per step
//   busy = |∪ all GPU ops ∩ W| per step;  idle = T − busy
//   overlap = Σ_k g_k − busy  (time when two or more ops ran at once, counted once too often)
//
//   so T = Σ_k g_k + idle − overlap exactly, and
//   ΔT = T_after − T_before = Σ_k Δg_k + Δidle − Δoverlap.
//
// Each kernel group's contribution is Δg_k; idle and overlap are the two explicit residual terms;
// the contributions add up to the measured ΔT (to the nanosecond before rounding).
//
// Groups are matched by normalised name and launching CPU op: first the canonical kernel name
// (kernel_table.h) with the op that launched it; groups left over on both sides are then matched
// by their base name (template arguments dropped: the same kernel in another instantiation, e.g.
// fp32 → bf16) with the same op. Still unmatched: `gone` (before only) or `new` (after only).
// Matched groups are `faster` or `slower`, `unchanged` when |Δg| ≤ 1 % of the before time.
// Across vendors (NVIDIA vs AMD) kernel names do not correspond: only categories are compared.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/taxonomy.h"
#include "core/json.h"
#include "core/status.h"
#include "model/timeline.h"

namespace goblin::analysis {

struct AnalysisKnowledge;  // analysis/knowledge.h

// A canonical kernel name without its template argument lists ("at::native::
// vectorized_elementwise_kernel" for every instantiation): the second matching key.
std::string kernel_base_name(std::string_view canonical);

// One group of GPU ops of one run: the ops with the same canonical name and launching op.
struct DiffGroup {
  std::string name;       // canonical kernel name (kernel_table.h)
  std::string base;       // name without template arguments (second matching pass)
  std::string full_name;  // the most frequent full name behind it
  std::string op;         // launching CPU op ("" when unknown)
  std::string scope;      // innermost CPU annotation around the launch (not ProfilerStep), "" if none
  std::string category, family;
  std::string kind;      // kernel | memcpy | memset
  int64_t time_ns = 0;   // Σ |op ∩ W| over the complete steps (divide by steps for per step)
  int64_t launches = 0;  // ops starting in a complete step
};

// What `diff` needs of one run; small, so a run's Timeline can be dropped once it is profiled.
struct DiffProfile {
  std::string source;
  std::string vendor;  // nvidia | amd | unknown
  std::string gpu;     // device name, "" when unknown
  std::vector<std::string> step_names;
  int64_t steps = 0;                            // complete steps used
  int64_t wall_ns = 0, busy_ns = 0, op_ns = 0;  // totals over the complete steps
  std::string step_method;
  std::vector<DiffGroup> groups;
  std::vector<std::string> notes;
  // The workload's own timer (trace metadata step_time_seconds), shown beside the step time the
  // trace's steps measure, which the decomposition uses (docs/metrics.md § Throughput sources).
  std::optional<double> workload_step_s;
  double per_step(int64_t ns) const { return steps > 0 ? static_cast<double>(ns) / static_cast<double>(steps) : 0; }
};

DiffProfile diff_profile(const Timeline& tl, const Taxonomy& tax, const std::string& source);

struct DiffSideFigures {
  double time_s = 0;    // per step
  double launches = 0;  // per step
  std::string full_name;
};

struct DiffRow {
  std::string status;  // faster | slower | unchanged | new | gone
  std::string match;   // exact | base_name (different instantiation) | "" (new/gone)
  std::string name, op, scope, category, family, kind;
  std::optional<DiffSideFigures> before, after;
  double change_s = 0;  // Δg per step: after − before
};

struct DiffCategory {
  std::string category;
  double before_s = 0, after_s = 0, change_s = 0;  // per step
};

struct DiffResult {
  DiffProfile before, after;
  bool kernel_level = true;  // false across vendors: categories only
  double before_step_s = 0, after_step_s = 0, step_change_s = 0;
  // The decomposition of step_change_s: Σ group contributions + idle term + overlap term.
  double kernels_change_s = 0, idle_change_s = 0, overlap_term_s = 0, sum_s = 0;
  std::vector<DiffCategory> categories;  // by |change|, largest first
  std::vector<DiffRow> rows;             // by |change|, largest first (empty when !kernel_level)
  std::vector<std::string> notes;
  std::optional<Error> damage;  // a damaged input that was still diffed (diff_paths)
};

DiffResult diff_runs(DiffProfile before, DiffProfile after);

// Reads both paths (trace files or run directories) one after the other, so only one Timeline is
// held at a time, and diffs them. Either input unreadable: the error, naming the file. A damaged
// input that still had GPU work is diffed with a note naming the damage. Taxonomy from `k`.
Result<DiffResult> diff_paths(const std::string& before, const std::string& after, const AnalysisKnowledge& k);
// The same with the process's knowledge (analysis_knowledge()); for tests and one-shot tools.
Result<DiffResult> diff_paths(const std::string& before, const std::string& after);

Json diff_to_json(const DiffResult& d);
// Readable report: the decomposition, categories, then the top `top` rows of each status.
std::string diff_human(const DiffResult& d, int top = 10);
// A short "what got faster" story for the audit report (a few lines of Markdown-free text).
std::vector<std::string> diff_story(const DiffResult& d, int top = 5);

}  // namespace goblin::analysis
