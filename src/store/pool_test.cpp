// The store pool (store/pool.h) on SQLite and on the real PostgreSQL server of pg_test_server.h:
// connections are reused, bounded (a caller past the bound waits, then gets a clear error), and a
// connection broken while idle (its server backend terminated) is replaced by a fresh one, the
// request served.
#include "store/pool.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "store/pg_test_server.h"

namespace goblin::store {
namespace {

namespace fs = std::filesystem;

class PoolSuite : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      dir_ = fs::temp_directory_path() /
             fs::path(fmt::format("goblin_pool_{}_{}", getpid(),
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name()));
      fs::remove_all(dir_);
      fs::create_directories(dir_);
      url_ = "sqlite://" + (dir_ / "runs.db").string();
    } else {
      auto& pg = testing::PgTestServer::get();
      if (!pg.ok()) GTEST_SKIP() << "PostgreSQL tests skipped: " << pg.why();
      url_ = pg.fresh_database_url();
    }
    ASSERT_TRUE(Store::open(url_, /*create=*/true).ok());
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  fs::path dir_;
  std::string url_;
};

TEST_P(PoolSuite, ReusesConnections) {
  StorePool pool(url_, 4);
  std::string first;
  for (int i = 0; i < 20; ++i) {
    auto l = pool.acquire();
    ASSERT_TRUE(l.ok()) << l.error().describe();
    ASSERT_TRUE((*l)->count({}).ok());
    if (i == 0) first = (*l)->session();
    EXPECT_EQ((*l)->session(), first);  // the same server session every time
  }
  EXPECT_EQ(pool.open_count(), 1u);
  EXPECT_EQ(pool.idle_count(), 1u);
}

TEST_P(PoolSuite, BoundedCallersWaitThenGetAClearError) {
  StorePool pool(url_, 2);
  auto a = pool.acquire();
  auto b = pool.acquire();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(pool.open_count(), 2u);
  auto c = pool.acquire(std::chrono::milliseconds(50));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("busy"), std::string::npos) << c.error().message;
  // One returned while a third caller waits: the waiter gets it.
  std::thread giver([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    { auto done = std::move(*a); }
  });
  auto d = pool.acquire(std::chrono::seconds(10));
  giver.join();
  ASSERT_TRUE(d.ok()) << d.error().describe();
  EXPECT_EQ(pool.open_count(), 2u);
}

// A store not made yet: NotFound, no connection kept, and the file is not created (a read door
// never makes a store).
TEST(PoolSqlite, MissingStoreIsNotFoundAndNothingIsKept) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("goblin_pool_{}_missing", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  StorePool pool("sqlite://" + (dir / "none.db").string(), 2);
  auto l = pool.acquire();
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().kind, ErrorKind::NotFound);
  EXPECT_EQ(pool.open_count(), 0u);
  EXPECT_FALSE(fs::exists(dir / "none.db"));
  fs::remove_all(dir);
}

TEST(PoolPostgres, BrokenConnectionIsReplaced) {
  auto& pg = testing::PgTestServer::get();
  if (!pg.ok()) GTEST_SKIP() << "PostgreSQL tests skipped: " << pg.why();
  const std::string url = pg.fresh_database_url();
  ASSERT_TRUE(Store::open(url, /*create=*/true).ok());
  StorePool pool(url, 2);
  std::string before;
  {
    auto l = pool.acquire();
    ASSERT_TRUE(l.ok());
    before = (*l)->session();
  }
  ASSERT_TRUE(pg.terminate_backend(before));  // the idle connection's server session ends
  // pg_terminate_backend signals the backend and returns; give it a moment to exit.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto l = pool.acquire();
  ASSERT_TRUE(l.ok()) << l.error().describe();
  EXPECT_NE((*l)->session(), before);
  auto n = (*l)->count({});
  ASSERT_TRUE(n.ok()) << n.error().describe();  // the request is served on the fresh connection
  EXPECT_EQ(pool.replaced(), 1u);
  EXPECT_EQ(pool.open_count(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Engines, PoolSuite, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace goblin::store
