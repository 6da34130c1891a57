// CPU tests of the honest-measurement checks goblin makes of a bench (kernel/integrity.h):
// the physical limits (a bench above the H100's DRAM bandwidth or bf16 peak is refused by bench
// and by record), the harness's findings carried into the summary and refused at record, held-out
// shapes, a kernel.py that changed after its bench, and profile's DRAM-bytes check on the ncu
// CSV of the naive softmax recorded on an H100 (testdata/).
#include "kernel/integrity.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/io.h"
#include "core/test_support.h"
#include "core/text.h"
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

Config workspace(const std::string& name, const std::string& kernel, const std::string& shape) {
  InitOptions o;
  o.name = name;
  o.kernel_file = kSrc + "/examples/kernel/" + kernel;
  o.platform = "H100";
  o.shape = shape;
  o.workspace = goblin::testing::private_tmp_dir("integrity_" + name).string();
  o.harness = kSrc + "/tools/kernel_harness.py";
  auto c = init_workspace(o);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().describe());
  return c.ok() ? *c : Config{};
}

Json load(const std::string& p) { return Json::parse(*read_all(p)); }

// A kernel_harness 2 bench: the recorded H100 samples of softmax v1 scaled by `scale`, the
// harness's integrity section with `problems`, and held-out cases.
Json bench2(double scale, Json problems = Json::array(), bool held_out_ok = true) {
  Json b = load(kTestdata + "bench_softmax_v1.json");
  b["harness"] = "goblin kernel_harness 2";
  for (auto& x : b["samples_ms"]) x = x.get<double>() * scale;
  b["integrity"] = {{"passed", problems.empty()}, {"problems", problems},   {"input_sets", 2}, {"set_bytes", 536870912},
                    {"l2_bytes", 52428800},       {"sets_exceed_l2", true}, {"rounds", 40},    {"outputs_checked", 85}};
  b["held_out"] = {{"passed", held_out_ok},
                   {"cases",
                    {{{"shape", {{"M", 8200}, {"N", 2056}}},
                      {"seed", 1001},
                      {"passed", held_out_ok},
                      {"message", held_out_ok ? "" : "max relative error 1 > 0.01"}}}}};
  return b;
}

int commits(const std::string& ws) {
  auto r = git(ws, {"rev-list", "--count", "HEAD"});
  return r.ok() && r->code == 0 ? std::stoi(r->out) : -1;
}

Result<Json> record_file(const Config& c, const Json& bench, const std::string& tag) {
  std::string f = c.dir + "/../" + fs::path(c.dir).filename().string() + "_" + tag + ".json";
  EXPECT_TRUE(write_file(f, bench.dump()).ok());
  RecordOptions r;
  r.summary = tag;
  r.bench_file = f;
  return record_iteration(c.dir, r);
}

}  // namespace

TEST(KernelIntegrity, LimitsComeFromTheCitedDataFile) {
  auto k = knowledge();
  ASSERT_TRUE(k.ok()) << k.error().describe();
  const IntegrityLimits& l = (*k)->integrity;
  EXPECT_DOUBLE_EQ(l.tolerance, 0.05);
  EXPECT_DOUBLE_EQ(l.timer_resolution_ms, 0.0005);
  EXPECT_EQ(l.likely_causes.size(), 3u);
}

TEST(KernelIntegrity, AboveTheDramBandwidthIsRefusedByBenchAndRecord) {
  Config c = workspace("bw", "softmax/v0.py", "M=32768,N=8192");
  // The memoise-by-pointer cheat of issue #29 measured 204,600 GB/s: 1073741824 bytes in ~5.2 us.
  auto s = summarize_bench(**knowledge(), bench2(0.0144), c);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  const Json& in = (*s)["integrity"];
  EXPECT_FALSE(in["passed"].get<bool>());
  ASSERT_EQ(in["problems"].size(), 1u);
  EXPECT_EQ(in["problems"][0]["check"], "physical_limit");
  std::string m = in["problems"][0]["message"];
  for (const char* want : {"above the 3350.0 GB/s DRAM bandwidth of H100-SXM", "caches results",
                           "stream the timing does not see", "formula"})
    EXPECT_NE(m.find(want), std::string::npos) << want << " in " << m;
  EXPECT_FALSE((*s)["performance"]["target_met"].get<bool>());  // never reported as a result
  std::string human = bench_human(*s, c);
  EXPECT_NE(human.find("REFUSED [physical_limit]"), std::string::npos) << human;
  EXPECT_EQ(human.find("target met"), std::string::npos) << human;

  auto rec = record_file(c, bench2(0.0144), "cached");
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().kind, ErrorKind::Workload);
  EXPECT_NE(rec.error().message.find("physical_limit"), std::string::npos) << rec.error().message;
  EXPECT_FALSE(fs::exists(c.dir + "/memory/v0.json"));
  EXPECT_EQ(commits(c.dir), 1);

  // The honest v1 (2984 GB/s, 89 % of the datasheet) passes every check and records.
  auto ok = record_file(c, bench2(1.0), "honest");
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  EXPECT_TRUE((*ok)["record"]["performance"]["target_met"].get<bool>());
  EXPECT_EQ(commits(c.dir), 2);
}

TEST(KernelIntegrity, AboveTheBf16PeakIsRefused) {
  Config c = workspace("peak", "matmul/v0.py", "M=8192,N=8192,K=8192");
  Json b = bench2(1.0);
  b["samples_ms"] = Json::array({0.5, 0.5, 0.5});  // 2.2 PFLOP/s for 8192^3
  auto s = summarize_bench(**knowledge(), b, c);
  ASSERT_TRUE(s.ok());
  ASSERT_FALSE((*s)["integrity"]["passed"].get<bool>());
  std::string m = (*s)["integrity"]["problems"][0]["message"];
  EXPECT_NE(m.find("TFLOP/s dense bf16 peak of H100-SXM"), std::string::npos) << m;
  b["samples_ms"] = Json::array({1.666, 1.667, 1.668});  // matmul v3 on the H100: 660 TFLOP/s
  s = summarize_bench(**knowledge(), b, c);
  EXPECT_TRUE((*s)["integrity"]["passed"].get<bool>()) << (*s)["integrity"].dump();
}

TEST(KernelIntegrity, HarnessFindingsAndHeldOutShapesAreRefusedAtRecord) {
  Config c = workspace("findings", "softmax/v0.py", "M=32768,N=8192");
  Json side = Json::array(
      {{{"check", "work_after_return"}, {"message", "1 other CUDA stream(s) still had work after the call returned"}}});
  auto rec = record_file(c, bench2(1.0, side), "side_stream");
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("[work_after_return] 1 other CUDA stream"), std::string::npos)
      << rec.error().message;
  rec = record_file(c, bench2(1.0, Json::array(), false), "bench_shape_only");
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("held-out shapes"), std::string::npos) << rec.error().message;
  EXPECT_NE(rec.error().message.find("\"N\":2056"), std::string::npos) << rec.error().message;
  // A harness-2 bench with timing but no held-out section is malformed, not a pass.
  Json b = bench2(1.0);
  b.erase("held_out");
  rec = record_file(c, b, "no_held_out");
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(commits(c.dir), 1);
}

TEST(KernelIntegrity, RecordRecomputesTheSummaryAndChecksTheKernelBlob) {
  Config c = workspace("blob", "softmax/v0.py", "M=32768,N=8192");
  // A bench.json whose own "summary" claims a pass: record recomputes it from the samples.
  Json b = bench2(0.0144);
  b["summary"] = {{"correctness", {{"passed", true}}}, {"integrity", {{"passed", true}}}};
  auto rec = record_file(c, b, "forged_summary");
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("physical_limit"), std::string::npos);
  // The workspace's own bench of another kernel.py: refused until benched again.
  b = bench2(1.0);
  b["kernel_blob"] = "0000000000000000000000000000000000000000";
  fs::create_directories(c.dir + "/profiles/v0");
  ASSERT_TRUE(write_file(c.dir + "/profiles/v0/bench.json", b.dump()).ok());
  RecordOptions r;
  r.summary = "swapped";
  rec = record_iteration(c.dir, r);
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("kernel.py changed after it was benched"), std::string::npos);
  auto blob = git(c.dir, {"hash-object", "kernel.py"});
  ASSERT_TRUE(blob.ok());
  b["kernel_blob"] = blob->out.substr(0, 40);  // git prints the id and a newline
  ASSERT_TRUE(write_file(c.dir + "/profiles/v0/bench.json", b.dump()).ok());
  rec = record_iteration(c.dir, r);
  EXPECT_TRUE(rec.ok()) << rec.error().describe();
}

TEST(KernelIntegrity, OlderHarnessBenchIsRecordedWithANote) {
  Config c = workspace("old", "softmax/v0.py", "M=32768,N=8192");
  RecordOptions r;
  r.summary = "v1 from kernel_harness 1";
  r.bench_file = kTestdata + "bench_softmax_v1.json";
  auto rec = record_iteration(c.dir, r);
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  bool noted = false;
  for (const auto& p : (*rec)["record"]["pitfalls_and_fixes"])
    noted |= p.get<std::string>().find("kernel_harness 1") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(KernelIntegrity, WorkDoneComparesNcuDramBytesWithTheFormula) {
  Config c = workspace("work", "softmax/v0.py", "M=32768,N=8192");
  // The naive v0 read each row three times: 1.57 GB read + 0.54 GB written for 1.07 GB ideal.
  Json w = work_done(kTestdata + "ncu_softmax_v0.csv", c, 1, (*knowledge())->integrity);
  ASSERT_TRUE(w.is_object());
  EXPECT_GT(w["ratio"].get<double>(), 1.8);
  EXPECT_LT(w["ratio"].get<double>(), 2.2);
  EXPECT_TRUE(w["flags"].empty()) << w.dump();
  // The same traffic against a formula ten times larger: far less than the minimum.
  Config big = c;
  big.roof.bytes *= 10;
  w = work_done(kTestdata + "ncu_softmax_v0.csv", big, 1, (*knowledge())->integrity);
  ASSERT_EQ(w["flags"].size(), 1u);
  EXPECT_NE(w["flags"][0].get<std::string>().find("skipped work"), std::string::npos);
  Config small = c;
  small.roof.bytes /= 10;
  w = work_done(kTestdata + "ncu_softmax_v0.csv", small, 1, (*knowledge())->integrity);
  ASSERT_EQ(w["flags"].size(), 1u);
  EXPECT_NE(w["flags"][0].get<std::string>().find("bytes formula is wrong"), std::string::npos);
  EXPECT_NE(work_done_human(w).find("FLAG:"), std::string::npos);
}

TEST(KernelShape, ShapeIsOptionalAndProblemDimsMapNames) {
  // No --shape: make_inputs' defaults (M=32768, N=8192) are the shape.
  InitOptions o;
  o.name = "noshape";
  o.kernel_file = kSrc + "/examples/kernel/softmax/v0.py";
  o.platform = "H100";
  o.workspace = goblin::testing::private_tmp_dir("integrity_noshape").string();
  o.harness = kSrc + "/tools/kernel_harness.py";
  auto c = init_workspace(o);
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->shape, (Json{{"M", 32768}, {"N", 8192}}));
  EXPECT_DOUBLE_EQ(c->roof.bytes, 2.0 * 32768 * 8192 * 2);
  // PROBLEM["dims"] maps the formula's M, N to make_inputs' own names.
  auto cost = op_cost(**knowledge(), "softmax", Json{{"rows", 1024}, {"cols", 4096}}, "bf16",
                      Json{{"M", "rows"}, {"N", "cols"}});
  ASSERT_TRUE(cost.ok()) << cost.error().describe();
  EXPECT_DOUBLE_EQ(cost->bytes, 2.0 * 1024 * 4096 * 2);
  // A dimension nothing gives names itself and the two ways to give it.
  auto missing = op_cost(**knowledge(), "softmax", Json{{"rows", 1024}}, "bf16", Json{{"M", "rows"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::NotFound);
  for (const char* want : {"dimension N of softmax", "--shape N=", "make_inputs a default", "\"dims\""})
    EXPECT_NE(missing.error().message.find(want), std::string::npos) << want << " in " << missing.error().message;
  EXPECT_EQ(shape_with_defaults(Json{{"N", 4096}}, Json{{"M", 8}, {"N", 8192}}), (Json{{"M", 8}, {"N", 4096}}));
}
