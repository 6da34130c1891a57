// The traces a query reads (`goblin query`, `goblin export`, the Python module's goblin.load):
// each read with every kind of row the query tables offer and kept alive while a
// query::Database reads them, with the rank each answers to (its distributed rank, else the
// number in its file name, else its position).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "query/tables.h"
#include "trace/load.h"

namespace goblin::app {

struct QueryTraces {
  std::vector<trace::LoadedTrace> traces;
  std::vector<query::TraceRef> refs;  // point into `traces`: keep this object where it was filled
  std::optional<Error> damage;        // the first partial read (the tables hold what was read)
};

// Reads `paths` into `out` (not returned by value: refs point into out.traces).
Status load_query_traces(const std::vector<std::string>& paths, QueryTraces& out);

}  // namespace goblin::app
