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
};
ModuleAttribution attribute_modules(const Timeline& tl, const LaunchAttribution& la);

struct ModuleRow {
  std::string module;     // class name ("MergedColumnParallelLinear"), or "(graph replay)", "(no nn.Module)", ...
  std::string path;       // the most frequent class path, outermost first, " > " between classes
  int64_t paths = 0;      // distinct class paths (RowParallelLinear: under attention and under the MLP)
  int64_t instances = 0;  // distinct module instances ("RMSNorm_0" .. "RMSNorm_144")
  int64_t ops = 0, time_ns = 0;
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
};

// `kt` gives each op's category and canonical kernel name (kt.op_row).
ModuleTable build_module_table(const Timeline& tl, const LaunchAttribution& la, const ModuleAttribution& ma,
                               const KernelTableResult& kt);

// JSON array of rows (module_table.json, `breakdown --by module`'s `modules`).
Json module_rows_to_json(const ModuleTable& t);
// Markdown table of the first `top` rows.
std::string module_table_markdown(const ModuleTable& t, int top);

}  // namespace goblin::analysis
