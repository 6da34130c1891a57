// goblin ranks --html FILE: the skew heatmaps of a ranks result (rank × matched step: time waiting
// inside collectives, and step time above the step's fastest rank), the straggler and the slow
// node in words, the node table. One self-contained page (inline SVG, no script).
#pragma once
#include <string>

#include "core/json.h"

namespace goblin::analysis {

// `result` is analyse_ranks' JSON result.
std::string ranks_heatmap_html(const Json& result);

}  // namespace goblin::analysis
