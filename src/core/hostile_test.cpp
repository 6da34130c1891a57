// Hostile input at the core (issue 14, docs/robustness.md): JSON nesting refused before parsing,
// size limits for whole-file reads, FIFOs read once, a CSV's byte-order mark and rows that an
// unclosed quote stretched over several lines.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "core/csv.h"
#include "core/io.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/test_support.h"

using namespace goblin;

namespace {

TEST(JsonDepth, RefusedBeforeParsingWithTheByteThatPassedTheLimit) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_EQ(json_depth_exceeded(deep, 512), 512);
  auto j = parse_json_text(deep, "deep.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(j.error().byte_offset, 512);
  EXPECT_NE(j.error().message.find("nested deeper than 512 levels"), std::string::npos);
  // Brackets inside strings do not count; an escaped quote does not end the string.
  EXPECT_EQ(json_depth_exceeded(R"({"a": "[[[[\"[[[[", "b": [1]})", 2), -1);
  EXPECT_EQ(json_depth_exceeded(R"({"a": [[1]]})", 2), 7);
  auto ok = parse_json_text(R"({"a": [[1]]})", "x.json", "JSON", 3);
  EXPECT_TRUE(ok.ok());
}

TEST(ReadAll, SizeLimitHoldsForPlainFiles) {
  auto dir = goblin::testing::private_tmp_dir("read_all_limit");
  const std::string f = (dir / "big.txt").string();
  std::ofstream(f) << std::string(4096, 'x');
  auto r = read_all(f, IoLimits{.max_inflated_bytes = 1000});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
  EXPECT_NE(r.error().message.find("larger than the 1000-byte limit"), std::string::npos) << r.error().message;
  EXPECT_TRUE(read_all(f, IoLimits{.max_inflated_bytes = 4096}).ok());
}

TEST(Streams, AFifoIsReadOnceWhole) {
  auto dir = goblin::testing::private_tmp_dir("fifo");
  const std::string fifo = (dir / "in.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(is_stream_path(fifo));
  EXPECT_FALSE(is_stream_path((dir).string()));
  const std::string payload = "batch_size: 8\n" + std::string(300000, '#') + "\n";
  std::thread writer([&] { std::ofstream(fifo) << payload; });
  auto r = read_all(fifo);
  writer.join();
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(*r, payload);  // the first bytes were not lost to a format sniff
}

TEST(Csv, ByteOrderMarkIsNotPartOfTheFirstHeader) {
  auto csv = CsvReader::from_string("\xEF\xBB\xBF\"Kind\",\"Agent_Id\"\n\"KERNEL_DISPATCH\",4\n");
  std::vector<std::string_view> f;
  ASSERT_TRUE(csv.next(f));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], "Kind");
  ASSERT_TRUE(csv.next(f));
  EXPECT_EQ(f[0], "KERNEL_DISPATCH");
}

TEST(Csv, LinesSpannedShowsAQuoteThatSwallowedRows) {
  auto csv = CsvReader::from_string("a,b\n1,\"x\n2,y\n3,\"z\n4,w\n");
  std::vector<std::string_view> f;
  ASSERT_TRUE(csv.next(f));
  EXPECT_EQ(csv.lines_spanned(), 1);
  ASSERT_TRUE(csv.next(f));
  EXPECT_EQ(csv.lines_spanned(), 3);  // "x\n2,y\n3," ran over three lines
  ASSERT_TRUE(csv.next(f));
  EXPECT_EQ(csv.line(), 5);
  EXPECT_EQ(csv.lines_spanned(), 1);
}

}  // namespace
