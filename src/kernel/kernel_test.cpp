// CPU tests of the kernel workspace (no GPU): init against the real spec database and a hand
// computation of Step 0, record/status/mask from bench and ncu files recorded on an H100
// (testdata/), and the refusals: unknown platform, incomplete kernel file, failed correctness,
// corrupt memory JSON, a workspace that is not a git repository.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "core/data.h"
#include "core/io.h"
#include "core/test_support.h"
#include "kernel/expr.h"
#include "kernel/loop.h"
#include "kernel/memory.h"
#include "kernel/proc.h"
#include "kernel/workspace.h"

namespace fs = std::filesystem;
using namespace goblin;
using namespace goblin::kernel;

namespace {

const std::string kSrc = GOBLIN_SOURCE_DIR;
const std::string kTestdata = kSrc + "/src/kernel/testdata/";

// A path that does not exist yet, under this process's private test directory (removed at exit).
std::string fresh_dir(const std::string& name) {
  auto d = goblin::testing::private_tmp_dir("kernel_" + name);
  fs::remove(d);
  return d.string();
}

InitOptions opts(const std::string& name, const std::string& kernel, const std::string& platform,
                 const std::string& shape) {
  InitOptions o;
  o.name = name;
  o.kernel_file = kSrc + "/examples/kernel/" + kernel;
  o.platform = platform;
  o.shape = shape;
  o.workspace = fresh_dir(name);
  o.harness = kSrc + "/tools/kernel_harness.py";
  return o;
}

std::string slurp(const std::string& p) {
  auto t = read_all(p);
  return t.ok() ? *t : "";
}

int commit_count(const std::string& ws) {
  auto r = git(ws, {"rev-list", "--count", "HEAD"});
  return r.ok() && r->code == 0 ? std::stoi(r->out) : -1;
}

// A softmax workspace with v0 (naive) and v1 (single pass) recorded from the H100 files.
std::string softmax_ws(const std::string& name) {
  auto c = init_workspace(opts(name, "softmax/v0.py", "H100", "M=32768,N=8192"));
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().describe());
  RecordOptions r0;
  r0.summary = "naive three-pass baseline";
  r0.bench_file = kTestdata + "bench_softmax_v0.json";
  r0.profile_file = kTestdata + "ncu_softmax_v0.csv";
  auto a = record_iteration(c->dir, r0);
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().describe());
  RecordOptions r1;
  r1.summary = "single pass, whole row in registers";
  r1.bench_file = kTestdata + "bench_softmax_v1.json";
  auto b = record_iteration(c->dir, r1);
  EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().describe());
  return c->dir;
}

}  // namespace

TEST(KernelExpr, EvaluatesFormulas) {
  std::map<std::string, double> v{{"M", 8192}, {"N", 4096}, {"K", 1024}, {"E", 2}};
  EXPECT_DOUBLE_EQ(*eval_expr("2*M*N*K", v), 2.0 * 8192 * 4096 * 1024);
  EXPECT_DOUBLE_EQ(*eval_expr("(M*K + K*N + M*N)*E", v), (8192.0 * 1024 + 1024.0 * 4096 + 8192.0 * 4096) * 2);
  EXPECT_DOUBLE_EQ(*eval_expr("-M/2 + 1", v), -4095);
  auto bad = eval_expr("2*M*Q", v);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::NotFound);
  EXPECT_NE(bad.error().message.find("Q"), std::string::npos);
  EXPECT_FALSE(eval_expr("2*(M", v).ok());
  EXPECT_FALSE(eval_expr("M/0", v).ok());
}

// kernel_init's notes (and name, shape, dtype) come from an MCP caller: they went raw into the
// workspace README.md, where `<img onerror>` runs and a `javascript:` link is clickable.
TEST(KernelInit, CallerTextIsEscapedInTheReadme) {
  InitOptions o = opts("mm<b>x", "matmul/v0.py", "H100", "M=8192,N=8192,K=8192");
  o.notes = "<img src=x onerror=alert(1)> [click](javascript:alert(1)) ![p](http://e.x/t.png) \x1b]0;t\x07";
  auto c = init_workspace(o);
  ASSERT_TRUE(c.ok()) << c.error().describe();
  const std::string readme = slurp(c->dir + "/README.md");
  // (The workspace path, `<b>` included, is a shell word inside the README's code block: text.)
  for (const char* s : {"<img", "[click](", "![p](", "\x1b", "\x07"})
    EXPECT_EQ(readme.find(s), std::string::npos) << s << "\n" << readme;
  EXPECT_NE(readme.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << readme;
  EXPECT_NE(readme.find("# Kernel optimization workspace: mm&lt;b&gt;x"), std::string::npos) << readme;
  // A name that would add a line to the README's command block is refused.
  InitOptions bad = opts("mm\n```\nrm -rf ~", "matmul/v0.py", "H100", "M=8192,N=8192,K=8192");
  EXPECT_FALSE(init_workspace(bad).ok());
}

TEST(KernelInit, MatmulWorkspaceStep0AndSpecLines) {
  auto c = init_workspace(opts("mm", "matmul/v0.py", "H100", "M=8192,N=8192,K=8192"));
  ASSERT_TRUE(c.ok()) << c.error().describe();
  for (const char* f :
       {"kernel.py", "README.md", "workspace.json", ".gitignore", "memory", "plans", "profiles", ".git"})
    EXPECT_TRUE(fs::exists(fs::path(c->dir) / f)) << f;
  EXPECT_EQ(commit_count(c->dir), 1);
  // Hand computation: FLOPs 2*8192^3; bytes (3 * 8192^2) * 2; ridge 989.4 TFLOPS / 3350 GB/s.
  const double n = 8192;
  EXPECT_DOUBLE_EQ(c->roof.flops, 2 * n * n * n);
  EXPECT_DOUBLE_EQ(c->roof.bytes, 3 * n * n * 2);
  EXPECT_NEAR(c->roof.ai, 2 * n / 6, 1e-9);  // 2730.67 FLOP/byte
  EXPECT_NEAR(c->roof.ridge, 989.4e12 / 3350e9, 1e-9);
  EXPECT_EQ(c->roof.bound, "compute_bound");
  // The measured bf16 GEMM ceiling (data/measured/h100_sxm.json, 747.4) beats the datasheet.
  EXPECT_TRUE(c->roof.ceiling_measured);
  EXPECT_NEAR(c->roof.target, 0.9 * 747.4, 1e-9);
  EXPECT_EQ(c->arch, "Hopper");
  EXPECT_EQ(c->platform, "H100-SXM");

  std::string readme = slurp(c->dir + "/README.md");
  for (const char* s : {"## Task Context", "## Hardware Spec", "## Roofline (Step 0)", "## Stop Conditions",
                        "arch: Hopper", "compute-bound target >= 672.7 TFLOP/s"})
    EXPECT_NE(readme.find(s), std::string::npos) << s;
  // Every Hardware Spec line is "<metric>: <value> <unit> <- <source>" or UNKNOWN.
  auto a = readme.find("## Hardware Spec\n```\n"), b = readme.find("```", a + 20);
  std::string block = readme.substr(a + 20, b - a - 20);
  std::regex cited(R"(^[a-z0-9_]+: [^ ]+( [^ ]+)? <- \S.*$)");
  std::regex unknown(R"(^[a-z0-9_]+: UNKNOWN \(not in the spec database\)$)");
  int lines = 0;
  std::istringstream ss(block);
  for (std::string l; std::getline(ss, l);) {
    if (l.empty()) continue;
    ++lines;
    EXPECT_TRUE(std::regex_match(l, cited) || std::regex_match(l, unknown)) << l;
  }
  EXPECT_GE(lines, 15);
  EXPECT_NE(block.find("memory_bandwidth: 3350 GB/s <- https://"), std::string::npos);
  EXPECT_NE(block.find("measured_copy_bandwidth: 3019 GB/s <- data/measured/h100_sxm.json"), std::string::npos);
  // workspace.json reads back.
  auto back = load_config(c->dir);
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->roof.bound, "compute_bound");
  EXPECT_DOUBLE_EQ(back->roof.flops, c->roof.flops);
}

TEST(KernelInit, SoftmaxIsMemoryBoundAgainstMeasuredCopy) {
  auto c = init_workspace(opts("sm", "softmax/v0.py", "H100", "M=32768,N=8192"));
  ASSERT_TRUE(c.ok()) << c.error().describe();
  const double e = 32768.0 * 8192;
  EXPECT_DOUBLE_EQ(c->roof.flops, 5 * e);
  EXPECT_DOUBLE_EQ(c->roof.bytes, 2 * e * 2);
  EXPECT_DOUBLE_EQ(c->roof.ai, 1.25);
  EXPECT_EQ(c->roof.bound, "memory_bound");
  EXPECT_NEAR(c->roof.target, 0.9 * 3019.0, 1e-9);
  EXPECT_NE(slurp(c->dir + "/README.md").find("memory-bound target >= 2.72 TB/s"), std::string::npos);
}

TEST(KernelInit, UnknownSpecIsWrittenUnknownAndRecordedAsPitfall) {
  // H100 PCIe has no boost clock in the database.
  auto c = init_workspace(opts("pcie", "softmax/v0.py", "H100-PCIe", "M=1024,N=1024"));
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_NE(slurp(c->dir + "/README.md").find("boost_clock: UNKNOWN (not in the spec database)"), std::string::npos);
  EXPECT_FALSE(c->roof.ceiling_measured);  // no data/measured file: the datasheet 2000 GB/s
  EXPECT_NEAR(c->roof.target, 1800, 1e-9);
  RecordOptions r;
  r.summary = "baseline";
  r.bench_file = kTestdata + "bench_softmax_v0.json";
  auto rec = record_iteration(c->dir, r);
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  std::string v0 = slurp(c->dir + "/memory/v0.json");
  EXPECT_NE(v0.find("boost_clock is UNKNOWN"), std::string::npos);
}

TEST(KernelInit, RefusesUnknownPlatformListingKnownOnes) {
  auto c = init_workspace(opts("x", "softmax/v0.py", "MI308X", "M=1,N=1"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::NotFound);
  for (const char* id : {"MI308X", "H100-SXM", "H200", "MI300X", "MI355X"})
    EXPECT_NE(c.error().message.find(id), std::string::npos) << id;
  EXPECT_FALSE(fs::exists(fresh_dir("x") + "/README.md"));
}

TEST(KernelInit, KernelFileMissingPartsIsAClearError) {
  std::string dir = fresh_dir("bad_kernel");
  fs::create_directories(dir);
  write_file(dir + "/k.py",
             "import torch\ndef make_inputs(N=4):\n    return (torch.zeros(N),)\ndef kernel(x):\n    return x\n");
  auto o = opts("nor", "softmax/v0.py", "H100", "N=4");
  o.kernel_file = dir + "/k.py";
  auto c = init_workspace(o);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::Usage);
  EXPECT_NE(c.error().message.find("missing reference"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().describe().find("k.py"), std::string::npos);

  write_file(dir + "/k2.py",
             "def kernel(x):\n    return x\ndef reference(x):\n    return x\nPROBLEM = {'op': 'softmax'}\n");
  o.kernel_file = dir + "/k2.py";
  o.workspace = fresh_dir("nomake");
  c = init_workspace(o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("missing make_inputs"), std::string::npos) << c.error().message;

  // Neither flops/bytes_moved nor PROBLEM: nothing to build the roofline from.
  write_file(dir + "/k3.py",
             "def make_inputs():\n    pass\ndef kernel(x):\n    return x\ndef reference(x):\n    return x\n");
  o.kernel_file = dir + "/k3.py";
  o.workspace = fresh_dir("noprob");
  c = init_workspace(o);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("PROBLEM"), std::string::npos) << c.error().message;

  // flops()/bytes_moved() are evaluated without torch.
  write_file(
      dir + "/k4.py",
      "import torch\ndef make_inputs(N=4):\n    pass\ndef kernel(x):\n    return x\ndef reference(x):\n    return x\n"
      "def flops(N):\n    return 3 * N\ndef bytes_moved(N):\n    return 4 * N\n");
  o.kernel_file = dir + "/k4.py";
  o.workspace = fresh_dir("custom");
  c = init_workspace(o);
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_DOUBLE_EQ(c->roof.flops, 12);
  EXPECT_DOUBLE_EQ(c->roof.bytes, 16);
}

TEST(KernelRecord, RecordStatusMaskFromRecordedFiles) {
  std::string ws = softmax_ws("rec");
  EXPECT_EQ(commit_count(ws), 3);  // init, v0, v1
  auto its = load_iterations(**knowledge(), ws);
  ASSERT_TRUE(its.ok()) << its.error().describe();
  ASSERT_EQ(its->size(), 2u);
  const Json& v0 = (*its)[0].j;
  EXPECT_EQ(v0["parent"], nullptr);
  EXPECT_FALSE(v0["masked"].get<bool>());
  EXPECT_EQ(v0["profile"], "profiles/v0/ncu.csv");
  EXPECT_FALSE(v0["bottlenecks"].empty());  // the diagnosis of the recorded ncu CSV
  // The naive three-pass v0 (profiled on an H100): memory-bound, reading each row three times
  // (1.57 GB of DRAM reads for 0.54 GB of input).
  EXPECT_EQ(v0["classification"]["bound"], "memory_bound");
  EXPECT_EQ(v0["bottlenecks"][0]["category"], "memory");
  bool three_reads = false;
  for (auto& rc : v0["bottlenecks"][0]["root_causes"])
    for (auto& e : rc["evidence"])
      if (e["metric"] == "dram__bytes_read.sum") three_reads = e["value"].get<double>() > 2.5 * 32768.0 * 8192 * 2;
  EXPECT_TRUE(three_reads);
  EXPECT_EQ((*its)[1].j["parent"], 0);
  // v1: 32768 x 8192 bf16 read + write = 1073741824 bytes at the recorded median.
  double med = (*its)[1].j["performance"]["median_latency_ms"];
  EXPECT_NEAR((*its)[1].j["performance"]["gbs"].get<double>(), 1073741824.0 / (med * 1e-3) / 1e9, 0.1);
  EXPECT_TRUE(validate_iteration(**knowledge(), v0).empty());
  // The record's field list (iteration_json.cpp): each file reads into the struct and writes back
  // byte-identical, and the struct carries what the readers use.
  for (const auto& it : *its) EXPECT_EQ(iteration_to_json(it.rec).dump(2), it.j.dump(2)) << it.path;
  EXPECT_EQ((*its)[1].rec.parent, 0);
  EXPECT_EQ((*its)[0].rec.profile, "profiles/v0/ncu.csv");
  EXPECT_TRUE((*its)[1].rec.correctness.passed);
  auto bad = iteration_from_json(Json{{"version", 1}, {"masked", "no"}}, "v1.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "memory file: masked: expected boolean, got string");
  EXPECT_EQ(bad.error().file, "v1.json");
  bad = iteration_from_json(Json{{"masked", false}}, "v1.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "memory file: missing required key version");

  auto st = workspace_status(ws);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_EQ(st->json["iterations"].size(), 2u);
  EXPECT_EQ(st->json["best"], 1);
  EXPECT_NE(st->human.find("single pass"), std::string::npos);

  auto m = set_masked(ws, 1, true);
  ASSERT_TRUE(m.ok()) << m.error().describe();
  st = workspace_status(ws);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->json["iterations"].size(), 1u);  // the masked v1 is skipped
  EXPECT_EQ(st->json["best"], 0);
  EXPECT_EQ(st->json["masked"], Json::array({1}));
  EXPECT_EQ(st->human.find("single pass"), std::string::npos);
  EXPECT_EQ(*next_version(**knowledge(), ws), 2);  // numbers are never reused
  auto plan = write_plan(ws);
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  // The masked v1 tried single_pass, but masked iterations do not count as tried.
  for (auto& c : (*plan)["candidates"])
    if (c["id"] == "single_pass") {
      EXPECT_TRUE(c["tried_in"].empty());
    }
  ASSERT_TRUE(set_masked(ws, 1, false).ok());
  plan = write_plan(ws);
  ASSERT_TRUE(plan.ok());
  bool marked = false;
  for (auto& c : (*plan)["candidates"])
    if (c["id"] == "single_pass") marked = c["tried_in"] == Json::array({1});
  EXPECT_TRUE(marked);
  EXPECT_TRUE(fs::exists(ws + "/plans/v2_plan.md"));
  EXPECT_NE((*plan)["markdown"].get<std::string>().find("[tried in v1]"), std::string::npos);
  EXPECT_FALSE(set_masked(ws, 7, true).ok());
}

// A memory file edited to claim 204,600 GB/s on an H100 (3,350 GB/s of DRAM bandwidth) made
// status say "Stop Condition met". Recorded iterations are checked again against the physical
// limit before status trusts them.
TEST(KernelRecord, StatusDoesNotTrustAnIterationAboveThePhysicalLimit) {
  const std::string ws = softmax_ws("implausible");
  const std::string f = ws + "/memory/v1.json";
  Json j = Json::parse(slurp(f));
  j["performance"]["gbs"] = 204600.0;
  j["performance"]["target_met"] = true;
  j["performance"]["pct_of_target"] = 6785.0;
  std::ofstream(f) << j.dump(2);
  auto st = workspace_status(ws);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_EQ(st->json["best"], 0);
  EXPECT_FALSE(st->json["stop_condition_met"].get<bool>());
  ASSERT_EQ(st->json["implausible"].size(), 1u);
  EXPECT_EQ(st->json["implausible"][0]["version"], 1);
  EXPECT_DOUBLE_EQ(st->json["implausible"][0]["physical_limit"].get<double>(), 3350.0);
  EXPECT_EQ(st->human.find("Stop Condition met"), std::string::npos) << st->human;
  EXPECT_NE(st->human.find("above the physical limit"), std::string::npos) << st->human;
  EXPECT_EQ(st->json["next"]["action"], "continue");
}

TEST(KernelRecord, FailedCorrectnessIsNeverCommitted) {
  auto c = init_workspace(opts("wrong", "softmax/v0.py", "H100", "M=32768,N=8192"));
  ASSERT_TRUE(c.ok());
  RecordOptions r;
  r.summary = "broken";
  r.bench_file = kTestdata + "bench_softmax_wrong.json";
  auto rec = record_iteration(c->dir, r);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().kind, ErrorKind::Workload);
  EXPECT_NE(rec.error().message.find("correctness failed"), std::string::npos);
  EXPECT_FALSE(fs::exists(c->dir + "/memory/v0.json"));
  EXPECT_EQ(commit_count(c->dir), 1);
  r.bench_file = "";
  rec = record_iteration(c->dir, r);  // no bench at all
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("goblin kernel bench"), std::string::npos);
}

TEST(KernelRecord, CorruptMemoryJsonNamesFileAndByte) {
  std::string ws = softmax_ws("corrupt");
  write_file(ws + "/memory/v5.json", "{\"version\": 5,, \"masked\": false}");
  auto st = workspace_status(ws);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::Malformed);
  EXPECT_NE(st.error().file.find("v5.json"), std::string::npos);
  EXPECT_GE(st.error().byte_offset, 13);
  EXPECT_LE(st.error().byte_offset, 15);
  // Valid JSON that breaks the schema names the field.
  auto v1 = parse_json_text(slurp(ws + "/memory/v1.json"), "v1.json");
  ASSERT_TRUE(v1.ok());
  (*v1)["version"] = 5;
  (*v1)["masked"] = "no";
  write_file(ws + "/memory/v5.json", v1->dump());
  st = workspace_status(ws);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("masked: want boolean"), std::string::npos) << st.error().message;
}

TEST(KernelRecord, WorkspaceThatIsNotAGitRepository) {
  std::string ws = softmax_ws("nogit");
  fs::remove_all(ws + "/.git");
  auto st = workspace_status(ws);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().kind, ErrorKind::Io);
  EXPECT_NE(st.error().message.find("not a git repository"), std::string::npos);
  RecordOptions r;
  r.summary = "x";
  r.bench_file = kTestdata + "bench_softmax_v1.json";
  auto rec = record_iteration(ws, r);
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("not a git repository"), std::string::npos);
  EXPECT_FALSE(fs::exists(ws + "/memory/v2.json"));
}

TEST(KernelProfile, NcuCommandUsesSchemaMetricsAndNvtxRange) {
  auto c = init_workspace(opts("cmd", "softmax/v0.py", "H100", "M=32768,N=8192"));
  ASSERT_TRUE(c.ok());
  RunOptions o;
  o.launches = 2;
  auto argv = ncu_command(*c, o, "/h.py", "/tmp/log");
  ASSERT_TRUE(argv.ok());
  std::string all;
  for (auto& a : *argv) all += a + " ";
  for (const char* s : {"--csv --page raw", "--nvtx-include goblin_kernel/", "--launch-count 2", "dram__bytes_read.sum",
                        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "gpu__time_duration.sum",
                        "/h.py profile", "--launches 2"})
    EXPECT_NE(all.find(s), std::string::npos) << s;
}

TEST(KernelProfile, AmdCounterPathOnRocprofFixture) {
  auto c = init_workspace(opts("amd", "softmax/v0.py", "MI300X", "M=4096,N=4096"));
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->arch, "CDNA3");
  RunOptions o;
  auto argv = rocprof_command(*c, o, "/h.py", "/tmp/out");
  EXPECT_EQ(argv[0], "rocprofv3");
  EXPECT_EQ(argv[1], "--pmc");
  std::string fixture = std::string(GOBLIN_FIXTURES) + "/rocprof/rocprofv3_counter_collection.csv";
  auto d = diagnose_profile(fixture, *c);
  ASSERT_TRUE(d.ok()) << d.error().describe();
  ASSERT_FALSE((*d)["kernels"].empty());
  const Json& k = (*d)["kernels"][0];
  EXPECT_EQ(k["vendor"], "amd");
  EXPECT_TRUE(k.contains("missing_counters"));
}

// A workspace is written by whoever drives the loop (an agent): committing it must never run a
// program the workspace planted — a hook, or a filter/fsmonitor/include in its own git config.
TEST(KernelRecord, CommitRunsNoHookAndRefusesConfigThatExecutes) {
  std::string ws = softmax_ws("hooks");
  const std::string marker = ws + fmt::format("/../hook_ran_{}", getpid());
  fs::remove(marker);
  for (const char* hook : {"pre-commit", "commit-msg", "post-commit", "pre-auto-gc"}) {
    const std::string h = ws + "/.git/hooks/" + hook;
    ASSERT_TRUE(write_file(h, "#!/bin/sh\ntouch '" + marker + "'\n").ok());
    fs::permissions(h, fs::perms::owner_all);
  }
  ASSERT_TRUE(write_file(ws + "/notes.txt", "change\n").ok());
  auto c = git_commit_all(ws, "with hooks planted");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_FALSE(fs::exists(marker)) << "a workspace hook ran during goblin's commit";

  // A clean filter would run on `git add` for the paths .gitattributes names.
  ASSERT_TRUE(write_file(ws + "/.gitattributes", "*.txt filter=evil\n").ok());
  auto cfg = git(ws, {"config", "filter.evil.clean", "touch '" + marker + "'; cat"});
  ASSERT_TRUE(cfg.ok());
  ASSERT_TRUE(write_file(ws + "/notes.txt", "again\n").ok());
  auto refused = git_commit_all(ws, "with a filter");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::Usage);
  EXPECT_NE(refused.error().message.find("filter.evil.clean"), std::string::npos) << refused.error().message;
  EXPECT_FALSE(fs::exists(marker));
  ASSERT_TRUE(git(ws, {"config", "--unset", "filter.evil.clean"}).ok());
  ASSERT_TRUE(git(ws, {"config", "core.fsmonitor", "touch '" + marker + "'"}).ok());
  EXPECT_FALSE(git_commit_all(ws, "with an fsmonitor").ok());
  EXPECT_FALSE(fs::exists(marker));
}

TEST(KernelKnowledge, LoadedOnceAndABrokenFileIsNamed) {
  // A data directory of its own (empty: the embedded files), so the process's cache starts empty.
  set_data_dir(goblin::testing::private_tmp_dir("kernel_knowledge_once").string());
  const int64_t n0 = knowledge_loads();
  auto a = knowledge();
  auto b = knowledge();
  ASSERT_TRUE(a.ok() && b.ok()) << a.error().describe();
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(knowledge_loads() - n0, 1);
  EXPECT_NE((*a)->problems.op("softmax"), nullptr);
  EXPECT_FALSE((*a)->candidates.empty());
  EXPECT_FALSE((*a)->plan_template.empty());
  EXPECT_TRUE((*a)->iteration_schema.contains("properties"));
  // A broken file of data/kernel/ is reported with its file and line, and not cached.
  auto dir = goblin::testing::private_tmp_dir("kernel_knowledge_broken");
  fs::create_directories(dir / "kernel");
  std::ofstream(dir / "kernel" / "problems.yaml") << "ops:\n  softmax: {shape: [M, N]\n";
  set_data_dir(dir.string());
  auto c = knowledge();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::Malformed);
  EXPECT_NE(c.error().file.find("problems.yaml"), std::string::npos) << c.error().describe();
  EXPECT_GT(c.error().line, 0);
  set_data_dir(GOBLIN_DATA_DIR);
  ASSERT_TRUE(knowledge().ok());
}
