// An audit round's field list (audit_round_json.cpp): struct -> JSON -> struct, the rounds of the
// reports recorded by earlier audits (bench/results) byte-identical through the struct, and errors
// that name the key.
#include <gtest/gtest.h>

#include "audit/audit_flow.h"
#include "core/io.h"

using namespace goblin;
using namespace goblin::audit;

TEST(AuditRoundJson, KeysAppearAsTheRoundGetsThere) {
  AuditRound r;
  r.round = 2;
  r.config = "rounds/round-1.yaml";
  r.symptoms = {"host_gap"};
  r.stopped = "round 2: the rule base returned no candidate rule";
  EXPECT_EQ(audit_round_to_json(r).dump(), R"({"round":2,"config":"rounds/round-1.yaml","symptoms":["host_gap"],)"
                                           R"("stopped":"round 2: the rule base returned no candidate rule"})");
  // Nothing measured is null; a history that did not record the round is null.
  r.stopped.reset();
  r.measured = std::optional<RoundMeasured>();
  r.history_id = std::optional<int64_t>();
  r.accepted = false;
  const Json j = audit_round_to_json(r);
  EXPECT_TRUE(j.contains("measured") && j["measured"].is_null());
  EXPECT_TRUE(j.contains("history_id") && j["history_id"].is_null());
  auto back = audit_round_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(audit_round_to_json(*back).dump(), j.dump());
  ASSERT_TRUE(back->measured.has_value());
  EXPECT_FALSE(back->measured->has_value());
}

TEST(AuditRoundJson, RecordedRoundsRoundTripByteIdentical) {
  int n = 0;
  for (const char* f : {"tests/fixtures/h100_audit_rounds/base/report.json",
                        "tests/fixtures/h100_audit_rounds/base_workers/report.json",
                        "tests/fixtures/h100_audit_rounds/tuned_compile_current/report.json"}) {
    auto text = read_all(std::string(GOBLIN_SOURCE_DIR) + "/" + f);
    ASSERT_TRUE(text.ok()) << f;
    const Json rep = Json::parse(*text);
    for (const Json& rj : rep["rounds"]) {
      auto r = audit_round_from_json(rj);
      ASSERT_TRUE(r.ok()) << f << ": " << r.error().message;
      EXPECT_EQ(audit_round_to_json(*r).dump(2), rj.dump(2)) << f;
      ++n;
    }
  }
  EXPECT_EQ(n, 6);
}

TEST(AuditRoundJson, MissingOrMistypedKeysNameTheKey) {
  auto r = audit_round_from_json(Json{{"round", 1}, {"measured", {{"speedup", "fast"}}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(r.error().message, "audit round: measured.speedup: expected number, got string");
  r = audit_round_from_json(Json{{"round", "one"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "audit round: round: expected integer, got string");
}
