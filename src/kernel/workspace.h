// A kernel optimization workspace (docs/kernel.md): kernel.py, memory/, plans/, profiles/,
// README.md (Task Context, Hardware Spec, Roofline, Stop Conditions), workspace.json (the same
// facts for goblin to read back) and a git repository with one commit per accepted iteration.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "hw/gpu_specs.h"
#include "kernel/knowledge.h"

namespace goblin::kernel {

// Step 0: where the problem sits on the roofline of the platform.
struct Roofline {
  double flops = 0, bytes = 0, ai = 0;  // FLOPs, ideal DRAM bytes, FLOP/byte
  double peak_tflops = 0, bw_gbs = 0;   // datasheet peaks of the dtype and of DRAM
  std::string peak_key;                 // bf16, fp32, ...
  double ridge = 0;                     // FLOP/byte where the roofs meet (datasheet)
  std::string bound;                    // memory_bound | compute_bound
  // Stop Condition: 90 % of the ceiling, the measured maximum preferred over the datasheet.
  std::string target_metric;  // "GB/s" | "TFLOP/s"
  double ceiling = 0, target = 0;
  std::string ceiling_source;  // citation of the ceiling
  bool ceiling_measured = false;
  std::string text;  // the calculation, shown in README.md
};

struct Config {
  std::string name, dir;
  std::string platform, gpu_name, vendor, arch, arch_id;
  std::string framework = "triton", dtype = "bf16";
  Json shape = Json::object();
  double rtol = 1e-2;
  std::string notes;
  std::string problem_op;      // known op from PROBLEM, or empty when flops()/bytes_moved() are given
  std::string problem_source;  // formula citation or "kernel.py flops()/bytes_moved()"
  Roofline roof;
  std::vector<std::string> pitfalls;  // UNKNOWN specs, recorded in memory/v0.json
  // The iteration budget (KernelAgent's loop discipline, docs/kernel.md "Loop discipline"):
  // `status` says stop once this many iterations are recorded or this many hours have passed
  // since init (0: no limit). Workspaces made before the budget existed read as no limit.
  int max_iterations = 0;
  double max_hours = 0;
  std::string created_at;
};
Json config_to_json(const Config& c);
Result<Config> load_config(const std::string& ws);

struct InitOptions {
  std::string name, kernel_file, platform, framework = "triton", dtype = "bf16", shape, workspace, notes;
  double rtol = 1e-2;
  std::string python = "python3", harness;  // harness: path of tools/kernel_harness.py (found when empty)
  int max_iterations = 20;                  // the iteration budget (0: none)
  double max_hours = 0;                     // the time budget in hours (0: none)
};
// The GPU spec, measured ceilings, problem formulas and README template come from the kernel
// knowledge context; the overload without one reads the process's (knowledge(): tests).
Result<Config> init_workspace(const Knowledge& k, const InitOptions& o);
Result<Config> init_workspace(const InitOptions& o);
// What init knows before it writes anything: the platform's spec, the kernel file's contract
// (kernel_harness.py inspect, no torch), its FLOPs/bytes and Step 0. `kernel suite` describes
// each file of its directory this way.
Result<Config> describe_kernel(const Knowledge& k, const InitOptions& o);

// "H100 → Hopper, MI300X → CDNA3": the database's architecture without spaces.
std::string arch_family(const hw::GpuSpec& g);
// "M=8192,N=8192" → {"M": 8192, "N": 8192}. Usage error on a malformed pair.
Result<Json> parse_shape(const std::string& s);
// Hardware Spec lines, each "<metric>: <value> <unit> <- <source>" or
// "<metric>: UNKNOWN (not in the spec database)" (whose metric is appended to `unknown`).
std::vector<std::string> spec_lines(const hw::HwKnowledge& k, const hw::GpuSpec& g, std::vector<std::string>& unknown);
// data/measured/<id>.json for the GPU from the context (null when none) and its file name under data/.
Json measured_ceilings(const hw::HwKnowledge& k, const hw::GpuSpec& g, std::string* file = nullptr);
// Step 0 from FLOPs/bytes, the dtype and the platform (measured ceilings from the context).
Result<Roofline> step0(const hw::HwKnowledge& k, double flops, double bytes, const std::string& dtype,
                       const hw::GpuSpec& g);
// FLOPs and bytes of a known op of data/kernel/problems.yaml (k.problems; source in `source`).
struct OpCost {
  double flops = 0, bytes = 0;
  std::string source, formula;
};
// `dims` (PROBLEM["dims"]) maps the formula's dimension names to the shape's, e.g. {"M": "rows"};
// a dimension neither gives is a NotFound error naming it and the ways to give it.
Result<OpCost> op_cost(const Knowledge& k, const std::string& op, const Json& shape, const std::string& dtype,
                       const Json& dims = Json::object());
// --shape over make_inputs' keyword defaults (what `kernel_harness.py inspect` read).
Json shape_with_defaults(const Json& given, const Json& defaults);

// tools/kernel_harness.py: `given`, $GOBLIN_TOOLS_DIR, beside the binary, or the source tree.
std::string find_harness(const std::string& given);

}  // namespace goblin::kernel
