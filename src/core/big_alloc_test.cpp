// BigAlloc (the model's column allocator): large buffers are their own 2 MiB-aligned mappings,
// small ones come from operator new, and a column behaves as a vector whichever it gets.
#include "core/big_alloc.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace goblin {
namespace {

using Col = std::vector<int64_t, BigAlloc<int64_t>>;

TEST(BigAlloc, LargeBuffersAreHugePageAligned) {
  Col c;
  c.reserve((size_t{3} << 20) / sizeof(int64_t));  // 3 MiB: mapped, rounded to 4 MiB
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c.data()) % big_alloc::kHuge, 0u);
  Col small;
  small.reserve(1000);  // 8 KB: operator new
  EXPECT_NE(small.data(), nullptr);
}

TEST(BigAlloc, ColumnKeepsItsRowsAcrossGrowthFromSmallToMapped) {
  Col c;
  const size_t n = (size_t{5} << 20) / sizeof(int64_t);  // grows through both kinds of buffer
  for (size_t i = 0; i < n; ++i) c.push_back(static_cast<int64_t>(i * 3));
  ASSERT_EQ(c.size(), n);
  int64_t want = 0;
  for (size_t i = 0; i < n; i += 4099) want += static_cast<int64_t>(i * 3);
  int64_t got = 0;
  for (size_t i = 0; i < n; i += 4099) got += c[i];
  EXPECT_EQ(got, want);
  Col copy = c;  // copy and swap free mapped buffers through the same allocator
  Col().swap(c);
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(copy.back(), static_cast<int64_t>((n - 1) * 3));
  copy.shrink_to_fit();
  EXPECT_EQ(copy.size(), n);
}

}  // namespace
}  // namespace goblin
