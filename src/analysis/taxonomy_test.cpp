#include "analysis/taxonomy.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "analysis/taxonomy_test_support.h"
#include "core/io.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

const Taxonomy& tax() { return testing::taxonomy(); }

// Representative names (from the fixtures and vendors' libraries) with the checked answer.
TEST(Taxonomy, RepresentativeNames) {
  const testing::ExpectedClass cases[] = {
      {"nvjet_sm90_tst_128x192_64x5_4x1_v_bz_coopB_NTN", "gemm", "cuBLASLt"},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__"
       "5x_"
       "cublas",
       "gemm", "cuBLAS"},
      {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_execute_kernel_"
       "_"
       "5x_cublas",
       "gemm", "cuBLAS"},
      {"ampere_sgemm_32x32_sliced1x4_tn", "gemm", "cuBLAS"},
      {"volta_sgemm_128x64_nn", "gemm", "cuBLAS"},
      {"void "
       "cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(cutlass_80_simt_sgemm_128x256_8x4_nt_align1::"
       "Params)",
       "gemm", "CUTLASS"},
      {"cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_void_bf16_128x128x64_1x1x1_0_tnn_align8_warpspecialized_cooperative_"
       "epi_tma",
       "gemm", "CUTLASS"},
      {"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1", "gemm", "hipBLASLt"},
      {"Cijk_Ailk_Bljk_SB_MT64x64x8_SN_1LDSB0_APM1_AF0EM1", "gemm", "rocBLAS/Tensile"},
      {"void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<>>", "gemm", "CK"},
      {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 2, 2, false, false>", "gemm", "cuBLAS"},
      {"void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, false>", "gemm", "cuBLASLt"},
      {"triton_tem_fused_mm_0", "gemm", "Triton"},
      {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0",
       "attention", "cuDNN"},
      {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4>>", "attention",
       "FlashAttention"},
      {"void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4>>", "attention", "FlashAttention"},
      {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<>::Params)", "attention",
       "PyTorch mem-efficient (xFormers CUTLASS)"},
      {"void ck_tile::kentry<ck_tile::FmhaFwdKernel<>>", "attention", "CK"},
      {"_ZN5aiter24fmha_fwd_hd128_bf16_causalE", "attention", "AITER"},
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "communication", "NCCL/RCCL"},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication", "NCCL/RCCL"},
      {"mscclKernel_Sum_half_Simple_false", "communication", "RCCL"},
      {"rccl_all_reduce_kernel", "communication", "RCCL"},
      {"allreduce_kernel", "communication", "unknown"},  // not "reduction" (TraceLens bug)
      {"cross_device_reduce_1stage<__hip_bfloat16, 8>", "communication", "custom allreduce (vLLM/SGLang)"},
      {"hipMemcpyAsync", "memcpy", "HIP runtime"},  // not "communication" (HTA ^hip bug)
      {"Memcpy HtoD (Pageable -> Device)", "memcpy", "CUDA runtime"},
      {"Memset (Device)", "memset", "CUDA runtime"},
      {"__amd_rocclr_fillBufferAligned", "memset", "HIP runtime"},
      {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>", "norm", "ATen"},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>", "norm", "cuDNN"},
      {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>", "softmax", "ATen"},
      {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>", "softmax", "ATen"},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >",
       "elementwise", "ATen"},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>",
       "reduction", "ATen"},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
       "namespace)::FusedOptimizerTensorListMetadata<4>>",
       "optimizer", "ATen"},
      {"void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, true, true>", "convolution", "cuDNN"},
      {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16", "convolution",
       "cuDNN"},
      {"volta_scudnn_128x64_relu_interior_nn_v1", "convolution", "cuDNN"},
      {"naive_conv_fwd_nchw_float", "convolution", "MIOpen"},  // MIOpen src/kernels/MIOpenNaiveConv* (issue #34)
      {"fused_moe_kernel", "moe", "unknown"},
      {"dynamic_scaled_fp8_quant_kernel", "quantization", "unknown"},
      {"triton_poi_fused_add_cos_sin_0", "elementwise", "Triton"},  // Inductor kind first (InductorKindFirst)
      {"triton_per_fused__softmax_0", "reduction", "Triton"},
      {"void split_embedding_codegen_forward_unweighted_kernel<float>", "elementwise", "FBGEMM_GPU"},
      {"void rocprim::ROCPRIM_400001_NS::detail::onesweep_iteration_kernel<>", "other", "rocPRIM"},
  };
  testing::expect_classes(cases);
}

TEST(Taxonomy, CpuOpRule) {
  const char* n = "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float>>";
  EXPECT_EQ(tax().classify(n).category, "elementwise");
  EXPECT_EQ(tax().classify(n, "aten::_fused_adamw_").category, "optimizer");
}

TEST(Taxonomy, AttentionBackends) {
  EXPECT_EQ(tax().classify("void pytorch_flash::flash_fwd_kernel<>").attention_backend, "sdpa_flash");
  EXPECT_EQ(tax().classify("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16").attention_backend,
            "sdpa_cudnn");
  EXPECT_EQ(tax().classify("nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NTT").attention_backend, "");
}

TEST(Taxonomy, WasteKnowledge) {
  EXPECT_TRUE(tax().is_simt_fp32_gemm("ampere_sgemm_32x32_sliced1x4_tn"));
  EXPECT_TRUE(
      tax().is_simt_fp32_gemm("sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_"
                              "alignc4_execute_kernel__5x_"
                              "cublas"));
  EXPECT_FALSE(tax().is_simt_fp32_gemm("nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NTT"));
  EXPECT_TRUE(tax().is_shape_suspect_gemm("void gemv2T_kernel_val<int, int, float>"));
  EXPECT_FALSE(tax().is_shape_suspect_gemm("nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NTT"));
  EXPECT_TRUE(tax().is_dataloader_span("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
  EXPECT_FALSE(tax().is_dataloader_span("aten::mm"));
  EXPECT_GT(tax().tensor_core_speedup(), 1.0);
  EXPECT_GT(tax().tiny_grid_fraction_of_sms(), 0.0);
}

// Plain fp32 GEMMs on AMD (issue 46; taxonomy.yaml § simt_fp32_gemm): Tensile's and hipBLASLt's
// single-precision problem type (Cijk_<A>_<B>_S[B][H]_...) and CK GEMMs on float; bf16 (BBS_BH),
// xf32 (S_MX_) and CK on bhalf_t are not.
TEST(Taxonomy, AmdFp32GemmsAreOnTheFp32Path) {
  EXPECT_TRUE(tax().is_simt_fp32_gemm("Cijk_Alik_Bljk_SB_MT128x128x16_MI32x32x2x1_SN_1LDSB0_AMAS3_BL1_GRVW4"));
  EXPECT_TRUE(tax().is_simt_fp32_gemm(
      "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0"));
  EXPECT_TRUE(tax().is_simt_fp32_gemm("Cijk_Ailk_Bjlk_SBH_MT64x64x16_SN_K1"));
  EXPECT_FALSE(tax().is_simt_fp32_gemm(
      "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1"));
  EXPECT_FALSE(tax().is_simt_fp32_gemm("Cijk_Ailk_Bljk_S_MX_B_MT128x128x32_MI32x32x4x1_SN_K1"));
  EXPECT_FALSE(tax().is_simt_fp32_gemm("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_K1"));
  EXPECT_TRUE(tax().is_simt_fp32_gemm(
      "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::tensor_layout::gemm::RowMajor, "
      "ck::tensor_layout::gemm::ColumnMajor, ck::tensor_layout::gemm::RowMajor, float, float, float, float>>"));
  EXPECT_FALSE(tax().is_simt_fp32_gemm(
      "void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<ck::tensor_layout::gemm::RowMajor, "
      "ck::tensor_layout::gemm::ColumnMajor, ck::tensor_layout::gemm::RowMajor, ck::bhalf_t, ck::bhalf_t, float>>"));
}

// simt_fp32_gemm / shape_suspect_gemm go through the taxonomy (issue #34): the kernel's class and
// whole name components, not substrings. The old substring regex found "sgemm" inside cuBLAS's
// cublasGemmSmallNParams template argument and filed a GEMV helper as a SIMT fp32 GEMM.
TEST(Taxonomy, GemmPathsGoThroughTheTaxonomy) {
  const std::string dot =
      "void dot_kernel<float, 128, 0, cublasDotParams<cublasGemvTensorStridedBatched<float const>, "
      "cublasGemvTensorStridedBatched<float> > >(cublasGemmSmallNParams<float>)";
  EXPECT_EQ(tax().classify(dot).category, "gemm");
  EXPECT_FALSE(tax().is_simt_fp32_gemm(dot));
  EXPECT_TRUE(tax().is_shape_suspect_gemm(dot));  // a cuBLAS GEMV path, by its template argument
  EXPECT_TRUE(tax().is_simt_fp32_gemm(
      "void magma_sgemmEx_kernel<float, float, float, false, false, 6, 3, 5, 3, 3>(int, int, int, Tensor, int, "
      "Tensor, int, Tensor, int, Tensor, int, int, int, float const*, float const*, float, float, int, "
      "cublasLtEpilogue_t, int, void const*, long)"));
  EXPECT_TRUE(tax().is_simt_fp32_gemm("void gemmk1_kernel<float, 256, 5, false, false, false, false>"));
  EXPECT_TRUE(tax().is_simt_fp32_gemm("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(x)"));
  // The class decides: the same words in a kernel the taxonomy did not file as a GEMM count for nothing.
  const std::string ew = "void at::native::vectorized_elementwise_kernel<4, at::native::ffma_naive_functor<float>>";
  EXPECT_EQ(tax().classify(ew).category, "elementwise");
  EXPECT_FALSE(tax().is_simt_fp32_gemm(ew));
  EXPECT_FALSE(tax().is_shape_suspect_gemm(ew));
  // Whole components: "gemv" inside another word is not a GEMV.
  EXPECT_FALSE(
      tax().is_shape_suspect_gemm("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_agemvb_cublas"));
}

TEST(Taxonomy, BadYamlIsMalformedNotCrash) {
  auto r = Taxonomy::parse("categories: [gemm]\nrules:\n  - id: x\n    category: nope\n", "t.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
  auto r2 = Taxonomy::parse("categories: [gemm]\nrules:\n  - id: x\n    category: gemm\n    regex: \"(\"\n", "t.yaml");
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("bad regex"), std::string::npos);
  auto r3 = Taxonomy::parse("[1, 2", "t.yaml");
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.error().kind, ErrorKind::Malformed);
  auto r4 = Taxonomy::parse(
      "categories: [gemm]\nrules:\n  - id: x\n    category: gemm\n    regex: mm\nfp32_memory_bound:\n  categories: "
      "[elementwise]\n  regex: float\n",
      "t.yaml");
  ASSERT_FALSE(r4.ok());
  EXPECT_NE(r4.error().message.find("unknown category 'elementwise'"), std::string::npos) << r4.error().message;
}

// The waste budget's fp32 memory-bound and eager-softmax sets, on real kernel names of the H100
// fp32 fixture (h100_llama_fp32_eager_w0) and its bf16 twin.
TEST(Taxonomy, Fp32MemoryBoundAndEagerSoftmax) {
  const std::string mul_f32 =
      "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, "
      "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 3ul> >(int, ...)";
  EXPECT_TRUE(tax().is_fp32_memory_bound(mul_f32, "elementwise", "aten::mul"));
  EXPECT_FALSE(tax().is_fp32_memory_bound(mul_f32, "elementwise", "aten::_foreach_mul_"));  // optimizer
  EXPECT_FALSE(tax().is_fp32_memory_bound(mul_f32, "softmax", "aten::mul"));                // not a category
  EXPECT_FALSE(tax().is_fp32_memory_bound(
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
      "std::array<char*, 3ul> >",
      "elementwise", "aten::add"));
  EXPECT_TRUE(tax().is_eager_attention_softmax("softmax", "aten::_softmax"));
  EXPECT_TRUE(tax().is_eager_attention_softmax("softmax", "aten::_softmax_backward_data"));
  EXPECT_FALSE(tax().is_eager_attention_softmax("softmax", "aten::_log_softmax"));
  EXPECT_FALSE(tax().is_eager_attention_softmax("softmax", ""));
  EXPECT_DOUBLE_EQ(tax().fp32_bytes_ratio(), 2.0);
  EXPECT_DOUBLE_EQ(tax().fp32_min_simt_share(), 0.5);
}

// torch.compile (Inductor) kernels: the kind in the name's prefix decides the category, before
// any op name inside the fused name (Inductor's naming: torch/_inductor/codegen/simd.py
// define_kernel, "triton_" + kind[:3] + "_" + fused ops + "_" + counter; kinds from
// torch/_inductor/utils.py _kernel_category_choices). Checked over every Inductor kernel name in
// the recorded traces (shared fixtures, the bundled compiled H100 traces, the live compiled audit's
// profile), and over names that list GEMM/attention/norm ops inside a pointwise or reduction kind.
TEST(Taxonomy, InductorKindFirst) {
  auto expected = [](const std::string& n) -> std::string {
    std::string kind = n.substr(7, 4);  // after "triton_"
    if (kind == "poi_" || kind == "for_") return "elementwise";
    if (kind == "red_" || kind == "per_" || kind == "spl_") return "reduction";
    if (kind == "tem_")
      return n.find("conv") != std::string::npos        ? "convolution"
             : n.find("attention") != std::string::npos ? "attention"
                                                        : "gemm";
    return "";
  };
  const std::string fx = GOBLIN_FIXTURES, src = GOBLIN_SOURCE_DIR;
  const std::vector<std::string> traces = {
      fx + "/kineto/triton_example.json.gz", src + "/examples/h100_cudagraphs/graph_off_compile_default.json.gz",
      src + "/examples/h100_cudagraphs/graph_on_reduce_overhead.json.gz",
      src + "/examples/h100_tracer/tuned_compile_graphs_cupti.json.gz",
      src + "/tests/fixtures/h100_live/audit_tuned_compile/live/profile-1/trace.json.gz"};
  std::set<std::string> names;
  for (const auto& t : traces) {
    Timeline tl;
    Status st = trace::read_path(t, tl);
    ASSERT_TRUE(st.ok()) << st.error().describe();
    for (size_t i = 0; i < tl.gpu_ops.count(GpuOpKind::Kernel); ++i) {
      std::string n(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, i)]));
      if (n.rfind("triton_", 0) == 0 && !expected(n).empty()) names.insert(n);
    }
  }
  EXPECT_GE(names.size(), 23u);  // 1 + 22 distinct names in the recorded traces
  // Names whose fused op list says GEMM, attention, norm or softmax: the kind still wins.
  for (const char* n :
       {"triton_poi_fused__unsafe_view_add_bmm_cat_cos_mul_sin_view_3", "triton_poi_fused_addmm_gelu_12",
        "triton_red_fused__softmax_attn_mask_7", "triton_per_fused_native_layer_norm_0",
        "triton_per_fused__to_copy_add_embedding_mean_0", "triton_for_fused_0", "triton_spl_fused_cumsum_1",
        "triton_tem_fused_mm_0", "triton_tem_fused_addmm_relu_3", "triton_tem_fused_convolution_2",
        "triton_tem_fused_flex_attention_0"})
    names.insert(n);
  int checked = 0;
  for (const auto& n : names) {
    KernelClass k = tax().classify(n);
    EXPECT_EQ(k.category, expected(n)) << n << " (rule " << k.rule_id << ")";
    EXPECT_EQ(k.family, "Triton") << n;
    EXPECT_EQ(k.rule_id.rfind("inductor.", 0), 0u) << n;
    ++checked;
  }
  EXPECT_GE(checked, 34);
}

// Every distinct kernel name in tests/fixtures (extracted by testdata/extract_kernel_names.py):
// each gets a category from the list, and no name that says GEMM, attention or collective by
// an independent keyword check lands in "other".
TEST(Taxonomy, EveryFixtureKernelName) {
  auto text = read_all(GOBLIN_SOURCE_DIR "/src/analysis/testdata/fixture_kernel_names.tsv.gz");
  ASSERT_TRUE(text.ok()) << text.error().describe();
  std::istringstream in(text.value());
  std::string line;
  std::map<std::string, int> per_category;
  int n = 0;
  const auto& cats = tax().categories();
  auto has = [](std::string s, std::initializer_list<const char*> words) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* w : words)
      if (s.find(w) != std::string::npos) return true;
    return false;
  };
  while (std::getline(in, line)) {
    auto tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    std::string name = line.substr(tab + 1);
    KernelClass k = tax().classify(name);
    ++n;
    ++per_category[k.category];
    EXPECT_NE(std::find(cats.begin(), cats.end(), k.category), cats.end()) << name;
    if (k.category == "other") {
      EXPECT_FALSE(has(name, {"gemm", "gemv", "nvjet", "xmma", "cijk", "matmul", "nccl", "rccl", "msccl", "allreduce",
                              "all_reduce", "flash", "fmha", "attn", "attention", "sdpa"}))
          << "GEMM/attention/communication kernel classified as other: " << name;
    }
  }
  EXPECT_GT(n, 10000);
  // The fixtures contain GEMMs, attention and collectives: each category must be populated.
  EXPECT_GT(per_category["gemm"], 30);
  EXPECT_GT(per_category["attention"], 2);
  EXPECT_GT(per_category["communication"], 10);
  EXPECT_GT(per_category["convolution"], 20);
  EXPECT_GT(per_category["elementwise"], 1000);
  for (auto& [c, k] : per_category) std::printf("  %-14s %d\n", c.c_str(), k);
}

}  // namespace
}  // namespace goblin::analysis
