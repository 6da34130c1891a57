// nn.Module attribution of backward ops: a hand-built trace whose forward/backward links are
// known (one node linked by a fwdbwd flow, one by its sequence number alone, one with no link),
// and goblin's tracer trace of a Llama training step, where autograd's thread launches most of
// the GPU time.
#include "analysis/modules.h"

#include <gtest/gtest.h>

#include "analysis/exposure.h"
#include "analysis/kernel_table.h"
#include "analysis/taxonomy_test_support.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

constexpr int64_t kMain = 10, kAutograd = 20;

struct Builder {
  Timeline tl;
  int64_t corr = 1;
  void cpu(const std::string& name, int64_t tid, int64_t s, int64_t e, int64_t seq = kNone,
           CpuOpKind kind = CpuOpKind::Op) {
    CpuOpRow r;
    r.start_ns = s;
    r.dur_ns = e - s;
    r.name = tl.strings.intern(name);
    r.pid = 1;
    r.tid = tid;
    r.sequence_number = seq;
    r.kind = kind;
    tl.cpu_ops.push(r);
  }
  void module(const std::string& name, int64_t s, int64_t e) {
    cpu("nn.Module: " + name, kMain, s, e, kNone, CpuOpKind::PythonFunction);
  }
  // A kernel of `dur` ns launched at `t` from thread `tid`.
  void kernel(const std::string& name, int64_t tid, int64_t t, int64_t dur) {
    RuntimeRow r;
    r.start_ns = t;
    r.dur_ns = 2;
    r.name = tl.strings.intern("cudaLaunchKernel");
    r.correlation = corr;
    r.pid = 1;
    r.tid = tid;
    tl.runtime.push(r);
    GpuOpRow k;
    k.start_ns = 100000 + t;
    k.dur_ns = dur;
    k.name = tl.strings.intern(name);
    k.device = 0;
    k.stream = 7;
    k.correlation = corr++;
    tl.gpu_ops.push(k);
  }
  void flow(int64_t id, bool start, int64_t tid, int64_t ts) {
    FlowRow f;
    f.id = id;
    f.category = tl.strings.intern("fwdbwd");
    f.is_start = start;
    f.ts_ns = ts;
    f.pid = 1;
    f.tid = tid;
    tl.flows.push(f);
  }
};

ModuleTable table(Timeline& tl) {
  LaunchAttribution la = attribute_launches(tl);
  KernelTableResult kt = build_kernel_table(tl, compute_exposure(tl), la, &testing::taxonomy());
  return build_module_table(tl, la, attribute_modules(tl, la), kt);
}

const ModuleRow* row(const ModuleTable& t, const std::string& m) {
  for (const auto& r : t.rows)
    if (r.module == m) return &r;
  return nullptr;
}

// Forward: Net > Linear (aten::addmm, seq 5) then Net > Norm (aten::mul, seq 6; a later op of the
// same number outside every module, aten::add at 900, is the node's creator). Backward on autograd's
// thread: MulBackward0 (seq 6, no flow) and AddmmBackward0 (seq 5, a flow to the addmm), plus
// AccumulateGrad (no sequence number: no link). A forward op with seq 5 inside the backward window
// (a recompute) must not be taken as the anchor.
TEST(ModuleBackward, BackwardOpsTakeTheModuleOfTheirForwardOp) {
  Builder b;
  b.module("Net_0", 0, 1000);
  b.module("Linear_0", 100, 300);
  b.cpu("aten::addmm", kMain, 120, 200, 5);
  b.kernel("gemm_fwd", kMain, 150, 40);
  b.module("Norm_0", 400, 600);
  b.cpu("aten::mul", kMain, 420, 500, 6);
  b.kernel("mul_fwd", kMain, 450, 10);
  b.cpu("aten::sum", kMain, 2000, 2100, 99);  // forward-thread op after the pass: no module
  b.kernel("sum_other", kMain, 2050, 5);
  // Backward, autograd thread.
  b.cpu("autograd::engine::evaluate_function: MulBackward0", kAutograd, 3000, 3200, 6);
  b.cpu("MulBackward0", kAutograd, 3010, 3190, 6);
  b.kernel("mul_bwd", kAutograd, 3100, 20);
  b.cpu("autograd::engine::evaluate_function: AddmmBackward0", kAutograd, 3300, 3600, 5);
  b.cpu("AddmmBackward0", kAutograd, 3310, 3590, 5);
  b.kernel("gemm_bwd", kAutograd, 3400, 80);
  b.cpu("aten::addmm", kAutograd, 3450, 3460, 5);  // inside backward: never an anchor
  b.cpu("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", kAutograd, 3700, 3800);
  b.kernel("accumulate", kAutograd, 3750, 7);
  b.flow(1, true, kMain, 120);
  b.flow(1, false, kAutograd, 3310);
  b.tl.finish();
  ModuleTable t = table(b.tl);
  ASSERT_TRUE(t.available);
  const ModuleRow* lin = row(t, "Linear");
  const ModuleRow* norm = row(t, "Norm");
  const ModuleRow* none = row(t, "(no nn.Module)");
  ASSERT_TRUE(lin && norm && none);
  EXPECT_EQ(lin->time_ns, 40 + 80);
  EXPECT_EQ(lin->backward_ns, 80);
  EXPECT_EQ(lin->path, "Net > Linear");
  EXPECT_EQ(norm->time_ns, 10 + 20);
  EXPECT_EQ(norm->backward_ns, 20);
  EXPECT_EQ(none->time_ns, 5 + 7);  // aten::sum outside modules, AccumulateGrad unlinked
  EXPECT_EQ(none->backward_ns, 7);
  EXPECT_EQ(t.backward_by_flow, 1);
  EXPECT_EQ(t.backward_by_sequence, 1);
  EXPECT_EQ(t.forward_ns, 55);
  EXPECT_EQ(t.forward_attributed_ns, 50);
  EXPECT_EQ(t.backward_ns, 107);
  EXPECT_EQ(t.backward_attributed_ns, 100);
  Json j = module_attribution_to_json(t);
  EXPECT_DOUBLE_EQ(j["backward"]["attributed_pct"].get<double>(), round_to(100.0 * 100 / 107, 3));
  EXPECT_DOUBLE_EQ(j["forward"]["attributed_pct"].get<double>(), round_to(100.0 * 50 / 55, 3));
  EXPECT_DOUBLE_EQ(j["attributed_pct"].get<double>(), round_to(100.0 * 150 / 162, 3));
  EXPECT_NE(module_attribution_line(t).find("backward 93.5 %"), std::string::npos) << module_attribution_line(t);
}

// The flow wins over the sequence number: a flow pointing at a forward op in another module.
TEST(ModuleBackward, FlowLinkTakesPrecedenceOverSequenceNumber) {
  Builder b;
  b.module("A_0", 0, 100);
  b.cpu("aten::mm", kMain, 10, 20, 7);
  b.module("B_0", 200, 300);
  b.cpu("aten::mm", kMain, 210, 220, 8);
  b.cpu("autograd::engine::evaluate_function: MmBackward0", kAutograd, 1000, 1100, 7);
  b.kernel("mm_bwd", kAutograd, 1050, 30);
  b.flow(3, true, kMain, 210);
  b.flow(3, false, kAutograd, 1000);
  b.tl.finish();
  ModuleTable t = table(b.tl);
  const ModuleRow* bm = row(t, "B");
  ASSERT_NE(bm, nullptr);
  EXPECT_EQ(bm->backward_ns, 30);
  EXPECT_EQ(row(t, "A"), nullptr);
}

// goblin's tracer on a Llama training step: before backward linking 65.47 % of the GPU time was
// "(no nn.Module)"; the backward nodes carry sequence numbers, so most of it now has a module.
TEST(ModuleBackward, TracerLlamaTraceAttributesItsBackward) {
  Timeline tl;
  ASSERT_TRUE(
      trace::read_path(std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_tracer/audit_base_cupti.json.gz", tl).ok());
  ModuleTable t = table(tl);
  ASSERT_TRUE(t.available);
  EXPECT_GT(t.backward_ns, t.forward_ns);  // a training step: backward is most of the GPU time
  EXPECT_GT(t.backward_by_sequence, 1000);
  EXPECT_GE(100.0 * t.backward_attributed_ns / t.backward_ns, 90.0);
  const ModuleRow* none = row(t, "(no nn.Module)");
  ASSERT_NE(none, nullptr);
  EXPECT_LT(none->share_pct, 10.0);
}

}  // namespace
}  // namespace goblin::analysis
