// Real AMD traces goblin had not seen before (AMD-AGI/TraceLens test data, MIT licence; origins in
// tests/fixtures/README.md): an MI300X bert-small and ViT inference, and an MI210 trace of
// training-style MIOpen convolutions. Every kernel is filed in a category (none "other"),
// hipBLASLt GEMMs are gemm, Triton attn_fwd is attention, MIOpen igemm is convolution, and their
// bf16 GEMMs (Cijk_*_B_BS_* / *_BBS_*: bf16 in, fp32 compute) are not taken for fp32 ones:
// precision_path stays 0 on them, as it must.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/run_metrics.h"
#include "analysis/triage_artifacts.h"
#include "core/test_support.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

const std::string kFix = std::string(GOBLIN_FIXTURES) + "/kineto/";

struct Expect {
  const char* file;
  const char* arch;
  std::vector<std::string> categories;  // present, each with GPU time
};

class TriageAmdReal : public ::testing::TestWithParam<Expect> {};

TEST_P(TriageAmdReal, EveryKernelFiledAndNoFp32PathInvented) {
  const Expect& e = GetParam();
  const std::string path = kFix + e.file;
  Timeline tl;
  Status st = trace::read_path(path, tl);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  TriageOptions opt;
  opt.source_path = path;
  opt.target_arch = e.arch;
  auto r = run_triage(tl, opt);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  auto dir = testing::private_tmp_dir("triage_amd_real");
  ASSERT_TRUE(write_triage_artifacts(*r, dir.string()).ok());
  std::ifstream kf(dir / "kernel_table.json"), mf(dir / "profile_metadata.json");
  auto rows = nlohmann::json::parse(kf), meta = nlohmann::json::parse(mf);
  EXPECT_EQ(meta["vendor"], "amd");
  EXPECT_EQ(meta["observed_arch"], e.arch);
  EXPECT_EQ(meta["arch_match"], "exact");
  ASSERT_FALSE(rows.empty());
  std::map<std::string, double> by_cat;
  for (const auto& k : rows) {
    const std::string name = k["kernel"], cat = k["category"];
    by_cat[cat] += k["time_us"].get<double>();
    EXPECT_NE(cat, "other") << name;
    if (name.rfind("Cijk_", 0) == 0) EXPECT_EQ(cat, "gemm") << name;
    if (name == "attn_fwd") EXPECT_EQ(cat, "attention") << name;
    if (name.rfind("igemm_", 0) == 0) EXPECT_EQ(cat, "convolution") << name;
  }
  for (const auto& c : e.categories) EXPECT_GT(by_cat[c], 0) << c;
  auto m = compute_run_metrics(tl);
  ASSERT_TRUE(m.ok()) << m.error().describe();
  EXPECT_EQ(m->waste_budget.precision_path, 0.0);  // bf16 GEMMs: nothing to gain from bf16
}

INSTANTIATE_TEST_SUITE_P(
    TraceLens, TriageAmdReal,
    ::testing::Values(
        Expect{"mi300_tracelens_bert_small.json.gz", "gfx942", {"gemm", "attention", "elementwise", "norm"}},
        Expect{
            "mi300_tracelens_nsfw_vit.json.gz", "gfx942", {"gemm", "attention", "elementwise", "norm", "convolution"}},
        Expect{
            "mi210_tracelens_gpu_only.json.gz", "gfx90a", {"gemm", "convolution", "elementwise", "norm", "reduction"}}),
    [](const auto& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

}  // namespace
}  // namespace goblin::analysis
