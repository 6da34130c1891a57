// A query result held column by column: typed arrays (int64, double, int32 codes into a
// dictionary of distinct texts) and a NULL flag per value — what the Python door hands to numpy
// and pandas without a Python object per row. Built one value at a time, either from SQLite's
// result rows (any statement) or straight from the query tables' getters (TableData::scan, a
// whole table without SQLite), and both builds give the same columns.
#pragma once
#include <array>
#include <cstdint>
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
  std::vector<double> reals;
  std::vector<int32_t> codes;     // Text: index into dict, -1 for NULL
  std::vector<std::string> dict;  // Text: each distinct value once
  std::vector<uint8_t> null;      // 1 where the value is NULL; empty while no value is NULL
  bool any_null = false;
  size_t rows = 0;
  size_t size() const { return rows; }
  bool is_null(size_t i) const { return any_null && null[i] != 0; }
};

class ColumnBuilder {
 public:
  explicit ColumnBuilder(std::string name = {}) { col_.name = std::move(name); }
  void reserve(size_t n);
  void integer(int64_t v);
  void real(double v);
  void null();
  // `stable`: the bytes outlive the builder at that address (a string pool, a kept analysis
  // result), so the value is looked up by address, not hashed by content — the difference
  // between ~5 ns and ~50 ns a value on a column of long kernel names.
  void text(std::string_view v, bool stable);
  // The column (texts from different addresses with the same bytes share one code).
  ColumnData finish();

 private:
  struct SpanHash {
    size_t operator()(const std::pair<const char*, size_t>& p) const {
      return std::hash<const void*>()(p.first) ^ (p.second * 0x9E3779B97F4A7C15ull);
    }
  };
  void widen(ColumnData::Kind k);
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

}  // namespace goblin::query
