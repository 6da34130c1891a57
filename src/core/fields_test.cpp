#include "core/fields.h"

#include <gtest/gtest.h>

using namespace goblin;

namespace {
struct Inner {
  std::string name;
  double share = 0;
  bool operator==(const Inner&) const = default;
};
struct Outer {
  int64_t count = 0;
  std::string kind = "trace";
  std::optional<double> rate;       // written null when unknown
  std::optional<std::string> note;  // left out when unknown
  std::vector<Inner> parts;
  std::vector<std::string> tags;
  std::map<std::string, std::string> versions;
  Json blob;
  bool operator==(const Outer&) const = default;
};
struct Strict {
  int64_t n = 0;
};
}  // namespace

template <>
struct goblin::fields::List<Inner> {
  static inline const auto fields = std::tuple{fields::field("name", &Inner::name, fields::Required),
                                               fields::field("share", &Inner::share, fields::Num{3})};
};
template <>
struct goblin::fields::List<Outer> {
  static inline const auto fields = std::tuple{fields::field("count", &Outer::count, fields::Required),
                                               fields::field("kind", &Outer::kind),
                                               fields::Const<Outer>{"unit", "seconds"},
                                               fields::field("rate", &Outer::rate, fields::Opt<fields::Num>{{2}}),
                                               fields::field("note", &Outer::note, fields::Omit),
                                               fields::field("parts", &Outer::parts),
                                               fields::field("tags", &Outer::tags),
                                               fields::field("versions", &Outer::versions),
                                               fields::field("blob", &Outer::blob)};
};
template <>
struct goblin::fields::List<Strict> {
  static constexpr bool strict = true;
  static inline const auto fields = std::tuple{fields::field("n", &Strict::n)};
};

TEST(Fields, WritesInListOrderWithNullsAndOmissions) {
  Outer o;
  o.count = 3;
  o.parts = {{"a", 0.12345}, {"b", 1}};
  o.tags = {"x"};
  o.versions = {{"cuda", "12.4"}};
  o.blob = Json{{"free", 1}};
  EXPECT_EQ(fields::to_json(o).dump(),
            R"({"count":3,"kind":"trace","unit":"seconds","rate":null,"parts":[{"name":"a","share":0.123},)"
            R"({"name":"b","share":1.0}],"tags":["x"],"versions":{"cuda":"12.4"},"blob":{"free":1}})");
  o.note = "n";
  o.rate = 2.555;
  EXPECT_EQ(fields::to_json(o)["note"], "n");
  EXPECT_EQ(fields::to_json(o)["rate"].get<double>(), 2.56);
}

TEST(Fields, RoundTripsStructToJsonToStruct) {
  Outer o;
  o.count = -7;
  o.kind = "live";
  o.rate = 1.5;
  o.note = "n";
  o.parts = {{"a", 0.5}};
  o.tags = {"x", "y"};
  o.versions = {{"gpu", "H100"}};
  o.blob = Json::array({1, 2});
  auto back = fields::from_json<Outer>(fields::to_json(o), "outer");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, o);
  // JSON -> struct -> the same JSON.
  EXPECT_EQ(fields::to_json(*back), fields::to_json(o));
}

TEST(Fields, AbsentOptionalKeysKeepDefaultsAndUnknownKeysAreTolerated) {
  auto o = fields::from_json<Outer>(Json{{"count", 1}, {"surprise", true}, {"unit", "ignored"}}, "outer");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->kind, "trace");
  EXPECT_FALSE(o->rate);
  EXPECT_TRUE(o->parts.empty());
  // Non-string map values are kept as their JSON text.
  o = fields::from_json<Outer>(Json{{"count", 1}, {"versions", {{"cuda", 12.4}}}}, "outer");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->versions.at("cuda"), "12.4");
}

TEST(Fields, MissingOrMistypedKeysAreMalformedAndNameTheKey) {
  auto o = fields::from_json<Outer>(Json{{"kind", "x"}}, "outer");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(o.error().message, "outer: missing required key count");

  o = fields::from_json<Outer>(Json{{"count", 1}, {"parts", {{{"name", "a"}, {"share", "big"}}}}}, "outer");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().message, "outer: parts[0].share: expected number, got string");

  o = fields::from_json<Outer>(Json{{"count", 1}, {"parts", {{{"share", 1}}}}}, "outer");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().message, "outer: missing required key parts[0].name");

  o = fields::from_json<Outer>(Json{{"count", 1.5}}, "outer");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().message, "outer: count: expected integer, got number");

  o = fields::from_json<Outer>(Json::array(), "outer");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().message, "outer: value: expected object, got array");
}

TEST(Fields, IntegersOutsideTheTypeAreMalformedNotConverted) {
  // Found by fuzz_rank_summary: 4.56e75 read into an int64 was converted (undefined behaviour).
  for (Json bad : {Json(4.56347e75), Json(-4.56347e75), Json(9223372036854775808.0),
                   Json(std::numeric_limits<uint64_t>::max())}) {
    auto o = fields::from_json<Outer>(Json{{"count", bad}}, "outer");
    ASSERT_FALSE(o.ok()) << bad.dump();
    EXPECT_EQ(o.error().message.rfind("outer: count: expected integer in range, got ", 0), 0u) << o.error().message;
  }
  auto o = fields::from_json<Outer>(Json{{"count", 3.0}}, "outer");  // a count printed as a float
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->count, 3);
  o = fields::from_json<Outer>(Json{{"count", -9223372036854775807LL - 1}}, "outer");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->count, std::numeric_limits<int64_t>::min());
  int32_t narrow = 0;
  EXPECT_FALSE(fields::Int{}.read(Json(int64_t{1} << 40), narrow, "n").ok());
  uint32_t unsigned_narrow = 0;
  EXPECT_FALSE(fields::Int{}.read(Json(-1), unsigned_narrow, "n").ok());
  EXPECT_TRUE(fields::Int{}.read(Json(4294967295u), unsigned_narrow, "n").ok());
  EXPECT_EQ(unsigned_narrow, 4294967295u);
}

TEST(Fields, StrictListsRefuseUnknownKeys) {
  EXPECT_TRUE(fields::from_json<Strict>(Json{{"n", 1}}, "s").ok());
  auto s = fields::from_json<Strict>(Json{{"n", 1}, {"m", 2}}, "s");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "s: unknown key m");
}
