// The `goblin kernel` verbs through the built binary: the JSON envelope, exit codes, and the
// status of a recorded workspace with one iteration masked.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "core/json.h"
#include "core/test_support.h"

namespace fs = std::filesystem;

namespace {

goblin::testing::CommandResult run(const std::string& args) {
  return goblin::testing::run_command(std::string(GOBLIN_BINARY_DIR) + "/goblin " + args + " 2>/dev/null");
}

}  // namespace

TEST(KernelCli, LoopThroughTheBinary) {
  const std::string src = GOBLIN_SOURCE_DIR, td = src + "/src/kernel/testdata/";
  const std::string ws = (fs::temp_directory_path() / (fmt::format("goblin_kernel_cli_{}", getpid()))).string();
  fs::remove_all(ws);
  auto init = run("kernel init sm --kernel " + src + "/examples/kernel/softmax/v0.py --platform H100 --shape " +
                  "M=32768,N=8192 --workspace " + ws + " --harness " + src + "/tools/kernel_harness.py --json");
  ASSERT_EQ(init.code, 0) << init.out;
  auto j = goblin::Json::parse(init.out);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_EQ(j["result"]["roofline"]["bound"], "memory_bound");

  EXPECT_EQ(run("kernel record " + ws + " --summary naive --bench " + td + "bench_softmax_v0.json --profile " + td +
                "ncu_softmax_v0.csv")
                .code,
            0);
  EXPECT_EQ(run("kernel record " + ws + " --summary 'single pass' --bench " + td + "bench_softmax_v1.json").code, 0);
  // A failed correctness check: exit 8 (workload), nothing recorded.
  auto wrong = run("kernel record " + ws + " --summary broken --bench " + td + "bench_softmax_wrong.json --json");
  EXPECT_EQ(wrong.code, 8);
  EXPECT_FALSE(goblin::Json::parse(wrong.out)["ok"].get<bool>());
  EXPECT_FALSE(fs::exists(ws + "/memory/v2.json"));

  EXPECT_EQ(run("kernel mask 0 " + ws).code, 0);
  auto st = run("kernel status " + ws + " --json");
  ASSERT_EQ(st.code, 0) << st.out;
  auto s = goblin::Json::parse(st.out)["result"];
  ASSERT_EQ(s["iterations"].size(), 1u);
  EXPECT_EQ(s["iterations"][0]["version"], 1);
  EXPECT_EQ(s["masked"], goblin::Json::array({0}));
  EXPECT_TRUE(s["stop_condition_met"].get<bool>());  // v1 recorded 2986 GB/s >= 2717 GB/s

  auto human = run("kernel status " + ws);
  EXPECT_NE(human.out.find("Stop Condition met"), std::string::npos) << human.out;
  EXPECT_EQ(run("kernel init x --kernel " + src + "/examples/kernel/softmax/v0.py --platform MI308X").code, 6);
  EXPECT_EQ(run("kernel status /nonexistent/ws").code, 3);
  EXPECT_EQ(run("kernel unmask 9 " + ws).code, 6);
  fs::remove_all(ws);
}
