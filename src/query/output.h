// How a query's rows leave: an aligned text table, CSV (both streamed to an ostream as rows come,
// so a result of millions of rows is never held whole), or JSON ({columns, rows, truncated}) with
// a row cap for the JSON doors. Also the interactive shell (line editing through readline when
// goblin was built with it).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "query/database.h"

namespace goblin::query {

std::string value_text(const Value& v);

// Where streamed text goes (std::cout's write, an AtomicFile's write).
using Emit = std::function<void(std::string_view)>;  // NULL → "NULL" in tables, "" in CSV (see the sinks)

// Aligned columns; widths from the first 1000 rows (later rows that are wider are not cut).
class TableSink : public RowSink {
 public:
  explicit TableSink(Emit out) : out_(std::move(out)) {}
  ~TableSink() override;
  void columns(const std::vector<std::string>& names) override;
  bool row(const std::vector<Value>& values) override;
  void finish();  // flushes buffered rows and prints the row count
  int64_t rows() const { return rows_; }

 private:
  void flush_buffer();
  Emit out_;
  std::vector<std::string> names_;
  std::vector<std::vector<std::string>> buf_;
  std::vector<size_t> width_;
  std::vector<bool> numeric_;
  bool widths_fixed_ = false, finished_ = true;
  int64_t rows_ = 0;
};

// RFC 4180 CSV: a header line, then one line per row (NULL as an empty field).
class CsvSink : public RowSink {
 public:
  explicit CsvSink(Emit out) : out_(std::move(out)) {}
  void columns(const std::vector<std::string>& names) override;
  bool row(const std::vector<Value>& values) override;

 private:
  Emit out_;
  std::string line_;
};

// {"columns": [...], "rows": [[...], ...], "row_count": N, "truncated": bool}; stops after `cap` rows.
class JsonSink : public RowSink {
 public:
  explicit JsonSink(int64_t cap, int64_t max_bytes = kMaxQueryJsonBytes) : cap_(cap), max_bytes_(max_bytes) {}
  void columns(const std::vector<std::string>& names) override;
  bool row(const std::vector<Value>& values) override;
  Json result() const;

 private:
  int64_t cap_, max_bytes_, bytes_ = 0;
  Json columns_ = Json::array(), rows_ = Json::array();
  bool truncated_ = false;
  std::string note_;  // why the rows were cut, when they were
};

// The interactive shell: reads statements (a statement ends with ';') from the terminal with line
// editing and history, runs each through `run_one`, until EOF or ".quit". ".schema" and ".tables"
// print the table declarations.
void run_shell(const std::function<void(const std::string& sql)>& run_one, const Emit& out);

}  // namespace goblin::query
