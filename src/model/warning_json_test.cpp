// The one JSON form of a warning (model/warning_json.h): written with the catalogue's severity,
// read back to the same Warning, and read from the bare strings older goblins wrote.
#include "model/warning_json.h"

#include <gtest/gtest.h>

namespace goblin {
namespace {

TEST(WarningJson, WritesTheCatalogueShapeAndReadsItBack) {
  Warning w = make_warning(W::ncu_row_short, "row 3 is short");
  w.file = "a.csv";
  w.line = 3;
  w.count = 2;
  const Json j = warning_to_json(w);
  EXPECT_EQ(
      j.dump(),
      R"({"id":"ncu_row_short","severity":"data_loss","message":"row 3 is short","file":"a.csv","line":3,"count":2})");
  Warning back;
  ASSERT_TRUE(warning_from_json(j, back, "w").ok());
  EXPECT_EQ(back.id, W::ncu_row_short);
  EXPECT_EQ(back.message, w.message);
  EXPECT_EQ(back.file, w.file);
  EXPECT_EQ(back.line, 3);
  EXPECT_EQ(back.byte_offset, -1);
  EXPECT_EQ(back.count, 2);
  EXPECT_EQ(warning_text(back), "row 3 is short (x2)");
  EXPECT_EQ(warning_text(make_warning(W::hbm_unobserved, "once")), "once");
  // The plain case: no place, count 1.
  EXPECT_EQ(warning_to_json(make_warning(W::hbm_unobserved, "m")).dump(),
            R"({"id":"hbm_unobserved","severity":"info","message":"m","count":1})");
}

TEST(WarningJson, ReadsOldStringsAndRefusesUnknownIds) {
  Warning w;
  ASSERT_TRUE(warning_from_json(Json("an old note"), w, "warnings[0]").ok());
  EXPECT_EQ(w.id, W::untyped_note);
  EXPECT_EQ(w.message, "an old note");
  auto bad = warning_from_json(Json{{"id", "no_such_warning"}, {"message", "x"}}, w, "warnings[1]");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("warnings[1].id"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(warning_from_json(Json(3), w, "warnings[2]").ok());
}

TEST(WarningJson, SchemaListsEveryId) {
  const Json s = warnings_json_schema("d");
  EXPECT_EQ(s["type"], "array");
  EXPECT_EQ(s["items"]["properties"]["id"]["enum"].size(), warning_catalogue().size());
  EXPECT_EQ(warning_id_from_name("stream_overlap"), W::stream_overlap);
  EXPECT_FALSE(warning_id_from_name("nope").has_value());
}

}  // namespace
}  // namespace goblin
