#include "core/json.h"

#include <gtest/gtest.h>

using namespace goblin;

TEST(ParseJsonText, SyntaxErrorNamesByteAndLine) {
  auto j = parse_json_text("{\n \"a\": 1,\n \"b\": ,\n}", "bad.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(j.error().file, "bad.json");
  EXPECT_EQ(j.error().line, 3);
  EXPECT_EQ(j.error().byte_offset, 17);  // the ',' after "b":
}

// Found by fuzz_config: a number beyond double's range is nlohmann's out_of_range (406), not a
// parse_error, so a catch of parse_error alone let it terminate the process.
TEST(ParseJsonText, NumberOverflowIsMalformedWithItsPlace) {
  const std::string text = "{\n  \"lr\": 2e-4,\n  \"learning_rate\": 1e3511111111111111111111,\n  \"x\": 1\n}";
  auto j = parse_json_text(text, "huge.json", "config");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(j.error().line, 3);
  EXPECT_EQ(j.error().byte_offset, static_cast<int64_t>(text.find("1e351")));
  EXPECT_EQ(j.error().message.rfind("config: ", 0), 0u) << j.error().message;
  EXPECT_NE(j.error().message.find("number overflow"), std::string::npos);
}

TEST(ParseJsonText, ValidDocumentRoundTrips) {
  auto j = parse_json_text("{\"a\": [1, 2.5, \"x\"], \"b\": null}", "ok.json");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["a"][1], 2.5);
  EXPECT_TRUE((*j)["b"].is_null());
}
