// goblin ranks internals: the cross-rank report the analysis fills (ranks_match.cpp,
// ranks_straggler.cpp) and renders (ranks_render.cpp). Figures are per rank in the order of
// `use` (usable ranks by rank number).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "analysis/ranks.h"

namespace goblin::analysis {

struct MatchedItem {
  std::string key;
  std::vector<int> idx;  // per usable rank: index into its steps / collectives
  bool complete = true;  // steps: not partial on any rank
};

struct RankWaits {
  int64_t wait_ns = 0;     // Σ over matched collectives of (own duration − shortest duration)
  int64_t last_count = 0;  // collectives where this rank arrived last (ran shortest)
  int64_t late_ns = 0;     // Σ over those of (longest − shortest duration): how late it was
  double delta_compute_ns = 0, delta_other_gpu_ns = 0, delta_data_wait_ns = 0, delta_host_gap_ns = 0;
  std::vector<int64_t> wait_by_step;  // per matched step
};

struct Straggler {
  bool named = false;
  int64_t rank = -1;
  size_t use_index = 0;
  double late_share = 0;        // its share of all lateness
  double late_per_step_ns = 0;  // lateness it caused per matched step
  double step_time_ns = 0;      // mean step wall across ranks (matched complete steps)
  std::string cause;            // compute | host_gap | data_wait | other_gpu | ""
  std::string verdict_reason;   // why named / why not
  std::string summary;          // plain words
};

struct BandwidthRow {
  std::string type, group;
  int64_t bytes = 0, group_size = kNone, count = 0;
  std::vector<double> mean_dur_ns;  // per rank
  double transfer_dur_ns = 0;       // mean of the shortest duration per instance
  std::string busbw_factor;
};

struct RanksReport {
  std::vector<RankProfile> ranks;  // every rank read, by rank
  std::vector<std::string> damaged, notes;
  std::vector<int64_t> missing;
  int64_t world_size = kNone;
  std::string step_match, collective_match, bandwidth_source;
  std::vector<MatchedItem> steps, collectives;
  std::vector<RankWaits> waits;  // per usable rank
  Straggler straggler;
  std::vector<BandwidthRow> bandwidth;
  std::vector<std::string> categories;  // every category seen in matched steps
};

void compute_waits_and_straggler(RanksReport& r, const std::vector<const RankProfile*>& use,
                                 const CollectiveKnowledge& ck);
void compute_skew(RanksReport& r, const std::vector<const RankProfile*>& use, const CollectiveKnowledge& ck);
Json ranks_report_json(const RanksReport& r, const std::vector<const RankProfile*>& use);
std::string ranks_report_human(const RanksReport& r, const std::vector<const RankProfile*>& use);

// Mean over the matched complete steps (all matched steps when none is complete) of f(rank u,
// its step index); 0 when there are no matched steps.
template <class F>
double mean_over_steps(const RanksReport& r, size_t u, F&& f) {
  double s = 0;
  int n = 0;
  bool any_complete = false;
  for (const auto& m : r.steps) any_complete |= m.complete;
  for (const auto& m : r.steps) {
    if (any_complete && !m.complete) continue;
    s += static_cast<double>(f(u, static_cast<size_t>(m.idx[u])));
    ++n;
  }
  return n ? s / n : 0;
}

}  // namespace goblin::analysis
