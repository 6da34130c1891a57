#include "core/io.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/test_support.h"

namespace goblin {

namespace {
std::string gzip(const std::string& s) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(s.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  zs.avail_in = s.size();
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = out.size();
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
std::string tmpfile_with(const std::string& content) {
  static int n = 0;
  auto p = goblin::testing::private_tmp_dir("io") / fmt::format("{}", n++);
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}
}  // namespace

TEST(Io, InflatesGzipBySniffingNotExtension) {
  std::string text(100000, 'a');
  auto path = tmpfile_with(gzip(text));
  auto r = read_all(path);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(*r, text);
}

TEST(Io, ConcatenatedGzipMembers) {
  auto path = tmpfile_with(gzip("hello ") + gzip("world"));
  auto r = read_all(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "hello world");
}

TEST(Io, TruncatedGzipIsMalformedWithOffset) {
  std::string text;
  for (int i = 0; i < 20000; ++i) fmt::format_to(std::back_inserter(text), "{},", i * 7919);
  std::string gz = gzip(text);
  auto path = tmpfile_with(gz.substr(0, gz.size() / 2));
  auto r = read_all(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
  EXPECT_NE(r.error().message.find("truncated"), std::string::npos);
}

TEST(Io, CorruptGzipIsMalformed) {
  std::string gz = gzip(std::string(50000, 'z') + "tail");
  for (size_t i = 20; i < gz.size() - 8; i += 7) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  auto r = read_all(tmpfile_with(gz));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
}

TEST(Io, GzipBombIsRefused) {
  // 300 MB of zeros compresses ~1000x: above the ratio limit once past the check threshold.
  IoLimits lim;
  lim.bomb_check_after = 1 << 20;
  std::string zeros(8 << 20, '\0');
  auto path = tmpfile_with(gzip(zeros));
  auto r = read_all(path, lim);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("gzip bomb"), std::string::npos);
}

TEST(Io, MissingFileAndDirectory) {
  auto r = read_all("/nonexistent/goblin/file.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Io);
  auto d = read_all(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("directory"), std::string::npos);
}

}  // namespace goblin
