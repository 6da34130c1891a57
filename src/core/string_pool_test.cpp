#include "core/string_pool.h"

#include <gtest/gtest.h>

#include <string>

namespace goblin {

TEST(StringPool, InternsOnceAndViewsAreStable) {
  StringPool p;
  EXPECT_EQ(p.intern(""), kNoStr);
  StrId a = p.intern("void at::native::vectorized_elementwise_kernel<4>");
  StrId b = p.intern("ampere_sgemm_128x64_tn");
  EXPECT_NE(a, b);
  EXPECT_EQ(p.intern(std::string("ampere_sgemm_128x64_tn")), b);
  std::string_view va = p.view(a);
  for (int i = 0; i < 100000; ++i) p.intern("k" + std::to_string(i));  // force many blocks
  EXPECT_EQ(va, "void at::native::vectorized_elementwise_kernel<4>");
  EXPECT_EQ(p.view(a), va);
  EXPECT_EQ(p.find("k99999"), p.intern("k99999"));
  EXPECT_EQ(p.find("absent"), kNoStr);
  std::string big(200000, 'x');
  StrId c = p.intern(big);
  EXPECT_EQ(p.view(c), big);
  EXPECT_EQ(p.view(p.intern("after big")), "after big");
}

}  // namespace goblin
