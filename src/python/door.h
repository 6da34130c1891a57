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

// One result column. SQLite values are typed per value, not per column: a column is Integer
// while every value is an integer, Real once a real appears, Text once a text appears (numbers
// before it become their text); NULLs are flagged in `null` and hold 0 / NaN / code -1.
struct Column {
  enum class Kind { Null, Integer, Real, Text };
  std::string name;
  Kind kind = Kind::Null;
  std::vector<int64_t> ints;
  std::vector<double> reals;
  std::vector<int32_t> codes;     // Text: index into dict, -1 for NULL
  std::vector<std::string> dict;  // Text: each distinct value once
  std::vector<uint8_t> null;      // 1 where the value is NULL
  bool any_null = false;
};

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
