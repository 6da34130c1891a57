// The one safe writer: no write through a symlink, none over a device or FIFO, nothing
// half-written on failure, the old file intact, permissions kept.
#include "core/atomic_file.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/io.h"

namespace fs = std::filesystem;
using namespace goblin;

namespace {
fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / fmt::format("goblin_atomic_{}_{}", ::getpid(), name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
size_t entries(const fs::path& d) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++n;
  return n;
}
}  // namespace

TEST(AtomicFile, ReplacesWholeAndKeepsPermissions) {
  fs::path d = scratch("replace");
  const fs::path f = d / "cfg.yaml";
  ASSERT_TRUE(write_file(f.string(), "old\n").ok());
  fs::permissions(f, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  ASSERT_TRUE(write_file(f.string(), "new content\n").ok());
  EXPECT_EQ(slurp(f), "new content\n");
  EXPECT_EQ(fs::status(f).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(entries(d), 1u);  // no temporary file left behind
}

TEST(AtomicFile, RefusesSymlinksAndNonRegularTargets) {
  fs::path d = scratch("refuse");
  const fs::path victim = d / "outside.txt";
  ASSERT_TRUE(write_file(victim.string(), "precious\n").ok());
  fs::create_symlink(victim, d / "link.txt");
  Status s = write_file((d / "link.txt").string(), "overwritten\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Io);
  EXPECT_NE(s.error().message.find("symbolic link"), std::string::npos);
  EXPECT_EQ(slurp(victim), "precious\n");
  // A device (patch -o /dev/full used to report success) and a FIFO are refused, not written.
  Status full = write_file("/dev/full", "x");
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.error().message.find("not a regular file"), std::string::npos);
  ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
  EXPECT_FALSE(write_file((d / "fifo").string(), "x").ok());
  EXPECT_FALSE(write_file(d.string(), "x").ok());  // a directory
}

TEST(AtomicFile, FailedWriteLeavesTheOldFile) {
  fs::path d = scratch("fail");
  const fs::path f = d / "report.json";
  ASSERT_TRUE(write_file(f.string(), "{\"v\": 1}\n").ok());
  {
    auto a = AtomicFile::create(f.string());
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(a->write("{\"v\": 2"));
    // Dropped without commit (what an error path does): the old file stays, no temporary left.
  }
  EXPECT_EQ(slurp(f), "{\"v\": 1}\n");
  EXPECT_EQ(entries(d), 1u);
  // A write that fails (the descriptor closed under it) is reported by commit, and nothing moves.
  auto b = AtomicFile::create(f.string());
  ASSERT_TRUE(b.ok());
  ::close(b->fd());
  EXPECT_FALSE(b->write("{\"v\": 3}\n"));
  Status c = b->commit();
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("write failed"), std::string::npos) << c.error().message;
  EXPECT_EQ(slurp(f), "{\"v\": 1}\n");
}

TEST(AtomicFile, MissingDirectoryIsAnIoError) {
  Status s = write_file("/nonexistent_goblin_dir/x/y.json", "{}");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Io);
}
