// The collective_annotation tier: an NCCL kernel with no collective metadata and no c10d op with
// sizes (c10d::allreduce_ records its TensorList as []), priced from the nccl:<collective> user
// annotation around its launch on the launching thread; the group size, for the bus bandwidth,
// from the record_param_comms op around it where PyTorch records one.
#include "hw/roofline_annotation.h"

#include <gtest/gtest.h>

#include "hw/knowledge.h"
#include "hw/roofline.h"
#include "model/test_timeline.h"

namespace goblin::hw {
namespace {

const char* kSendRecv = "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)";
const char* kAllReduceDims = "[[19618307]]";  // nccl_sampled_rank-0's first all-reduce
const double kAllReduceBytes = 19618307.0 * 4;

struct Priced {
  RooflineReport rep;
  const RooflinePoint* point(std::string_view source) const {
    for (const auto& p : rep.kernels)
      if (p.source == source) return &p;
    return nullptr;
  }
};

Priced price(Timeline& tl) {
  tl.finish();
  const auto& models = hw_knowledge()->op_models;
  EXPECT_TRUE(models.ok());
  auto gpu = lookup_gpu("H100-SXM");
  EXPECT_TRUE(gpu.ok());
  RooflineInputs in;
  in.models = &*models;
  in.category_of = [](std::string_view) { return std::string("communication"); };
  return {roofline_from_trace(tl, *gpu, in)};
}

// c10d::allreduce_ around the nccl:all_reduce range around the launch, as the fixture has them.
goblin::testing::TimelineBuilder& all_reduce(goblin::testing::TimelineBuilder& b, int64_t dur_ns) {
  return b.cpu_op("c10d::allreduce_", 1000, 1000, 1, "[[], [], [], []]", R"(["TensorList", "", "", "Scalar"])")
      .annotation("nccl:all_reduce", 1100, 800, kAllReduceDims, R"(["float"])")
      .launch(1500, 21)
      .kernel(kSendRecv, 3000, dur_ns, 21, kNone);
}

TEST(AnnotationCollective, AllReduceSizedByItsAnnotation) {
  Timeline tl;
  goblin::testing::TimelineBuilder b(tl);
  all_reduce(b, 11'727'000);
  const Priced r = price(tl);
  const RooflinePoint* p = r.point("collective_annotation");
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->bytes, kAllReduceBytes);  // S = the input: 19618307 floats
  EXPECT_EQ(p->kind, "collective");
  EXPECT_EQ(p->dtype, "fp32");
  EXPECT_EQ(p->bound, "communication");
  EXPECT_NEAR(p->achieved_gbs, kAllReduceBytes / 11.727e-3 / 1e9, 1e-6);  // algBw = S/t
  EXPECT_FALSE(p->busbw_gbs);                                             // the trace records no group size: no busBw
  EXPECT_NE(p->formula.find("nccl:all_reduce annotation"), std::string::npos);
  EXPECT_NE(p->formula.find("group size not recorded"), std::string::npos);
  EXPECT_NE(p->citation.find("ProcessGroupNCCL.cpp"), std::string::npos);
  EXPECT_EQ(r.rep.coverage.modelled_ns.at("collective_annotation"), 11'727'000);
  EXPECT_TRUE(r.rep.coverage.unmodelled_ns.empty());
  EXPECT_DOUBLE_EQ(r.rep.op_bytes[0], kAllReduceBytes);
}

TEST(AnnotationCollective, BusBandwidthWithTheGroupSizeOfRecordParamComms) {
  // PyTorch >= 2.1 writes "Group size" on the record_param_comms op around the collective.
  Timeline tl;
  goblin::testing::TimelineBuilder b(tl);
  b.cpu_op("record_param_comms", 1050, 900, 2, "[[]]", R"(["TensorList"])");
  all_reduce(b, 2'000'000);
  CollectiveRow c;
  c.start_ns = 1050;
  c.dur_ns = 900;
  c.external_id = 2;
  c.collective = tl.strings.intern("allreduce");
  c.group_size = 8;
  tl.collectives.push(c);
  const Priced r = price(tl);
  const RooflinePoint* p = r.point("collective_annotation");
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(p->bytes, kAllReduceBytes);
  ASSERT_TRUE(p->busbw_gbs);  // busBw = S/t * 2(n-1)/n, n = 8
  EXPECT_NEAR(*p->busbw_gbs, kAllReduceBytes / 2e-3 / 1e9 * 2 * 7 / 8, 1e-6);
  EXPECT_NE(p->formula.find("Group size"), std::string::npos);
}

TEST(AnnotationCollective, OnlyTheLaunchingThreadsEnclosingRange) {
  Timeline tl;
  goblin::testing::TimelineBuilder b(tl);
  b.annotation("nccl:all_reduce", 1100, 800, kAllReduceDims, R"(["float"])", /*tid=*/8)  // another thread
      .launch(1500, 21)
      .kernel(kSendRecv, 3000, 1000, 21, kNone)
      .annotation("nccl:all_reduce", 5000, 100, kAllReduceDims, R"(["float"])")
      .launch(5200, 22)  // after the range ended
      .kernel(kSendRecv, 6000, 1000, 22, kNone)
      .annotation("## forward ##", 7000, 1000, kAllReduceDims, R"(["float"])")  // not a collective's range
      .launch(7500, 23)
      .kernel(kSendRecv, 8000, 1000, 23, kNone)
      .annotation("nccl:_all_gather_base", 9000, 1000, "[[1024]]", R"(["float"])")  // S = n x input, n unknown
      .launch(9500, 24)
      .kernel(kSendRecv, 10000, 1000, 24, kNone)
      .annotation("nccl:all_reduce", 11000, 1000, "[[-4]]", R"(["float"])")  // a hand-built hostile row
      .launch(11500, 25)
      .kernel(kSendRecv, 12000, 1000, 25, kNone)
      .annotation("nccl:all_reduce", 13000, 1000, "[[4]]", R"(["TensorList"])")  // no element size
      .launch(13500, 26)
      .kernel(kSendRecv, 14000, 1000, 26, kNone);
  const Priced r = price(tl);
  EXPECT_EQ(r.point("collective_annotation"), nullptr);
  EXPECT_EQ(r.rep.coverage.unmodelled_ns.at("communication"), 6000);
}

TEST(AnnotationCollective, TheInnermostRangeAndTheC10dOpFirst) {
  Timeline tl;
  goblin::testing::TimelineBuilder b(tl);
  // An outer range and an inner one around the launch: the inner one sizes it.
  b.annotation("nccl:all_reduce", 1000, 5000, "[[1000]]", R"(["float"])")
      .annotation("nccl:broadcast", 2000, 1000, "[[10], [6]]", R"(["c10::BFloat16", "c10::BFloat16"])")
      .launch(2500, 21)
      .kernel(kSendRecv, 3000, 1000, 21, kNone)
      // c10d::alltoall_base_ records its tensors: the c10d tier prices it, not the annotation.
      .cpu_op("c10d::alltoall_base_", 8000, 1000, 2, "[[1000], [2048], [], [], [], []]",
              R"(["unsigned char", "unsigned char", "", "", "", "Scalar"])")
      .annotation("nccl:all_to_all", 8100, 800, "[[2048]]", R"(["unsigned char"])")
      .launch(8500, 22)
      .kernel(kSendRecv, 9000, 1000, 22, kNone);
  const Priced r = price(tl);
  const RooflinePoint* a = r.point("collective_annotation");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->count, 1);
  EXPECT_DOUBLE_EQ(a->bytes, 16 * 2);  // broadcast: both tensors' elements x 2 bytes
  EXPECT_EQ(a->dtype, "bf16");
  const RooflinePoint* c = r.point("collective");
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->bytes, 2048);
  EXPECT_NE(c->formula.find("c10d::alltoall_base_"), std::string::npos);
}

TEST(ThreadIntervals, InnermostHoldingATime) {
  ThreadIntervals iv;
  iv.add(100, 1000, 0);
  iv.add(200, 300, 1);
  iv.add(250, 260, 2);
  iv.add(-(int64_t{1} << 62), -(int64_t{1} << 62) + 5, 3);
  iv.sort();
  EXPECT_EQ(iv.innermost(255), 2u);
  EXPECT_EQ(iv.innermost(270), 1u);
  EXPECT_EQ(iv.innermost(500), 0u);
  EXPECT_FALSE(iv.innermost(1001));
  EXPECT_FALSE(iv.innermost(int64_t{1} << 62));  // far from every start: no overflow
  EXPECT_EQ(iv.innermost(-(int64_t{1} << 62) + 1), 3u);
}

}  // namespace
}  // namespace goblin::hw
