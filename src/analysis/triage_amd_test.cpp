// Triage metadata of AMD traces (issue #15): vendor and gfx architecture from every signal even
// when the device name is empty, ROCm/HIP versions decoded, arch_match against gfx950, and the
// module / stage artifacts.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/triage_artifacts.h"
#include "core/test_support.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

const std::string kFix = std::string(GOBLIN_FIXTURES) + "/kineto/";

nlohmann::json load_json(const std::filesystem::path& p) {
  std::ifstream f(p);
  return nlohmann::json::parse(f);
}

// The metadata of TraceLens' vLLM gpt-oss decode trace (tests/traces/inference/vllm_decode_full):
// empty device name, computeMajor 9 / Minor 4, warpSize 64, 304 CUs, roctracer and HIP versions,
// with one of its kernels.
constexpr const char* kEmptyNameTrace = R"({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "", "totalGlobalMem": 206141652992, "computeMajor": 9,
    "computeMinor": 4, "maxThreadsPerBlock": 1024, "warpSize": 64, "numSms": 304}],
  "roctracer_version": 4.1,
  "hip_runtime_version": 70051831,
  "hip_driver_version": 70051831,
  "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1", "pid": 0, "tid": 1,
     "ts": 100.0, "dur": 50.0, "args": {"device": 0, "stream": 1, "correlation": 7}}
  ]
})";

TEST(TriageAmd, EmptyDeviceNameStillAmdGfx942AndCompatibleWithGfx950) {
  auto dir = testing::private_tmp_dir("triage_amd_empty_name");
  const auto trace = dir / "vllm_decode.json";
  std::ofstream(trace) << kEmptyNameTrace;
  Timeline tl;
  Status st = trace::read_path(trace.string(), tl);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].arch, "");  // not "sm_94": warpSize 64 is no NVIDIA device
  TriageOptions opt;
  opt.source_path = trace.string();
  opt.target_arch = "gfx950";
  auto r = run_triage(tl, opt);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_TRUE(write_triage_artifacts(*r, (dir / "out").string()).ok());
  auto m = load_json(dir / "out" / "profile_metadata.json");
  EXPECT_EQ(m["vendor"], "amd");
  EXPECT_EQ(m["observed_arch"], "gfx942");
  EXPECT_EQ(m["arch_match"], "compatible");
  const std::string reason = m["hardware_relevance_reason"];
  EXPECT_NE(reason.find("gfx950"), std::string::npos) << reason;
  EXPECT_NE(reason.find("FNUZ"), std::string::npos) << reason;
  EXPECT_EQ(m["rocm_version"], "7.0");
  EXPECT_EQ(m["versions"]["hip_runtime_decoded"], "7.0.51831");
  EXPECT_NE(m["field_sources"]["rocm_version"].get<std::string>().find("70051831"), std::string::npos);
  EXPECT_NE(m["field_sources"]["observed_arch"].get<std::string>().find("MI300X"), std::string::npos);
  EXPECT_FALSE(m["vendor_evidence"].empty());
  // The kernel is a grouped MoE GEMM, not quantization.
  auto k = load_json(dir / "out" / "kernel_table.json");
  EXPECT_EQ(k[0]["category"], "moe");
  EXPECT_EQ(k[0]["family"], "triton_kernels");
}

TEST(TriageAmd, SglangDecodeFixtureArtifacts) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(kFix + "mi300x_sglang_qwen3_8b_decode.json.gz", tl).ok());
  TriageOptions opt;
  opt.source_path = kFix + "mi300x_sglang_qwen3_8b_decode.json.gz";
  opt.target_arch = "gfx950";
  opt.by_module = true;
  auto r = run_triage(tl, opt);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  auto dir = testing::private_tmp_dir("triage_amd_decode");
  ASSERT_TRUE(write_triage_artifacts(*r, dir.string()).ok());
  for (const auto& f : triage_artifact_names()) EXPECT_TRUE(std::filesystem::exists(dir / f)) << f;
  auto m = load_json(dir / "profile_metadata.json");
  EXPECT_EQ(m["vendor"], "amd");
  EXPECT_EQ(m["observed_arch"], "gfx942");
  EXPECT_EQ(m["arch_match"], "compatible");
  EXPECT_EQ(m["rocm_version"], "7.2");
  EXPECT_EQ(m["profile_stage"], "decode");
  EXPECT_NE(m["field_sources"]["profile_stage"].get<std::string>().find("annotations"), std::string::npos);
  auto mods = load_json(dir / "module_table.json");
  ASSERT_FALSE(mods.empty());
  EXPECT_EQ(mods[0]["module"], "(graph replay)");
  auto stages = load_json(dir / "stage_table.json");
  EXPECT_EQ(stages["profile_stage"], "decode");
  EXPECT_EQ(stages["stages"][0]["stage"], "decode");
  std::string human = triage_human_summary(*r, 5, true);
  EXPECT_NE(human.find("GPU time by nn.Module"), std::string::npos);
  EXPECT_NE(r->summary_md.find("Serving stages"), std::string::npos);
}

}  // namespace
}  // namespace goblin::analysis
