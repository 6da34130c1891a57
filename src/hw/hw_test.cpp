#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <regex>

#include "analysis/taxonomy.h"
#include "core/data.h"
#include "hw/diagnose.h"
#include "hw/gpu_specs.h"
#include "hw/ncu_analysis.h"
#include "hw/roofline.h"
#include "model/test_timeline.h"
#include "trace/readers.h"

using namespace goblin;
using namespace goblin::hw;

// Kernel engines come from data/taxonomy.yaml § kernel_engines (the roofline's caller passes them).
KernelEngineFn taxonomy_engines() {
  static const auto tax = analysis::Taxonomy::load();
  return [](std::string_view k) { return tax ? tax->engine(k) : std::string(); };
}

namespace {
std::string fx(const std::string& rel) { return std::string(GOBLIN_FIXTURES) + "/" + rel; }

struct Cmd {
  int rc;
  std::string out;
};
Cmd run(const std::string& args) {
  std::string cmd = std::string(GOBLIN_BINARY_DIR) + "/goblin " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> b;
  size_t n;
  while ((n = fread(b.data(), 1, b.size(), p)) > 0) out.append(b.data(), n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}
}  // namespace

// ---- spec database -----------------------------------------------------------------------

TEST(GpuSpecs, DatabaseLoadsAndEveryValueIsSourced) {
  auto db = load_gpu_db();
  ASSERT_TRUE(db.ok()) << db.error().message;
  EXPECT_EQ(db->size(), 14u);
  for (const auto& g : *db) {
    EXPECT_FALSE(g.arch_id.empty()) << g.id;
    for (const auto& [k, v] : g.specs) {
      EXPECT_EQ(v.source_url.rfind("https://", 0), 0u) << g.id << " " << k;
      EXPECT_FALSE(v.section.empty()) << g.id << " " << k;
    }
    for (const auto& [k, v] : g.peaks) {
      EXPECT_EQ(v.source_url.rfind("https://", 0), 0u) << g.id << " " << k;
      EXPECT_TRUE(v.engine == "vector" || v.engine == "matrix") << g.id << " " << k;
      EXPECT_FALSE(v.accumulate.empty()) << g.id << " " << k;
      if (v.sparse && v.value) {
        EXPECT_LT(*v.value, *v.sparse) << g.id << " " << k << ": dense must be below sparse";
      }
    }
  }
}

TEST(GpuSpecs, H100SxmBf16IsTheDenseFigure) {
  auto g = lookup_gpu("H100-SXM");
  ASSERT_TRUE(g.ok());
  EXPECT_DOUBLE_EQ(*g->peak_tflops("bf16"), 989.4);
  EXPECT_DOUBLE_EQ(*g->peak("bf16")->sparse, 1978.9);
  EXPECT_DOUBLE_EQ(*g->peak_tflops("fp32"), 66.9);
  EXPECT_TRUE(g->peak("bf16")->verified);
  Json j = gpu_spec_to_json(*g);
  EXPECT_DOUBLE_EQ(j["peak_tflops"]["bf16"].get<double>(), 989.4);
  EXPECT_NE(j["sources"]["peak_tflops.bf16"].get<std::string>().find("https://"), std::string::npos);
}

TEST(GpuSpecs, AliasesResolveExactlyAndCaseInsensitively) {
  for (auto [name, id] : std::vector<std::pair<std::string, std::string>>{{"MI300X", "MI300X"},
                                                                          {"mi355x", "MI355X"},
                                                                          {"H100-SXM", "H100-SXM"},
                                                                          {"h100 sxm", "H100-SXM"},
                                                                          {"H200", "H200"},
                                                                          {"A100-80GB", "A100-80GB"},
                                                                          {"B200", "B200"},
                                                                          {"NVIDIA H100 80GB HBM3", "H100-SXM"},
                                                                          {"nvidia  h100_80gb-hbm3", "H100-SXM"},
                                                                          {"AMD Instinct MI300X", "MI300X"},
                                                                          {"NVIDIA A100-SXM4-80GB", "A100-80GB"},
                                                                          {"NVIDIA GeForce RTX 4090", "RTX-4090"},
                                                                          {"NVIDIA L40S", "L40S"}}) {
    auto g = lookup_gpu(name);
    ASSERT_TRUE(g.ok()) << name << ": " << g.error().message;
    EXPECT_EQ(g->id, id) << name;
  }
}

TEST(GpuSpecs, UnknownGpuIsRefusedWithKnownIds) {
  for (const char* name : {"H100X", "H10", "NVIDIA H100 NVL", "A100", "MI300", ""}) {
    auto g = lookup_gpu(name);
    ASSERT_FALSE(g.ok()) << name;
    EXPECT_EQ(g.error().kind, ErrorKind::NotFound);
    EXPECT_EQ(g.error().exit_code(), 6);
    EXPECT_NE(g.error().message.find("MI300X"), std::string::npos);
    EXPECT_NE(g.error().message.find("H100-SXM"), std::string::npos);
  }
}

TEST(GpuSpecs, DeviceIdentificationByArchitecture) {
  DeviceInfo d;
  d.name = "gfx942";
  d.num_sms = 304;
  d.total_memory_bytes = 206158430208;  // 192 GiB as rocminfo reports
  auto g = gpu_for_device(d);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->id, "MI300X");
  d.total_memory_bytes = -1;  // MI300X or MI325X: ambiguous
  auto a = gpu_for_device(d);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("MI325X"), std::string::npos);
  DeviceInfo gfx950;
  gfx950.name = "gfx950";
  gfx950.num_sms = 256;
  EXPECT_FALSE(gpu_for_device(gfx950).ok());  // MI350X vs MI355X
  DeviceInfo radeon;                          // real MI210-class trace: generic name, no arch
  radeon.name = "AMD Radeon Graphics";
  radeon.num_sms = 104;
  EXPECT_FALSE(gpu_for_device(radeon).ok());
  DeviceInfo gcd;  // torch names each MI250X GCD "AMD Instinct MI250X" with 110 CUs
  gcd.name = "AMD Instinct MI250X";
  gcd.num_sms = 110;
  auto gg = gpu_for_device(gcd);
  ASSERT_FALSE(gg.ok());
  EXPECT_NE(gg.error().message.find("GCD"), std::string::npos);
  DeviceInfo h800;
  h800.name = "NVIDIA H800";
  EXPECT_EQ(gpu_for_device(h800).error().kind, ErrorKind::NotFound);
}

TEST(GpuSpecs, TimelineWithoutDevicesAsksForGpu) {
  Timeline tl;
  auto g = gpu_for_timeline(tl);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("--gpu"), std::string::npos);
}

TEST(GpuSpecs, DetectionParsers) {
  auto nv = parse_nvidia_smi_names("NVIDIA H100 80GB HBM3, 81559, 9.0\nNVIDIA H100 80GB HBM3, 81559, 9.0\n");
  ASSERT_EQ(nv.size(), 2u);
  EXPECT_EQ(nv[0].arch, "sm_90");
  EXPECT_EQ(gpu_for_device(nv[0])->id, "H100-SXM");
  auto ri = parse_rocminfo(
      "*******\nAgent 1\n*******\n  Name:                    AMD EPYC 9654\n  Device Type:             CPU\n"
      "*******\nAgent 2\n*******\n  Name:                    gfx942\n  Marketing Name:          AMD Instinct MI300X\n"
      "  Device Type:             GPU\n  Compute Unit:            304\n");
  ASSERT_EQ(ri.size(), 1u);
  EXPECT_EQ(ri[0].arch, "gfx942");
  EXPECT_EQ(gpu_for_device(ri[0])->id, "MI300X");
  auto am = parse_amd_smi_static(
      "GPU: 0\n    ASIC:\n        MARKET_NAME: AMD Instinct MI355X\n        TARGET_GRAPHICS_VERSION: gfx950\n"
      "        NUM_COMPUTE_UNITS: 256\n");
  ASSERT_EQ(am.size(), 1u);
  EXPECT_EQ(gpu_for_device(am[0])->id, "MI355X");
}

TEST(GpuSpecs, KinetoDeviceProperties) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(fx("kineto/h100_llama_fp32_eager_w0.json.gz"), tl).ok());
  auto g = gpu_for_timeline(tl);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->id, "H100-SXM");
  Timeline a100;
  ASSERT_TRUE(trace::read_path(fx("kineto/a100_alexnet_cuda_sync.json.gz"), a100).ok());
  auto ga = gpu_for_timeline(a100);
  ASSERT_TRUE(ga.ok()) << ga.error().message;
  EXPECT_EQ(ga->id, "A100-40GB");
}

TEST(GpuSpecs, CiteFormat) {
  auto g = lookup_gpu("MI300X");
  std::string c = gpu_spec_cite(*g);
  std::regex line(R"(^[^:\n]+: [^\n]+ <- https://[^\n]+$)");
  size_t n = 0, pos = 0;
  while (pos < c.size()) {
    size_t e = c.find('\n', pos);
    std::string l = c.substr(pos, e - pos);
    EXPECT_TRUE(std::regex_match(l, line)) << l;
    ++n;
    pos = e + 1;
  }
  EXPECT_GT(n, 15u);
}

// ---- op costs ------------------------------------------------------------------------------

TEST(Roofline, GemmFlopsFromShapes) {
  auto mm = op_cost("aten::mm", "[[8192, 32000], [32000, 1024]]", R"(["float", "float"])", "", nullptr);
  ASSERT_TRUE(mm);
  EXPECT_DOUBLE_EQ(mm->flops, 2.0 * 8192 * 1024 * 32000);
  EXPECT_DOUBLE_EQ(mm->bytes, (8192.0 * 32000 + 32000.0 * 1024 + 8192.0 * 1024) * 4);
  EXPECT_EQ(mm->dtype, "fp32");
  auto addmm = op_cost("aten::addmm", "[[1024], [64, 512], [512, 1024]]",
                       R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])", "");
  ASSERT_TRUE(addmm);
  EXPECT_DOUBLE_EQ(addmm->flops, 2.0 * 64 * 1024 * 512);
  EXPECT_EQ(addmm->dtype, "bf16");
  auto bmm = op_cost("aten::bmm", "[[128, 1024, 64], [128, 64, 1024]]", R"(["float","float"])", "");
  EXPECT_DOUBLE_EQ(bmm->flops, 2.0 * 128 * 1024 * 1024 * 64);
  auto lin =
      op_cost("aten::linear", "[[8, 1024, 1024], [2816, 1024], []]", R"(["c10::BFloat16","c10::BFloat16",""])", "");
  EXPECT_DOUBLE_EQ(lin->flops, 2.0 * 8192 * 2816 * 1024);
  auto mat = op_cost("aten::matmul", "[[4, 1, 32, 64], [8, 64, 16]]", R"(["float","float"])", "");
  ASSERT_TRUE(mat);
  EXPECT_DOUBLE_EQ(mat->flops, 2.0 * 32 * 32 * 16 * 64);  // batch broadcast 4x8
  std::string why;
  EXPECT_FALSE(op_cost("aten::mm", "", "", "", &why));
  EXPECT_NE(why.find("record_shapes"), std::string::npos);
  EXPECT_FALSE(op_cost("aten::mm", "[[2, 3], [3, 4]]", R"(["weird", "weird"])", "", &why));
}

TEST(Roofline, AttentionCausalHalvedAndLayouts) {
  std::string q = "[[8, 16, 1024, 64], [8, 16, 1024, 64], [8, 16, 1024, 64], [], [], [], [], []]";
  auto causal = op_cost("aten::scaled_dot_product_attention", q,
                        R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar","Scalar","Scalar"])",
                        R"(["", "", "", "", "0.", "True", "0.125", "False"])");
  ASSERT_TRUE(causal);
  double full = 4.0 * 8 * 16 * 1024 * 1024 * 64;
  EXPECT_DOUBLE_EQ(causal->flops, full / 2);
  EXPECT_TRUE(causal->causal);
  auto noncausal = op_cost("aten::scaled_dot_product_attention", q, R"(["c10::Half","c10::Half","c10::Half"])",
                           R"(["", "", "", "", "0.", "False", "", "False"])");
  EXPECT_DOUBLE_EQ(noncausal->flops, full);
  // _flash_attention_forward takes [B, L, H, E]
  auto fl = op_cost("aten::_flash_attention_forward", "[[2, 512, 8, 128], [2, 512, 8, 128], [2, 512, 8, 128]]",
                    R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])",
                    R"(["", "", "", "", "", "512", "512", "0.", "True", "False"])");
  ASSERT_TRUE(fl);
  EXPECT_DOUBLE_EQ(fl->flops, 4.0 * 2 * 8 * 512 * 512 * 128 / 2);
  auto bwd = op_cost("aten::_scaled_dot_product_flash_attention_backward",
                     "[[8, 16, 1024, 64], [8, 16, 1024, 64], [8, 16, 1024, 64], [8, 16, 1024, 64]]",
                     R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16"])",
                     R"(["", "", "", "", "", "", "", "", "", "", "0.", "False"])");
  ASSERT_TRUE(bwd);
  EXPECT_DOUBLE_EQ(bwd->flops, 2.5 * full);
}

TEST(Roofline, ConvolutionNeedsConcreteInputs) {
  std::string dims = "[[32, 3, 224, 224], [64, 3, 11, 11], [64], [], [], [], [], [], []]";
  std::string types =
      R"(["float","float","float","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])";
  auto c = op_cost("aten::convolution", dims, types,
                   R"(["", "", "", "[4, 4]", "[2, 2]", "[1, 1]", "False", "[0, 0]", "1"])");
  ASSERT_TRUE(c);
  double out = 55.0 * 55;  // floor((224 + 4 - 10 - 1)/4 + 1) = 55
  EXPECT_DOUBLE_EQ(c->flops, 2.0 * 32 * 64 * out * 3 * 121);
  std::string why;
  EXPECT_FALSE(op_cost("aten::convolution", dims, types, "", &why));
  EXPECT_NE(why.find("Concrete Inputs"), std::string::npos);
}

TEST(Roofline, HandBuiltTimelineAttributesKernelToInnermostOp) {
  Timeline tl;
  goblin::testing::TimelineBuilder(tl)
      .cpu_op("aten::linear", 1000, 10000, /*external_id=*/1, "[[4096, 4096], [4096, 4096], []]",
              R"(["c10::BFloat16", "c10::BFloat16", ""])")
      .cpu_op("aten::addmm", 2000, 5000, /*external_id=*/2, "[[4096], [4096, 4096], [4096, 4096]]",
              R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])")
      .launch(3000, /*correlation=*/99)
      .kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 5000, 250000, 99, 1);  // 250 us
  auto g = lookup_gpu("H100-SXM");
  auto rep = roofline_from_trace(tl, *g, taxonomy_engines());
  ASSERT_EQ(rep.ops.size(), 1u);
  const auto& p = rep.ops[0];
  EXPECT_EQ(p.label.substr(0, 11), "aten::addmm");
  double flops = 2.0 * 4096 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(p.flops, flops);
  EXPECT_NEAR(p.achieved_tflops, flops / 250e-6 / 1e12, 1e-9);
  EXPECT_EQ(p.peak_key, "bf16");
  EXPECT_EQ(p.engine, "matrix");
  EXPECT_NEAR(*p.pct_of_peak, 100.0 * p.achieved_tflops / 989.4, 1e-9);
  EXPECT_EQ(p.bound, p.intensity < 989.4e12 / 3350e9 ? "memory" : "compute");
}

TEST(Roofline, GoldenH100Fp32GemmsSitUnderTheSimtPeak) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(fx("kineto/h100_llama_fp32_eager_w0.json.gz"), tl).ok());
  auto g = gpu_for_timeline(tl);
  ASSERT_TRUE(g.ok());
  auto rep = roofline_from_trace(tl, *g, taxonomy_engines());
  ASSERT_GT(rep.ops.size(), 5u);
  int gemms = 0;
  for (auto& p : rep.ops) {
    if (p.kind != "gemm") continue;
    ++gemms;
    EXPECT_EQ(p.dtype, "fp32");
    EXPECT_EQ(p.peak_key, "fp32") << p.label;  // SIMT sgemm / ffma kernels
    EXPECT_GT(p.achieved_tflops, 0.0) << p.label;
    EXPECT_LT(p.achieved_tflops, 66.9) << p.label;
  }
  EXPECT_GT(gemms, 5);
  EXPECT_FALSE(roofline_svg(rep).empty());
  EXPECT_NE(roofline_svg(rep).find("<circle"), std::string::npos);
}

TEST(Roofline, GoldenH100Bf16SdpaAttentionIsCausal) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(fx("kineto/h100_llama_bf16_sdpa_w4.json.gz"), tl).ok());
  auto rep = roofline_from_trace(tl, *gpu_for_timeline(tl), taxonomy_engines());
  int attn = 0;
  for (auto& p : rep.ops) {
    if (p.kind == "attention") {
      ++attn;
      EXPECT_NE(p.formula.find("causal"), std::string::npos);
      EXPECT_EQ(p.peak_key, "bf16");
    }
    if (p.peak_tflops) {
      EXPECT_LT(p.achieved_tflops, *p.peak_tflops) << p.label;
    }
  }
  EXPECT_GT(attn, 0);
}

// ---- counters ------------------------------------------------------------------------------

namespace {
CounterKernel ck(double sm, double mem, double waves, double grid = 1000) {
  CounterKernel k;
  k.key = 0;
  k.name = "k";
  k.m["sm__throughput.avg.pct_of_peak_sustained_elapsed"] = sm;
  k.m["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"] = mem;
  k.m["launch__waves_per_multiprocessor"] = waves;
  k.m["launch__grid_size"] = grid;
  return k;
}
}  // namespace

TEST(Ncu, SpeedOfLightThresholds) {
  auto R = load_ncu_rules();
  ASSERT_TRUE(R.ok());
  EXPECT_EQ(classify_ncu_kernel(ck(85, 40, 4), *R).bound, "compute_bound");
  EXPECT_EQ(classify_ncu_kernel(ck(30, 90, 4), *R).bound, "memory_bound");
  EXPECT_EQ(classify_ncu_kernel(ck(20, 30, 0.5, 60), *R).bound, "small_grid");
  EXPECT_EQ(classify_ncu_kernel(ck(20, 30, 3), *R).bound, "latency_bound");
  EXPECT_EQ(classify_ncu_kernel(ck(72, 40, 3), *R).bound, "compute_bound");
  EXPECT_EQ(classify_ncu_kernel(ck(40, 72, 3), *R).bound, "memory_bound");
  EXPECT_EQ(classify_ncu_kernel(ck(68, 65, 3), *R).bound, "latency_bound");
  CounterKernel none;
  EXPECT_EQ(classify_ncu_kernel(none, *R).bound, "unknown");
}

TEST(Ncu, GoldenEveryFixtureKernelIsClassifiedWithEvidence) {
  auto R = load_ncu_rules();
  for (const char* f :
       {"nsight/ncu_raw_h100_full.csv", "nsight/ncu_raw_h100_selected_metrics.csv", "nsight/ncu_details_h100.csv"}) {
    Timeline tl;
    ASSERT_TRUE(trace::read_path(fx(f), tl).ok()) << f;
    auto cls = classify_ncu(tl, *R);
    ASSERT_FALSE(cls.empty()) << f;
    for (auto& c : cls) {
      EXPECT_NE(c.bound, "unknown") << f << " " << c.kernel;
      EXPECT_GE(c.evidence.size(), 2u) << f << " " << c.kernel;
      EXPECT_FALSE(c.reason.empty());
    }
  }
  Timeline tl;
  ASSERT_TRUE(trace::read_path(fx("nsight/ncu_raw_h100_selected_metrics.csv"), tl).ok());
  auto cls = classify_ncu(tl, *R);
  ASSERT_EQ(cls.size(), 10u);
  EXPECT_EQ(cls[2].bound, "compute_bound");  // nvjet GEMM, SM 90.21%
  EXPECT_EQ(cls[6].bound, "memory_bound");   // elementwise, memory 89.07%
}

TEST(Ncu, RocprofFormulas) {
  CounterKernel k;
  k.m["SQ_INSTS_VALU_ADD_F32"] = 10;
  k.m["SQ_INSTS_VALU_FMA_F32"] = 5;
  k.m["SQ_INSTS_VALU_MFMA_MOPS_BF16"] = 3;
  k.m["TCC_BUBBLE"] = 1;
  k.m["TCC_EA0_RDREQ_32B"] = 2;
  k.m["TCC_EA0_RDREQ"] = 10;
  k.m["TCC_EA0_WRREQ"] = 6;
  k.m["TCC_EA0_WRREQ_64B"] = 4;
  auto r = rocprof_roofline(k);
  EXPECT_DOUBLE_EQ(*r.valu_flops, 64.0 * (10 + 2 * 5));
  EXPECT_DOUBLE_EQ(*r.mfma_flops, 512.0 * 3);
  EXPECT_DOUBLE_EQ(*r.hbm_bytes, 128.0 * 1 + 32 * 2 + 64 * (10 - 1 - 2) + 32 * (6 - 4) + 64 * 4);
  CounterKernel empty;
  auto e = rocprof_roofline(empty);
  EXPECT_FALSE(e.hbm_bytes);
  EXPECT_EQ(e.missing.size(), 3u);
}

// ---- diagnosis -----------------------------------------------------------------------------

TEST(Diagnose, TwoDistinctBottlenecksWithEvidenceAndFixes) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(fx("nsight/ncu_raw_h100_selected_metrics.csv"), tl).ok());
  auto R = load_ncu_rules();
  for (auto& k : counter_kernels(tl)) {
    auto d = diagnose_kernel(k, *R, 132);
    ASSERT_EQ(d.bottlenecks.size(), 2u) << k.name;
    EXPECT_NE(d.bottlenecks[0].category, d.bottlenecks[1].category);
    EXPECT_GE(d.bottlenecks[0].severity, d.bottlenecks[1].severity);
    for (auto& b : d.bottlenecks) {
      EXPECT_FALSE(b.evidence.empty());
      EXPECT_FALSE(b.fixes.empty());
    }
    EXPECT_TRUE(validate_judge_json(diagnosis_to_json(d)).empty()) << diagnosis_to_json(d).dump();
  }
}

TEST(Diagnose, PromptCarriesCitedSpecsAndSchemaSections) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(fx("nsight/ncu_raw_h100_full.csv"), tl).ok());
  auto ks = counter_kernels(tl);
  auto schema = load_metric_schema();
  ASSERT_TRUE(schema.ok());
  auto g = lookup_gpu("H100-SXM");
  auto p = build_judge_prompt(ks[0], *schema, &*g, "__global__ void k() {}", "elementwise mul");
  EXPECT_NE(p.system.find("EXACTLY TWO DISTINCT"), std::string::npos);
  EXPECT_NE(p.system.find("underutilized"), std::string::npos);
  EXPECT_NE(p.user.find("989.4 TFLOPS <- https://"), std::string::npos);
  EXPECT_NE(p.user.find("1978.9"), std::string::npos);
  EXPECT_NE(p.user.find("### Stall Metrics (Warp Issue Stalls)"), std::string::npos);
  EXPECT_NE(p.user.find("__global__ void k()"), std::string::npos);
  EXPECT_NE(p.user.find("62.26%"), std::string::npos);  // sm__throughput of kernel 0
  EXPECT_EQ(p.user.find("N/A%"), std::string::npos);    // no unit after N/A
}

TEST(Diagnose, ExtractJudgeJsonFromFreeText) {
  std::string item =
      R"({"category":"memory","summary":"s","reasoning":"r","root_causes":[{"cause":"c","evidence":[{"metric":"m","value":1,"interpretation":"i"}],"fixes":[{"fix":"f","rationale":"r"}]}]})";
  std::string item2 = item;
  item2.replace(item2.find("memory"), 6, "compute");
  std::string arr = "[" + item + "," + item2 + "]";
  auto a = extract_judge_json(arr);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->how, "whole text");
  EXPECT_TRUE(validate_judge_json(a->value).empty());
  auto f = extract_judge_json("Sure! Here you go:\n```json\n" + arr + "\n```\nHope it helps [1].");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->how, "fenced block");
  auto e = extract_judge_json("The analysis [see below] is " + arr + " as requested.");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->how, "embedded array");
  EXPECT_EQ(e->value.size(), 2u);
  auto o = extract_judge_json("prose {\"bottlenecks\": " + arr + "} more prose");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->value.size(), 2u);
  auto single = extract_judge_json("answer: " + item);
  ASSERT_TRUE(single);
  EXPECT_EQ(single->value.size(), 1u);
  EXPECT_FALSE(extract_judge_json("no json here, only {broken"));
}

TEST(Diagnose, ValidationSaysExactlyWhatIsWrong) {
  auto v = Json::parse(
      R"([{"category":"memory","summary":"s","reasoning":"r","root_causes":[{"cause":"c","evidence":[{"metric":"m","value":1,"interpretation":"i"}],"fixes":[{"fix":"f","rationale":"r"}]}]},
          {"category":"latency","summary":"","root_causes":[{"cause":"c","fixes":[{"fix":"f"}]}]}])");
  auto errs = validate_judge_json(v);
  auto has = [&](const std::string& s) { return std::find(errs.begin(), errs.end(), s) != errs.end(); };
  EXPECT_TRUE(has("[1].category: 'latency' is not one of memory|compute|underutilized"));
  EXPECT_TRUE(has("[1].summary: empty"));
  EXPECT_TRUE(has("[1].reasoning: missing"));
  EXPECT_TRUE(has("[1].root_causes[0].evidence: missing"));
  EXPECT_TRUE(has("[1].root_causes[0].fixes[0].rationale: missing"));
  EXPECT_TRUE(has("$: expected 2 bottlenecks, got 1") == false);
  auto one = validate_judge_json(Json::parse("[]"));
  EXPECT_EQ(one.front(), "$: expected 2 bottlenecks, got 0");
}

// ---- CLI -----------------------------------------------------------------------------------

TEST(Cli, SpecsAcceptance) {
  auto ok = run("specs H100-SXM --json");
  EXPECT_EQ(ok.rc, 0) << ok.out;
  auto j = Json::parse(ok.out);
  EXPECT_DOUBLE_EQ(j["result"]["peak_tflops"]["bf16"].get<double>(), 989.4);
  EXPECT_NE(j["result"]["sources"]["peak_tflops.bf16"].get<std::string>().find("https://"), std::string::npos);
  auto bad = run("specs H100-FOO");
  EXPECT_EQ(bad.rc, 6);
  EXPECT_NE(bad.out.find("Known GPU ids: H100-SXM"), std::string::npos);
  auto cite = run("specs MI355X --cite");
  EXPECT_EQ(cite.rc, 0);
  EXPECT_NE(cite.out.find("MI355X peak bf16 (dense, matrix, fp32 accumulate): 2516.6 TFLOPS <- https://"),
            std::string::npos)
      << cite.out;
  // No GPU named: the known ids (what to name), the same answer the MCP tool gives.
  auto none = run("specs");
  EXPECT_EQ(none.rc, 0);
  EXPECT_NE(none.out.find("H100-SXM"), std::string::npos) << none.out;
  EXPECT_EQ(run("specs --list").rc, 0);
}

TEST(Cli, RooflineAndDiagnose) {
  auto r = run("roofline " + fx("kineto/h100_llama_fp32_eager_w0.json.gz") + " --json");
  ASSERT_EQ(r.rc, 0) << r.out.substr(0, 500);
  auto j = Json::parse(r.out);
  EXPECT_EQ(j["result"]["gpu"], "H100-SXM");
  EXPECT_GT(j["result"]["ops"].size(), 5u);
  auto n = run("roofline " + fx("nsight/ncu_raw_h100_selected_metrics.csv") + " --json");
  ASSERT_EQ(n.rc, 0);
  auto nj = Json::parse(n.out);
  EXPECT_EQ(nj["result"]["kernels"].size(), 10u);
  auto d = run("diagnose --ncu " + fx("nsight/ncu_raw_h100_full.csv") + " --prompt --json");
  ASSERT_EQ(d.rc, 0);
  EXPECT_NE(Json::parse(d.out)["result"]["user_prompt"].get<std::string>().find("Stall Metrics"), std::string::npos);
  auto missing = run("diagnose --parse-response /nonexistent/file");
  EXPECT_EQ(missing.rc, 3);
  auto unknown_gpu = run("roofline " + fx("kineto/h100_llama_fp32_eager_w0.json.gz") + " --gpu H100X");
  EXPECT_EQ(unknown_gpu.rc, 6);
}
