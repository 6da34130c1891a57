#include "trace/telemetry/smi_values.h"

#include <gtest/gtest.h>

namespace goblin::trace::smi {

TEST(SmiValues, NumbersFillTheCell) {
  EXPECT_EQ(to_number(" 42.5 "), 42.5);
  EXPECT_EQ(to_number("-3"), -3);
  EXPECT_FALSE(to_number("42.5W"));
  EXPECT_FALSE(to_number(""));
  EXPECT_FALSE(to_number("inf"));
  EXPECT_FALSE(to_number("nan"));
}

// Both readers use this: the lower-case spelling the rocm-smi reader used to reject included.
TEST(SmiValues, AbsentReadings) {
  for (const char* s : {"", "  ", "N/A", "NA", "n/a", " N/A\r"}) EXPECT_TRUE(is_na(s)) << '"' << s << '"';
  for (const char* s : {"0", "AUTO", "n/a/b", "NaN"}) EXPECT_FALSE(is_na(s)) << s;
}

}  // namespace goblin::trace::smi
