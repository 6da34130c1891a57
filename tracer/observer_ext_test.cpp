// goblin's operator observer itself (workloads/goblin_hook/goblin_ops.cpp), compiled against a
// test double of PyTorch's RecordFunction API (tracer/testdata/torch_double) and driven as the
// dispatcher drives it: callbacks at a RecordFunction's construction and destruction, nested ops,
// a string name that lives only as long as the op, an op that ends after the observer stopped
// (the Optimizer.step the hook runs inside), the per-thread cap; its records handed to the
// tracer's append_observer_batch and written as Kineto events.
#define TORCH_EXTENSION_NAME goblin_ops_test_double
#include <gtest/gtest.h>

#include <string>

#include "goblin_ops.cpp"  // NOLINT: the observer's translation unit, anonymous namespace included
#include "op_attribution.h"
#include "trace_format.h"

namespace {

goblin::tracer::Trace g_trace;

extern "C" int64_t test_sink(const goblin_ops_batch* b) {
  return goblin::tracer::append_observer_batch(
      g_trace, b,
      [](const std::string& s) {
        g_trace.strings.push_back(s);
        return static_cast<uint32_t>(g_trace.strings.size() - 1);
      },
      [](uint64_t m) { return m; });
}

// One op as the dispatcher runs it: start callbacks when constructed, end callbacks when
// destroyed, with the callbacks registered at construction (as a RecordFunction keeps them).
struct Op {
  at::RecordFunction fn;
  at::RecordFunctionCallback cb{nullptr, nullptr};
  Op(const char* name, int64_t seq, std::vector<c10::IValue> in = {}) {
    if (!at::g_cbs.empty()) cb = at::g_cbs[0];
    fn.nm = name;
    fn.seq = seq;
    fn.in = std::move(in);
    fn.needs = cb.ni;
    if (cb.s) cb.s(fn);
  }
  ~Op() {
    if (cb.e) cb.e(fn, nullptr);
  }
};

c10::IValue tensor(std::vector<int64_t> sizes) {
  c10::IValue v;
  v.tensor = true;
  v.t.s = std::move(sizes);
  return v;
}

std::string written() {
  std::string text;
  goblin::tracer::write_kineto(g_trace, [&](std::string_view s) { text.append(s); });
  return text;
}

TEST(TracerObserverExtension, RecordsNestedOpsModulesAndLateEnds) {
  g_trace = {};
  start(true, 0);
  const int64_t lin = intern("nn.Module: Linear_0");
  module_push(lin);
  {
    Op a("aten::linear", 3);
    {
      c10::IValue beta, sizes, list;
      beta.scalar = true;
      sizes.int_list = true;
      list.tensor_list = true;
      c10::IValue w = tensor({16, 4});
      w.t.st = c10::ScalarType::BFloat16;
      Op b("aten::addmm", 4, {tensor({8, 16}), w, beta, c10::IValue{}, sizes, list});
    }
    {
      std::string tmp = "autograd::engine::evaluate_function: MmBackward0";  // storage reused
      Op c(tmp.c_str(), -1);
    }
  }
  module_pop();
  auto* late = new Op("Optimizer.step#AdamW.step", -1);
  stop();
  { Op d("aten::after_stop", -1); }  // not recorded
  delete late;                       // its end arrives after stop: still closed
  EXPECT_EQ(drain(reinterpret_cast<uintptr_t>(&test_sink)), 5);
  const std::string text = written();
  EXPECT_NE(text.find("\"cat\":\"python_function\",\"name\":\"nn.Module: Linear_0\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"name\":\"aten::addmm\""), std::string::npos);
  EXPECT_NE(
      text.find("\"Sequence number\":4,\"Input Dims\":[[8, 16], [16, 4], [], [], [], []],"
                "\"Input type\":[\"float\", \"c10::BFloat16\", \"Scalar\", \"\", \"ScalarList\", \"TensorList\"]"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("\"name\":\"autograd::engine::evaluate_function: MmBackward0\""), std::string::npos);
  EXPECT_NE(text.find("\"name\":\"Optimizer.step#AdamW.step\""), std::string::npos);
  EXPECT_EQ(text.find("aten::after_stop"), std::string::npos);
  EXPECT_EQ(drain(0), 0);  // emptied by the hand-over
}

TEST(TracerObserverExtension, NamesOnlyAndThePerThreadCap) {
  g_trace = {};
  start(false, 2);  // no shapes; at most 2 records a thread
  {
    Op a("aten::mm", -1, {tensor({2, 3})});
    Op b("aten::add_", -1);
    Op c("aten::mul", -1);  // past the cap: counted, not recorded
  }
  stop();
  EXPECT_EQ(drain(reinterpret_cast<uintptr_t>(&test_sink)), 2);
  const std::string text = written();
  EXPECT_EQ(text.find("Input Dims"), std::string::npos) << text;
  EXPECT_EQ(text.find("aten::mul"), std::string::npos);
  EXPECT_GE(g_skipped.load(), 1u);
  start(true, 8'000'000);
  stop();
}

}  // namespace
