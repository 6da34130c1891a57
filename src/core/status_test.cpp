#include "core/status.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace goblin {
namespace {

Result<int> parse_positive(int x) {
  if (x <= 0) return make_error(ErrorKind::Malformed, "not positive", "f.txt", 7);
  return x;
}

Status check(int x) {
  RETURN_IF_ERROR(parse_positive(x));
  return {};
}

Result<std::string> twice(int x) {
  ASSIGN_OR_RETURN(const int v, parse_positive(x));
  ASSIGN_OR_RETURN(auto again, parse_positive(v * 2));  // two in one scope: distinct temporaries
  return fmt::format("{}", again);
}

Result<std::unique_ptr<int>> boxed(int x) {
  if (x < 0) return make_error(ErrorKind::Usage, "negative");
  return std::make_unique<int>(x);
}

Result<int> unbox(int x) {
  ASSIGN_OR_RETURN(auto p, boxed(x));  // a move-only value is moved out of the Result
  return *p + 1;
}

TEST(StatusMacros, ReturnIfErrorPassesTheErrorThroughUnchanged) {
  EXPECT_TRUE(check(3).ok());
  Status s = check(-1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(s.error().file, "f.txt");
  EXPECT_EQ(s.error().byte_offset, 7);
}

TEST(StatusMacros, AssignOrReturnBindsTheValueOrReturnsTheError) {
  auto ok = twice(4);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, "8");
  auto bad = twice(0);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "not positive");
  EXPECT_EQ(*unbox(41), 42);
  EXPECT_EQ(unbox(-1).error().kind, ErrorKind::Usage);
}

}  // namespace
}  // namespace goblin
