#include "core/dir_walk.h"

#include <gtest/gtest.h>

#include "core/io.h"
#include "core/test_support.h"

namespace goblin {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  ASSERT_TRUE(write_file(p.string(), "x").ok()) << p;
}

TEST(DirWalk, RegularFilesDownToTheDepthSortedByPath) {
  const fs::path d = testing::private_tmp_dir("dir_walk");
  touch(d / "b.json");
  touch(d / "a.json.gz");
  touch(d / "host0" / "rank1.json");
  touch(d / "host0" / "pid7" / "kernel_trace.csv");
  touch(d / "host0" / "pid7" / "deeper" / "too_deep.json");
  fs::create_directories(d / "empty");
  const std::vector<fs::path> want = {d / "a.json.gz", d / "b.json", d / "host0" / "pid7" / "kernel_trace.csv",
                                      d / "host0" / "rank1.json"};
  EXPECT_EQ(regular_files_under(d), want);
  EXPECT_EQ(regular_files_under(d, 0), (std::vector<fs::path>{d / "a.json.gz", d / "b.json"}));
  EXPECT_EQ(regular_files_under(d, 3).size(), 5u);
}

TEST(DirWalk, AMissingDirectoryOrAFileGivesNothing) {
  const fs::path d = testing::private_tmp_dir("dir_walk_missing");
  EXPECT_TRUE(regular_files_under(d / "absent").empty());
  touch(d / "f.json");
  EXPECT_TRUE(regular_files_under(d / "f.json").empty());
}

}  // namespace
}  // namespace goblin
