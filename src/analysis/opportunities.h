// Overlap-opportunity and fuse-opportunity tables (SGLang's triage workflow), computed from the
// kernel table, the exposure sweep and the launch attribution. Thresholds and texts are data:
// data/overlap_heuristics.yaml and data/fusion_patterns.yaml (formulas documented there).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/exposure.h"
#include "analysis/kernel_table.h"
#include "analysis/taxonomy.h"
#include "core/json.h"
#include "core/status.h"
#include "hw/vendor.h"
#include "model/timeline.h"

namespace goblin::analysis {

// vendor_of_timeline(tl).vendor (hw/vendor.h): device names/arch, versions, runtime API names,
// warp size, kernel families, formats.
hw::Vendor detect_vendor(const Timeline& tl);

struct OverlapHeuristics {
  double headroom_exclusive_ratio = 0.45, headroom_min_exposed_us = 5, low_roi_hidden_ratio = 0.65;
  double dep_min_us = 2, dep_max_us = 20, dep_frac = 0.15, dep_high_fraction = 0.5, dep_medium_fraction = 0.2;
  double negligible_share_pct = 1, p1_share_pct = 5, compute_p2_share_pct = 10;
  std::map<std::string, double> weights;       // class → weight
  std::map<std::string, std::string> classes;  // category → class ("other" when absent)
  static Result<OverlapHeuristics> load();     // data/overlap_heuristics.yaml
};

// Overlap-opportunity priority, most urgent first (rules in data/overlap_heuristics.yaml). The
// enum's order is the sort order; the JSON and text show "P1".."P5".
enum class Priority { P1 = 1, P2, P3, P4, P5 };
const char* priority_name(Priority p);

struct OverlapRow {
  std::string kernel, category, family, weight_class;
  Priority priority = Priority::P5;
  std::string verdict;    // "try overlap", "try fusion", ...
  std::string next_step;  // overlap | fusion | library_tuning | kernel_swap | none (the triage skill's reviewer rule)
  std::string recommendation;
  double exclusive_pct = 0, hidden_pct = 0, share_pct = 0, score = 0;
  int64_t total_ns = 0, exposed_ns = 0, hidden_ns = 0, launches = 0;
  bool headroom = false, low_roi = false;
  std::string dependency_risk;  // low | medium | high
  double dependency_risky_fraction = 0;
  std::string cpu_op, python_location;
};

// `scope`: per gpu_ops row, an id of the launching scope (equal ids = same scope), -1 unknown.
std::vector<int64_t> scopes_from_attribution(const LaunchAttribution& la);
std::vector<OverlapRow> build_overlap_table(const Timeline& tl, const KernelTableResult& kt,
                                            const std::vector<int64_t>& scope, hw::Vendor vendor,
                                            const OverlapHeuristics& h, const Taxonomy& tax);

struct FusePattern {
  std::string id, detector, title, candidate_cuda, candidate_rocm, rationale, citation;
  double max_kernel_us = 20, max_gap_us = 50;
  int min_run = 3, min_kernels = 64;
  std::vector<std::string> categories;
  std::string regex, cpu_op_regex, comm_regex, scope_regex, fused_regex, mask_regex;
  int high_min = 8, medium_min = 2;
};
Result<std::vector<FusePattern>> load_fusion_patterns();  // data/fusion_patterns.yaml

struct FuseRow {
  std::string pattern, title, confidence;
  int64_t occurrences = 0, kernels = 0, related_ns = 0;
  double share_pct = 0;
  std::string evidence, candidate, rationale, citation, scope;
  std::vector<std::string> example_kernels;
};

std::vector<FuseRow> build_fuse_table(const Timeline& tl, const KernelTableResult& kt, const LaunchAttribution& la,
                                      const std::vector<FusePattern>& patterns, hw::Vendor vendor);

Json overlap_row_to_json(const OverlapRow& r);
Json fuse_row_to_json(const FuseRow& r);

}  // namespace goblin::analysis
