#include "query/columns.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace goblin::query {

namespace {
// How SQLite's result reaches the CLI's text (query/output.cpp's value_text): the shortest
// round-trip form of a real, the decimal of an integer.
std::string number_text(int64_t v) { return fmt::format("{}", v); }
std::string number_text(double v) { return fmt::format("{}", v); }
}  // namespace

void ColumnBuilder::reserve(size_t n) { reserved_ = n; }

void ColumnBuilder::to_int64() {
  ColumnData& c = col_;
  c.ints.reserve(std::max(reserved_, c.ints32.size() + 1));
  c.ints.assign(c.ints32.begin(), c.ints32.end());
  c.ints32 = {};
  c.int32 = false;
}

void ColumnBuilder::start_null_flags() {
  col_.null.reserve(std::max(reserved_, col_.rows + 1));
  col_.null.assign(col_.rows, 0);
  col_.any_null = true;
}

void ColumnBuilder::widen(ColumnData::Kind k) {
  ColumnData& c = col_;
  if (c.int32) to_int64();  // a real or a text among a narrow column's integers
  const size_t n = c.rows;
  // The kind's array grows to the reserved size at once (no doubling copies of a 5 M-row column).
  const size_t cap = std::max(reserved_, n + 1);
  if (k == ColumnData::Kind::Integer && c.kind == ColumnData::Kind::Null && c.narrow) {
    c.int32 = true;
    c.ints32.reserve(cap);
    c.ints32.assign(n, 0);
    c.kind = k;
    return;
  }
  if (k == ColumnData::Kind::Integer) c.ints.reserve(cap);
  if (k == ColumnData::Kind::Real) c.reals.reserve(cap);
  if (k == ColumnData::Kind::Text) c.codes.reserve(cap);
  if (c.kind == ColumnData::Kind::Null) {
    if (k == ColumnData::Kind::Integer) c.ints.assign(n, 0);
    if (k == ColumnData::Kind::Real) c.reals.assign(n, NAN);
    if (k == ColumnData::Kind::Text) c.codes.assign(n, -1);
  } else if (c.kind == ColumnData::Kind::Integer && k == ColumnData::Kind::Real) {
    c.reals.assign(c.ints.begin(), c.ints.end());
    for (size_t i = 0; i < n; ++i)
      if (c.is_null(i)) c.reals[i] = NAN;
    c.ints = {};
  } else if (k == ColumnData::Kind::Text) {  // numbers so far become their text
    std::vector<int32_t> codes(n, -1);
    codes.reserve(cap);
    for (size_t i = 0; i < n; ++i)
      if (!c.is_null(i))
        codes[i] = code_of(c.kind == ColumnData::Kind::Integer ? number_text(c.ints[i]) : number_text(c.reals[i]));
    c.codes = std::move(codes);
    c.ints = {};
    c.reals = {};
  }
  c.kind = k;
}

int32_t ColumnBuilder::code_of(std::string_view v) {
  auto [it, added] = by_text_.try_emplace(std::string(v), static_cast<int32_t>(col_.dict.size()));
  if (added) col_.dict.emplace_back(v);
  return it->second;
}

void ColumnBuilder::null() {
  if (!col_.any_null) start_null_flags();  // the flags start at the first NULL: most columns never need them
  col_.null.push_back(1);
  ++col_.rows;
  switch (col_.kind) {
    case ColumnData::Kind::Null:
      break;
    case ColumnData::Kind::Integer:
      if (col_.int32)
        col_.ints32.push_back(0);
      else
        col_.ints.push_back(0);
      break;
    case ColumnData::Kind::Real:
      col_.reals.push_back(NAN);
      break;
    case ColumnData::Kind::Text:
      col_.codes.push_back(-1);
      break;
  }
}

void ColumnBuilder::integer(int64_t v) {
  if (col_.kind == ColumnData::Kind::Null) widen(ColumnData::Kind::Integer);
  if (col_.int32 && (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())) to_int64();
  mark_value();
  if (col_.int32)
    col_.ints32.push_back(static_cast<int32_t>(v));
  else if (col_.kind == ColumnData::Kind::Integer)
    col_.ints.push_back(v);
  else if (col_.kind == ColumnData::Kind::Real)
    col_.reals.push_back(static_cast<double>(v));
  else
    col_.codes.push_back(code_of(number_text(v)));
}

void ColumnBuilder::real(double v) {
  if (col_.kind == ColumnData::Kind::Null || col_.kind == ColumnData::Kind::Integer) widen(ColumnData::Kind::Real);
  mark_value();
  if (col_.kind == ColumnData::Kind::Real)
    col_.reals.push_back(v);
  else
    col_.codes.push_back(code_of(number_text(v)));
}

void ColumnBuilder::text(std::string_view v, bool stable) {
  if (col_.kind != ColumnData::Kind::Text) widen(ColumnData::Kind::Text);
  mark_value();
  if (!stable) {
    col_.codes.push_back(code_of(v));
    return;
  }
  // A few distinct values repeat over millions of rows: a direct-mapped cache in front of the
  // hash map answers most of them with one compare.
  Recent& slot = recent_[(reinterpret_cast<uintptr_t>(v.data()) >> 3 ^ v.size()) % recent_.size()];
  if (slot.data != v.data() || slot.size != v.size()) {
    auto [it, added] = by_address_.try_emplace({v.data(), v.size()}, 0);
    if (added) it->second = code_of(v);
    slot = {v.data(), v.size(), it->second};
  }
  col_.codes.push_back(slot.code);
}

ColumnData ColumnBuilder::finish() {
  by_address_.clear();
  by_text_.clear();
  return std::move(col_);
}

}  // namespace goblin::query
