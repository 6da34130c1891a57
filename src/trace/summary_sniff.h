// goblin's own rank summary (goblin summarize; docs/scale.md), known by content: a JSON object
// whose first key is "goblin_rank_summary" (its schema version). It holds one rank's figures, not
// its events, so no Timeline is made from it: read_path tells every trace verb what it is (only
// goblin ranks reads it, through analysis/rank_summary.h).
#pragma once
#include <string_view>

namespace goblin::trace {

// True when `prefix` (the first bytes of the decompressed content) starts a rank summary.
bool sniff_rank_summary(std::string_view prefix);
// True when `prefix` starts a group summary (goblin summarize --merge: first key
// "goblin_group_summary").
bool sniff_group_summary(std::string_view prefix);

}  // namespace goblin::trace
