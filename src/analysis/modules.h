// Where the GPU time goes in model terms: every GPU op attributed to the nn.Module it was
// launched from, as TraceLens' parent_module does.
//
// Attribution: the op's launch (its runtime call, by correlation; else its CPU op, by External
// id: kernel_table.h's LaunchAttribution) happened at time t on thread (pid, tid); the
// python_function frames named "nn.Module: <Class>_<n>" open on that thread at t (with_stack
// traces record them) are the op's module stack, outermost first; the innermost is its module.
// Ops launched by a CUDA/HIP graph launch (graph replay) are attributed to that launch: their
// module is the graph's launch site, "(graph replay)" when no nn.Module frame encloses the
// launch (the graph's kernels ran under the modules of its capture, which this trace does not
// hold). Ops with no nn.Module frame at launch are "(no nn.Module)", ops with no launch record
// in the trace "(launch not in trace)".
//
// Backward: autograd runs the backward pass on its own thread, where no nn.Module frame is open,
// so an op launched inside an autograd backward node (a CPU op "autograd::engine::evaluate_function:
// XBackward0" or "XBackward0") takes the module of the forward op that created the node, as
// TraceLens links them: through the node's fwdbwd flow (Kineto draws an arrow "ph":"s" on the
// forward op, "ph":"f" on the backward node), else through the node's "Sequence number" (the
// latest forward op before the node with the same number: PyTorch numbers ops with the autograd
// node they create, and the counter only grows). The module stack is the one open on the forward
// op's thread at its start.
//
// Module table: one row per module class (the innermost frame's class, the "_<n>" instance index
// dropped, as TraceLens' parent_module), time = Σ dur of its ops, share = of the summed GPU-op
// time (kernel_table.h's denominator), per-category times from the taxonomy.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/kernel_table.h"
#include "core/json.h"
#include "model/timeline.h"

namespace goblin::analysis {

struct ModuleAttribution {
  std::vector<int32_t> op_stack;                 // per gpu_ops row: index into stacks, -1 when none
  std::vector<std::vector<std::string>> stacks;  // distinct module stacks, outermost first ("Qwen3Model_0", ...)
  bool has_module_frames = false;                // any "nn.Module: " python_function frame in the trace
  int64_t with_module = 0;                       // ops with a module stack
  std::vector<uint8_t> backward;                 // per gpu_ops row: 1 when launched inside an autograd backward node
  int64_t backward_by_flow = 0, backward_by_sequence = 0;  // backward ops given a module, by each link
};
ModuleAttribution attribute_modules(const Timeline& tl, const LaunchAttribution& la);

struct ModuleRow {
  std::string module;     // class name ("MergedColumnParallelLinear"), or "(graph replay)", "(no nn.Module)", ...
  std::string path;       // the most frequent class path, outermost first, " > " between classes
  int64_t paths = 0;      // distinct class paths (RowParallelLinear: under attention and under the MLP)
  int64_t instances = 0;  // distinct module instances ("RMSNorm_0" .. "RMSNorm_144")
  int64_t ops = 0, time_ns = 0;
  int64_t backward_ns = 0;  // of time_ns: ops launched inside autograd backward nodes
  double share_pct = 0;
  std::map<std::string, int64_t> category_ns;
  std::string top_kernel;  // canonical name of the op row with most time in this module
  int64_t top_kernel_ns = 0;
};

struct ModuleTable {
  std::vector<ModuleRow> rows;  // by time, largest first
  int64_t total_ns = 0;         // Σ dur of every GPU op (the share denominator)
  int64_t graph_replay_ops = 0;
  bool available = false;  // the trace has nn.Module frames
  std::string method;      // how ops were attributed (documented in the output)
  // Attributed share: GPU time of ops given a module (a stack of nn.Module frames), apart for ops
  // launched inside autograd backward nodes and for every other op (forward pass, optimizer, ...).
  int64_t forward_ns = 0, forward_attributed_ns = 0;
  int64_t backward_ns = 0, backward_attributed_ns = 0;
  int64_t backward_by_flow = 0, backward_by_sequence = 0;  // ops
};

// `kt` gives each op's category and canonical kernel name (kt.op_row).
ModuleTable build_module_table(const Timeline& tl, const LaunchAttribution& la, const ModuleAttribution& ma,
                               const KernelTableResult& kt);

// JSON array of rows (module_table.json, `breakdown --by module`'s `modules`).
Json module_rows_to_json(const ModuleTable& t);
// {attributed_pct, forward: {gpu_time_us, attributed_us, attributed_pct}, backward: {...,
// linked_by_flow_ops, linked_by_sequence_ops}}: how much of the GPU time the table can name.
Json module_attribution_to_json(const ModuleTable& t);
// One line: "nn.Module attribution: 97.1 % of GPU time (forward 96.0 %, backward 98.3 % ...)".
std::string module_attribution_line(const ModuleTable& t);
// Markdown table of the first `top` rows.
std::string module_table_markdown(const ModuleTable& t, int top);

}  // namespace goblin::analysis
