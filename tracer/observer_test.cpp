// goblin's operator observer's hand-over (workloads/goblin_hook/goblin_ops_abi.h) turned into the
// trace: ops become cpu_op events with the External id of the kernels they launched, on the
// thread id CUPTI's API records use; nn.Module forwards become python_function frames; shapes
// become Kineto's Input Dims; ranges never closed are counted and left out.
#include <gtest/gtest.h>

#include "goblin_ops_abi.h"
#include "op_attribution.h"
#include "trace/kineto/kineto.h"
#include "trace_format.h"

namespace goblin::tracer {
namespace {

TEST(TracerObserver, DimsAndTypesAsKinetoWritesThem) {
  // (aten::addmm: bias [4], input [8, 16], weight [16, 4] in bf16, a scalar beta; a type index
  // out of range is written "")
  const char* names[] = {"aten::addmm", "c10::BFloat16", "Scalar"};
  const int64_t d[] = {4, 1, 1, 4, 2, 1, 8, 16, 2, 1, 16, 4, -1, 2};
  InputsJson in = inputs_json(d, 14, 0, names, 3);
  EXPECT_EQ(in.dims, "[[4], [8, 16], [16, 4], []]");
  EXPECT_EQ(in.types, "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]");
  EXPECT_EQ(inputs_json(d, 14, 0, names, 2).types, "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"\"]");
  const int64_t none[] = {0};
  EXPECT_EQ(inputs_json(none, 1, 0, names, 3).dims, "[]");
  EXPECT_EQ(inputs_json(d, 5, 0, names, 3).dims, "");    // cut short: no shapes rather than wrong ones
  EXPECT_EQ(inputs_json(d, 14, 14, names, 3).dims, "");  // out of range
}

TEST(TracerObserver, ThreadIdIsTheOneTheApiRecordsUse) {
  const std::vector<OpThread> th = {{111, 7}, {222, 8}, {333, 9}};
  // gettid() in the API records (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), pthread values in others.
  EXPECT_EQ(resolve_op_threads(th, {7, 222}), (std::vector<uint32_t>{7, 222, 9}));
}

TEST(TracerObserver, BatchBecomesCpuOpsModulesAndKernelLinks) {
  Trace t;
  t.pid = 10;
  t.clock.valid = true;
  t.api_names[api_key(false, 211)] = "cudaLaunchKernel";
  auto intern = [&](const std::string& s) {
    t.strings.push_back(s);
    return static_cast<uint32_t>(t.strings.size() - 1);
  };
  const uint32_t gemm = intern("sm90_gemm");
  // Observer clock = CUPTI clock + 500 ns.
  const uint64_t T = 1'000'000;
  const char* names[] = {"aten::linear", "aten::addmm", "nn.Module: Linear_0", "aten::copy_", "float"};
  const goblin_op_thread threads[] = {{0x7f00000000001234ull, 41, 0}, {0x7f00000000005678ull, 42, 0}};
  const int64_t dims[] = {3, 1, 4, 4, 2, 4, 8, 16, 2, 4, 16, 4};
  const goblin_op_record ops[] = {
      {T + 500 + 50, T + 500 + 900, -1, 2, 0, UINT32_MAX, GOBLIN_OP_KIND_MODULE},  // Linear_0
      {T + 500 + 100, T + 500 + 800, 7, 0, 0, UINT32_MAX, GOBLIN_OP_KIND_OP},      //  aten::linear
      {T + 500 + 200, T + 500 + 600, 8, 1, 0, 0, GOBLIN_OP_KIND_OP},               //   aten::addmm
      {T + 500 + 2000, 0, -1, 3, 1, UINT32_MAX, GOBLIN_OP_KIND_OP},                // never closed
  };
  const goblin_ops_batch b{GOBLIN_OPS_ABI_VERSION, 1, ops, 4, names, 5, threads, 2, dims, 12};
  ASSERT_EQ(append_observer_batch(t, &b, intern, [](uint64_t m) { return m - 500; }), 4);
  goblin_ops_batch other = b;
  other.abi_version = GOBLIN_OPS_ABI_VERSION + 1;
  EXPECT_EQ(append_observer_batch(t, &other, intern, [](uint64_t m) { return m; }), -1);

  // CUPTI names the main thread by gettid (41): a launch inside aten::addmm, one outside any op.
  t.apis.push_back({T + 300, T + 310, 211, 1, 10, 41, false});
  t.apis.push_back({T + 1500, T + 1510, 211, 2, 10, 41, false});
  for (uint32_t c : {1u, 2u}) {
    KernelRec k;
    k.start = T + 5'000 + c * 100;
    k.end = k.start + 40;
    k.name = gemm;
    k.correlation = c;
    t.kernels.push_back(k);
  }
  std::string text;
  WriteStats ws = write_kineto(t, [&](std::string_view s) { text.append(s); });
  EXPECT_EQ(ws.cpu_ops, 2u);
  EXPECT_EQ(ws.module_frames, 1u);
  EXPECT_EQ(ws.unclosed_ops, 1u);
  EXPECT_EQ(ws.kernels_with_op, 1u);

  Timeline tl;
  auto src = trace::kineto::memory_source("observer.json", text);
  ASSERT_TRUE(trace::kineto::read_source(*src, tl, trace::ReadOptions{}).ok());
  tl.build_indexes();
  size_t addmm = SIZE_MAX, module = SIZE_MAX;
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) {
    if (tl.str(tl.cpu_ops.name[i]) == "aten::addmm") addmm = i;
    if (tl.str(tl.cpu_ops.name[i]) == "nn.Module: Linear_0") module = i;
  }
  ASSERT_NE(addmm, SIZE_MAX);
  ASSERT_NE(module, SIZE_MAX);  // read as a python_function frame, as torch.profiler's
  EXPECT_EQ(tl.str(tl.cpu_ops.input_dims[addmm]), "[[4], [8, 16], [16, 4]]");
  EXPECT_EQ(tl.str(tl.cpu_ops.input_types[addmm]), "[\"float\", \"float\", \"float\"]");
  EXPECT_EQ(tl.cpu_ops.sequence_number[addmm], 8);
  EXPECT_EQ(tl.cpu_ops.tid[addmm], 41);
  EXPECT_EQ(tl.cpu_ops.start_ns[addmm], tl.cpu_ops.start_ns[module] + 150);  // converted to CUPTI's clock
  const size_t k0 = tl.gpu_ops.nth(GpuOpKind::Kernel, 0);
  auto op = tl.cpu_op_by_external_id(tl.gpu_ops.external_id[k0]);
  ASSERT_TRUE(op.has_value());
  EXPECT_EQ(*op, addmm);
  EXPECT_EQ(tl.gpu_ops.external_id[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)], kNone);
}

}  // namespace
}  // namespace goblin::tracer
