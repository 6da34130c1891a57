#include "run/prefetch_window.h"

#include <gtest/gtest.h>

#include <string>

#include "core/io.h"
#include "core/test_support.h"

namespace goblin::run {
namespace {

config::WorkloadConfig config_of(const std::string& yaml) {
  auto dir = goblin::testing::private_tmp_dir("prefetch_window");
  const std::string path = (dir / "c.yaml").string();
  EXPECT_TRUE(write_file(path, yaml).ok());
  auto c = config::parse_config_file(path);
  EXPECT_TRUE(c.ok());
  return *c;
}

TEST(PrefetchWindow, TunedCompileProfileRanInsideItsSixteenBatches) {
  // The repository's tuned_compile.yaml: 4 workers x prefetch_factor 4; goblin profile's 5 warm-up
  // + 5 compared + 5 profiled steps, and goblin bench's 5 + 15 (bench/results/tracer, evening).
  auto cfg = config::parse_config_file(std::string(GOBLIN_SOURCE_DIR) + "/workloads/configs/tuned_compile.yaml");
  ASSERT_TRUE(cfg.ok());
  Json p = prefetch_window(*cfg, 10, 5);
  ASSERT_TRUE(p.is_object());
  EXPECT_EQ(p["buffered_batches"], 16);
  EXPECT_EQ(p["prefetch_factor_from"], "config");
  EXPECT_EQ(p["window_first_step"], 11);
  EXPECT_EQ(p["window_last_step"], 15);
  EXPECT_EQ(p["steps_on_buffered_batches"], 5);
  EXPECT_TRUE(p["window_inside_buffer"].get<bool>());
  EXPECT_NE(p["note"].get<std::string>().find("cannot show"), std::string::npos);
  EXPECT_NE(p["note"].get<std::string>().find("--warmup 16"), std::string::npos);
  Json b = prefetch_window(*cfg, 5, 15);
  EXPECT_EQ(b["steps_on_buffered_batches"], 11);  // steps 6..16 of 6..20
  EXPECT_FALSE(b["window_inside_buffer"].get<bool>());
  EXPECT_NE(b["note"].get<std::string>().find("the other 4 at most"), std::string::npos);
  // Past the buffer: no note, the figures still recorded.
  Json past = prefetch_window(*cfg, 16, 10);
  EXPECT_EQ(past["steps_on_buffered_batches"], 0);
  EXPECT_EQ(past["note"], "");
}

TEST(PrefetchWindow, DefaultFactorAndGradientAccumulation) {
  auto cfg = config_of("dataloader_num_workers: 8\ngradient_accumulation_steps: 4\n");
  Json p = prefetch_window(cfg, 2, 5);  // 16 batches = 4 steps of 4 micro-batches
  EXPECT_EQ(p["prefetch_factor"], 2);
  EXPECT_EQ(p["prefetch_factor_from"], "PyTorch default");
  EXPECT_EQ(p["buffered_batches"], 16);
  EXPECT_EQ(p["steps_on_buffered_batches"], 2);  // steps 3 and 4 of 3..7
}

TEST(PrefetchWindow, NoWorkersOrNoSayIsNull) {
  EXPECT_TRUE(prefetch_window(config_of("dataloader_num_workers: 0\n"), 5, 5).is_null());
  EXPECT_TRUE(prefetch_window(config_of("learning_rate: 0.001\n"), 5, 5).is_null());
  auto base = config::parse_config_file(std::string(GOBLIN_SOURCE_DIR) + "/workloads/configs/base.yaml");
  ASSERT_TRUE(base.ok());
  EXPECT_TRUE(prefetch_window(*base, 5, 5).is_null());  // base.yaml loads data in the main process
}

}  // namespace
}  // namespace goblin::run
