// The Python door (docs/python.md): what `import goblin` calls, in plain C++ so the pybind11
// binding (module.cpp) stays a thin wrapper. Verbs run through the same registry and run_verb as
// the CLI, MCP and HTTP doors (app/verb.h), so goblin.run("triage", ...) returns the very envelope
// `goblin triage --json` prints. A Trace is the query tables over loaded Timelines
// (query/database.h), and a statement's rows come back column by column — typed arrays, text as
// codes into a dictionary — so pandas gets numpy arrays, not one Python object per row.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/query_traces.h"
#include "core/json.h"
#include "core/status.h"
#include "query/columns.h"
#include "query/database.h"

namespace goblin::python {

// One verb call: `args` as JSON (the MCP/HTTP argument names), the {ok, result, error} envelope
// back (the same text `goblin VERB --json` prints) and the readable text the CLI would print.
struct Outcome {
  std::string envelope;
  std::string human;
};
Outcome call_verb(const std::string& name, const std::string& args_json);

// The registry as the Python door sees it: `goblin verbs`'s result (every verb, its fields and
// doors), from which the module generates one function per verb.
std::string verbs_json();

// One result column: typed arrays, text as codes into a dictionary (query/columns.h).
using Column = query::ColumnData;

// A statement's result, column-wise.
struct Columns {
  std::vector<Column> columns;
  size_t rows = 0;
};

// Loaded traces and the query tables over them (goblin.load). Calls are serialized: one SQLite
// connection, and the analysis tables are computed on first use.
class Trace {
 public:
  static Result<std::unique_ptr<Trace>> open(const std::vector<std::string>& paths);
  // Runs `sql` (every statement in turn; the last one's rows come back) under the query bounds
  // of docs/query.md § Safety. timeout_s <= 0: the default.
  Result<Columns> sql(const std::string& sql, double timeout_s = 0);
  // One query table whole: `SELECT * FROM name`'s columns, read from the Timelines without
  // SQLite (query::Database::scan_table), for DataFrames of millions of rows.
  Result<Columns> table(const std::string& name);
  const std::vector<std::string>& paths() const { return paths_; }
  std::vector<int64_t> ranks() const;
  // The first partial read (a damaged trace whose readable part was kept), if any.
  const std::optional<Error>& damage() const { return traces_->damage; }

 private:
  Trace() = default;
  std::vector<std::string> paths_;
  std::unique_ptr<app::QueryTraces> traces_;
  std::unique_ptr<query::Database> db_;
  std::mutex mu_;
};

// The query tables' names, in the order `goblin query --schema` lists them.
std::vector<std::string> table_names();

}  // namespace goblin::python
