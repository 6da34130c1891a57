#include "core/string_pool.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/limits.h"
#include "core/text.h"

namespace goblin {

TEST(StringPool, InternsOnceAndViewsAreStable) {
  StringPool p;
  EXPECT_EQ(p.intern(""), kNoStr);
  StrId a = p.intern("void at::native::vectorized_elementwise_kernel<4>");
  StrId b = p.intern("ampere_sgemm_128x64_tn");
  EXPECT_NE(a, b);
  EXPECT_EQ(p.intern(std::string("ampere_sgemm_128x64_tn")), b);
  std::string_view va = p.view(a);
  for (int i = 0; i < 100000; ++i) p.intern(fmt::format("k{}", i));  // force many blocks
  EXPECT_EQ(va, "void at::native::vectorized_elementwise_kernel<4>");
  EXPECT_EQ(p.view(a), va);
  EXPECT_EQ(p.find("k99999"), p.intern("k99999"));
  EXPECT_EQ(p.find("absent"), kNoStr);
  std::string big(60000, 'x');  // a long name, within limits::kMaxNameBytes
  StrId c = p.intern(big);
  EXPECT_EQ(p.view(c), big);
  EXPECT_EQ(p.view(p.intern("after big")), "after big");
}

// The index grows many times over; every string keeps its id, near-identical names (the same
// long template prefix, differing in the last bytes or in length) stay apart, and a moved-from
// pool works again.
TEST(StringPool, IdsSurviveGrowthAndSimilarNamesStayApart) {
  StringPool p;
  const std::string prefix(150, 'k');
  std::vector<StrId> ids;
  for (int i = 0; i < 50000; ++i) ids.push_back(p.intern(fmt::format("{}{}", prefix, i)));
  for (size_t n = 1; n <= 40; ++n) ids.push_back(p.intern(std::string(n, 'a')));
  EXPECT_EQ(p.size(), 1u + 50000u + 40u);
  for (int i = 0; i < 50000; ++i) {
    ASSERT_EQ(p.find(fmt::format("{}{}", prefix, i)), ids[static_cast<size_t>(i)]);
    ASSERT_EQ(p.view(ids[static_cast<size_t>(i)]), fmt::format("{}{}", prefix, i));
  }
  for (size_t n = 1; n <= 40; ++n) EXPECT_EQ(p.intern(std::string(n, 'a')), ids[50000 + n - 1]);
  EXPECT_EQ(p.find(prefix), kNoStr);
  StringPool q(std::move(p));
  EXPECT_EQ(q.find(prefix + "7"), ids[7]);
  p = StringPool();
  EXPECT_EQ(p.intern("again"), 1u);
  EXPECT_EQ(p.find("again"), 1u);
}

}  // namespace goblin

namespace goblin {
namespace {

TEST(StringPoolSafety, InvalidUtf8IsStoredWithReplacementCharactersAndCounted) {
  StringPool p;
  const std::string bad = std::string("add\xff\xfe_kernel");
  const StrId a = p.intern(bad);
  EXPECT_EQ(p.view(a), "add\xEF\xBF\xBD\xEF\xBF\xBD_kernel");
  EXPECT_EQ(p.intern(bad), a);                                  // the same raw name maps to the same stored name
  EXPECT_EQ(p.invalid_utf8_replaced(), 2u);                     // counted per interning of an unsafe raw name
  EXPECT_EQ(p.intern("caf\xC3\xA9"), p.intern("caf\xC3\xA9"));  // valid UTF-8 untouched
  EXPECT_EQ(p.view(p.intern("caf\xC3\xA9")), "caf\xC3\xA9");
}

TEST(StringPoolSafety, NamesPastTheLimitAreCutOnACharacterBoundaryWithANote) {
  StringPool p;
  std::string huge(limits::kMaxNameBytes - 1, 'k');
  huge += "\xC3\xA9";  // a two-byte character across the limit
  huge += std::string(1000, 'x');
  const std::string_view v = p.view(p.intern(huge));
  EXPECT_LT(v.size(), limits::kMaxNameBytes + 64);
  EXPECT_NE(v.find("more bytes cut]"), std::string_view::npos);
  EXPECT_FALSE(first_invalid_utf8(v).has_value());
  EXPECT_EQ(p.truncated(), 1u);
}

}  // namespace
}  // namespace goblin
