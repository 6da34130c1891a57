// Issue #31's acceptance: every Kineto trace of ../shared/fixtures and examples/ through
// `goblin roofline`, and the share of its GPU-op time without a cost model (unmodelled_share).
// Traces the models cannot reach honestly are listed below with the reason; the test checks
// that every other trace is at or under 5 %, and that a listed one's unmodelled time is what its
// reason says (GEMM / attention / convolution kernels without a launching op).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "analysis/knowledge.h"
#include "app/roofline_run.h"

namespace goblin::app {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> kineto_traces() {
  std::vector<std::string> out;
  for (const auto& root : {fs::path(GOBLIN_FIXTURES) / "kineto", fs::path(GOBLIN_SOURCE_DIR) / "examples"}) {
    if (!fs::exists(root)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      const std::string p = e.path().string();
      if (!e.is_regular_file()) continue;
      if (p.size() > 8 &&
          (p.ends_with(".json.gz") || (p.ends_with(".json") && p.find("/configs/") == std::string::npos &&
                                       p.find("overlap_result") == std::string::npos)))
        out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Above 5 % for the reason given: their unmodelled time is GEMM / attention / convolution
// kernels (or NCCL kernels) that no op with shapes launched — CUDA/HIP graph replays, CUPTI
// tracer-only traces, traces without CPU ops or collective metadata, kernels launched before the
// recorded CPU window (no launch event, no External id). Their FLOPs need shapes that neither the
// name nor the grid carries (a capture trace would give graph replays theirs: not done yet).
// Keyed by "parent folder/file name".
const std::map<std::string, std::string> kUnreachable = {
    {"kineto/a100_alexnet_cuda_sync.json.gz", "convolution/GEMM kernels without a launch in the CPU window"},
    {"kineto/h100_qwen05b_inference_stack.json.gz", "GEMM/attention kernels launched before the CPU window"},
    {"kineto/gpu_user_annotation_steps.json.gz", "no CPU ops: GEMM kernels"},
    {"kineto/kineto_2021_computeProperties.json", "no CPU ops: GEMM kernels"},
    {"kineto/kineto_2021_legacy_resnet50.json.gz", "no CPU ops (2021 trace): convolution/GEMM kernels"},
    {"kineto/kineto_2026_occupancy_cuda_sync.json", "synthetic kernels of no known class"},
    {"kineto/large_integer_rank-70.json.gz", "a synthetic NCCL kernel without collective metadata"},
    {"kineto/nccl_sampled_rank-0.json.gz", "no CPU ops: NCCL kernels without collective metadata, GEMMs"},
    {"kineto/nccl_sampled_rank-1.json.gz", "no CPU ops: NCCL kernels without collective metadata, GEMMs"},
    {"kineto/mi300x_sglang_qwen3_8b_decode.json.gz",
     "HIP graph replays; ROCm Kineto records no grid, so no grid bound applies to any class"},
    {"h100_cudagraphs/graph_on_reduce_overhead.json.gz", "CUDA graph replays of GEMM/attention kernels"},
    {"h100_tracer/tuned_compile_cupti.json.gz", "CUPTI tracer: no CPU ops"},
    {"h100_tracer/tuned_compile_graphs_cupti.json.gz", "CUPTI tracer: no CPU ops"},
    {"h100_tracer/tuned_compile_cupti_window.json.gz", "CUPTI tracer: no CPU ops"},
    {"h100_tracer/small_train_cupti.json.gz", "CUPTI tracer: no CPU ops"},
    {"h100_tracer/tuned_compile_cupti_observer.json.gz",
     "CUPTI tracer with goblin's operator observer: ops with Input Dims but no Input type (dtypes not recorded yet)"},
    {"balanced_gpu/rank0.pt.trace.json.gz", "GEMM/attention kernels launched before the CPU window"},
    {"balanced_gpu/rank1.pt.trace.json.gz", "GEMM/attention kernels launched before the CPU window"},
    {"straggler_gpu/rank0.pt.trace.json.gz", "GEMM/attention kernels launched before the CPU window"},
    {"straggler_gpu/rank1.pt.trace.json.gz", "GEMM/attention kernels launched before the CPU window"},
    {"straggler_sleep/rank1.pt.trace.json.gz", "GEMM/attention kernels launched before the CPU window"},
};

TEST(RooflineCoverage, UnmodelledShareOfEveryFixtureAndExample) {
  auto kr = analysis_knowledge();
  ASSERT_TRUE(kr.ok());
  const AnalysisKnowledge& k = **kr;
  auto traces = kineto_traces();
  ASSERT_FALSE(traces.empty());
  std::string table;
  int checked = 0;
  for (const auto& t : traces) {
    RooflineRequest rq;
    rq.path = t;
    VerbResult r = run_roofline(rq, k);
    if (r.error && r.error->kind == ErrorKind::NotFound) {
      rq.gpu = "H100-SXM";  // coverage does not depend on the GPU; the roofs do
      r = run_roofline(rq, k);
    }
    const std::string name = fs::path(t).parent_path().filename().string() + "/" + fs::path(t).filename().string();
    if (!r.result.contains("unmodelled_share")) {
      table += name + ": no trace-mode roofline\n";
      continue;
    }
    const double share = r.result["unmodelled_share"].get<double>();
    table += fmt::format("{}: {:.4f}\n", name, share);
    ++checked;
    auto why = kUnreachable.find(name);
    if (why == kUnreachable.end()) {
      EXPECT_LE(share, 0.05) << t << " coverage: " << r.result["coverage"].dump();
      continue;
    }
    // A listed trace is above 5 % only by GEMM / attention / convolution / communication kernels
    // (or kernels of no class): every class with a byte model is priced.
    if (why->second.find("no grid") != std::string::npos) continue;
    for (const auto& [cat, us] : r.result["coverage"]["unmodelled_us_by_category"].items()) {
      const double s = us.get<double>() / r.result["coverage"]["gpu_op_time_us"].get<double>();
      if (cat == "gemm" || cat == "attention" || cat == "convolution" || cat == "communication" || cat == "other" ||
          cat == "moe" || cat == "kernel")
        continue;
      EXPECT_LE(s, 0.01) << name << ": " << cat << " unmodelled (" << why->second << ")";
    }
  }
  EXPECT_GT(checked, 10);
  std::cout << table;
}

}  // namespace
}  // namespace goblin::app
