// A verb declared with typed_request (app/verb.h) gets its fields from the params and reads the
// door's validated request into its struct: every field kind lands in its member, a default the
// field declares is what the member holds when the caller gives nothing, an optional stays empty
// when absent, and a value of the wrong type that reaches run (a caller that skipped make_request)
// is an error naming the field, never a silent zero.
#include <gtest/gtest.h>

#include "app/registry.h"
#include "app/verb.h"

namespace goblin::app {
namespace {

struct Options {
  std::string mode = "fast";
  int64_t depth = 0;
};

struct ProbeRequest {
  std::string path;
  std::vector<std::string> names;
  int64_t top = 0;
  double scale = 0;
  bool loud = false;
  std::optional<std::string> label;
  std::optional<int64_t> steps;
  Json config;
  Options o;
};

Verb probe_verb(ProbeRequest* seen) {
  Verb v;
  v.cli_path = {"probe"};
  Field path{"path", FieldKind::InputPath, "a file"};
  path.required = true;
  Field top{"top", FieldKind::Integer, "rows", 7};
  top.min = 1;
  top.max = 100;
  using P = ProbeRequest;
  typed_request<P>(
      v,
      [seen](const P& rq, Context&) {
        *seen = rq;
        return VerbResult{Json{{"ok", true}}};
      },
      param(&P::path, path), param(&P::names, Field{"names", FieldKind::StringList, "names"}), param(&P::top, top),
      param(&P::scale, Field{"scale", FieldKind::Number, "scale", 1.5}),
      param(&P::loud, Field{"loud", FieldKind::Boolean, "loud", false}),
      param(&P::label, Field{"label", FieldKind::String, "label"}),
      param(&P::steps, Field{"steps", FieldKind::Integer, "steps"}),
      param(&P::config, Field{"config", FieldKind::Object, "config"}),
      param(&P::o, &Options::mode, Field{"mode", FieldKind::String, "mode", "slow"}),
      param(&P::o, &Options::depth, Field{"depth", FieldKind::Integer, "depth", 3}));
  return v;
}

TEST(TypedRequest, TheParamsAreTheVerbsFieldsInOrder) {
  ProbeRequest seen;
  const Verb v = probe_verb(&seen);
  std::vector<std::string> names;
  for (const Field& f : v.request) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"path", "names", "top", "scale", "loud", "label", "steps", "config",
                                             "mode", "depth"}));
}

TEST(TypedRequest, EveryKindLandsInItsMember) {
  ProbeRequest seen;
  const Verb v = probe_verb(&seen);
  Json args = {{"path", "t.json"}, {"names", "only"},      {"top", 12},      {"scale", 2}, {"loud", true},
               {"label", "x"},     {"config", {{"a", 1}}}, {"mode", "exact"}};
  auto rq = make_request(v, args, kMcp, nullptr);
  ASSERT_TRUE(rq.ok()) << rq.error().message;
  Context ctx;
  VerbResult r = v.run(*rq, ctx);
  ASSERT_FALSE(r.error) << r.error->message;
  EXPECT_EQ(seen.path, "t.json");
  EXPECT_EQ(seen.names, std::vector<std::string>{"only"});  // a lone string is a list of one
  EXPECT_EQ(seen.top, 12);
  EXPECT_DOUBLE_EQ(seen.scale, 2.0);
  EXPECT_TRUE(seen.loud);
  ASSERT_TRUE(seen.label.has_value());
  EXPECT_EQ(*seen.label, "x");
  EXPECT_FALSE(seen.steps.has_value());  // absent, no default: empty, not 0
  EXPECT_EQ(seen.config["a"], 1);
  EXPECT_EQ(seen.o.mode, "exact");
  EXPECT_EQ(seen.o.depth, 3);  // the field's default, not the struct's
}

TEST(TypedRequest, DefaultsComeFromTheFields) {
  ProbeRequest seen;
  const Verb v = probe_verb(&seen);
  auto rq = make_request(v, Json{{"path", "t.json"}}, kCli, nullptr);
  ASSERT_TRUE(rq.ok());
  Context ctx;
  ASSERT_FALSE(v.run(*rq, ctx).error);
  EXPECT_EQ(seen.top, 7);
  EXPECT_DOUBLE_EQ(seen.scale, 1.5);
  EXPECT_FALSE(seen.loud);
  EXPECT_FALSE(seen.label.has_value());
  EXPECT_TRUE(seen.names.empty());
  EXPECT_EQ(seen.o.mode, "slow");
}

TEST(TypedRequest, AValueOfTheWrongTypeIsAnErrorNamingTheField) {
  ProbeRequest seen;
  const Verb v = probe_verb(&seen);
  // Straight to run, past make_request's checks (a door that built the Request itself).
  Context ctx;
  VerbResult r = v.run(Request(Json{{"path", "t.json"}, {"top", "twelve"}}), ctx);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->kind, ErrorKind::Malformed);
  EXPECT_NE(r.error->message.find("top"), std::string::npos) << r.error->message;
}

TEST(TypedRequest, EveryRegisteredVerbHasARun) {
  for (const Verb& v : verbs()) EXPECT_TRUE(static_cast<bool>(v.run)) << v.cli_name();
}

}  // namespace
}  // namespace goblin::app
