// fp32 training on AMD gets the precision fix (issue 46): a step whose fp32 GEMMs are Tensile /
// hipBLASLt single-precision kernels (Cijk_*_SB_*, data/taxonomy.yaml § simt_fp32_gemm) puts them
// in precision_path at the MI300X's bf16 / fp32-matrix ratio (data/gpus.yaml: 1307.4 / 163.4), the
// audit proposes bf16 autocast priced on the MI300X's peaks, and nothing about TF32; the same step
// with NVIDIA kernel names on an H100 keeps its bf16 + TF32 advice.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>

#include "analysis/run_metrics.h"
#include "audit/patch.h"
#include "audit/rules.h"
#include "audit/speedup_model.h"
#include "core/data.h"
#include "core/test_support.h"
#include "trace/readers.h"

using namespace goblin;
using namespace goblin::audit;

namespace {

constexpr const char* kMi300x =
    R"({"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, "computeMajor": 9,
        "computeMinor": 4, "warpSize": 64, "numSms": 304, "gcnArchName": "gfx942"})";
constexpr const char* kH100 =
    R"({"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640, "computeMajor": 9,
        "computeMinor": 0, "warpSize": 32, "numSms": 132})";

// Four 10 ms steps of a model training in fp32: per step one fp32 GEMM of 4 ms (40 % of the step;
// aten::mm of [4096, 8192] x [8192, 4096] floats, 2.75e11 FLOP), one fp32 elementwise kernel of
// 3 ms, and 2.5 ms of idle.
std::string fp32_step_trace(const std::string& gemm, const char* device, const std::string& launch) {
  std::string ev;
  auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",\n") + e; };
  int id = 1;
  for (int s = 0; s < 4; ++s) {
    const double t0 = 1000.0 + s * 10000.0;
    add(fmt::format(R"({{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}", "pid": 1, "tid": 1,
        "ts": {}, "dur": 10000, "args": {{"External id": {}}}}})",
                    s, t0, id++));
    struct K {
      std::string op, dims, kernel;
      double at, dur;
    };
    for (const K& k : {K{"aten::mm", "[[4096, 8192], [8192, 4096]]", gemm, 300, 4000},
                       K{"aten::add", "[[4096, 4096], [4096, 4096], []]",
                         "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
                         "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
                         4500, 3000}}) {
      const int ext = id++, corr = id++;
      add(fmt::format(R"({{"ph": "X", "cat": "cpu_op", "name": "{}", "pid": 1, "tid": 1, "ts": {}, "dur": 150,
          "args": {{"External id": {}, "Input Dims": {}, "Input type": ["float", "float", "Scalar"]}}}})",
                      k.op, t0 + k.at - 200, ext, k.dims));
      add(fmt::format(R"({{"ph": "X", "cat": "cuda_runtime", "name": "{}", "pid": 1, "tid": 1, "ts": {}, "dur": 40,
          "args": {{"External id": {}, "correlation": {}}}}})",
                      launch, t0 + k.at - 150, ext, corr));
      add(fmt::format(R"({{"ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": 7, "ts": {}, "dur": {},
          "args": {{"External id": {}, "device": 0, "stream": 7, "correlation": {}, "grid": [304, 1, 1],
          "block": [256, 1, 1]}}}})",
                      k.kernel, t0 + k.at, k.dur, ext, corr));
    }
  }
  return fmt::format(R"({{"schemaVersion": 1, "record_shapes": 1, "deviceProperties": [{}],
  "traceEvents": [
{}
]}})",
                     device, ev);
}

analysis::RunMetrics metrics_of_trace(const std::string& name, const std::string& text) {
  set_data_dir(GOBLIN_DATA_DIR);
  const auto path = goblin::testing::private_tmp_dir("amd_precision") / name;
  std::ofstream(path) << text;
  Timeline tl;
  Status st = trace::read_path(path.string(), tl);
  EXPECT_TRUE(st.ok()) << st.error().describe();
  auto m = analysis::compute_run_metrics(tl);
  EXPECT_TRUE(m.ok()) << m.error().describe();
  return *m;
}

// An fp32 training config: no bf16/fp16/tf32 (HF TrainingArguments keys, as base.yaml).
Json patch_of(const analysis::RunMetrics& m, const std::string& rules = "all") {
  const auto cfg = goblin::testing::private_tmp_dir("amd_precision_cfg") / "fp32.yaml";
  std::ofstream(cfg) << "per_device_train_batch_size: 8\nbf16: false\nfp16: false\ntf32: false\n";
  auto kb = knowledge();
  EXPECT_TRUE(kb.ok());
  PatchOptions po;
  po.rule_ids = {rules};
  po.metrics = &m;
  auto p = make_patch(cfg.string(), po, **kb);
  EXPECT_TRUE(p.ok()) << p.error().describe();
  return patch_to_json(p->result);
}

bool has_rule(const Json& patch, const std::string& id) { return patch.dump().find(id) != std::string::npos; }

}  // namespace

TEST(AmdPrecision, Mi300xFp32TensileGemmsFeedPrecisionPathAndTheBf16Rule) {
  analysis::RunMetrics m = metrics_of_trace(
      "mi300x_fp32.json",
      fp32_step_trace("Cijk_Alik_Bljk_SB_MT128x128x16_MI32x32x2x1_SN_1LDSB0_AMAS3_BL1_GRVW4_K1_WG16_16_1", kMi300x,
                      "hipLaunchKernel"));
  EXPECT_EQ(m.gpu_name, "AMD Instinct MI300X");
  // precision_path: the 4 ms GEMM x (1 - 1/8) plus, the model running in fp32, the 3 ms fp32
  // elementwise kernel x (1 - 1/2): 3.5 + 1.5 ms.
  const double s = 1307.4 / 163.4;
  EXPECT_NEAR(m.waste_budget.precision_path, 4e-3 * (1 - 1 / s) + 3e-3 * 0.5, 1e-5);
  bool basis = false;
  for (const auto& w : m.warnings)
    basis |= w.message.find("MI300X dense bf16 1307.4 / fp32_matrix 163.4 TFLOPS = 8.00") != std::string::npos;
  EXPECT_TRUE(basis) << "the ratio's basis names the MI300X's peaks";
  ASSERT_TRUE(m.cost.has_value());
  EXPECT_NEAR(m.cost->gemm_simt_s, 4e-3, 1e-6);
  EXPECT_NEAR(m.cost->gemm_tensor_s, 0, 1e-9);

  Json p = patch_of(m);
  EXPECT_TRUE(has_rule(p["rationale"], "precision.bf16_amp_over_fp32")) << p["rationale"].dump(1);
  // No TF32 on AMD: the remedy is bf16 autocast, priced on the MI300X's bf16 peak.
  EXPECT_FALSE(has_rule(p["rationale"], "tf32")) << p["rationale"].dump(1);
  const std::string text = p.dump();
  EXPECT_EQ(text.find("TF32"), std::string::npos);
  EXPECT_EQ(text.find("tf32 false -> true"), std::string::npos);
  // The bf16 rule alone, priced on the MI300X's bf16 peak.
  Json b = patch_of(m, "precision.bf16_amp_over_fp32");
  ASSERT_EQ(b["prediction_method"], "speedup_models") << b.dump(1);
  bool gemm = false;
  for (const auto& cl : b["speedup_model"]["classes"])
    if (cl["class"] == "gemm") {
      gemm = true;
      EXPECT_NE(cl["basis"].get<std::string>().find("MI300X dense peak"), std::string::npos) << cl["basis"];
    }
  EXPECT_TRUE(gemm);
  // 2.75e11 FLOP at 0.375-0.8 x 1307.4 TFLOPS (0.26-0.56 ms) for the 4 ms GEMM, the fp32
  // elementwise kernel at 1/2-3/4 of its 3 ms: a 10 ms step becomes 4.8-5.8 ms, 1.72-2.10x.
  const double lo = b["expected_speedup_low"], hi = b["expected_speedup_high"];
  EXPECT_NEAR(lo, 10.0 / (3.0 + 2.749e11 / (0.375 * 1307.4e12) * 1e3 + 2.25), 0.05) << b["speedup_model"].dump(1);
  EXPECT_NEAR(hi, 10.0 / (3.0 + 2.749e11 / (0.8 * 1307.4e12) * 1e3 + 1.5), 0.05) << b["speedup_model"].dump(1);
  EXPECT_LT(lo, hi);
}

// The same step with NVIDIA's cuBLAS SIMT kernel on an H100: bf16 and TF32 both proposed (the
// vendor guard keeps TF32 to NVIDIA, not the kernel names).
TEST(AmdPrecision, SameStepOnH100KeepsBf16AndTf32) {
  analysis::RunMetrics m =
      metrics_of_trace("h100_fp32.json", fp32_step_trace("ampere_sgemm_128x64_nn", kH100, "cudaLaunchKernel"));
  EXPECT_GT(m.waste_budget.precision_path, 3e-3);
  Json p = patch_of(m);
  EXPECT_TRUE(has_rule(p["rationale"], "precision.bf16_amp_over_fp32")) << p["rationale"].dump(1);
  EXPECT_TRUE(has_rule(p["rationale"], "precision.tf32_matmul_nvidia")) << p["rationale"].dump(1);
}

// The real ROCm 6.2 training trace (tests/fixtures/kineto/mi250_rocm62_minitoy_train.json.gz) is
// fp32: its hipBLASLt Cijk_*_SB_* GEMMs are on the fp32 path, none of its kernels on a 16-bit one.
TEST(AmdPrecision, RealRocmFp32TraceHasPrecisionPath) {
  set_data_dir(GOBLIN_DATA_DIR);
  Timeline tl;
  ASSERT_TRUE(trace::read_path(std::string(GOBLIN_FIXTURES) + "/kineto/mi250_rocm62_minitoy_train.json.gz", tl).ok());
  auto m = analysis::compute_run_metrics(tl);
  ASSERT_TRUE(m.ok()) << m.error().describe();
  EXPECT_GT(m->waste_budget.precision_path, 0);
  ASSERT_TRUE(m->cost.has_value());
  EXPECT_GT(m->cost->gemm_simt_s, 0);
  EXPECT_NEAR(m->cost->gemm_tensor_s, 0, 1e-12);
}
