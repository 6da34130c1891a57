// The step range's name (model/profiler_step.h): the prefix test every reader and analysis uses,
// and the stricter numbered form that step detection counts.
#include "model/profiler_step.h"

#include <gtest/gtest.h>

#include <string>

namespace goblin {
namespace {

TEST(ProfilerStep, PrefixMatchesEveryStepRange) {
  EXPECT_EQ(kProfilerStepPrefix, "ProfilerStep#");
  EXPECT_TRUE(is_profiler_step("ProfilerStep#0"));
  EXPECT_TRUE(is_profiler_step("ProfilerStep#12"));
  EXPECT_TRUE(is_profiler_step("ProfilerStep#"));
  EXPECT_TRUE(is_profiler_step("ProfilerStep#x"));
  EXPECT_FALSE(is_profiler_step("ProfilerStep"));
  EXPECT_FALSE(is_profiler_step("profilerstep#1"));  // case matters: Kineto's spelling only
  EXPECT_FALSE(is_profiler_step(" ProfilerStep#1"));
  EXPECT_FALSE(is_profiler_step("Optimizer.step#AdamW.step"));
  EXPECT_FALSE(is_profiler_step(""));
}

TEST(ProfilerStep, NumberedFormIsThePrefixAndDigitsOnly) {
  EXPECT_TRUE(is_numbered_profiler_step("ProfilerStep#0"));
  EXPECT_TRUE(is_numbered_profiler_step("ProfilerStep#4096"));
  EXPECT_TRUE(is_numbered_profiler_step("ProfilerStep#" + std::string(40, '9')));  // no overflow: not parsed
  EXPECT_FALSE(is_numbered_profiler_step("ProfilerStep#"));
  EXPECT_FALSE(is_numbered_profiler_step("ProfilerStep#-1"));
  EXPECT_FALSE(is_numbered_profiler_step("ProfilerStep#3a"));
  EXPECT_FALSE(is_numbered_profiler_step("ProfilerStep#3 "));
  EXPECT_FALSE(is_numbered_profiler_step("ProfilerStep3"));
  EXPECT_FALSE(is_numbered_profiler_step("xProfilerStep#3"));
}

}  // namespace
}  // namespace goblin
