// ColumnBuilder: a whole run of values at once (integers(), codes(): TableData::scan's fast
// paths) gives the very column that one call per value gives, and a narrow column holds int32
// until a value does not fit.
#include "query/columns.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace goblin::query {
namespace {

using Opt = std::optional<int64_t>;

void expect_same(const ColumnData& a, const ColumnData& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.int32, b.int32);
  EXPECT_EQ(a.ints, b.ints);
  EXPECT_EQ(a.ints32, b.ints32);
  EXPECT_EQ(a.codes, b.codes);
  EXPECT_EQ(a.dict, b.dict);
  EXPECT_EQ(a.any_null, b.any_null);
  EXPECT_EQ(a.null, b.null);
}

ColumnData one_by_one(const std::vector<std::vector<Opt>>& runs, bool narrow) {
  ColumnBuilder b("c", narrow);
  for (const auto& run : runs)
    for (const Opt& v : run) v ? b.integer(*v) : b.null();
  return b.finish();
}

ColumnData in_runs(const std::vector<std::vector<Opt>>& runs, bool narrow) {
  ColumnBuilder b("c", narrow);
  for (const auto& run : runs) b.integers(run.size(), [&](size_t i) { return run[i]; });
  return b.finish();
}

TEST(ColumnBuilder, IntegerRunsEqualValueByValue) {
  const std::vector<std::vector<std::vector<Opt>>> cases = {
      {{1, 2, 3}},
      {{std::nullopt, std::nullopt}},                    // NULLs alone stay a Null column
      {{std::nullopt}, {4, std::nullopt, 5}},            // NULLs first, then values
      {{1, 2}, {int64_t{1} << 40, std::nullopt}},        // a wide value in the second run
      {{}, {7}, {}},                                     // empty runs
      {{-2147483648LL, 2147483647LL}, {-2147483649LL}},  // int32's edges, then one past
  };
  for (bool narrow : {false, true})
    for (const auto& runs : cases) expect_same(in_runs(runs, narrow), one_by_one(runs, narrow));
}

TEST(ColumnBuilder, NarrowColumnWidensAtTheFirstValueThatDoesNotFit) {
  ColumnData small = in_runs({{1, std::nullopt, 3}}, true);
  EXPECT_TRUE(small.int32);
  EXPECT_EQ(small.ints32, (std::vector<int32_t>{1, 0, 3}));
  EXPECT_TRUE(small.ints.empty());
  ColumnData wide = one_by_one({{1, int64_t{5'000'000'000}}}, true);
  EXPECT_FALSE(wide.int32);
  EXPECT_EQ(wide.ints, (std::vector<int64_t>{1, 5'000'000'000}));
  // A real among a narrow column's integers: the column is real, as for a wide one.
  ColumnBuilder b("c", true);
  b.integer(2);
  b.real(0.5);
  ColumnData r = b.finish();
  EXPECT_EQ(r.kind, ColumnData::Kind::Real);
  EXPECT_EQ(r.reals, (std::vector<double>{2.0, 0.5}));
}

TEST(ColumnBuilder, CodeRunsEqualTextByText) {
  const std::vector<std::vector<std::optional<std::string>>> runs = {
      {std::nullopt, "b", "a", "b"}, {"a", std::nullopt, "c"}, {std::nullopt}};
  ColumnBuilder one("t");
  for (const auto& run : runs)
    for (const auto& v : run) v ? one.text(*v, false) : one.null();
  ColumnBuilder bulk("t");
  for (const auto& run : runs) bulk.codes(run.size(), [&](size_t i) { return run[i] ? bulk.text_code(*run[i]) : -1; });
  expect_same(bulk.finish(), one.finish());
  ColumnBuilder nulls("t");
  nulls.codes(3, [](size_t) { return -1; });
  ColumnData n = nulls.finish();
  EXPECT_EQ(n.kind, ColumnData::Kind::Null);
  EXPECT_EQ(n.rows, 3u);
  EXPECT_EQ(n.null, (std::vector<uint8_t>{1, 1, 1}));
}

}  // namespace
}  // namespace goblin::query
