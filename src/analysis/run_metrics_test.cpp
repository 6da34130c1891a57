// RunMetrics: MFU from recorded shapes on the real H100 Llama traces, and HBM from telemetry in a
// run directory.
#include "analysis/run_metrics.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/steps.h"
#include "hw/roofline.h"
#include "trace/readers.h"

using namespace goblin;

namespace {

const std::string kFix = std::string(GOBLIN_FIXTURES) + "/";

Timeline load(const std::string& rel) {
  Timeline tl;
  Status st = trace::read_path(kFix + rel, tl);
  EXPECT_TRUE(st.ok()) << rel;
  return tl;
}

bool has_warning(const analysis::RunMetrics& m, const std::string& needle) {
  return std::any_of(m.warnings.begin(), m.warnings.end(),
                     [&](const Warning& w) { return w.message.find(needle) != std::string::npos; });
}

// Matmul parameters and tokens of one step, from the recorded aten::linear shapes of the first
// complete step: every weight is used once per forward, so Σ weight elements = the parameters
// that take part in matmuls (embedding lookups do not), and tokens = input rows.
struct ModelFromShapes {
  double params = 0, tokens = 0;
  int linears = 0;
};
ModelFromShapes model_from_shapes(const Timeline& tl) {
  ModelFromShapes r;
  analysis::StepDetection sd = analysis::find_steps(tl);
  auto step = std::find_if(sd.steps.begin(), sd.steps.end(), [](const analysis::Step& s) { return !s.partial; });
  EXPECT_NE(step, sd.steps.end());
  if (step == sd.steps.end()) return r;
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) {
    if (tl.str(tl.cpu_ops.name[i]) != "aten::linear") continue;
    if (tl.cpu_ops.start_ns[i] < step->start_ns || tl.cpu_ops.start_ns[i] >= step->end_ns) continue;
    auto d = hw::parse_input_dims(tl.str(tl.cpu_ops.input_dims[i]));
    if (!d || d->size() < 2 || (*d)[1].size() != 2 || (*d)[0].size() != 3) continue;
    r.params += static_cast<double>((*d)[1][0]) * static_cast<double>((*d)[1][1]);
    r.tokens = static_cast<double>((*d)[0][0]) * static_cast<double>((*d)[0][1]);
    ++r.linears;
  }
  return r;
}

}  // namespace

// FLOPs per step against the analytic training estimate 6·N·T + attention, where N and T come
// from the recorded linear shapes and the attention term from the model config (8 layers, seq
// 1024, hidden 1024): 4·L·d FLOPs per token per layer forward for QKᵀ and AV, ×3 with backward
// (12·layers·L·d·T); the eager run materialises the full L×L scores (no causal saving), the SDPA
// run's cuDNN kernel is causal (half). Tolerance 2%: op_cost prices attention backward at 2.5×
// forward (flash recomputation) where the analytic estimate uses 2×, +1% on the SDPA run.
TEST(RunMetricsMfu, FlopsPerStepMatchAnalyticEstimateOnH100Llama) {
  struct Case {
    const char* file;
    double causal_factor;
  };
  std::map<std::string, analysis::RunMetrics> got;
  for (Case c :
       {Case{"kineto/h100_llama_fp32_eager_w0.json.gz", 1.0}, Case{"kineto/h100_llama_bf16_sdpa_w4.json.gz", 0.5}}) {
    Timeline tl = load(c.file);
    ModelFromShapes mdl = model_from_shapes(tl);
    EXPECT_EQ(mdl.linears, 8 * 7 + 1) << c.file;  // q k v o gate up down per layer + lm_head
    EXPECT_EQ(mdl.tokens, 8.0 * 1024);
    // 8 × (4·1024² + 3·1024·2816) + 32000·1024
    EXPECT_DOUBLE_EQ(mdl.params, 8.0 * (4 * 1024.0 * 1024 + 3 * 1024.0 * 2816) + 32000.0 * 1024);
    const double layers = 8, seq = 1024, hidden = 1024;
    double analytic = 6 * mdl.params * mdl.tokens + 12 * layers * seq * hidden * mdl.tokens * c.causal_factor;
    auto r = analysis::compute_run_metrics(tl);
    ASSERT_TRUE(r.ok());
    const analysis::RunMetrics& m = r.value();
    ASSERT_TRUE(m.flops_per_step.has_value()) << c.file;
    EXPECT_NEAR(*m.flops_per_step / analytic, 1.0, 0.02)
        << c.file << " flops/step " << *m.flops_per_step << " analytic " << analytic;
    EXPECT_FALSE(m.mfu_basis.empty());
    got[c.file] = m;
  }
  const analysis::RunMetrics& fp32 = got["kineto/h100_llama_fp32_eager_w0.json.gz"];
  const analysis::RunMetrics& bf16 = got["kineto/h100_llama_bf16_sdpa_w4.json.gz"];
  ASSERT_TRUE(fp32.mfu_pct && bf16.mfu_pct && fp32.mfu_dtype_path_pct && bf16.mfu_dtype_path_pct);
  // Both against the H100 SXM dense bf16 peak: the fp32 run far lower (it runs SIMT sgemm).
  EXPECT_GT(*fp32.mfu_pct, 0);
  EXPECT_LT(*bf16.mfu_pct, 100);
  EXPECT_LT(*fp32.mfu_pct * 3, *bf16.mfu_pct);
  EXPECT_NE(fp32.mfu_basis.find("dense bf16 tensor 989.4"), std::string::npos) << fp32.mfu_basis;
  EXPECT_NE(fp32.mfu_basis.find("dense fp32 66.9"), std::string::npos) << fp32.mfu_basis;
  // Against the path it ran on (fp32 SIMT, 66.9 TFLOPS) the fp32 run is busier, still < 100%.
  EXPECT_GT(*fp32.mfu_dtype_path_pct, *fp32.mfu_pct);
  EXPECT_LT(*fp32.mfu_dtype_path_pct, 100);
  EXPECT_DOUBLE_EQ(*bf16.mfu_dtype_path_pct, *bf16.mfu_pct);
  // The formula, recomputed from the reported parts.
  EXPECT_NEAR(*bf16.mfu_pct, 100 * *bf16.flops_per_step / (bf16.step_time_s * 989.4e12), 1e-9);
  // JSON round trip keeps the new fields.
  auto back = analysis::run_metrics_from_json(analysis::run_metrics_to_json(bf16));
  ASSERT_TRUE(back.ok());
  EXPECT_NEAR(*back.value().mfu_pct, *bf16.mfu_pct, 1e-3);
  EXPECT_DOUBLE_EQ(*back.value().flops_per_step, *bf16.flops_per_step);
  EXPECT_EQ(back.value().mfu_basis, bf16.mfu_basis);
}

TEST(RunMetricsMfu, UnknownGpuAndMissingShapesAreNullWithAWarning) {
  Timeline unknown = load("kineto/h100_llama_bf16_sdpa_w4.json.gz");
  unknown.meta.devices.clear();
  DeviceInfo d;
  d.id = 0;
  d.name = "Mystery GPU 9000";
  unknown.meta.devices.push_back(d);
  auto r = analysis::compute_run_metrics(unknown);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.value().mfu_pct.has_value());
  EXPECT_TRUE(r.value().flops_per_step.has_value());  // FLOPs do not depend on the GPU
  EXPECT_TRUE(has_warning(r.value(), "not in the spec database")) << r.value().warnings.size();

  Timeline noshapes = load("kineto/h100_llama_bf16_sdpa_w4.json.gz");
  std::fill(noshapes.cpu_ops.input_dims.begin(), noshapes.cpu_ops.input_dims.end(), kNoStr);
  auto n = analysis::compute_run_metrics(noshapes);
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n.value().mfu_pct.has_value());
  EXPECT_FALSE(n.value().flops_per_step.has_value());
  EXPECT_TRUE(has_warning(n.value(), "record_shapes")) << n.value().warnings.size();
  EXPECT_EQ(analysis::run_metrics_to_json(n.value())["mfu_pct"], nullptr);
}

// A run directory: a Kineto trace plus nvidia-smi CSV telemetry. hbm_peak_gb is the CSV's
// largest memory.used, MiB × 2^20 bytes / 1e9 (GB = 10^9 bytes), read here by hand.
TEST(RunMetricsHbm, RunDirectoryTelemetryPeakMatchesCsv) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("goblin_rm_hbm_" + fmt::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string csv = kFix + "telemetry/nvidia_smi_h100_training.csv";
  fs::copy_file(kFix + "kineto/h100_llama_bf16_sdpa_w4.json.gz", dir / "trace.json.gz");
  fs::copy_file(csv, dir / "nvidia_smi.csv");

  // By hand: column 5 is "memory.used [MiB]", values like "17153 MiB".
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  double max_mib = -1, sum_mib = 0, util_busy_sum = 0;
  int n = 0, util_busy_n = 0;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string cell;
    for (int c = 0; c <= 5 && std::getline(ss, cell, ','); ++c) {
      if (c == 3 && std::stod(cell) > 0) util_busy_sum += std::stod(cell), ++util_busy_n;  // "utilization.gpu [%]"
    }
    double v = std::stod(cell);
    max_mib = std::max(max_mib, v);
    sum_mib += v;
    ++n;
  }
  ASSERT_GT(n, 0);
  EXPECT_EQ(max_mib, 17153);  // the peak row of this capture

  Timeline tl;
  Status st = trace::read_path(dir.string(), tl);
  fs::remove_all(dir);
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto r = analysis::compute_run_metrics(tl);
  ASSERT_TRUE(r.ok());
  const analysis::RunMetrics& m = r.value();
  ASSERT_TRUE(m.hbm_peak_gb && m.hbm_avg_gb);
  EXPECT_NEAR(*m.hbm_peak_gb, max_mib * 1048576.0 / 1e9, 1e-9);  // 17.986 GB (= 16.75 GiB)
  EXPECT_NEAR(*m.hbm_avg_gb, sum_mib / n * 1048576.0 / 1e9, 1e-6);
  EXPECT_FALSE(has_warning(m, "hbm_peak_gb/hbm_avg_gb unobserved"));
  // Telemetry utilisation: the mean of the non-zero "utilization.gpu" cells, by hand above.
  ASSERT_GT(util_busy_n, 0);
  ASSERT_TRUE(m.gpu_util_telemetry_pct.has_value());
  EXPECT_NEAR(*m.gpu_util_telemetry_pct, util_busy_sum / util_busy_n, 1e-9);
  EXPECT_NEAR(analysis::run_metrics_from_json(analysis::run_metrics_to_json(m))->gpu_util_telemetry_pct.value(),
              *m.gpu_util_telemetry_pct, 0.006);
  // The trace's own figures are unchanged by the telemetry beside it.
  EXPECT_TRUE(m.mfu_pct.has_value());
}

// The field list (run_metrics_json.cpp): a struct written and read back is the same struct, and
// the JSON the same JSON (breakdown_test does the same on the fixture traces' metrics). A
// metrics.json recorded by a live audit (written unrounded, by the run's own writer) reads into
// the struct and writes back with the same keys in the same order.
TEST(RunMetricsJson, RoundTripsStructAndRecordedFile) {
  analysis::RunMetrics m;
  m.steps = {{"ProfilerStep#2", 0.25, 0.2, false}, {"ProfilerStep#3", 0.5, 0.1, true}};
  m.step_time_s = 0.25;
  m.tokens_per_sec = 1234.5;
  m.gpu_activity = false;  // gpu_util_pct null
  m.waste_budget.useful_gpu = 0.125;
  m.waste_budget.step_time_s = 0.25;
  m.waste_budget.unobserved = {"comm_excess"};
  m.top_kernels = {{"k", "gemm", "gemm", 50.5, 0.1, 7}};
  m.versions = {{"cuda", "12.4"}};
  m.runner_kind = "live";
  const Json j = analysis::run_metrics_to_json(m);
  EXPECT_TRUE(j["gpu_util_pct"].is_null());
  EXPECT_TRUE(j["cost_profile"].is_null());
  EXPECT_EQ(j["waste_budget"]["unit"], "seconds per step");
  auto back = analysis::run_metrics_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->gpu_activity);
  EXPECT_EQ(back->steps[1].partial, true);
  EXPECT_EQ(back->top_kernels[0].count, 7);
  EXPECT_EQ(back->runner_kind, "live");
  EXPECT_EQ(analysis::run_metrics_to_json(*back).dump(), j.dump());

  std::ifstream in(std::string(GOBLIN_SOURCE_DIR) +
                   "/tests/fixtures/h100_audit_rounds/hf_trainer_r2/round1_after_profile/metrics.json");
  const Json recorded = Json::parse(in);
  auto r = analysis::run_metrics_from_json(recorded);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Json again = analysis::run_metrics_to_json(*r);
  std::vector<std::string> keys_in, keys_out;
  for (auto it = recorded.begin(); it != recorded.end(); ++it) keys_in.push_back(it.key());
  for (auto it = again.begin(); it != again.end(); ++it) keys_out.push_back(it.key());
  EXPECT_EQ(keys_out, keys_in);
  EXPECT_NEAR(r->step_time_s, recorded["step_time_s"].get<double>(), 1e-12);
  EXPECT_EQ(r->versions.at("pytorch"), recorded["versions"]["pytorch"]);
  EXPECT_EQ(r->steps.size(), recorded["steps"].size());
  EXPECT_EQ(analysis::run_metrics_to_json(*analysis::run_metrics_from_json(again)).dump(), again.dump());
}

TEST(RunMetricsJson, MistypedKeysAreMalformedAndNamed) {
  auto r = analysis::run_metrics_from_json(Json{{"steps", {{{"name", "s"}, {"wall_s", "slow"}}}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(r.error().message, "run metrics: steps[0].wall_s: expected number, got string");
  r = analysis::run_metrics_from_json(Json{{"waste_budget", {{"host_gap", nullptr}}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "run metrics: waste_budget.host_gap: expected number, got null");
  r = analysis::run_metrics_from_json(Json{{"tokens_per_sec", "fast"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "run metrics: tokens_per_sec: expected number, got string");
  // A runner that could not analyse its run writes null for the budget (run/run_results.cpp).
  r = analysis::run_metrics_from_json(Json{{"step_time_s", 0.5}, {"waste_budget", nullptr}, {"steps", Json::array()}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->step_time_s, 0.5);
}

namespace {
int count_warnings(const analysis::RunMetrics& m, WarningId id) {
  return static_cast<int>(
      std::count_if(m.warnings.begin(), m.warnings.end(), [&](const Warning& w) { return w.id == id; }));
}
std::string warning_text(const analysis::RunMetrics& m, WarningId id) {
  for (const Warning& w : m.warnings)
    if (w.id == id) return w.message;
  return {};
}
}  // namespace

// tokens/s names its source in `window` with the other beside it (docs/metrics.md § Throughput
// sources), on the synthetic traces of tests/fixtures/throughput: 4 steps of 10 ms, 40 tokens per
// step (batch_size 4 x seq_len 10 in the metadata).
TEST(RunMetricsThroughput, SourcesAgreeMetadataKept) {
  auto m = analysis::compute_run_metrics(load("throughput/consistent.json"));
  ASSERT_TRUE(m.ok()) << m.error().describe();
  EXPECT_NEAR(m->step_time_s, 0.010, 1e-9);
  ASSERT_TRUE(m->tokens_per_sec);
  EXPECT_NEAR(*m->tokens_per_sec, 4000, 1e-6);
  EXPECT_NE(m->window.find("tokens_per_sec source: trace_metadata (trace_steps: 4000, 40 tokens per step from the "
                           "trace's batch_size x seq_len)"),
            std::string::npos)
      << m->window;
  EXPECT_EQ(count_warnings(*m, W::tokens_per_sec_disagrees), 0);
  EXPECT_EQ(count_warnings(*m, W::throughput_sources_disagree), 0);
}

// The metadata claims 12,000 tokens/s where its own batch x seq (40) over the measured 10 ms step
// give 4,000: refused as evidence, tokens_per_sec is the trace steps', the claim shown beside it.
TEST(RunMetricsThroughput, ContradictingMetadataTokensPerSecIsRefused) {
  auto m = analysis::compute_run_metrics(load("throughput/metadata_3x.json"));
  ASSERT_TRUE(m.ok()) << m.error().describe();
  ASSERT_TRUE(m->tokens_per_sec);
  EXPECT_NEAR(*m->tokens_per_sec, 4000, 1e-6);
  EXPECT_NE(m->window.find("tokens_per_sec source: trace_steps (trace_metadata: 12000)"), std::string::npos)
      << m->window;
  EXPECT_EQ(count_warnings(*m, W::tokens_per_sec_disagrees), 1);
  EXPECT_NE(warning_text(*m, W::tokens_per_sec_disagrees).find("refused"), std::string::npos);
  EXPECT_NE(warning_text(*m, W::tokens_per_sec_disagrees).find("batch_size x seq_len"), std::string::npos);
  ASSERT_TRUE(m->tokens_per_sec_source);
  EXPECT_EQ(*m->tokens_per_sec_source, "trace_steps");
}

// The workload's timer says 10.3 ms against the trace's 10 ms steps (3 %, under the 10 % that
// refuses): the metadata's tokens/s stays, the trace steps' figure from the workload's own tokens
// per step is shown beside it.
TEST(RunMetricsThroughput, TimerThreePercentOffKeepsMetadataAndShowsSteps) {
  auto m = analysis::compute_run_metrics(load("throughput/timer_3pct.json"));
  ASSERT_TRUE(m.ok()) << m.error().describe();
  EXPECT_NEAR(m->step_time_s, 0.010, 1e-9);
  ASSERT_TRUE(m->workload_step_time_s);
  EXPECT_NEAR(*m->workload_step_time_s, 0.0103, 1e-12);
  EXPECT_NEAR(*m->tokens_per_sec, 3883.5, 1e-6);
  EXPECT_NE(m->window.find("tokens_per_sec source: trace_metadata (trace_steps: 4000"), std::string::npos) << m->window;
  EXPECT_EQ(count_warnings(*m, W::tokens_per_sec_disagrees), 0);
  EXPECT_EQ(count_warnings(*m, W::step_time_disagrees), 0);
  // Past the 2 % of run-to-run noise, both the step time and the tokens/s say so, and the JSON names
  // the source shown.
  EXPECT_EQ(count_warnings(*m, W::throughput_sources_disagree), 2);
  EXPECT_NE(warning_text(*m, W::throughput_sources_disagree).find("% apart"), std::string::npos);
  ASSERT_TRUE(m->tokens_per_sec_source);
  EXPECT_EQ(*m->tokens_per_sec_source, "trace_metadata");
}
