#include "core/text.h"

#include <gtest/gtest.h>

namespace goblin {

TEST(Text, FirstInvalidUtf8) {
  EXPECT_EQ(first_invalid_utf8("plain ascii"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), std::nullopt);  // é € 😀
  EXPECT_EQ(first_invalid_utf8("ab\xFF"), 2u);                                               // never valid
  EXPECT_EQ(first_invalid_utf8("ab\xC3"), 2u);                                               // truncated
  EXPECT_EQ(first_invalid_utf8("\xC0\xAF"), 0u);                                             // overlong '/'
  EXPECT_EQ(first_invalid_utf8("x\xED\xA0\x80"), 1u);                                        // surrogate
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);                                     // > U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xE2\x28\xA1"), 0u);                                         // bad continuation
}

}  // namespace goblin
