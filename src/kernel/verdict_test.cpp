// Every bench ends in a verdict (docs/kernel.md § Honest measurement): a harness killed by a
// signal, one past goblin's deadline and one that exits 0 before it finished each leave a named
// integrity finding with evidence in bench.json, exit 8, and nothing that `record` accepts. The
// harness here is a small stand-in script that does what a kernel can make the real one do: write
// its checkpoint (the stage it reached), then die, hang or exit.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/json.h"
#include "core/test_support.h"

namespace fs = std::filesystem;

namespace {

goblin::testing::CommandResult run(const std::string& args) {
  return goblin::testing::run_command(std::string(GOBLIN_BINARY_DIR) + "/goblin " + args + " 2>/dev/null");
}

struct FakeHarnessWs {
  std::string src = GOBLIN_SOURCE_DIR, dir, harness;
  // `ending`: Python run after the checkpoint is written.
  FakeHarnessWs(const std::string& tag, const std::string& ending) {
    dir = (fs::temp_directory_path() / fmt::format("goblin_verdict_{}_{}", tag, getpid())).string();
    fs::remove_all(dir);
    auto init = run("kernel init sm --kernel " + src + "/examples/kernel/softmax/v1.py --platform H200 --workspace " +
                    dir + " --harness " + src + "/tools/kernel_harness.py");
    EXPECT_EQ(init.code, 0) << init.out;
    harness = dir + "_harness.py";
    std::ofstream(harness) << "import json, os, signal, sys, time\n"
                              "out = sys.argv[sys.argv.index('--out') + 1]\n"
                              "json.dump({'harness': 'goblin kernel_harness 3', 'stage': 'timing', 'integrity': "
                              "{'passed': False, 'problems': []}, 'correctness': {'passed': True, 'max_rel_err': "
                              "0.001, 'threshold': 0.01}}, open(out, 'w'))\n"
                              "sys.stderr.write('Fatal Python error: Segmentation fault\\n')\n"
                           << ending << "\n";
  }
  ~FakeHarnessWs() {
    fs::remove_all(dir);
    fs::remove(harness);
  }
  goblin::Json bench(const std::string& extra, int* code) const {
    auto r = run("kernel bench " + dir + " --harness " + harness + extra + " --json");
    *code = r.code;
    return goblin::Json::parse(r.out);
  }
  goblin::Json bench_file() const {
    std::ifstream f(dir + "/profiles/v0/bench.json");
    return goblin::Json::parse(std::string(std::istreambuf_iterator<char>(f), {}));
  }
  void expect_not_recorded() const {
    auto r = run("kernel record " + dir + " --summary x --json");
    EXPECT_EQ(r.code, 8) << r.out;
    EXPECT_FALSE(fs::exists(dir + "/memory/v0.json"));
  }
};

const goblin::Json& only_problem(const goblin::Json& bench) { return bench["summary"]["integrity"]["problems"][0]; }

}  // namespace

TEST(KernelVerdict, KilledBySignalIsACrashWithTheStage) {
  FakeHarnessWs ws("signal", "os.kill(os.getpid(), signal.SIGKILL)");
  int code = 0;
  auto out = ws.bench("", &code);
  EXPECT_EQ(code, 8);
  EXPECT_FALSE(out["ok"].get<bool>());
  auto b = ws.bench_file();
  const auto& p = only_problem(b);
  EXPECT_EQ(p["check"], "crash");
  EXPECT_NE(p["message"].get<std::string>().find("signal 9 during timing"), std::string::npos) << p.dump();
  EXPECT_NE(p["evidence"]["stderr_tail"].get<std::string>().find("Segmentation fault"), std::string::npos);
  EXPECT_FALSE(b["summary"]["correctness"]["passed"].get<bool>());
  EXPECT_FALSE(b.contains("samples_ms"));
  ws.expect_not_recorded();
}

TEST(KernelVerdict, PastTheDeadlineIsADeadlineFinding) {
  FakeHarnessWs ws("hang", "time.sleep(60)");
  int code = 0;
  ws.bench(" --timeout 2", &code);
  EXPECT_EQ(code, 8);
  const auto b = ws.bench_file();
  const auto& p = only_problem(b);
  EXPECT_EQ(p["check"], "deadline");
  EXPECT_NE(p["message"].get<std::string>().find("2 s deadline during timing"), std::string::npos) << p.dump();
  ws.expect_not_recorded();
}

TEST(KernelVerdict, ExitZeroBeforeTheEndIsNotAResult) {
  FakeHarnessWs ws("exit0", "sys.exit(0)");
  int code = 0;
  ws.bench("", &code);
  EXPECT_EQ(code, 8);
  const auto b = ws.bench_file();
  const auto& p = only_problem(b);
  EXPECT_EQ(p["check"], "crash");
  EXPECT_NE(p["message"].get<std::string>().find("exited 0 without a verdict during timing"), std::string::npos);
  ws.expect_not_recorded();
}
