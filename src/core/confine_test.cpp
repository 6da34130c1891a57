// The confinement at every depth: reads and writes beneath the roots, symlinks that leave them
// refused wherever they sit along the path, FIFOs refused without blocking.
#include "core/confine.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/io.h"

namespace fs = std::filesystem;

namespace goblin {
namespace {

struct Tree {
  fs::path base, root, outside, out;
  Tree() {
    base = fs::temp_directory_path() / fmt::format("goblin_confine_{}", ::getpid());
    fs::remove_all(base);
    root = base / "root";
    outside = base / "outside";
    out = root / "out";
    fs::create_directories(root / "run");
    fs::create_directories(outside);
    fs::create_directories(out);
    std::ofstream(outside / "secret.json") << "{\"secret\": 1}";
    std::ofstream(root / "run" / "trace.json") << "{\"traceEvents\": []}";
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
  Confinement confinement() const { return Confinement{{root.string()}, {out.string()}}; }
};

TEST(Confine, ReadsBeneathTheRootSymlinksOutRefusedAtAnyDepth) {
  Tree t;
  fs::create_symlink(t.outside / "secret.json", t.root / "run" / "leak.json");  // a file link, one level down
  fs::create_symlink(t.outside, t.root / "run" / "elsewhere");                  // a directory link
  fs::create_symlink(t.root / "run" / "trace.json", t.root / "inside.json");    // a link that stays inside
  ConfinementScope scope(t.confinement());

  EXPECT_TRUE(read_all((t.root / "run" / "trace.json").string()).ok());
  EXPECT_TRUE(read_all((t.root / "inside.json").string()).ok());
  auto leak = read_all((t.root / "run" / "leak.json").string());
  ASSERT_FALSE(leak.ok());
  EXPECT_EQ(leak.error().kind, ErrorKind::Usage);
  EXPECT_NE(leak.error().message.find("through a symbolic link"), std::string::npos) << leak.error().message;
  EXPECT_FALSE(read_all((t.root / "run" / "elsewhere" / "secret.json").string()).ok());
  EXPECT_FALSE(check_readable((t.root / "run" / "elsewhere").string(), true).ok());
  EXPECT_TRUE(check_readable((t.root / "run").string(), true).ok());
  // Lexical escapes and plain outside paths.
  EXPECT_FALSE(read_all((t.root / "run" / ".." / ".." / "outside" / "secret.json").string()).ok());
  auto out = read_all((t.outside / "secret.json").string());
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("outside the directories this server may read"), std::string::npos);
}

TEST(Confine, AFifoIsRefusedWithoutBlocking) {
  Tree t;
  ASSERT_EQ(::mkfifo((t.root / "run" / "pipe.json").c_str(), 0600), 0);
  ConfinementScope scope(t.confinement());
  const auto t0 = std::chrono::steady_clock::now();
  auto r = read_all((t.root / "run" / "pipe.json").string());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(Confine, WritesOnlyBeneathTheWriteRootAndNeverThroughAPlantedLink) {
  Tree t;
  fs::create_symlink(t.outside, t.out / "planted");  // a directory under the output folder that leads out
  ConfinementScope scope(t.confinement());
  EXPECT_TRUE(write_file((t.out / "report.json").string(), "{}").ok());
  auto via_link = write_file((t.out / "planted" / "patched.yaml").string(), "x: 1\n");
  ASSERT_FALSE(via_link.ok());
  EXPECT_NE(via_link.error().message.find("through a symbolic link"), std::string::npos) << via_link.error().message;
  EXPECT_FALSE(fs::exists(t.outside / "patched.yaml"));
  auto in_root = write_file((t.root / "run" / "x.json").string(), "{}");  // readable is not writable
  ASSERT_FALSE(in_root.ok());
  EXPECT_NE(in_root.error().message.find("may write"), std::string::npos);
  // A link planted as the file itself is refused too (and the file it points at is untouched).
  fs::create_symlink(t.outside / "secret.json", t.out / "report2.json");
  EXPECT_FALSE(write_file((t.out / "report2.json").string(), "{}").ok());
  std::string secret;
  std::getline(std::ifstream(t.outside / "secret.json"), secret);
  EXPECT_EQ(secret, "{\"secret\": 1}");
}

TEST(Confine, UnconfinedIsTheUsersOwnFilesystem) {
  Tree t;
  fs::create_symlink(t.outside / "secret.json", t.root / "leak.json");
  EXPECT_FALSE(current_confinement().active());
  EXPECT_TRUE(read_all((t.root / "leak.json").string()).ok());  // the CLI follows a user's links
  EXPECT_TRUE(write_file((t.outside / "new.json").string(), "{}").ok());
}

}  // namespace
}  // namespace goblin
