#include "core/csv.h"

#include <gtest/gtest.h>

namespace goblin {

namespace {
std::vector<std::vector<std::string>> all(CsvReader r) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string_view> f;
  while (r.next(f)) out.emplace_back(f.begin(), f.end());
  return out;
}
}  // namespace

TEST(Csv, QuotedFieldsEscapesAndEmbeddedNewlines) {
  auto rows = all(CsvReader::from_string("\"a\",\"b, c\",d\n1,\"say \"\"hi\"\"\",\"x\ny\"\n"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a", "b, c", "d"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1", "say \"hi\"", "x\ny"}));
}

TEST(Csv, CrlfBlankLinesAndMissingFinalNewline) {
  auto rows = all(CsvReader::from_string("h1,h2\r\n\r\n1,2\r\n3,"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"3", ""}));
}

TEST(Csv, TracksLinesOfRecords) {
  auto r = CsvReader::from_string("a\n\"multi\nline\"\nlast\n");
  std::vector<std::string_view> f;
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(r.line(), 1);
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(r.line(), 2);
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(r.line(), 4);
  EXPECT_EQ(f[0], "last");
}

TEST(Csv, TrimForNvidiaSmiSeparators) {
  auto rows = all(CsvReader::from_string("timestamp, index, name\n2026/11/22 06:05:38.730, 0, NVIDIA H100\n", ',', true));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][2], "NVIDIA H100");
  EXPECT_EQ(rows[1][1], "0");
}

TEST(Csv, UnterminatedQuoteIsAnErrorWithLine) {
  auto r = CsvReader::from_string("a,b\n1,\"never closed\n2,3\n");
  std::vector<std::string_view> f;
  ASSERT_TRUE(r.next(f));
  r.next(f);
  ASSERT_NE(r.error(), nullptr);
  EXPECT_EQ(r.error()->line, 2);
  EXPECT_EQ(r.error()->kind, ErrorKind::Malformed);
}

}  // namespace goblin
