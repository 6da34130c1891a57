// Hostile judge answers and counter values (issue 14): the extractor is linear in the answer's
// size and never recurses into deep text; speed-of-light values outside 0-100 % classify nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "hw/diagnose.h"
#include "hw/ncu_analysis.h"

using namespace goblin;
using namespace goblin::hw;

namespace {

const char* kAnswer =
    R"([{"category": "memory", "summary": "s", "reasoning": "r", "root_causes": [{"cause": "c", "evidence": [{"metric": "m", "value": 1, "interpretation": "i"}], "fixes": [{"fix": "f", "rationale": "r"}]}]}])";

double seconds_to_extract(const std::string& text) {
  auto t0 = std::chrono::steady_clock::now();
  (void)extract_judge_json(text);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(JudgeExtraction, DeepAndUnbalancedTextFindsNothingQuickly) {
  // 200,000-deep [[...]] crashed (recursion); 500 KB of '{' ran for minutes (a scan from each).
  EXPECT_FALSE(extract_judge_json(std::string(200000, '[') + std::string(200000, ']')).has_value());
  EXPECT_FALSE(extract_judge_json(std::string(500000, '{')).has_value());
  std::string quotes;
  for (int i = 0; i < 250000; ++i) quotes += "[\"";
  EXPECT_FALSE(extract_judge_json(quotes).has_value());
  // Not quadratic: at 2 MB a scan from every '{' would take hours; one pass takes milliseconds.
  EXPECT_LT(seconds_to_extract(std::string(2000000, '{')), 5.0);
}

TEST(JudgeExtraction, AnswersAmongStrayBracketsAndQuotes) {
  auto a = extract_judge_json(std::string("Here it is [see \"notes] {x:\n") + kAnswer + "\nthanks");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->how, "embedded array");
  EXPECT_EQ(a->value[0]["category"], "memory");
  auto f = extract_judge_json(std::string("```json\n") + kAnswer + "\n```\n");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->how, "fenced block");
  // An answer nested inside deep junk is still found: spans deeper than the limit are skipped,
  // their shallow insides are not.
  auto d = extract_judge_json(std::string(100, '[') + kAnswer);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->value.size(), 1u);
}

TEST(NcuClassification, SpeedOfLightOutsideZeroToHundredIsNotClassified) {
  auto rules = load_ncu_rules();
  ASSERT_TRUE(rules.ok()) << rules.error().describe();
  CounterKernel k;
  k.key = 1;
  k.name = "k";
  k.m[rules->compute_metrics.front()] = -50;
  k.m[rules->memory_metrics.front()] = -50;
  auto c = classify_ncu_kernel(k, *rules);
  EXPECT_EQ(c.bound, "unknown");
  EXPECT_NE(c.reason.find("outside 0-100 %"), std::string::npos) << c.reason;
  auto d = diagnose_kernel(k, *rules, 132);
  for (const auto& b : d.bottlenecks) EXPECT_NE(b.category, "memory") << "a -50 % memory figure is no evidence";
  k.m[rules->compute_metrics.front()] = 42;
  k.m[rules->memory_metrics.front()] = 1e9;
  EXPECT_EQ(classify_ncu_kernel(k, *rules).bound, "unknown");
  k.m[rules->memory_metrics.front()] = 20;
  EXPECT_NE(classify_ncu_kernel(k, *rules).bound, "unknown");
}

}  // namespace
