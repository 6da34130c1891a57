// The serving section of data/taxonomy.yaml (issue #15): kernels of SGLang / vLLM serving traces
// on ROCm, from the MI300X fixtures and the gpt-oss vLLM decode trace the issue describes
// (TraceLens tests/traces/inference/vllm_decode_full), with the checked category and family.
#include <gtest/gtest.h>

#include "analysis/taxonomy.h"
#include "analysis/taxonomy_test_support.h"

namespace goblin::analysis {
namespace {

const Taxonomy& tax() { return testing::taxonomy(); }

TEST(ServingTaxonomy, KernelsOfServingTraces) {
  const testing::ExpectedClass cases[] = {
      // triton_kernels (gpt-oss MoE): a grouped GEMM with MX-FP4 weights, not "quantization".
      {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1", "moe", "triton_kernels", "serving.moe_matmul_ogs"},
      {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", "moe", "triton_kernels", "serving.moe_matmul_ogs"},
      {"_p_matmul_ogs_NNT_bf16xbf16xmxfp4_128x256x128x1", "moe", "triton_kernels", "serving.moe_matmul_ogs"},
      {"_finalize_matmul_scatter_bf16", "moe", "triton_kernels", "serving.moe_triton_kernels"},
      {"_combined_routing_compute", "moe", "triton_kernels", "serving.moe_triton_kernels"},
      {"_combined_routing_memset", "moe", "triton_kernels", "serving.moe_triton_kernels"},
      {"_sum_bitmatrix_rows", "moe", "triton_kernels", "serving.moe_triton_kernels"},
      {"_topk_forward", "moe", "triton_kernels", "serving.moe_triton_kernels"},
      // sgl-kernel (ROCm: namespace sgl_hip), SGLang JIT kernels and Triton bookkeeping.
      {"_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i",
       "elementwise", "sgl-kernel", "serving.act_and_mul"},
      {"void rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, c10::BFloat16 "
       "const*, int, long, long, long, int, int, int)",
       "elementwise", "sgl-kernel", "serving.rope_sgl_kernel"},
      {"void (anonymous namespace)::store_kvcache<2048l, 4, false, long>((anonymous namespace)::StoreKVCacheParams)",
       "kv_cache", "SGLang", "serving.kv_cache_sglang"},
      {"void (anonymous namespace)::resolve_future_token_ids_kernel<long>(long*, long const*, unsigned long)",
       "scheduler", "SGLang", "serving.scheduler_sglang"},
      {"void (anonymous namespace)::clamp_position_kernel<long>(long*, long const*, unsigned long)", "scheduler",
       "SGLang", "serving.scheduler_sglang"},
      {"compute_position_kernel", "scheduler", "SGLang", "serving.scheduler_sglang"},
      {"create_flashinfer_kv_indices_triton", "scheduler", "SGLang", "serving.scheduler_sglang"},  // not attention
      // vLLM (the paged-attention names are built from csrc/rocm/attention.cu's templates, arguments cut).
      {"void vllm::reshape_and_cache_flash_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0>("
       "__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, __hip_bfloat16*, long const*, long, long, long, "
       "long, long, int, int, int, float const*, float const*, int)",
       "kv_cache", "vLLM", "serving.kv_cache_paged"},
      {"void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, c10::BFloat16*, "
       "c10::BFloat16 const*, int, long, long, long, int, int, int)",
       "elementwise", "vLLM", "serving.rope"},
      {"kernel_unified_attention_3d", "attention", "vLLM", "serving.attention_vllm_triton"},
      {"kernel_unified_attention_2d", "attention", "vLLM", "serving.attention_vllm_triton"},
      {"reduce_segments", "attention", "vLLM", "serving.attention_vllm_triton"},
      {"void paged_attention_ll4mi_QKV_mfma16_kernel<__hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, "
       "__hip_bfloat16, 16, 128, 256, false, 4>(__hip_bfloat16 const*)",
       "attention", "vLLM", "serving.attention_vllm_paged"},
      {"void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 256, 256, 1>(__hip_bfloat16*)",
       "attention", "vLLM", "serving.attention_vllm_paged"},
      // AITER's paged attention (SGLang aiter backend, the decode fixture) and norms.
      {"void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, (vllm::Fp8KVCacheDataType)0, "
       "1, "
       "128, 256, false, 4, 1, ck_tile::ComposedAttention<0u, false> >(__hip_bfloat16 const*)",
       "attention", "AITER", "serving.attention_aiter_paged"},
      {"void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 256, 3, false>("
       "__hip_bfloat16*, float const*, float const*, __hip_bfloat16 const*, int const*, int const*, int, int)",
       "attention", "AITER", "serving.attention_aiter_paged"},
      // add_rmsnorm_quant_kernel<bf16, bf16, 256, 16, ADD_RESIDUAL=1, FUSE_QUANT=0, ...>: a plain norm.
      {"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb1ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
       "norm", "AITER", "serving.norm"},
      {"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib", "norm",
       "AITER", "serving.norm"},
      // ... and with FUSE_QUANT=1 (name built from the kernel's template signature; no fixture has one):
      // still a norm, the fused quantization in the rule id.
      {"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDB8_Li256ELi16ELb1ELb1ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib", "norm",
       "AITER", "serving.norm_fused_quant"},
      {"_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_"
       "27Rmsnorm2dFwdPipelineProblemIDF16bD"
       "F16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeINS_8sequenceIJLi1ELi3072EEEENS5_IJLi1ELi128EEEENS5_"
       "IJLi1ELi8EEEEEE"
       "NS_18Rmsnorm2dFwdTraitsILb1ELb0ELb0ELb0ELNS_21Rmsnorm2dFusedAddEnumE1ELNS_23Rmsnorm2dFusedQuantEnumE0ELNS_"
       "22Rmsno"
       "rm2dSensitiveEnumE0EEEEENS_33Rmsnorm2dFwdPipelineDefaultPolicyEEENS_17Default2DEpilogueINS_24Default2DEpilogueP"
       "roblemIfDF16bLb0ELb1ELb0EEEvEEEEJNSM_5KargsEEEEvDpT1_",
       "norm", "CK", "serving.norm"},
      {"_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_"
       "27Rmsnorm2dFwdPipelineProblemIDF16bD"
       "F16bfDF16bDF16bDF16bffNS_19Generic2dBlockShapeINS_8sequenceIJLi1ELi3072EEEENS5_IJLi1ELi128EEEENS5_"
       "IJLi1ELi8EEEEEE"
       "NS_18Rmsnorm2dFwdTraitsILb1ELb0ELb0ELb0ELNS_21Rmsnorm2dFusedAddEnumE1ELNS_23Rmsnorm2dFusedQuantEnumE2ELNS_"
       "22Rmsno"
       "rm2dSensitiveEnumE0EEEEEv",
       "norm", "CK", "serving.norm_fused_quant"},
      // rocPRIM scan (ATen cumsum on ROCm) is a reduction; sorts stay "other".
      {"void "
       "rocprim::ROCPRIM_400200_NS::detail::trampoline_kernel<rocprim::ROCPRIM_400200_NS::detail::wrapped_scan_config<"
       "rocprim::ROCPRIM_400200_NS::default_config, long>, (rocprim::ROCPRIM_400200_NS::detail::target_arch)942, "
       "rocprim::ROCPRIM_400200_NS::detail::scan_impl<>>",
       "reduction", "rocPRIM", "serving.rocprim_scan_reduce"},
      {"void rocprim::ROCPRIM_400001_NS::detail::onesweep_iteration_kernel<>", "other", "rocPRIM", ""},
      // Sampling.
      {"void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024u, (cub::BlockScanAlgorithm)1>(float*)",
       "sampling", "FlashInfer", "serving.sampling"},
      {"void flashinfer::sampling::SamplingFromProbKernel<1024u>(float*)", "sampling", "FlashInfer",
       "serving.sampling"},
      // Unchanged neighbours: CK prefill attention, hipBLASLt GEMMs.
      {"_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_"
       "40BlockFmhaBatchPrefillPipelineQRKSVSAsync",
       "attention", "CK", ""},
      {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_AFC1", "gemm", "hipBLASLt", ""},
  };
  testing::expect_classes(cases);
  EXPECT_EQ(tax().classify("kernel_unified_attention_3d").attention_backend, "triton");
  EXPECT_EQ(tax().classify("paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16>").attention_backend, "aiter");
}

// Generic kernel names take their family from the launching op's namespace (families with cpu_op).
TEST(ServingTaxonomy, FamilyFromTheLaunchingOp) {
  const char* generic = "void some_generic_kernel<float>(float*)";
  EXPECT_EQ(tax().classify(generic).family, "unknown");
  EXPECT_EQ(tax().classify(generic, "sgl_kernel::rotary_embedding").family, "sgl-kernel");
  EXPECT_EQ(tax().classify(generic, "aiter::rmsnorm").family, "AITER");
  EXPECT_EQ(tax().classify(generic, "_C::rms_norm").family, "vLLM");
  EXPECT_EQ(tax().classify(generic, "sglang::store_cache").family, "SGLang");
  // A name that says its library keeps it whatever the op.
  EXPECT_EQ(tax()
                .classify("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
                          "sgl_kernel::foo")
                .family,
            "ATen");
}

TEST(ServingTaxonomy, FamiliesEntryNeedsExactlyOneMatcher) {
  const std::string base = "categories: [other]\nrules:\n  - {id: o, regex: \"\", category: other}\nfamilies:\n";
  EXPECT_TRUE(Taxonomy::parse(base + "  - {regex: x, family: X}\n", "t").ok());
  EXPECT_TRUE(Taxonomy::parse(base + "  - {cpu_op: x, family: X}\n", "t").ok());
  auto both = Taxonomy::parse(base + "  - {regex: x, cpu_op: y, family: X}\n", "t");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().kind, ErrorKind::Malformed);
  EXPECT_FALSE(Taxonomy::parse(base + "  - {family: X}\n", "t").ok());
}

}  // namespace
}  // namespace goblin::analysis
