// Serving traces on AMD (issue #15), on the real SGLang MI300X fixtures and TraceLens' reference
// figures for them (tests/fixtures/tracelens_reference): busy/idle/exposed memcpy/compute,
// per-category totals, unknown family, the module table and the prefill/decode split; the GPU-side
// step window and the work before the first step on the Qwen 0.5B inference trace.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "analysis/category_breakdown.h"
#include "analysis/exposure.h"
#include "analysis/kernel_table.h"
#include "analysis/modules.h"
#include "analysis/stages.h"
#include "analysis/taxonomy.h"
#include "analysis/taxonomy_test_support.h"
#include "core/csv.h"
#include "core/io.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

const std::string kFix = std::string(GOBLIN_FIXTURES) + "/kineto/";
const std::string kRef = std::string(GOBLIN_FIXTURES) + "/tracelens_reference/";

Timeline read_fixture(const std::string& name) {
  Timeline tl;
  Status st = trace::read_path(kFix + name, tl);
  EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().describe());
  return tl;
}

const Taxonomy& tax() { return testing::taxonomy(); }

// Rows of a TraceLens CSV (header dropped), fields unquoted.
std::vector<std::vector<std::string>> csv_rows(const std::string& path) {
  auto text = read_all(path);
  EXPECT_TRUE(text.ok()) << path;
  std::vector<std::vector<std::string>> rows;
  if (!text.ok()) return rows;
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line))
    if (!line.empty()) rows.push_back(split_csv_line(line));
  return rows;
}

// TraceLens gpu_timeline.csv: type → ms.
std::map<std::string, double> gpu_timeline(const std::string& which) {
  std::map<std::string, double> m;
  for (const auto& r : csv_rows(kRef + "mi300x_" + which + "_gpu_timeline.csv"))
    if (r.size() >= 2) m[r[0]] = std::stod(r[1]);
  return m;
}

// TraceLens ops_summary_by_category.csv: op category → Σ total_direct_kernel_time_ms.
std::map<std::string, double> tracelens_categories(const std::string& which) {
  std::map<std::string, double> m;
  for (const auto& r : csv_rows(kRef + "mi300x_" + which + "_ops_summary_by_category.csv"))
    if (r.size() >= 5) m[r[0]] += std::stod(r[4]);
  return m;
}

void expect_within(double ours_ms, double ref_ms, double rel, const std::string& what) {
  EXPECT_LE(std::abs(ours_ms - ref_ms), rel * std::abs(ref_ms) + 1e-9)
      << what << ": goblin " << ours_ms << " ms, TraceLens " << ref_ms << " ms";
}

class SglangFixture : public ::testing::TestWithParam<const char*> {};

// Acceptance: busy, idle, exposed memcpy and computation agree with TraceLens within 0.1 %.
TEST_P(SglangFixture, GpuTimelineAgreesWithTraceLens) {
  const std::string which = GetParam();
  Timeline tl = read_fixture("mi300x_sglang_qwen3_8b_" + which + ".json.gz");
  CategoryBreakdown b = category_breakdown(tl, tax());
  ASSERT_EQ(b.step_breakdowns.size(), 1u);  // no ProfilerStep: one window over the GPU span, as TraceLens
  const WindowBreakdown& w = b.step_breakdowns[0];
  auto ref = gpu_timeline(which);
  ASSERT_FALSE(ref.empty());
  expect_within(w.wall_ns / 1e6, ref["total_time"], 1e-3, "total_time");
  expect_within(w.busy_ns / 1e6, ref["busy_time"], 1e-3, "busy_time");
  expect_within(w.idle_ns / 1e6, ref["idle_time"], 1e-3, "idle_time");
  expect_within(w.compute_ns / 1e6, ref["computation_time"], 1e-3, "computation_time");
  expect_within(w.exposed_memcpy_ns / 1e6, ref["exposed_memcpy_time"], 1e-3, "exposed_memcpy_time");
  expect_within(w.memcpy_ns / 1e6, ref["total_memcpy_time"], 1e-3, "total_memcpy_time");
  EXPECT_EQ(w.exposed_comm_ns, 0);
  EXPECT_EQ(ref["exposed_comm_time"], 0.0);
}

// Acceptance: per-category totals reconcile with ops_summary_by_category.csv. TraceLens
// categorises the CPU op (aten::mm → GEMM, sglang::store_cache → InferenceAttention, ...), goblin
// the kernel; docs/metrics.md § TraceLens categories gives the mapping checked here.
TEST_P(SglangFixture, CategoryTotalsReconcileWithTraceLens) {
  const std::string which = GetParam();
  Timeline tl = read_fixture("mi300x_sglang_qwen3_8b_" + which + ".json.gz");
  CategoryBreakdown b = category_breakdown(tl, tax());
  std::map<std::string, double> ours;  // category → ms; TraceLens files memcpys under their CPU op (aten::copy_)
  double ours_kernels = 0;
  for (const auto& r : b.rows) {
    ours[r.category] += r.time_ns / 1e6;
    ours_kernels += r.time_ns / 1e6;
  }
  auto tl_cat = tracelens_categories(which);
  double ref_total = 0;
  for (const auto& [c, ms] : tl_cat) ref_total += ms;
  expect_within(ours_kernels, ref_total, 1e-3, "all GPU-op time");
  expect_within(ours["gemm"], tl_cat["GEMM"], 1e-3, "GEMM ↔ gemm");
  expect_within(ours["attention"] + ours["kv_cache"], tl_cat["InferenceAttention"], 1e-3,
                "InferenceAttention ↔ attention + kv_cache");
  expect_within(ours["norm"], tl_cat["RMSNorm"], 1e-3, "RMSNorm ↔ norm");
  // The rest: TraceLens' elementwise, RoPE_fwd, reduce, other, multi_tensor_apply ↔ goblin's
  // elementwise, reduction, scheduler, sampling and the memcpys (TraceLens: aten::copy_ → elementwise).
  const double ref_rest = ref_total - tl_cat["GEMM"] - tl_cat["InferenceAttention"] - tl_cat["RMSNorm"];
  const double our_rest =
      ours["elementwise"] + ours["reduction"] + ours["scheduler"] + ours["sampling"] + ours["memcpy"];
  expect_within(our_rest, ref_rest, 1e-3, "the other categories together");
  expect_within(ours_kernels - ours["gemm"] - ours["attention"] - ours["kv_cache"] - ours["norm"], our_rest, 1e-9,
                "no other category");
}

// Acceptance: < 1 % of GPU time with an unknown library family.
TEST_P(SglangFixture, UnknownFamilyBelowOnePercent) {
  Timeline tl = read_fixture("mi300x_sglang_qwen3_8b_" + std::string(GetParam()) + ".json.gz");
  CategoryBreakdown b = category_breakdown(tl, tax());
  double unknown = 0;
  for (const auto& r : b.rows)
    if (r.family == "unknown") unknown += r.pct;
  EXPECT_LT(unknown, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Serving, SglangFixture, ::testing::Values("decode", "prefilldecode"));

TEST(Serving, UnknownFamilyBelowOnePercentOnTheQwenInferenceTrace) {
  Timeline tl = read_fixture("h100_qwen05b_inference_stack.json.gz");
  CategoryBreakdown b = category_breakdown(tl, tax());
  double unknown = 0;
  for (const auto& r : b.rows)
    if (r.family == "unknown") unknown += r.pct;
  EXPECT_LT(unknown, 1.0);
}

struct Attributed {
  LaunchAttribution la;
  KernelTableResult kt;
};
Attributed attribute(const Timeline& tl) {
  Attributed a;
  a.la = attribute_launches(tl);
  a.kt = build_kernel_table(tl, compute_exposure(tl), a.la, &tax());
  return a;
}

const ModuleRow* find_module(const ModuleTable& t, const std::string& m) {
  for (const auto& r : t.rows)
    if (r.module == m) return &r;
  return nullptr;
}

// Acceptance: the module table on the prefill trace matches TraceLens' parent_module totals.
TEST(Serving, ModuleTableMatchesTraceLensParentModules) {
  Timeline tl = read_fixture("mi300x_sglang_qwen3_8b_prefilldecode.json.gz");
  Attributed a = attribute(tl);
  ModuleTable t = build_module_table(tl, a.la, attribute_modules(tl, a.la), a.kt);
  ASSERT_TRUE(t.available);
  std::map<std::string, double> ref;  // parent_module → ms
  for (const auto& r : csv_rows(kRef + "mi300x_prefilldecode_ops_summary_by_category.csv"))
    if (r.size() >= 5 && r[1] != "NA") ref[r[1].substr(std::string("nn.Module: ").size())] += std::stod(r[4]);
  ASSERT_GE(ref.size(), 10u);
  for (const auto& [module, ms] : ref) {
    const ModuleRow* row = find_module(t, module);
    ASSERT_NE(row, nullptr) << module;
    expect_within(row->time_ns / 1e6, ms, 1e-3, "module " + module);
  }
  const ModuleRow* mlp = find_module(t, "MergedColumnParallelLinear");
  ASSERT_NE(mlp, nullptr);
  EXPECT_EQ(mlp->instances, 36);  // one per decoder layer
  EXPECT_EQ(mlp->path, "Qwen3Model > Qwen3DecoderLayer > Qwen2MLP > MergedColumnParallelLinear");
  EXPECT_EQ(mlp->category_ns.at("gemm"), mlp->time_ns);
  const ModuleRow* radix = find_module(t, "RadixAttention");
  ASSERT_NE(radix, nullptr);
  EXPECT_GT(radix->category_ns.at("kv_cache"), 0);  // store_kvcache is launched under RadixAttention
  EXPECT_EQ(t.graph_replay_ops, 0);
  Json j = module_rows_to_json(t);
  EXPECT_EQ(j[0]["module"], "MergedColumnParallelLinear");
  EXPECT_EQ(j[0]["categories"][0]["category"], "gemm");
}

// The decode trace replays a HIP graph: its kernels are attributed to the graph launch; the eager
// kernels after it to their modules (argmax under Sampler, as TraceLens).
TEST(Serving, ModuleTableOnTheGraphReplayDecodeTrace) {
  Timeline tl = read_fixture("mi300x_sglang_qwen3_8b_decode.json.gz");
  Attributed a = attribute(tl);
  ModuleTable t = build_module_table(tl, a.la, attribute_modules(tl, a.la), a.kt);
  ASSERT_TRUE(t.available);
  int64_t graph_kernels = 0;
  for (size_t i = 0; i < tl.gpu_ops.count(GpuOpKind::Kernel); ++i)
    if (auto r = tl.runtime_by_correlation(tl.gpu_ops.correlation[tl.gpu_ops.nth(GpuOpKind::Kernel, i)]))
      graph_kernels += tl.str(tl.runtime.name[*r]) == "hipGraphLaunch";
  EXPECT_GT(graph_kernels, 500);
  EXPECT_EQ(t.graph_replay_ops, graph_kernels);
  const ModuleRow* g = find_module(t, "(graph replay)");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->ops, graph_kernels);
  EXPECT_EQ(t.rows.front().module, "(graph replay)");
  const ModuleRow* sampler = find_module(t, "Sampler");
  ASSERT_NE(sampler, nullptr);
  double ref = 0;
  for (const auto& r : csv_rows(kRef + "mi300x_decode_ops_summary_by_category.csv"))
    if (r.size() >= 5 && r[1] == "nn.Module: Sampler") ref += std::stod(r[4]);
  expect_within(sampler->time_ns / 1e6, ref, 1e-3, "Sampler (TraceLens: reduce under nn.Module: Sampler)");
}

// Acceptance: the prefill/decode split. The "prefilldecode" fixture's only batch is a prefill
// (step[EXTEND bs=15 toks=15360], execute_..context_15.._generation_0); the decode fixture is one
// DECODE batch replayed as a HIP graph; both captures of one server appended make a trace holding
// both stages.
TEST(Serving, PrefillDecodeSplit) {
  Timeline pre = read_fixture("mi300x_sglang_qwen3_8b_prefilldecode.json.gz");
  Attributed a = attribute(pre);
  auto s = split_stages(pre, a.la, a.kt);
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_TRUE(s->from_annotations);
  EXPECT_EQ(s->profile_stage, "prefill");
  ASSERT_EQ(s->stages.size(), 1u);
  EXPECT_EQ(s->stages[0].stage, "prefill");
  EXPECT_EQ(s->stages[0].batches, 1);
  EXPECT_EQ(s->stages[0].ops, static_cast<int64_t>(pre.gpu_op_count()));

  Timeline dec = read_fixture("mi300x_sglang_qwen3_8b_decode.json.gz");
  Attributed d = attribute(dec);
  auto sd = split_stages(dec, d.la, d.kt);
  ASSERT_TRUE(sd.ok());
  EXPECT_EQ(sd->profile_stage, "decode");

  const int64_t pre_ops = static_cast<int64_t>(pre.gpu_op_count()), dec_ops = static_cast<int64_t>(dec.gpu_op_count());
  Timeline both = read_fixture("mi300x_sglang_qwen3_8b_prefilldecode.json.gz");
  both.append(read_fixture("mi300x_sglang_qwen3_8b_decode.json.gz"));
  Attributed ab = attribute(both);
  auto sb = split_stages(both, ab.la, ab.kt);
  ASSERT_TRUE(sb.ok());
  EXPECT_EQ(sb->profile_stage, "mixed");
  ASSERT_EQ(sb->stages.size(), 2u);
  EXPECT_EQ(sb->stages[0].stage, "prefill");
  EXPECT_EQ(sb->stages[1].stage, "decode");
  EXPECT_EQ(sb->stages[0].ops, pre_ops);
  EXPECT_EQ(sb->stages[1].ops, dec_ops);
  // Per-stage tables: the decode stage is dominated by GEMM then the paged attention, the prefill
  // stage by GEMM; the paged-attention decode kernels appear only in decode.
  EXPECT_GT(sb->stages[0].category_ns.at("gemm"), sb->stages[0].op_time_ns * 8 / 10);
  EXPECT_GT(sb->stages[1].category_ns.at("attention"), sb->stages[1].op_time_ns / 5);
  Json j = stage_split_to_json(*sb);
  EXPECT_EQ(j["profile_stage"], "mixed");
  EXPECT_EQ(j["stages"][1]["batches"], 1);
  EXPECT_FALSE(stage_split_markdown(*sb, 5).empty());
}

// Acceptance: on the Qwen 0.5B inference trace the step is the GPU work it launched, which is
// the GPU-side annotation's range (gpu_user_annotation ProfilerStep#6, 34.892 ms; TraceLens' reference for this trace:
// busy 31.905483 ms of 34.892419 ms, AMD-AGI/TraceLens tests/traces/compare_test_e2e/reference/
// compare_h100_mi300_qwen_csvs/gpu_timeline.csv) and the 509 kernels queued before the profiler
// started are reported before the first step, not in it. One difference from TraceLens, on
// purpose: the 0.291 ms the GPU sat idle between the last queued kernel and the step's first
// kernel, after the step's CPU start, is the step's own host time and stays in its window (a
// training step's batch loading is the same gap, 100 ms on the live base.yaml profile, and is
// the data_wait the audit's data rules recover).
TEST(Serving, StepFollowsGpuAnnotationAndOrphanWorkIsSeparate) {
  Timeline tl = read_fixture("h100_qwen05b_inference_stack.json.gz");
  CategoryBreakdown b = category_breakdown(tl, tax());
  ASSERT_EQ(b.steps.steps.size(), 1u);
  const Step& s = b.steps.steps[0];
  int64_t gs = INT64_MAX, ge = 0;
  for (size_t i = 0; i < tl.annotations.size(); ++i)
    if (tl.annotations.on_gpu[i] && tl.str(tl.annotations.name[i]) == "ProfilerStep#6") {
      gs = std::min(gs, tl.annotations.start_ns[i]);
      ge = std::max(ge, tl.annotations.end_ns(i));
    }
  int64_t last_orphan_end = INT64_MIN;
  for (size_t i = 0; i < tl.gpu_ops.count(GpuOpKind::Kernel); ++i)
    if (tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, i)] < gs)
      last_orphan_end = std::max(last_orphan_end, tl.gpu_ops.end_ns(tl.gpu_ops.nth(GpuOpKind::Kernel, i)));
  ASSERT_LT(last_orphan_end, gs);
  ASSERT_GT(last_orphan_end, s.cpu_start_ns);  // the queued work ran on past the step's CPU start
  EXPECT_EQ(s.start_ns, last_orphan_end);
  EXPECT_NEAR(s.end_ns, ge, 1000);  // its own last op's end, which the GPU-side range rounds (1 ns)
  // The one step rule (issue 47): the GPU work the step launched, which the GPU-side range covers.
  EXPECT_NE(s.source.find("GPU work it launched"), std::string::npos) << s.source;
  const WindowBreakdown& w = b.step_breakdowns[0];
  expect_within((w.wall_ns - (gs - last_orphan_end)) / 1e6, 34.8924189453125, 1e-3, "step wall less the host gap");
  EXPECT_NEAR((gs - last_orphan_end) / 1e6, 0.291, 0.001);
  expect_within(w.busy_ns / 1e6, 31.905483154296878, 1e-3, "step busy");
  ASSERT_TRUE(b.has_before_first_step);
  EXPECT_EQ(b.steps.before_first_step.end_ns, s.start_ns);
  EXPECT_EQ(b.steps.before_first_step_ops, 509);
  EXPECT_EQ(b.steps.before_first_step_orphans, 509);
  EXPECT_NEAR(b.before_first_step.busy_ns / 1e6, 13.742, 0.001);
  Json j = category_breakdown_to_json(b);
  EXPECT_EQ(j["before_first_step"]["ops_without_launch_record"], 509);
  EXPECT_EQ(j["steps"].size(), 1u);
}

}  // namespace
}  // namespace goblin::analysis
