// A query result held column by column: typed arrays (int64 or int32, double, int32 codes into a
// dictionary of distinct texts) and a NULL flag per value — what the Python door hands to numpy
// and pandas without a Python object per row. Built one value at a time from SQLite's result
// rows (any statement) or from the query tables' getters, or a whole trace's column at once
// (TableData::scan's typed fast paths: integers(), codes()); every build of the same values gives
// the same column.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace goblin::query {

// SQLite types values, not columns: a column is Integer while every value is an integer, Real
// once a real appears, Text once a text appears (numbers before it become their text, as
// SQLite prints them); NULLs are flagged in `null` and hold 0 / NaN / code -1.
struct ColumnData {
  enum class Kind { Null, Integer, Real, Text };
  std::string name;
  Kind kind = Kind::Null;
  std::vector<int64_t> ints;
  std::vector<int32_t> ints32;  // Integer with `int32`: the values (a narrow column, every value fits)
  bool int32 = false;
  std::vector<double> reals;
  std::vector<int32_t> codes;     // Text: index into dict, -1 for NULL
  std::vector<std::string> dict;  // Text: each distinct value once
  std::vector<uint8_t> null;      // 1 where the value is NULL; empty while no value is NULL
  bool any_null = false;
  size_t rows = 0;
  // The column's declared SQL type and width where its reader knows them (TableData::scan), so a
  // column of NULLs alone still gets a typed, cheap frame column; Null for a statement's result.
  Kind declared = Kind::Null;
  bool narrow = false;
  size_t size() const { return rows; }
  bool is_null(size_t i) const { return any_null && null[i] != 0; }
};

class ColumnBuilder {
 public:
  // `narrow`: an id or small count whose values are kept as int32 while every one fits (4 bytes a
  // row instead of 8), widened to int64 at the first that does not.
  explicit ColumnBuilder(std::string name = {}, bool narrow = false) {
    col_.name = std::move(name);
    col_.narrow = narrow;
  }
  void reserve(size_t n);
  void declare(ColumnData::Kind k) { col_.declared = k; }
  void integer(int64_t v);
  void real(double v);
  void null();
  // `stable`: the bytes outlive the builder at that address (a string pool, a kept analysis
  // result), so the value is looked up by address, not hashed by content — the difference
  // between ~5 ns and ~50 ns a value on a column of long kernel names.
  void text(std::string_view v, bool stable);
  // The column (texts from different addresses with the same bytes share one code).
  ColumnData finish();

  // Whole runs of values at once, the same column as one call per value: a table's column read
  // from the Timeline's own arrays in a tight loop (5 M rows: milliseconds, not a call per cell).
  // integers(n, value): value(i) is the i-th value, std::nullopt for NULL; called twice per value
  // (range, then copy), so it must be cheap and pure. Integer and Null columns only.
  template <class F>
  void integers(size_t n, F&& value);
  // text_code(v): v's code (the same for the same bytes; a new text appends to the dictionary).
  // codes(n, code): code(i) is the i-th value's code from text_code, -1 for NULL; called once per
  // value, in order, so codes are given in first-appearance order as text() gives them. A Text
  // or Null column only.
  int32_t text_code(std::string_view v) { return code_of(v); }
  template <class F>
  void codes(size_t n, F&& code);

 private:
  struct SpanHash {
    size_t operator()(const std::pair<const char*, size_t>& p) const {
      return std::hash<const void*>()(p.first) ^ (p.second * 0x9E3779B97F4A7C15ull);
    }
  };
  void widen(ColumnData::Kind k);
  void to_int64();          // an int32 column becomes int64 (a value that does not fit, a wider kind)
  void start_null_flags();  // the NULL flags begin (all 0 so far)
  void mark_value() {
    if (col_.any_null) col_.null.push_back(0);
    ++col_.rows;
  }
  int32_t code_of(std::string_view v);
  ColumnData col_;
  size_t reserved_ = 0;
  struct Recent {
    const char* data = nullptr;
    size_t size = 0;
    int32_t code = -1;
  };
  std::array<Recent, 256> recent_{};
  std::unordered_map<std::pair<const char*, size_t>, int32_t, SpanHash> by_address_;
  std::unordered_map<std::string, int32_t> by_text_;
};

template <class F>
void ColumnBuilder::integers(size_t n, F&& value) {
  ColumnData& c = col_;
  if (c.kind == ColumnData::Kind::Real || c.kind == ColumnData::Kind::Text) {  // not a reader's column: value by value
    for (size_t i = 0; i < n; ++i) {
      const std::optional<int64_t> v = value(i);
      v ? integer(*v) : null();
    }
    return;
  }
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  size_t nulls = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::optional<int64_t> v = value(i);
    if (!v) {
      ++nulls;
      continue;
    }
    lo = std::min(lo, *v);
    hi = std::max(hi, *v);
  }
  if (nulls && !c.any_null) start_null_flags();
  const size_t at = c.rows;
  c.rows += n;
  if (c.any_null) c.null.resize(c.rows, 0);
  if (nulls == n && c.kind == ColumnData::Kind::Null) {  // NULLs alone keep a Null column Null
    std::fill(c.null.begin() + static_cast<std::ptrdiff_t>(at), c.null.end(), uint8_t{1});
    return;
  }
  if (c.kind == ColumnData::Kind::Null) {
    c.rows = at;  // widen() fills the rows so far
    widen(ColumnData::Kind::Integer);
    c.rows = at + n;
  }
  if (c.int32 && (lo < std::numeric_limits<int32_t>::min() || hi > std::numeric_limits<int32_t>::max())) to_int64();
  if (c.int32)
    c.ints32.resize(c.rows);
  else
    c.ints.resize(c.rows);
  for (size_t i = 0; i < n; ++i) {
    const std::optional<int64_t> v = value(i);
    if (c.any_null) c.null[at + i] = v ? 0 : 1;
    if (c.int32)
      c.ints32[at + i] = static_cast<int32_t>(v.value_or(0));
    else
      c.ints[at + i] = v.value_or(0);
  }
}

template <class F>
void ColumnBuilder::codes(size_t n, F&& code) {
  ColumnData& c = col_;
  const bool was_null = c.kind == ColumnData::Kind::Null;
  if (c.kind != ColumnData::Kind::Text) widen(ColumnData::Kind::Text);
  const size_t at = c.rows;
  c.codes.resize(at + n);
  size_t nulls = 0;
  for (size_t i = 0; i < n; ++i) {
    const int32_t k = code(i);
    c.codes[at + i] = k;
    nulls += k < 0;
  }
  if (nulls && !c.any_null) start_null_flags();
  c.rows = at + n;
  if (c.any_null) {
    c.null.resize(c.rows, 0);
    for (size_t i = 0; i < n; ++i) c.null[at + i] = c.codes[at + i] < 0 ? 1 : 0;
  }
  if (was_null && nulls == n) {  // NULLs alone keep a Null column Null, as null() does
    c.codes = {};
    c.kind = ColumnData::Kind::Null;
  }
}

}  // namespace goblin::query
