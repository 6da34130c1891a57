// Shapes of a window's first step given to the later steps by op sequence (op_shapes.h), on the
// H100 traces of bench/results/tracer, 2026-11-27.
#include "trace/op_shapes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/json.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

std::string example(const char* name) { return std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_tracer/" + name; }

TEST(PairSequences, PairsTheLongestCommonSubsequenceWithinTheBound) {
  std::vector<std::pair<size_t, size_t>> p;
  ASSERT_TRUE(pair_sequences({1, 2, 3, 4, 5}, {1, 9, 2, 3, 5}, 4, p));
  ASSERT_EQ(p.size(), 4u);  // 1, 2, 3, 5
  EXPECT_EQ(p[0], std::make_pair(size_t{0}, size_t{0}));
  EXPECT_EQ(p[1], std::make_pair(size_t{1}, size_t{2}));
  EXPECT_EQ(p[3], std::make_pair(size_t{4}, size_t{4}));
  EXPECT_FALSE(pair_sequences({1, 2, 3, 4}, {5, 6, 7, 8}, 3, p));  // 8 edits needed
  ASSERT_TRUE(pair_sequences({}, {}, 0, p));
  EXPECT_TRUE(p.empty());
  ASSERT_TRUE(pair_sequences({7, 7, 7}, {7, 7, 7}, 0, p));
  EXPECT_EQ(p.size(), 3u);
}

// A torch.profiler trace of 3 base.yaml steps, every op with its shapes: strip the shapes of
// steps 2 and 3, mark the trace as the hook marks a first-step trace, map, and compare.
TEST(FirstStepShapes, RestoresTheShapesTorchProfilerRecordedInTheLaterSteps) {
  Timeline tl;
  ASSERT_TRUE(read_path(example("audit_base_torch.json.gz"), tl).ok());
  // the first step's start: the earliest ProfilerStep
  int64_t first = INT64_MAX, second = INT64_MAX;
  for (size_t i = 0; i < tl.annotations.size(); ++i)
    if (!tl.annotations.on_gpu[i] && tl.str(tl.annotations.name[i]).rfind("ProfilerStep#", 0) == 0)
      first = std::min(first, tl.annotations.start_ns[i]);
  for (size_t i = 0; i < tl.annotations.size(); ++i)
    if (!tl.annotations.on_gpu[i] && tl.str(tl.annotations.name[i]).rfind("ProfilerStep#", 0) == 0 &&
        tl.annotations.start_ns[i] > first)
      second = std::min(second, tl.annotations.start_ns[i]);
  ASSERT_LT(second, INT64_MAX);
  const auto dims = tl.cpu_ops.input_dims, types = tl.cpu_ops.input_types;
  size_t stripped = 0;
  for (size_t r = 0; r < tl.cpu_ops.size(); ++r)
    if (tl.cpu_ops.start_ns[r] >= second && tl.cpu_ops.kind[r] == CpuOpKind::Op) {
      stripped += tl.cpu_ops.input_dims[r] != kNoStr;  // autograd nodes carry none
      tl.cpu_ops.input_dims[r] = tl.cpu_ops.input_types[r] = kNoStr;
    }
  ASSERT_GT(stripped, 10000u);
  tl.meta.extra["goblin_tracer_shapes"] = "\"first_step\"";
  ShapeMapResult r = map_first_step_shapes(tl);
  ASSERT_TRUE(r.applied);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].role, "template");
  EXPECT_EQ(r.steps[1].role, "mapped");
  EXPECT_EQ(r.steps[2].role, "mapped");
  EXPECT_EQ(r.steps_refused, 0u);
  size_t same = 0, given = 0;
  for (size_t r2 = 0; r2 < tl.cpu_ops.size(); ++r2) {
    if (tl.cpu_ops.start_ns[r2] < second || tl.cpu_ops.kind[r2] != CpuOpKind::Op) continue;
    if (tl.cpu_ops.input_dims[r2] == kNoStr) continue;
    ++given;
    same += tl.cpu_ops.input_dims[r2] == dims[r2] && tl.cpu_ops.input_types[r2] == types[r2];
  }
  // Every op but the few at the step edge gets shapes, and they are the ones torch.profiler wrote.
  EXPECT_GE(given, stripped - stripped / 100);
  EXPECT_GE(static_cast<double>(same), 0.999 * static_cast<double>(given)) << same << " of " << given;
}

// goblin profile --tracer cupti of the HF Trainer on the H100 (GOBLIN_TRACER_SHAPES=first): the
// second step's ops get the first's shapes and its nn.Module frames, as the reader reads it.
TEST(FirstStepShapes, TheReaderMapsAGoblinTraceOfTheHfTrainer) {
  Timeline tl;
  ASSERT_TRUE(read_path(example("audit_hf_cupti.json.gz"), tl).ok());
  auto it = tl.meta.extra.find("goblin_shapes_mapped");
  ASSERT_NE(it, tl.meta.extra.end());
  Json j = Json::parse(it->second);
  EXPECT_EQ(j["steps_refused"].get<int>(), 0);
  ASSERT_EQ(j["steps"].size(), 2u);
  EXPECT_EQ(j["steps"][1]["role"], "mapped");
  EXPECT_LE(j["steps"][1]["unpaired"].get<size_t>(), 8u);
  EXPECT_GT(j["ops_given_shapes"].get<size_t>(), 18000u);
  EXPECT_GT(j["modules_added"].get<size_t>(), 250u);
  size_t with = 0, ops = 0, modules = 0;
  for (size_t r = 0; r < tl.cpu_ops.size(); ++r) {
    if (tl.cpu_ops.kind[r] == CpuOpKind::Op)
      ++ops, with += tl.cpu_ops.input_dims[r] != kNoStr;
    else if (tl.str(tl.cpu_ops.name[r]).rfind("nn.Module: ", 0) == 0)
      ++modules;
  }
  EXPECT_GE(static_cast<double>(with), 0.999 * static_cast<double>(ops));
  EXPECT_EQ(modules, 2 * (modules / 2));  // the first step's frames, once more for the second
}

// A step whose op sequence differs is refused: its ops keep their names only.
TEST(FirstStepShapes, RefusesAStepWhoseOpSequenceDiffers) {
  Timeline tl;
  const StrId mm = tl.strings.intern("aten::mm"), add = tl.strings.intern("aten::add"),
              dims = tl.strings.intern("[[2, 3], [3, 4]]"), step = tl.strings.intern("ProfilerStep#1");
  for (int s = 0; s < 2; ++s) {
    AnnotationRow a;
    a.start_ns = s * 1000;
    a.dur_ns = 1000;
    a.name = step;
    a.tid = 1;
    tl.annotations.push(a);
    for (int i = 0; i < 20; ++i) {
      CpuOpRow o;
      o.start_ns = s * 1000 + i * 10;
      o.dur_ns = 5;
      o.tid = 1;
      o.name = s == 0 || i % 2 ? mm : add;  // the second step: every other op another one
      o.input_dims = s == 0 ? dims : kNoStr;
      tl.cpu_ops.push(o);
    }
  }
  tl.meta.extra["goblin_tracer_shapes"] = "\"first_step\"";
  ShapeMapResult r = map_first_step_shapes(tl);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[1].role, "refused");
  EXPECT_FALSE(r.steps[1].reason.empty());
  EXPECT_EQ(r.steps_refused, 1u);
  for (size_t i = 20; i < 40; ++i) EXPECT_EQ(tl.cpu_ops.input_dims[i], kNoStr);
  EXPECT_NE(tl.meta.extra["goblin_shapes_mapped"].find("refused"), std::string::npos);
  // Without the hook's mark nothing is touched.
  Timeline plain;
  EXPECT_FALSE(map_first_step_shapes(plain).applied);
}

}  // namespace
}  // namespace goblin::trace
