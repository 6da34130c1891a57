// What a Kineto trace holds besides the events goblin models, verbatim, for `goblin export` to
// write back (query/slice.h): the Timeline keeps no viewer-only events.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace goblin::trace {

// Every top-level key but traceEvents (displayTimeUnit, deviceProperties, distributedInfo,
// trace_id, the workload's metadata, ...) in file order, and the metadata events ("ph": "M":
// process_name, thread_name, process_sort_index, thread_sort_index, process_labels) that name
// Perfetto's tracks. One pass of the splitter, no event parsed but those. Errors as read_kineto's
// (file and byte offset).
struct KinetoHeader {
  std::vector<std::pair<std::string, std::string>> top_level;  // key, raw JSON value
  std::vector<std::string> metadata_events;                    // raw JSON objects
};
Result<KinetoHeader> read_kineto_header(const std::string& path);

}  // namespace goblin::trace
