// The audit's kb queries come from data/audit_symptoms.yaml, evaluated with the rules' own config
// predicates, and are worded for the GPU's vendor: an AMD user's audit never asks about TF32 or
// tensor cores, an NVIDIA user's keeps the queries it always had.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "analysis/run_metrics.h"
#include "audit/audit_flow.h"
#include "core/data.h"
#include "core/test_support.h"

using namespace goblin;
using namespace goblin::audit;

namespace {

config::WorkloadConfig base_config() {
  auto c = config::parse_config_file(GOBLIN_SOURCE_DIR "/workloads/configs/base.yaml");
  EXPECT_TRUE(c) << c.error().describe();
  return *c;
}

analysis::RunMetrics fp32_profile(const std::string& gpu) {
  analysis::RunMetrics m;
  m.gpu_name = gpu;
  m.waste_budget.step_time_s = 0.2;
  m.waste_budget.precision_path = 0.08;
  m.waste_budget.data_wait = 0.03;
  return m;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST(Symptoms, NvidiaKeepsItsQueriesForTheSlowReferenceConfig) {
  auto s = derive_symptoms(base_config(), nullptr, "nvidia");
  ASSERT_TRUE(s) << s.error().describe();
  // base.yaml: fp32, eager attention, 0 workers, no pinning, no compile, tf32 off, plain AdamW.
  for (const char* want :
       {"fp32 training precision used on GPU instead of bf16 mixed precision", "naive eager attention on GPU",
        "DataLoader num_workers=0 starves GPU", "DataLoader pin_memory=False", "torch.compile disabled",
        "fp32 matmuls without TF32", "Adam/AdamW optimizer not fused"})
    EXPECT_TRUE(has(*s, want)) << want;
}

TEST(Symptoms, AmdIsNeverAskedAboutTf32OrTensorCores) {
  auto m = fp32_profile("AMD Instinct MI300X");
  auto s = derive_symptoms(base_config(), &m, "amd");
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_TRUE(has(*s, "fp32 training precision used on AMD Instinct MI300X instead of bf16 mixed precision"));
  EXPECT_TRUE(has(*s, "precision_path: fp32 GEMM kernels, MFMA matrix cores unused"));
  EXPECT_TRUE(has(*s, "data_wait: GPU idle waiting for the input pipeline / DataLoader"));
  for (const auto& q : *s) {
    EXPECT_EQ(q.find("TF32"), std::string::npos) << q;
    EXPECT_EQ(q.find("tensor cores"), std::string::npos) << q;
  }
  auto n = derive_symptoms(base_config(), &m, "nvidia");
  ASSERT_TRUE(n);
  EXPECT_TRUE(has(*n, "precision_path: fp32 SIMT GEMM kernels, tensor cores unused"));
}

TEST(Symptoms, EachQueryOnceEvenWhenTwoConditionsAskIt) {
  auto c = base_config();
  auto m = fp32_profile("NVIDIA H100 80GB HBM3");
  m.waste_budget.memory_headroom = 0.01;
  m.hbm_total_gb = 80;
  m.memory_headroom_gb = 70;  // measured headroom and the bucket ask the same query
  auto s = derive_symptoms(c, &m, "nvidia");
  ASSERT_TRUE(s);
  EXPECT_EQ(std::count(s->begin(), s->end(), "memory_headroom: unused HBM memory, batch could grow"), 1);
}

TEST(Symptoms, AMalformedTableNamesTheFileAndLine) {
  auto dir = goblin::testing::private_tmp_dir("symptoms_bad");
  std::ofstream(dir / "audit_symptoms.yaml") << "config:\n  - text: \"no condition\"\nbuckets: []\n";
  set_data_dir(dir.string());
  auto s = derive_symptoms(base_config(), nullptr, "nvidia");
  set_data_dir("");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().file.find("audit_symptoms.yaml"), std::string::npos) << s.error().describe();
  EXPECT_EQ(s.error().line, 2) << s.error().describe();
  EXPECT_NE(s.error().message.find("when"), std::string::npos) << s.error().describe();
}
