// RunMetrics: MFU from recorded shapes on the real H100 Llama traces, and HBM from telemetry in a
// run directory.
#include "analysis/run_metrics.h"

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
  Status st = read_path(kFix + rel, tl);
  EXPECT_TRUE(st.ok()) << rel;
  return tl;
}

bool has_warning(const RunMetrics& m, const std::string& needle) {
  return std::any_of(m.warnings.begin(), m.warnings.end(),
                     [&](const std::string& w) { return w.find(needle) != std::string::npos; });
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
  StepDetection sd = find_steps(tl);
  auto step = std::find_if(sd.steps.begin(), sd.steps.end(), [](const Step& s) { return !s.partial; });
  EXPECT_NE(step, sd.steps.end());
  if (step == sd.steps.end()) return r;
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) {
    if (tl.str(tl.cpu_ops.name[i]) != "aten::linear") continue;
    if (tl.cpu_ops.start_ns[i] < step->start_ns || tl.cpu_ops.start_ns[i] >= step->end_ns) continue;
    auto d = parse_input_dims(tl.str(tl.cpu_ops.input_dims[i]));
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
  std::map<std::string, RunMetrics> got;
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
    auto r = compute_run_metrics(tl);
    ASSERT_TRUE(r.ok());
    const RunMetrics& m = r.value();
    ASSERT_TRUE(m.flops_per_step.has_value()) << c.file;
    EXPECT_NEAR(*m.flops_per_step / analytic, 1.0, 0.02)
        << c.file << " flops/step " << *m.flops_per_step << " analytic " << analytic;
    EXPECT_FALSE(m.mfu_basis.empty());
    got[c.file] = m;
  }
  const RunMetrics& fp32 = got["kineto/h100_llama_fp32_eager_w0.json.gz"];
  const RunMetrics& bf16 = got["kineto/h100_llama_bf16_sdpa_w4.json.gz"];
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
  auto back = run_metrics_from_json(run_metrics_to_json(bf16));
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
  auto r = compute_run_metrics(unknown);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.value().mfu_pct.has_value());
  EXPECT_TRUE(r.value().flops_per_step.has_value());  // FLOPs do not depend on the GPU
  EXPECT_TRUE(has_warning(r.value(), "not in the spec database")) << ::testing::PrintToString(r.value().warnings);

  Timeline noshapes = load("kineto/h100_llama_bf16_sdpa_w4.json.gz");
  std::fill(noshapes.cpu_ops.input_dims.begin(), noshapes.cpu_ops.input_dims.end(), kNoStr);
  auto n = compute_run_metrics(noshapes);
  ASSERT_TRUE(n.ok());
  EXPECT_FALSE(n.value().mfu_pct.has_value());
  EXPECT_FALSE(n.value().flops_per_step.has_value());
  EXPECT_TRUE(has_warning(n.value(), "record_shapes")) << ::testing::PrintToString(n.value().warnings);
  EXPECT_EQ(run_metrics_to_json(n.value())["mfu_pct"], nullptr);
}

// A run directory: a Kineto trace plus nvidia-smi CSV telemetry. hbm_peak_gb is the CSV's
// largest memory.used, MiB × 2^20 bytes / 1e9 (GB = 10^9 bytes), read here by hand.
TEST(RunMetricsHbm, RunDirectoryTelemetryPeakMatchesCsv) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("goblin_rm_hbm_" + std::to_string(::getpid()));
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
    std::stringstream ss(line);
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
  Status st = read_path(dir.string(), tl);
  fs::remove_all(dir);
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto r = compute_run_metrics(tl);
  ASSERT_TRUE(r.ok());
  const RunMetrics& m = r.value();
  ASSERT_TRUE(m.hbm_peak_gb && m.hbm_avg_gb);
  EXPECT_NEAR(*m.hbm_peak_gb, max_mib * 1048576.0 / 1e9, 1e-9);  // 17.986 GB (= 16.75 GiB)
  EXPECT_NEAR(*m.hbm_avg_gb, sum_mib / n * 1048576.0 / 1e9, 1e-6);
  EXPECT_FALSE(has_warning(m, "hbm_peak_gb/hbm_avg_gb unobserved"));
  // Telemetry utilisation: the mean of the non-zero "utilization.gpu" cells, by hand above.
  ASSERT_GT(util_busy_n, 0);
  ASSERT_TRUE(m.gpu_util_telemetry_pct.has_value());
  EXPECT_NEAR(*m.gpu_util_telemetry_pct, util_busy_sum / util_busy_n, 1e-9);
  EXPECT_NEAR(run_metrics_from_json(run_metrics_to_json(m))->gpu_util_telemetry_pct.value(), *m.gpu_util_telemetry_pct,
              0.006);
  // The trace's own figures are unchanged by the telemetry beside it.
  EXPECT_TRUE(m.mfu_pct.has_value());
}
