// Triage metadata of AMD traces (issue #15): vendor and gfx architecture from every signal even
// when the device name is empty, ROCm/HIP versions decoded, arch_match against gfx950, and the
// module / stage artifacts.
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

// Telemetry beside a trace never changes the trace's GPU identity (issue 46): the MI300X decode
// trace with an amd-smi `metric --csv` capture (written by amd-smi before the trace, and sorted
// before it: amd_smi.csv < trace.json.gz) is one device 0, named as the trace names it, the
// arch matches gfx942 exactly and MFU is what the trace alone gives. The samples are stamped
// within the trace's span (epoch seconds 1779988464-5), so the two are one run.
constexpr const char* kAmdSmiMetric =
    "timestamp,gpu,gfx_activity,umc_activity,socket_power,mem\r\n"
    "1779988464,0,97,41,700,60\r\n"
    "1779988465,0,95,40,690,61\r\n";

TEST(TriageAmd, AmdSmiBesideTheTraceKeepsItsDevice) {
  const std::string trace = kFix + "mi300x_sglang_qwen3_8b_decode.json.gz";
  auto dir = testing::private_tmp_dir("triage_amd_telemetry");
  std::filesystem::create_directories(dir / "run");
  std::filesystem::copy_file(trace, dir / "run" / "trace.json.gz", std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "run" / "amd_smi.csv") << kAmdSmiMetric;

  Timeline alone, both;
  ASSERT_TRUE(trace::read_path(trace, alone).ok());
  Status st = trace::read_path((dir / "run").string(), both);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  ASSERT_EQ(both.meta.devices.size(), 1u);
  EXPECT_EQ(both.meta.devices[0].id, 0);
  EXPECT_EQ(both.meta.devices[0].name, "AMD Instinct MI300X");
  EXPECT_GT(both.samples.size(), 0u);  // the telemetry is read

  auto ma = compute_run_metrics(alone), mb = compute_run_metrics(both);
  ASSERT_TRUE(ma.ok() && mb.ok());
  EXPECT_EQ(mb->gpu_name, "AMD Instinct MI300X");
  EXPECT_EQ(mb->gpu_name, ma->gpu_name);
  EXPECT_EQ(mb->mfu_pct.has_value(), ma->mfu_pct.has_value());
  if (ma->mfu_pct && mb->mfu_pct) EXPECT_NEAR(*mb->mfu_pct, *ma->mfu_pct, 1e-9);

  TriageOptions opt;
  opt.source_path = (dir / "run").string();
  opt.target_arch = "gfx942";
  auto r = run_triage(both, opt);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_TRUE(write_triage_artifacts(*r, (dir / "out").string()).ok());
  auto m = load_json(dir / "out" / "profile_metadata.json");
  EXPECT_EQ(m["observed_arch"], "gfx942");
  EXPECT_EQ(m["arch_match"], "exact") << m["hardware_relevance_reason"];
}

// goblin's own profile output (run.json + telemetry.csv from nvidia-smi + trace.json.gz): the
// triage of the directory matches sm_90 exactly, as the trace alone does.
TEST(TriageAmd, NvidiaRunDirectoryWithTelemetryMatchesItsArch) {
  const std::string run = std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/h100_live/audit_base/live/profile-1";
  Timeline tl;
  Status st = trace::read_path(run, tl);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].name, "NVIDIA H100 80GB HBM3");
  TriageOptions opt;
  opt.source_path = run;
  opt.target_arch = "sm_90";
  auto r = run_triage(tl, opt);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  auto dir = testing::private_tmp_dir("triage_nv_telemetry");
  ASSERT_TRUE(write_triage_artifacts(*r, dir.string()).ok());
  auto m = load_json(dir / "profile_metadata.json");
  EXPECT_EQ(m["observed_arch"], "sm_90");
  EXPECT_EQ(m["arch_match"], "exact") << m["hardware_relevance_reason"];
}

// Telemetry of another GPU beside the trace (nvidia-smi of an H100 beside an MI300X trace): the
// trace's device is kept as it is.
TEST(TriageAmd, ContradictingTelemetryLeavesTheTraceDeviceAlone) {
  auto dir = testing::private_tmp_dir("triage_amd_wrong_telemetry");
  std::filesystem::create_directories(dir / "run");
  std::filesystem::copy_file(kFix + "mi300x_sglang_qwen3_8b_decode.json.gz", dir / "run" / "trace.json.gz",
                             std::filesystem::copy_options::overwrite_existing);
  // nvidia-smi --query-gpu CSV (the header of tests/fixtures/telemetry/nvidia_smi_query.csv),
  // stamped within the trace's span so the two are one run.
  std::ofstream(dir / "run" / "nvidia_smi.csv")
      << "timestamp, index, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%]\n"
         "2026/05/28 17:14:24.000, 0, NVIDIA H100 80GB HBM3, 81559 MiB, 1000 MiB, 50 %\n";
  Timeline tl;
  Status st = trace::read_path((dir / "run").string(), tl);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(tl.meta.devices[0].total_memory_bytes, 206141652992);
}

}  // namespace
}  // namespace goblin::analysis
