// SGLang's two-trace overlap workflow (`goblin overlap MAPPING FORMAL`): the graph-off *mapping*
// trace tells which CPU op / Python location launches each kernel; the graph-on *formal* trace
// gives the timing (graph replays carry no per-kernel launch attribution).
//
// Join: by kind + canonical kernel name, and within one name by order — the k-th launch in the
// formal trace takes the attribution of the (k mod m)-th of the m launches of that name in the
// mapping trace. The overlap table is computed on the formal trace (exposure sweep line,
// dependency risk with the joined scopes); each row's CPU op / Python location is the most
// frequent joined one (ties: the smaller name).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/exposure.h"
#include "analysis/opportunities.h"
#include "analysis/taxonomy.h"
#include "core/json.h"
#include "core/status.h"
#include "model/timeline.h"

namespace goblin::analysis {

struct OverlapJoinResult {
  int64_t matched = 0, unmatched = 0;         // formal GPU ops with / without a same-name mapping op
  std::vector<std::string> unmatched_sample;  // up to 20 kind:name keys without a match
  std::vector<DeviceExposure> devices;        // the formal trace's
  std::vector<OverlapRow> rows;               // the overlap-opportunity table, best first
};

struct AnalysisKnowledge;  // analysis/knowledge.h

// Taxonomy and overlap heuristics from `k`.
OverlapJoinResult overlap_join(const Timeline& mapping, const Timeline& formal, const AnalysisKnowledge& k);
// The same with the process's knowledge; errors only for unusable data files.
Result<OverlapJoinResult> overlap_join(const Timeline& mapping, const Timeline& formal);
// The `result` of `goblin overlap --json` (without the two paths, which the caller adds).
Json overlap_join_to_json(const OverlapJoinResult& r);

}  // namespace goblin::analysis
