// Several processes in one rocpd database (a merged multi-rank run, several nodes): listed and
// read one at a time, so `goblin ranks DB` sees one rank per process (analysis/ranks_input.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/timeline.h"

namespace goblin::trace {

// A process of a rocpd database: rocpd_info_process (nid, pid), the node id and the OS pid.
struct RocpdProcess {
  int64_t node = 0;
  int64_t pid = 0;
};

// Every process of every run in the database, sorted by (node, pid). Read-only, like the reader.
Result<std::vector<RocpdProcess>> rocpd_processes(const std::string& path);

// Reads one process's rows (kernels, regions, copies, counters; the devices of the runs that
// hold it) into `tl`, as read_rocpd reads them all. Bookkeeping (formats, finish) is the caller's:
// trace::read_rocpd_rank (trace/rocpd_rank.h) does it.
Status read_rocpd_process(const std::string& path, const RocpdProcess& only, Timeline& tl);

}  // namespace goblin::trace
