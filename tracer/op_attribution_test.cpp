// Kernel names as Kineto writes them, PyTorch's NVTX operator ranges parsed back, and kernels
// attributed to the innermost operator that launched them, read back through goblin's reader
// (the kernel table's CPU-op column and the shapes the roofline needs).
#include "op_attribution.h"

#include <gtest/gtest.h>

#include "trace/kineto/kineto.h"
#include "trace_format.h"

namespace goblin::tracer {
namespace {

TEST(TracerDemangle, AsKinetoDoes) {
  EXPECT_EQ(
      demangle_kernel_name(
          "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_"),
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)");
  EXPECT_EQ(demangle_kernel_name("_Z5saxpyifPfS_"), "saxpy(int, float, float*, float*)");
  // Not mangled: unchanged (Triton, cuBLAS's C names, names already demangled).
  EXPECT_EQ(demangle_kernel_name("triton_poi_fused_add_0"), "triton_poi_fused_add_0");
  EXPECT_EQ(demangle_kernel_name("sm90_xmma_gemm_bf16bf16_bf16f32"), "sm90_xmma_gemm_bf16bf16_bf16f32");
  EXPECT_EQ(demangle_kernel_name("void f<int>(int)"), "void f<int>(int)");
  EXPECT_EQ(demangle_kernel_name(""), "");
  // Kineto's kMaxSymbolSize: a mangled name over 1024 bytes stays mangled.
  std::string longname = "_Z" + std::to_string(1100) + std::string(1100, 'a') + "v";
  EXPECT_EQ(demangle_kernel_name(longname), longname);
}

TEST(TracerNvtxOp, ParsesTorchObserverText) {
  NvtxOp o = parse_nvtx_op("aten::mm, seq = 12, op_id = 345, sizes = [[8, 16], [16, 4]], input_op_ids = [(1,0)]");
  EXPECT_TRUE(o.is_op);
  EXPECT_EQ(o.name, "aten::mm");
  EXPECT_EQ(o.seq, 12);
  EXPECT_EQ(o.op_id, 345);
  EXPECT_EQ(o.sizes, "[[8, 16], [16, 4]]");
  o = parse_nvtx_op("aten::empty, op_id = 7");
  EXPECT_TRUE(o.is_op);
  EXPECT_EQ(o.name, "aten::empty");
  EXPECT_EQ(o.seq, -1);
  EXPECT_EQ(o.op_id, 7);
  EXPECT_TRUE(o.sizes.empty());
  o = parse_nvtx_op("autograd::engine::evaluate_function: MmBackward0, op_id = 9, sizes = [[], [3]]");
  EXPECT_TRUE(o.is_op);
  EXPECT_EQ(o.name, "autograd::engine::evaluate_function: MmBackward0");
  EXPECT_EQ(o.sizes, "[[], [3]]");
  EXPECT_TRUE(parse_nvtx_op("aten::add_").is_op);  // older torch: the bare name
  EXPECT_FALSE(parse_nvtx_op("ProfilerStep#3").is_op);
  EXPECT_FALSE(parse_nvtx_op("my forward").is_op);
  EXPECT_EQ(parse_nvtx_op("ProfilerStep#3").name, "ProfilerStep#3");
  // Shapes that are not integer lists are not passed on as JSON.
  EXPECT_TRUE(parse_nvtx_op("aten::cat, op_id = 1, sizes = [[a]]").sizes.empty());
}

TEST(TracerNvtxOp, InnermostRangeOnTheSameThread) {
  // thread 1: outer [0,100) holding inner [10,20) and [30,60) which holds [40,50); thread 2: [0,1000)
  std::vector<OpRange> r = {{0, 100, 1}, {10, 20, 1}, {30, 60, 1}, {40, 50, 1}, {0, 1000, 2}};
  std::vector<std::pair<uint32_t, uint64_t>> q = {{1, 15},  {1, 25}, {1, 45}, {1, 55}, {1, 100},
                                                  {2, 500}, {3, 5},  {1, 0},  {1, 20}};
  std::vector<int32_t> in = innermost_ranges(r, q);
  EXPECT_EQ(in, (std::vector<int32_t>{1, 0, 3, 2, -1, 4, -1, 0, 0}));
}

// One forward op (aten::mm, launching a cuBLAS kernel), one nested op pair (aten::add_ inside
// aten::linear) on the main thread and a backward op on the autograd thread; a kernel launched
// outside any op; the step range stays an annotation.
TEST(TracerNvtxOp, WriterLinksKernelsToTheirOpsAsKinetoDoes) {
  Trace t;
  t.pid = 10;
  t.clock.valid = true;
  t.strings = {
      "ProfilerStep#1",
      "aten::mm, seq = 3, op_id = 11, sizes = [[8, 16], [16, 4]]",
      "aten::linear, op_id = 12",
      "aten::add_, op_id = 13, sizes = [[8, 4], [4]]",
      "autograd::engine::evaluate_function: MmBackward0, op_id = 14",
      "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
      "sm90_gemm"};
  t.api_names[api_key(false, 211)] = "cudaLaunchKernel";
  const uint64_t T = 1'000'000;
  auto range = [&](uint32_t id, uint32_t name, uint64_t a, uint64_t b, uint32_t tid) {
    t.markers.push_back({T + a, id, name, tid, 10, MarkerRec::Start});
    t.markers.push_back({T + b, id, kNoId, tid, 10, MarkerRec::End});
  };
  range(1, 0, 0, 10'000, 1);
  range(2, 1, 100, 200, 1);      // aten::mm
  range(3, 2, 300, 600, 1);      // aten::linear
  range(4, 3, 400, 500, 1);      //   aten::add_
  range(5, 4, 2'000, 3'000, 2);  // backward, autograd thread
  int corr = 0;
  auto launch = [&](uint64_t at, uint32_t tid, uint32_t kname) {
    ++corr;
    t.apis.push_back({T + at, T + at + 5, 211, static_cast<uint32_t>(corr), 10, tid, false});
    KernelRec k;
    k.start = T + 5'000 + corr * 100;
    k.end = k.start + 50;
    k.name = kname;
    k.correlation = corr;
    t.kernels.push_back(k);
  };
  launch(150, 1, 6);    // in aten::mm
  launch(450, 1, 5);    // in aten::add_ (inside aten::linear)
  launch(2'500, 2, 6);  // in the backward op
  launch(700, 1, 5);    // outside any op
  launch(2'500, 1, 5);  // the backward op's time but the main thread: not its op
  std::string text;
  WriteStats ws = write_kineto(t, [&](std::string_view s) { text.append(s); });
  EXPECT_EQ(ws.cpu_ops, 4u);
  EXPECT_EQ(ws.ranges, 1u);
  EXPECT_EQ(ws.kernels_with_op, 3u);
  EXPECT_EQ(ws.kernel_ns, 250u);
  EXPECT_EQ(ws.kernel_ns_with_op, 150u);

  Timeline tl;
  auto src = trace::kineto::memory_source("ops.json", text);
  ASSERT_TRUE(trace::kineto::read_source(*src, tl, trace::ReadOptions{}).ok());
  ASSERT_EQ(tl.cpu_ops.size(), 4u);
  EXPECT_EQ(tl.str(tl.cpu_ops.name[0]), "aten::mm");
  EXPECT_EQ(tl.str(tl.cpu_ops.input_dims[0]), "[[8, 16], [16, 4]]");
  EXPECT_EQ(tl.cpu_ops.sequence_number[0], 3);
  ASSERT_EQ(tl.annotations.size(), 1u);
  EXPECT_EQ(tl.str(tl.annotations.name[0]), "ProfilerStep#1");
  tl.build_indexes();
  auto op_of = [&](size_t k) -> std::string {
    const size_t i = tl.gpu_ops.nth(GpuOpKind::Kernel, k);
    auto rt = tl.runtime_by_correlation(tl.gpu_ops.correlation[i]);
    if (!rt || tl.runtime.external_id[*rt] == kNone) return "-";
    auto op = tl.cpu_op_by_external_id(tl.runtime.external_id[*rt]);
    EXPECT_EQ(tl.gpu_ops.external_id[i], tl.runtime.external_id[*rt]);
    return op ? std::string(tl.str(tl.cpu_ops.name[*op])) : "?";
  };
  EXPECT_EQ(op_of(0), "aten::mm");
  EXPECT_EQ(op_of(1), "aten::add_");
  EXPECT_EQ(op_of(2), "autograd::engine::evaluate_function: MmBackward0");
  EXPECT_EQ(op_of(3), "-");
  EXPECT_EQ(op_of(4), "-");
  // Demangled in the trace, so the kernel families match torch.profiler's.
  EXPECT_EQ(tl.str(tl.gpu_ops.name[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)]).substr(0, 45),
            "void at::native::vectorized_elementwise_kerne");
}

}  // namespace
}  // namespace goblin::tracer
