// The one per-rank loop: a verb given several traces (one per rank of a distributed job) runs its
// single-trace job on each in turn — one Timeline in memory at a time — and returns
// {"ranks": [{rank, rank_from, source, <key>: result|null, error}]}, each result naming its rank:
// the trace's own rank when it says, else the number in the file name, else the order given.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/verb_result.h"

namespace goblin {
struct Timeline;
}

namespace goblin::app {

// What the single-trace job reports back: its result, and the Timeline it read (nullptr when the
// read failed), from which the rank is taken.
struct RankOutcome {
  VerbResult result;
  const Timeline* timeline = nullptr;
};

// `one(path, index)` runs the job on one trace; `key` names its result in each rank's entry.
// The first rank's error becomes the whole result's error (the others are still reported).
VerbResult for_each_rank(const std::vector<std::string>& paths, const std::string& key,
                         const std::function<RankOutcome(const std::string& path, size_t index)>& one);

// The rank a file name gives ("rank3.json" -> 3), else `index`: where a per-rank output goes.
int64_t rank_hint(const std::string& path, size_t index);

}  // namespace goblin::app
