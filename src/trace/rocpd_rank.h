// One process of a several-process rocpd database read as one rank's whole timeline.
#pragma once
#include <string>

#include "core/status.h"
#include "model/timeline.h"
#include "trace/rocprof/rocpd.h"

namespace goblin::trace {

// read_path for one process of a rocpd database: the process's rows, recorded as a rocpd source
// on the boot clock, then finished (sorted, validated) like any read.
Status read_rocpd_rank(const std::string& path, const RocpdProcess& process, Timeline& tl);

}  // namespace goblin::trace
