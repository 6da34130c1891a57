#include "core/decimal.h"

#include <gtest/gtest.h>

namespace goblin {

TEST(Decimal, KinetoMicrosecondsWithThreeDecimalsAreExact) {
  EXPECT_EQ(parse_us_to_ns("4470243533393.883"), 4470243533393883LL);
  EXPECT_EQ(parse_us_to_ns("280.113"), 280113);
  EXPECT_EQ(parse_us_to_ns("0.001"), 1);
  EXPECT_EQ(parse_us_to_ns("0"), 0);
}

TEST(Decimal, EpochMicrosecondsBeyondDoublePrecision) {
  // 1712195495505583.123 µs is not representable as a double; the text is exact.
  EXPECT_EQ(parse_us_to_ns("1712195495505583.123"), 1712195495505583123LL);
  EXPECT_EQ(parse_us_to_ns("1712195495505583.0"), 1712195495505583000LL);
  EXPECT_EQ(parse_us_to_ns("1712195495505583"), 1712195495505583000LL);
}

TEST(Decimal, RoundsExtraDigitsHalfAwayFromZero) {
  EXPECT_EQ(parse_us_to_ns("1.0004"), 1000);
  EXPECT_EQ(parse_us_to_ns("1.0005"), 1001);
  EXPECT_EQ(parse_us_to_ns("-1.0005"), -1001);
  EXPECT_EQ(parse_us_to_ns("2.9999999"), 3000);
}

TEST(Decimal, ExponentsAndSigns) {
  EXPECT_EQ(parse_us_to_ns("1e-05"), 0);  // 0.01 ns rounds to 0
  EXPECT_EQ(parse_us_to_ns("1.5e3"), 1500000);
  EXPECT_EQ(parse_us_to_ns("-3.25"), -3250);
  EXPECT_EQ(parse_us_to_ns("5E+2"), 500000);
}

TEST(Decimal, RejectsNonNumbersAndOverflow) {
  EXPECT_FALSE(parse_us_to_ns(""));
  EXPECT_FALSE(parse_us_to_ns("-"));
  EXPECT_FALSE(parse_us_to_ns("NaN"));
  EXPECT_FALSE(parse_us_to_ns("inf"));
  EXPECT_FALSE(parse_us_to_ns("1.2.3"));
  EXPECT_FALSE(parse_us_to_ns("12a"));
  EXPECT_FALSE(parse_us_to_ns("1e"));
  EXPECT_FALSE(parse_us_to_ns("99999999999999999999"));  // 1e20 µs → beyond int64 ns
  EXPECT_FALSE(parse_us_to_ns("1e300"));
}

TEST(Decimal, OtherScales) {
  EXPECT_EQ(parse_decimal_scaled("123", 0), 123);
  EXPECT_EQ(parse_decimal_scaled("1.5", 9), 1500000000);  // seconds → ns
}

}  // namespace goblin

TEST(WholeInt64, OnlyWholeNumbersInRange) {
  EXPECT_EQ(goblin::whole_int64(16384.0), 16384);
  EXPECT_EQ(goblin::whole_int64(-3.0), -3);
  EXPECT_FALSE(goblin::whole_int64(2.5).has_value());
  EXPECT_FALSE(goblin::whole_int64(6.666e93).has_value());  // fuzz_config's input: no UB cast
  EXPECT_FALSE(goblin::whole_int64(-1e19).has_value());
  EXPECT_FALSE(goblin::whole_int64(std::nan("")).has_value());
}
