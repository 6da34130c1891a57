// The knowledge moved out of C++ into data/taxonomy.yaml: kernel engines (roofline), library
// families (overlap advice) and the rule base's share evidence; and the context that holds it.
#include "analysis/knowledge.h"

#include <gtest/gtest.h>

#include <string>

#include "core/io.h"

namespace goblin::analysis {
namespace {

const Taxonomy& tax() {
  static const auto k = analysis_knowledge();
  EXPECT_TRUE(k.ok()) << (k.ok() ? "" : k.error().describe());
  return (*k)->taxonomy;
}

// The shipped taxonomy with `extra` YAML appended after its own sections replaced: the test of
// "the data drives it" edits the data, never the C++.
Taxonomy with_section(const std::string& section, const std::string& yaml) {
  auto text = read_all(std::string(GOBLIN_DATA_DIR) + "/taxonomy.yaml");
  EXPECT_TRUE(text.ok());
  std::string t = *text;
  const size_t at = t.find("\n" + section + ":");
  EXPECT_NE(at, std::string::npos) << section;
  size_t end = t.find("\n# ", at + 1);  // the next section's comment block
  if (end == std::string::npos) end = t.size();
  t.replace(at, end - at, "\n" + yaml);
  auto r = Taxonomy::parse(t, "test:taxonomy.yaml");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
  return r.ok() ? *r : Taxonomy{};
}

TEST(TaxonomyEngines, KernelEngineFromTheData) {
  EXPECT_EQ(tax().engine("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4"),
            "vector");
  EXPECT_EQ(tax().engine("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>"), "vector");
  EXPECT_EQ(tax().engine("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"), "matrix");
  EXPECT_EQ(tax().engine("cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4"), "matrix");
  EXPECT_EQ(tax().engine("Cijk_Ailk_Bljk_BBS_BH_MT128x128x64_MI16x16x16x1_SN_1LDSB0_GRVW8_XDL"), "matrix");
  EXPECT_EQ(tax().engine("ampere_sgemm_128x64_tn"), "vector");
  EXPECT_EQ(tax().engine("void cublasLt::splitKreduce_kernel<32, 16>"), "");
  // The data decides: a new marker in kernel_engines names a new engine.
  Taxonomy t = with_section("kernel_engines", "kernel_engines:\n  - {engine: matrix, regex: \"splitkreduce\"}\n");
  EXPECT_EQ(t.engine("void cublasLt::splitKreduce_kernel<32, 16>"), "matrix");
  EXPECT_EQ(t.engine("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"), "");
}

TEST(TaxonomyLibraryFamilies, OverlapAdviceFamiliesFromTheData) {
  for (const char* f : {"cuBLAS", "cuBLASLt", "hipBLASLt", "rocBLAS/Tensile", "CUTLASS", "CK", "FlashAttention",
                        "cuDNN", "MIOpen", "AITER", "Triton", "triton_kernels"})
    EXPECT_TRUE(tax().is_library_family(f)) << f;
  for (const char* f : {"ATen", "unknown", "NCCL/RCCL", "vLLM", ""}) EXPECT_FALSE(tax().is_library_family(f)) << f;
  Taxonomy t = with_section("library_families", "library_families:\n  substrings: [aten]\n");
  EXPECT_TRUE(t.is_library_family("ATen"));
  EXPECT_FALSE(t.is_library_family("cuBLAS"));
}

TEST(TaxonomyEvidence, SharesFollowTheTaxonomysAnswer) {
  auto metrics_of = [](const Taxonomy& t, const std::string& name) {
    KernelClass k = t.classify(name);
    std::string s;
    for (const auto& m : t.evidence_metrics(name, k.category, k.family)) s += (s.empty() ? "" : ",") + m;
    return s;
  };
  // cuDNN's implicit-GEMM convolution (xmma_fprop) is convolution, not GEMM (the old substring
  // list counted every "xmma" as GEMM).
  EXPECT_EQ(metrics_of(tax(), "sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x32"),
            "conv_share");
  EXPECT_EQ(
      metrics_of(tax(), "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4"),
      "gemm_share,fp32_simt_gemm_share");
  EXPECT_EQ(metrics_of(tax(), "Cijk_Ailk_Bljk_SB_MT64x64x16_SN_1LDSB0"),
            "gemm_share,fp32_simt_gemm_share,rocblas_gemm_share");
  EXPECT_EQ(metrics_of(tax(), "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"), "comm_share");
  EXPECT_EQ(metrics_of(tax(), "convert_fp32_to_bf16_kernel"), "");  // "conv" in a name is not a convolution
  EXPECT_EQ(tax().evidence_metric_names().size(), 6u);
  Taxonomy t =
      with_section("rule_evidence", "rule_evidence:\n  - {metric: gemm_share, categories: [gemm, convolution]}\n");
  EXPECT_EQ(metrics_of(t, "sm80_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x32"),
            "gemm_share");
}

TEST(TaxonomySections, BadEntriesAreMalformedWithTheirLine) {
  auto text = read_all(std::string(GOBLIN_DATA_DIR) + "/taxonomy.yaml");
  ASSERT_TRUE(text.ok());
  // The section replaced by one whose entry lacks `engine`.
  std::string t = *text;
  t.erase(t.find("\nkernel_engines:"), t.find("\n# Families of tuned") - t.find("\nkernel_engines:"));
  auto r = Taxonomy::parse(t + "\nkernel_engines:\n  - {regex: \"x\"}\n", "t.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
  EXPECT_GT(r.error().line, 0);
  EXPECT_NE(r.error().message.find("kernel_engines"), std::string::npos);
}

TEST(AnalysisKnowledge, HoldsEveryFileAndTheMeasuredCeilings) {
  auto k = analysis_knowledge();
  ASSERT_TRUE(k.ok()) << k.error().describe();
  EXPECT_GT((*k)->taxonomy.rule_count(), 50u);
  EXPECT_FALSE((*k)->fusion.empty());
  EXPECT_FALSE((*k)->overlap.weights.empty());
  EXPECT_FALSE((*k)->collectives.types.empty());
  EXPECT_NE((*k)->stages, nullptr);
  auto h100 = (*k)->gpu("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100.ok());
  EXPECT_EQ((*k)->measured(*h100).file, "data/measured/h100_sxm.json");
  EXPECT_TRUE((*k)->measured(*(*k)->gpu("MI300X")).file.empty());
  // Shared: a second call returns the same object.
  auto again = analysis_knowledge();
  EXPECT_EQ(again->get(), k->get());
}

// data/mfu.yaml answers what run_metrics.cpp's dtype lists answered: low-precision runs against
// their own peak, the rest against bf16 (fp16 on a GPU without bf16); fp32/fp64 GEMMs may be SIMT.
TEST(MfuPeaks, TheDtypeListsFromTheData) {
  auto k = analysis_knowledge();
  ASSERT_TRUE(k.ok()) << k.error().describe();
  const MfuPeaks& m = (*k)->mfu;
  auto all = [](const std::string&) { return true; };
  auto no_bf16 = [](const std::string& key) { return key != "bf16"; };
  auto none = [](const std::string&) { return false; };
  for (const char* d : {"bf16", "fp16", "fp8", "int8"}) EXPECT_EQ(m.training_peak(d, all), d);
  for (const char* d : {"fp32", "tf32", "fp64", "fp4", "", "BF16"}) EXPECT_EQ(m.training_peak(d, all), "bf16") << d;
  EXPECT_EQ(m.training_peak("fp32", no_bf16), "fp16");
  EXPECT_EQ(m.training_peak("bf16", no_bf16), "fp16");  // a bf16 run on a GPU without a bf16 peak
  EXPECT_EQ(m.training_peak("fp16", none), "fp16");
  EXPECT_EQ(m.training_peak("fp8", none), "fp8");
  EXPECT_EQ(m.training_peak("fp32", none), "fp16");
  EXPECT_TRUE(m.may_run_on_simt("fp32"));
  EXPECT_TRUE(m.may_run_on_simt("fp64"));
  for (const char* d : {"tf32", "bf16", "fp16", "fp8", "int8", ""}) EXPECT_FALSE(m.may_run_on_simt(d)) << d;
}

TEST(MfuPeaks, BadFileIsMalformedWithItsLine) {
  auto no_list = MfuPeaks::parse(
      "training_peak:\n  own_peak: bf16\n  mixed_precision: bf16\n  source: x\nsimt_dtypes: [fp32]\nsimt_source: x\n",
      "m.yaml");
  ASSERT_FALSE(no_list.ok());
  EXPECT_EQ(no_list.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(no_list.error().file, "m.yaml");
  auto no_source = MfuPeaks::parse("training_peak:\n  own_peak: [bf16]\n  mixed_precision: bf16\n", "m.yaml");
  ASSERT_FALSE(no_source.ok());
  EXPECT_EQ(no_source.error().line, 2);
  EXPECT_TRUE(MfuPeaks::parse("training_peak: {own_peak: [bf16], mixed_precision: bf16, source: x}\n"
                              "simt_dtypes: [fp32]\nsimt_source: x\n",
                              "m.yaml")
                  .ok());
}

}  // namespace
}  // namespace goblin::analysis
