// The SQL tables `goblin query` offers over one or more Timelines, declared once: each table's
// name, one-line doc and columns (name, SQL type, doc, and the getter that reads the value from a
// timeline or an analysis result). `goblin query --schema`, docs/query.md, the SQLite virtual
// tables (query/database.h) and the CSV/SQLite exports all come from this one list, so a column
// cannot be documented in one and missing in another.
//
// Every table starts with `rank` (the trace's distributed rank, else the number in its file name,
// else its position) and `trace` (the path given), so a question across ranks is one query.
// Absent values (no device, no correlation, a grid that is not a kernel's) are SQL NULL, never -1.
// Analysis tables (kernels, categories, step_metrics, waste_budget, modules, stages) are computed
// by goblin's own analyses on first use, with the knowledge context the verb passes in.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/knowledge.h"
#include "model/timeline.h"
#include "query/columns.h"

namespace goblin::query {

enum class SqlType { Integer, Real, Text };
const char* sql_type_name(SqlType t);  // "INTEGER", "REAL", "TEXT"

struct ColumnInfo {
  std::string name;
  SqlType type = SqlType::Integer;
  std::string doc;
};

struct TableInfo {
  std::string name;
  std::string doc;
  bool analysis = false;  // computed by an analysis on first use (not a table of the model)
  std::vector<ColumnInfo> columns;
};

// A step's number: N of "ProfilerStep#N", else its index among the trace's steps (the `step`
// column, `goblin export --steps`).
int64_t step_number(const std::string& name, size_t index);

// Every table, in the order --schema lists them.
const std::vector<TableInfo>& table_infos();
// --schema's text (also docs/query.md's table section): one Markdown section per table.
std::string schema_markdown();

// One trace the tables read: its timeline (kept alive by the caller), rank and path.
struct TraceRef {
  const Timeline* timeline = nullptr;
  int64_t rank = 0;
  std::string path;
};

// The tables' data over a set of traces: what the virtual tables read. Analysis results are
// computed on first use and kept (one connection reads them; not thread-safe).
class TableData {
 public:
  TableData(std::vector<TraceRef> traces, std::shared_ptr<const analysis::AnalysisKnowledge> knowledge);
  ~TableData();
  TableData(const TableData&) = delete;
  TableData& operator=(const TableData&) = delete;

  size_t table_count() const;
  // Rows of table `t` in trace `trace` (computes the table's analysis when it is one).
  size_t rows(size_t t, size_t trace);
  size_t trace_count() const;
  // Writes column `c` of row `row` of trace `trace` into `out` (a sqlite3_context*).
  void value(size_t t, size_t trace, size_t row, int c, void* out);
  // Whether rows can be scanned in column `c`'s order, and that order: (trace << 40 | row) of
  // every row, ascending by the column's text (NULL first). Computed once per column.
  bool can_order(size_t t, int c) const;
  const std::vector<uint64_t>& order(size_t t, int c);
  // Equality and range lookups on an INTEGER column (the virtual tables' xBestIndex/xFilter):
  // every non-NULL value of the column over all traces, sorted, beside its row as
  // (trace << 40 | row); a lookup is a binary search. Built once per column on first use. Only
  // tables that are not analyses (an index must not compute an analysis to plan a statement).
  struct ColumnIndex {
    std::vector<int64_t> keys;   // ascending
    std::vector<uint64_t> rows;  // rows[i] holds keys[i]; equal keys in row order
  };
  bool can_index(size_t t, int c) const;
  const ColumnIndex& index(size_t t, int c);
  // Rows the virtual tables have handed to SQLite so far (the progress line).
  uint64_t rows_read = 0;
  // The first analysis error met (a data file that could not be read), empty when none.
  const std::string& analysis_error() const;

  // Table `t` over every trace (rank, trace, then its columns), read column by column straight
  // from the getters without SQLite: `SELECT * FROM t`'s rows in the same order and with the
  // same values, ~20x faster (the Python door's DataFrames).
  std::vector<ColumnData> scan(size_t t);
  std::optional<size_t> table_index(std::string_view name) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace goblin::query
