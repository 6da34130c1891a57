// The audit's knowledge context: the speedup factors of data/speedup_model.yaml drive the models,
// and the rule base's kernel-share evidence follows the taxonomy.
#include "audit/knowledge.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "audit/speedup_model.h"
#include "config/workload_config.h"
#include "core/data.h"
#include "core/io.h"

namespace goblin::audit {
namespace {

std::string shipped_factors() {
  auto t = read_all(std::string(GOBLIN_DATA_DIR) + "/speedup_model.yaml");
  EXPECT_TRUE(t.ok());
  return t.ok() ? *t : "";
}

TEST(SpeedupFactors, EveryFactorIsReadFromTheFile) {
  auto f = SpeedupFactors::parse(shipped_factors(), "speedup_model.yaml");
  ASSERT_TRUE(f.ok()) << f.error().describe();
  EXPECT_DOUBLE_EQ(f->gemm_measured_slow_of_median, 0.5);
  EXPECT_DOUBLE_EQ(f->gemm_datasheet_fast, 0.8);
  EXPECT_DOUBLE_EQ(f->gemm_datasheet_slow, 0.375);
  EXPECT_DOUBLE_EQ(f->attention_flops_slow, 1.25);
  EXPECT_DOUBLE_EQ(f->fused_optimizer_fast, 0.1);
  EXPECT_DOUBLE_EQ(f->compile_host_gap_slow, 0.8);
  EXPECT_DOUBLE_EQ(f->pin_memory_fast, 0.7);
}

TEST(SpeedupFactors, AFactorWithoutBasisOrValueIsMalformedWithItsLine) {
  std::string t = shipped_factors();
  const size_t at = t.find("  fused_optimizer_fast:");
  ASSERT_NE(at, std::string::npos);
  std::string no_basis = t;
  no_basis.insert(at, "  fused_optimizer_fast_dup: 1\n");  // unknown extra keys are fine
  EXPECT_TRUE(SpeedupFactors::parse(no_basis, "s.yaml").ok());
  std::string missing = t;
  const size_t end = missing.find("  fused_optimizer_slow:");
  missing.erase(at, end - at);
  auto r = SpeedupFactors::parse(missing, "s.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
  EXPECT_NE(r.error().message.find("fused_optimizer_fast"), std::string::npos);
  auto bad = SpeedupFactors::parse("factors:\n  gemm_measured_slow_of_median: {value: -1, basis: x}\n", "s.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().line, 2);
}

// The fused-optimizer model prices the optimizer class with the file's factors: edit the data,
// the prediction follows.
TEST(SpeedupFactors, TheFactorsDriveThePrediction) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto k = knowledge();
  ASSERT_TRUE(k.ok()) << k.error().describe();
  analysis::RunMetrics m;
  m.cost = analysis::CostProfile{};
  m.cost->step_s = 1.0;
  m.cost->optimizer_s = 0.4;
  m.cost->other_gpu_s = 0.6;
  auto oc = config::config_from_json(Json{{"optimizer", "adamw_torch"}});
  auto nc = config::config_from_json(Json{{"optimizer", "adamw_torch_fused"}});
  ASSERT_TRUE(oc.ok() && nc.ok());
  auto optimizer_after = [&](const Knowledge& kn) {
    SpeedupPrediction p = predict_speedup(kn, m, *oc, *nc);
    for (const auto& cl : p.classes)
      if (cl.name == "optimizer") return std::make_pair(cl.after_fast, cl.after_slow);
    return std::make_pair(-1.0, -1.0);
  };
  auto [fast, slow] = optimizer_after(**k);
  EXPECT_NEAR(fast, 0.04, 1e-12);  // 0.1 x 0.4 s
  EXPECT_NEAR(slow, 0.2, 1e-12);   // 0.5 x 0.4 s
  Knowledge edited = **k;
  edited.speedup.fused_optimizer_fast = 0.25;
  edited.speedup.fused_optimizer_slow = 0.75;
  auto [fast2, slow2] = optimizer_after(edited);
  EXPECT_NEAR(fast2, 0.1, 1e-12);
  EXPECT_NEAR(slow2, 0.3, 1e-12);
}

// eager -> sdpa is an attention change because data/attention.yaml calls sdpa fused.
TEST(SpeedupFactors, FusedAttentionComesFromTheData) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto k = knowledge();
  ASSERT_TRUE(k.ok()) << k.error().describe();
  analysis::RunMetrics m;
  m.cost = analysis::CostProfile{};
  m.cost->step_s = 1.0;
  m.cost->attn_bmm_s = 0.3;
  m.cost->attn_softmax_s = 0.1;
  m.cost->other_gpu_s = 0.6;
  auto oc = config::config_from_json(Json{{"attention_impl", "eager"}});
  auto nc = config::config_from_json(Json{{"attention_impl", "sdpa"}});
  ASSERT_TRUE(oc.ok() && nc.ok());
  EXPECT_TRUE((*k)->attention().fused("sdpa"));
  EXPECT_FALSE((*k)->attention().fused("eager"));
  EXPECT_EQ(predict_speedup(**k, m, *oc, *nc).model_fields.count("attention"), 1u);
  Knowledge edited = **k;
  auto ck = std::make_shared<config::ConfigKnowledge>(*edited.config_ptr);
  for (auto& i : ck->attention.impls)
    if (i.name == "sdpa") i.fused = false;
  edited.config_ptr = ck;
  EXPECT_EQ(predict_speedup(edited, m, *oc, *nc).model_fields.count("attention"), 0u);
}

// Evidence for the rules: each top kernel counts where the taxonomy files it. cuDNN's xmma_fprop
// implicit-GEMM kernel is a convolution (the old C++ list counted every "xmma" as GEMM).
TEST(RuleEvidence, KernelSharesUseTheTaxonomy) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto k = knowledge();
  ASSERT_TRUE(k.ok());
  analysis::RunMetrics m;
  m.top_kernels = {
      {"sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x32", "", "", 40, 0, 1},
      {"ampere_sgemm_128x64_tn", "", "", 30, 0, 1},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "communication", "NCCL/RCCL", 20, 0, 1},
      {"convert_fp32_to_bf16_kernel", "", "", 10, 0, 1}};
  Evidence ev = evidence_from_metrics(&m, (*k)->taxonomy());
  auto share = [&](const char* name) { return ev.metrics.at(name).get<double>(); };
  EXPECT_NEAR(share("conv_share"), 0.40, 1e-12);
  EXPECT_NEAR(share("gemm_share"), 0.30, 1e-12);
  EXPECT_NEAR(share("fp32_simt_gemm_share"), 0.30, 1e-12);
  EXPECT_NEAR(share("comm_share"), 0.20, 1e-12);
  EXPECT_NEAR(share("rocblas_gemm_share"), 0.0, 1e-12);
  EXPECT_NEAR(share("hipblaslt_gemm_share"), 0.0, 1e-12);
}

}  // namespace
}  // namespace goblin::audit
