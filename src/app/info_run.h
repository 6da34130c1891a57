// goblin info's whole job as one library call (the verb and the MCP `info` tool share it): what
// goblin read from each input (format, event counts, span, devices, versions, warnings, speed).
#pragma once
#include <string>
#include <vector>

#include "core/verb_result.h"

namespace goblin::app {

VerbResult info(const std::vector<std::string>& paths);

}  // namespace goblin::app
