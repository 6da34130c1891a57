// Convolution backward and the shapes a FLOP op's record lacks (op_cost with OpCostHints,
// infer_shape_hints): the formulas on hand-written shapes, the hints on hand-built timelines
// shaped like the 2021 ResNet-50 fixture (Kineto before PyTorch 1.10: no Input type, no Concrete
// Inputs, int lists as []), and that ops with their own record are priced as before; and NCCL
// kernels without collective metadata priced by the c10d op that launched them.
#include <gtest/gtest.h>

#include <limits>

#include "hw/flop_count.h"
#include "hw/knowledge.h"
#include "hw/roofline.h"
#include "model/test_timeline.h"

namespace goblin::hw {

namespace {
// 2*N*Cout*out_spatial*(Cin/groups)*kernel for N=32, Cout=64, out 112x112, Cin=3, 7x7 (ResNet's stem)
const double kStem = 2.0 * 32 * 64 * 112 * 112 * 3 * 49;
const char* kStemBwdDims = "[[32, 3, 224, 224], [32, 64, 112, 112], [64, 3, 7, 7], [], [], [], [], [], [], [], []]";
}  // namespace

TEST(ConvBackward, BothPassesFromGradOutputAndWeight) {
  // convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
  // transposed, output_padding, groups, output_mask)
  const std::string dims = "[[32, 64, 112, 112], [32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], [], []]";
  const std::string types = R"(["float", "float", "float", "", "", "", "", "", "", "", ""])";
  auto both = op_cost("aten::convolution_backward", dims, types, "");
  ASSERT_TRUE(both);
  EXPECT_DOUBLE_EQ(both->flops, 2 * kStem);
  EXPECT_EQ(both->estimate, "upper_bound");  // output_mask not recorded: both gradients counted
  const double go = 32.0 * 64 * 112 * 112, x = 32.0 * 3 * 224 * 224, w = 64.0 * 3 * 49;
  EXPECT_DOUBLE_EQ(both->bytes, (go + 2 * x + 2 * w) * 4);
  auto weight_only = op_cost("aten::convolution_backward", dims, types,
                             R"(["", "", "", "", "", "", "", "False", "", "1", "[False, True, False]"])");
  ASSERT_TRUE(weight_only);
  EXPECT_DOUBLE_EQ(weight_only->flops, kStem);
  EXPECT_EQ(weight_only->estimate, "");
  EXPECT_DOUBLE_EQ(weight_only->bytes, (go + x + w) * 4);
  std::string why;
  EXPECT_FALSE(
      op_cost("aten::convolution_backward", dims, types, R"(["", "", "", "", "", "", "", "True", "", "1", ""])", &why));
  EXPECT_NE(why.find("transposed"), std::string::npos);
}

TEST(ConvBackward, CudnnHalvesNeedTheEnclosingOpsIntList) {
  // cudnn_convolution_backward_input(int[] self_size, grad_output, weight, ...) and
  // cudnn_convolution_backward_weight(int[] weight_size, grad_output, self, ...)
  const std::string in_dims = "[[], [32, 64, 112, 112], [64, 3, 7, 7], [], [], [], [], [], [], []]";
  const std::string w_dims = "[[], [32, 64, 112, 112], [32, 3, 224, 224], [], [], [], [], [], [], []]";
  std::string why;
  EXPECT_FALSE(op_cost("aten::cudnn_convolution_backward_weight", w_dims, R"(["", "float", "float"])", "", &why));
  EXPECT_NE(why.find("weight size not recorded"), std::string::npos);
  OpCostHints h;
  h.arg0 = {64, 3, 7, 7};
  auto gw = op_cost("aten::cudnn_convolution_backward_weight", w_dims, R"(["", "float", "float"])", "", h);
  ASSERT_TRUE(gw);
  EXPECT_DOUBLE_EQ(gw->flops, kStem);
  EXPECT_EQ(gw->estimate, "inferred");
  h.arg0 = {32, 3, 224, 224};
  auto gi = op_cost("aten::cudnn_convolution_backward_input", in_dims, R"(["", "float", "float"])", "", h);
  ASSERT_TRUE(gi);
  EXPECT_DOUBLE_EQ(gi->flops, kStem);
  // The combined op (PyTorch <= 1.10 records no output_mask values): both passes.
  auto both = op_cost("aten::cudnn_convolution_backward", kStemBwdDims, R"(["float", "float", "float"])", "");
  ASSERT_TRUE(both);
  EXPECT_DOUBLE_EQ(both->flops, 2 * kStem);
}

TEST(ConvForward, OutputDimsFromTheTraceWhenStrideIsNotRecorded) {
  const std::string dims = "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]";
  std::string why;
  EXPECT_FALSE(op_cost("aten::cudnn_convolution", dims, R"(["float", "float"])", "", &why));
  EXPECT_NE(why.find("Concrete Inputs"), std::string::npos);
  OpCostHints h;
  h.output = {32, 64, 112, 112};
  h.output_from = "a test";
  auto c = op_cost("aten::cudnn_convolution", dims, R"(["float", "float"])", "", h);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->flops, kStem);
  EXPECT_EQ(c->estimate, "inferred");
  EXPECT_NE(c->formula.find("inferred from a test"), std::string::npos);
  // An output no stride/padding can give (larger than input + kernel - 1), or of other channels:
  // refused.
  h.output = {32, 64, 240, 240};
  EXPECT_FALSE(op_cost("aten::cudnn_convolution", dims, R"(["float", "float"])", "", h));
  h.output = {32, 128, 112, 112};
  EXPECT_FALSE(op_cost("aten::cudnn_convolution", dims, R"(["float", "float"])", "", h));
}

TEST(OpCostHints, DtypeOnlyWhereInputTypeIsNotRecorded) {
  OpCostHints h;
  h.dtype = "fp32";
  h.dtype_bytes = 4;
  h.dtype_from = "its kernels' names";
  auto mm = op_cost("aten::mm", "[[64, 128], [128, 256]]", "[]", "", h);
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->dtype, "fp32");
  EXPECT_EQ(mm->estimate, "inferred");
  EXPECT_DOUBLE_EQ(mm->flops, 2.0 * 64 * 256 * 128);
  // A recorded dtype wins, and the cost is the one without hints.
  auto bf16 = op_cost("aten::mm", "[[64, 128], [128, 256]]", R"(["c10::BFloat16", "c10::BFloat16"])", "", h);
  auto plain = op_cost("aten::mm", "[[64, 128], [128, 256]]", R"(["c10::BFloat16", "c10::BFloat16"])", "");
  ASSERT_TRUE(bf16 && plain);
  EXPECT_EQ(bf16->dtype, "bf16");
  EXPECT_EQ(bf16->estimate, "");
  EXPECT_EQ(bf16->formula, plain->formula);
  EXPECT_DOUBLE_EQ(bf16->bytes, plain->bytes);
}

// A 2021-style trace: forward cudnn_convolution, then the backward's two halves inside
// cudnn_convolution_backward. The forward's output comes from the backward's grad_output, the
// halves' int-list argument from the enclosing op.
TEST(InferShapeHints, ConvolutionForwardAndBackwardHalves) {
  Timeline tl;
  goblin::testing::TimelineBuilder(tl)
      .cpu_op("aten::cudnn_convolution", 1000, 1000, 1,
              "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]", "[]")
      .cpu_op("aten::cudnn_batch_norm", 3000, 500, 2, "[[32, 64, 112, 112], [64], [64], [64], [64], [], [], []]", "[]")
      .cpu_op("aten::cudnn_convolution_backward", 10000, 3000, 3, kStemBwdDims, "[]", 8)
      .cpu_op("aten::cudnn_convolution_backward_input", 10100, 1000, 4,
              "[[], [32, 64, 112, 112], [64, 3, 7, 7], [], [], [], [], [], [], []]", "[]", 8)
      .cpu_op("aten::cudnn_convolution_backward_weight", 11500, 1000, 5,
              "[[], [32, 64, 112, 112], [32, 3, 224, 224], [], [], [], [], [], [], []]", "[]", 8);
  tl.finish();
  const FlopOps sel = select_flop_ops(tl);
  ASSERT_EQ(sel.count, 4u);
  ASSERT_EQ(sel.hints.size(), 3u);
  auto hint_of = [&](std::string_view name) -> const OpCostHints* {
    for (const auto& [row, h] : sel.hints)
      if (tl.str(tl.cpu_ops.name[row]) == name) return &h;
    return nullptr;
  };
  ASSERT_TRUE(hint_of("aten::cudnn_convolution"));
  EXPECT_EQ(hint_of("aten::cudnn_convolution")->output, (std::vector<int64_t>{32, 64, 112, 112}));
  EXPECT_NE(hint_of("aten::cudnn_convolution")->output_from.find("backward"), std::string::npos);
  ASSERT_TRUE(hint_of("aten::cudnn_convolution_backward_input"));
  EXPECT_EQ(hint_of("aten::cudnn_convolution_backward_input")->arg0, (std::vector<int64_t>{32, 3, 224, 224}));
  ASSERT_TRUE(hint_of("aten::cudnn_convolution_backward_weight"));
  EXPECT_EQ(hint_of("aten::cudnn_convolution_backward_weight")->arg0, (std::vector<int64_t>{64, 3, 7, 7}));
  EXPECT_EQ(sel.composite.size(), 1u);  // cudnn_convolution_backward: its halves are priced
  // MFU counts none of them: the trace records no dtype (the roofline takes it from kernel names).
  const FlopCount fc =
      count_flops(tl, {{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}}).at(0);
  EXPECT_EQ(fc.ops_counted, 0);
  EXPECT_EQ(fc.ops_unmodelled, 3);
}

// Inference only (no backward): the output is the input of the next op of the thread shaped
// [N, Cout, ...]; an op of another thread or of other channels is not taken.
TEST(InferShapeHints, NextOpOnTheThreadWithoutABackward) {
  Timeline tl;
  goblin::testing::TimelineBuilder(tl)
      .cpu_op("aten::cudnn_convolution", 1000, 1000, 1,
              "[[8, 64, 56, 56], [128, 64, 3, 3], [], [], [], [], [], [], []]", R"(["float", "float"])")
      .cpu_op("aten::add", 2100, 100, 2, "[[8, 128, 99, 99], [8, 128, 99, 99]]", "[]", 9)  // another thread
      .cpu_op("aten::relu_", 2200, 100, 3, "[[8, 64, 56, 56]]", "[]")                      // other channels
      .cpu_op("aten::cudnn_batch_norm", 2300, 100, 4, "[[8, 128, 28, 28], [128], [128], [128], [128]]", "[]");
  tl.finish();
  const FlopOps sel = select_flop_ops(tl);
  ASSERT_EQ(sel.hints.size(), 1u);
  const OpCostHints& h = sel.hints.begin()->second;
  EXPECT_EQ(h.output, (std::vector<int64_t>{8, 128, 28, 28}));
  EXPECT_NE(h.output_from.find("aten::cudnn_batch_norm"), std::string::npos);
  const FlopCount fc =
      count_flops(tl, {{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}}).at(0);
  EXPECT_EQ(fc.ops_counted, 1);
  EXPECT_DOUBLE_EQ(fc.flops, 2.0 * 8 * 128 * 28 * 28 * 64 * 9);
}

// The roofline takes an untyped op's dtype from the name of its main kernel (most of its time),
// not from a helper kernel: cuDNN's bf16 attention backward launches fp32 conversion kernels.
TEST(OpCostHints, DtypeFromTheMainKernelsName) {
  const auto& models = hw_knowledge()->op_models;
  ASSERT_TRUE(models.ok());
  auto gpu = lookup_gpu("H100-SXM");
  ASSERT_TRUE(gpu.ok());
  Timeline tl;
  goblin::testing::TimelineBuilder(tl)
      .cpu_op("aten::mm", 1000, 1000, 1, "[[64, 128], [128, 256]]", "[]")
      .launch(1100, 11)
      .kernel("volta_sgemm_128x64_nt", 3000, 500, 11, 1)
      .cpu_op("aten::_scaled_dot_product_cudnn_attention_backward", 5000, 1000, 2,
              "[[8, 16, 1024, 64], [8, 16, 1024, 64], [8, 16, 1024, 64], [8, 16, 1024, 64], [8, 16, 1024, 64]]", "[]")
      .launch(5100, 12)
      .kernel("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_3_64x64x64", 6000, 900, 12, 2)
      .launch(5200, 13)
      .kernel("void convert_kernel<float, __nv_bfloat16>(float const*, __nv_bfloat16*, int)", 7000, 100, 13, 2);
  tl.finish();
  RooflineInputs in;
  in.models = &*models;
  const RooflineReport rep = roofline_from_trace(tl, *gpu, in);
  ASSERT_EQ(rep.ops.size(), 1u);
  EXPECT_EQ(rep.ops[0].label.rfind("aten::mm", 0), 0u);
  EXPECT_EQ(rep.ops[0].dtype, "fp32");
  EXPECT_EQ(rep.ops[0].estimate, "inferred");
  EXPECT_NE(rep.ops[0].formula.find("main kernel"), std::string::npos);
  // The attention op: its main kernel names no dtype, and the mm (the only op that names one)
  // holds less than half of the FLOP ops' kernel time: no dtype, not priced.
  EXPECT_EQ(rep.instances_without_shapes, 1);
}

// An NCCL kernel without collective metadata, launched inside c10d::alltoall_base_ /
// _allgather_base_: S from the op's tensors; the all_gather's group size from output / input.
TEST(C10dCollective, KernelPricedByItsLaunchingOp) {
  const auto& models = hw_knowledge()->op_models;
  ASSERT_TRUE(models.ok());
  auto gpu = lookup_gpu("H100-SXM");
  ASSERT_TRUE(gpu.ok());
  Timeline tl;
  goblin::testing::TimelineBuilder(tl)
      .cpu_op("c10d::alltoall_base_", 1000, 1000, 1, "[[1000], [2048], [], [], [], []]",
              R"(["unsigned char", "unsigned char", "", "", "", "Scalar"])")
      .launch(1500, 21)
      .kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", 3000, 1000, 21,
              kNone)
      .cpu_op("c10d::_allgather_base_", 5000, 1000, 2, "[[8192], [1024], []]", R"(["float", "float", ""])")
      .launch(5500, 22)
      .kernel("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", 7000, 2000, 22, kNone)
      .launch(9000, 23)  // outside any c10d op: unpriced
      .kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 9500, 500, 23, kNone);
  tl.finish();
  RooflineInputs in;
  in.models = &*models;
  in.category_of = [](std::string_view) { return std::string("communication"); };
  const RooflineReport rep = roofline_from_trace(tl, *gpu, in);
  double sendrecv = -1, allgather = -1;
  std::optional<double> busbw;
  for (const auto& p : rep.kernels) {
    if (p.label.starts_with("ncclKernel_SendRecv")) sendrecv = p.bytes;
    if (p.label.starts_with("ncclKernel_AllGather")) {
      allgather = p.bytes;
      busbw = p.busbw_gbs;
    }
  }
  EXPECT_DOUBLE_EQ(sendrecv, 2048);       // all_to_all: the input
  EXPECT_DOUBLE_EQ(allgather, 8192 * 4);  // all_gather: the output
  ASSERT_TRUE(busbw);                     // n = 8192 / 1024 = 8: busBw = S/t * 7/8
  EXPECT_NEAR(*busbw, 8192.0 * 4 / 2000e-9 / 1e9 * 7 / 8, 1e-9);
  EXPECT_EQ(rep.coverage.unmodelled_ns.at("communication"), 500);
}

}  // namespace goblin::hw
