// The rule base: lint of the shipped rules, BM25 query over rule text.
#include "audit/rules.h"

#include <gtest/gtest.h>

#include <set>

#include "core/data.h"

using namespace goblin;
using namespace goblin::audit;

namespace {
RuleBase kb() {
  set_data_dir(GOBLIN_DATA_DIR);
  auto k = load_rule_base();
  EXPECT_TRUE(k.ok());
  return *k;
}
}  // namespace

TEST(Rules, LintCleanAndCatchesBadRules) {
  RuleBase k = kb();
  EXPECT_GE(k.rules.size(), 35u);
  auto problems = lint_rules(k);
  for (const auto& p : problems) ADD_FAILURE() << p.describe();
  RuleBase bad;
  ASSERT_TRUE(parse_rules_yaml(R"(rules:
  - id: x.always
    title: t
    category: c
    vendor: any
    symptoms: [s]
    detect: {}
    transform: {nonexistent_field: 1}
    targets_bucket: host_gap
    expected_recovery_fraction: {low: 0.1, high: 0.2, basis: b}
    citation: "MI300X Optimization Guide section 3.2"
)",
                               "bad.yaml", bad)
                  .ok());
  auto errs = lint_rules(bad);
  std::string all;
  for (const auto& e : errs) all += e.message + "\n";
  EXPECT_NE(all.find("detect is empty"), std::string::npos) << all;
  EXPECT_NE(all.find("citation"), std::string::npos) << all;
  EXPECT_NE(all.find("unknown field"), std::string::npos) << all;
}

TEST(Rules, QueryUnionDeduplicates) {
  RuleBase k = kb();
  auto hits =
      kb_query(k, {"DataLoader num_workers=0 starves GPU", "naive eager attention on MI300X", "num_workers"}, 3);
  ASSERT_FALSE(hits.empty());
  std::set<std::string> ids;
  for (const auto& h : hits) {
    EXPECT_TRUE(ids.insert(h.rule->id).second) << "duplicate " << h.rule->id;
    EXPECT_GT(h.score, 0);
  }
  EXPECT_TRUE(ids.count("data.dataloader_workers_zero"));
  EXPECT_TRUE(ids.count("attention.sdpa_over_eager") || ids.count("attention.flash_rocm_over_eager"));
}
