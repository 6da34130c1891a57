// The capture/replay pair of tests/fixtures/capture (H100, torch.cuda.graphs): the replayed
// kernels get the ATen ops that launched them at capture.
#include "analysis/capture_ops.h"

#include <gtest/gtest.h>

#include "trace/readers.h"

namespace goblin::analysis {
namespace {

std::string fx(const char* name) { return std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/capture/" + name; }

std::string op_of(const Timeline& tl, size_t i) {
  if (tl.gpu_ops.external_id[i] == kNone) return {};
  auto op = tl.cpu_op_by_external_id(tl.gpu_ops.external_id[i]);
  return op ? std::string(tl.str(tl.cpu_ops.name[*op])) : std::string();
}

TEST(CaptureOps, ReplayedKernelsGetTheirCapturedOps) {
  Timeline cap, rep;
  ASSERT_TRUE(trace::read_path(fx("capture.json.gz"), cap).ok());
  ASSERT_TRUE(trace::read_path(fx("replay.json.gz"), rep).ok());
  // Before: the 22 GPU ops of each of the 5 replays have no op.
  int without = 0;
  for (size_t i = 0; i < rep.gpu_ops.size(); ++i) without += op_of(rep, i).empty();
  EXPECT_EQ(without, 5 * 22);
  const size_t cpu_rows = rep.cpu_ops.size();
  const CaptureJoin j = attach_capture_ops(rep, cap);
  EXPECT_EQ(j.capture_windows, 1);
  EXPECT_EQ(j.graph_launches, 5);
  EXPECT_EQ(j.launches_matched, 5);
  EXPECT_EQ(j.ops_joined, 5 * 22);
  EXPECT_EQ(j.ops_added, 5 * 20);  // per replay: 10 ops a block, the attention's memset and kernel share one
  EXPECT_EQ(rep.cpu_ops.size(), cpu_rows + 100);
  EXPECT_TRUE(j.notes.empty());
  EXPECT_TRUE(rep.unsorted_table().empty());
  int gemm = 0, attn = 0, norm = 0;
  for (size_t i = 0; i < rep.gpu_ops.size(); ++i) {
    const std::string k(rep.str(rep.gpu_ops.name[i]));
    const std::string op = op_of(rep, i);
    EXPECT_FALSE(op.empty()) << k;
    if (k.starts_with("nvjet")) {
      EXPECT_EQ(op, "aten::addmm") << k;
      ++gemm;
    }
    if (k.find("sdpa") != std::string::npos) {
      EXPECT_EQ(op, "aten::_cudnn_attention_forward") << k;
      ++attn;
    }
    if (k.find("layer_norm") != std::string::npos) {
      EXPECT_EQ(op, "aten::native_layer_norm") << k;
      ++norm;
    }
  }
  EXPECT_EQ(gemm, 5 * 8);
  EXPECT_EQ(attn, 5 * 2);
  EXPECT_EQ(norm, 5 * 4);
  // The shapes came along: the first block's QKV projection.
  for (size_t i = 0; i < rep.cpu_ops.size(); ++i)
    if (rep.str(rep.cpu_ops.name[i]) == "aten::addmm") {
      EXPECT_EQ(rep.str(rep.cpu_ops.input_dims[i]), "[[1536], [2048, 512], [512, 1536], [], []]");
      break;
    }
}

// A capture trace without a capture window, and a replay trace without graph launches: nothing
// joined, nothing changed, a note.
TEST(CaptureOps, NothingToJoin) {
  Timeline eager, rep;
  ASSERT_TRUE(trace::read_path(fx("eager.json.gz"), eager).ok());
  ASSERT_TRUE(trace::read_path(fx("replay.json.gz"), rep).ok());
  const size_t rows = rep.cpu_ops.size();
  const CaptureJoin j = attach_capture_ops(rep, eager);
  EXPECT_EQ(j.capture_windows, 0);
  EXPECT_EQ(j.ops_joined, 0);
  EXPECT_EQ(rep.cpu_ops.size(), rows);
  EXPECT_FALSE(j.notes.empty());
  Timeline cap;
  ASSERT_TRUE(trace::read_path(fx("capture.json.gz"), cap).ok());
  const CaptureJoin k = attach_capture_ops(eager, cap);
  EXPECT_EQ(k.graph_launches, 0);
  EXPECT_EQ(k.ops_joined, 0);
}

}  // namespace
}  // namespace goblin::analysis
