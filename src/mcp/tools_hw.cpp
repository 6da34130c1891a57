// The hardware tools: specs (the cited GPU database), roofline, diagnose (Nsight Compute kernel
// diagnosis and the judge prompts (docs/hardware.md)) — the library calls behind the verbs of the same name.
#include <sstream>

#include "app/diagnose_run.h"
#include "app/roofline_run.h"
#include "hw/gpu_specs.h"
#include "mcp/tools.h"
#include "mcp/verb_outcome.h"

namespace goblin::mcp {

namespace {

ToolOutcome specs_tool(const Json& a, Session&, CallContext&) {
  ToolOutcome o;
  std::string gpu = arg_string(a, "gpu");
  if (gpu.empty()) {
    o.result["gpus"] = known_gpu_ids();
    o.text = "known GPUs: " + std::to_string(o.result["gpus"].size()) + " (pass gpu for one spec sheet)";
    return o;
  }
  auto g = lookup_gpu(gpu);
  if (!g) return ToolOutcome{nullptr, g.error(), ""};
  o.result = gpu_spec_to_json(*g);
  o.result["citations"] = gpu_spec_cite(*g);
  o.text = gpu_spec_human(*g);
  if (o.text.size() > 600) o.text = o.text.substr(0, 600) + " ...";
  return o;
}

ToolOutcome roofline_tool(const Json& a, Session& s, CallContext&) {
  auto p = s.roots().resolve(a["path"], "path");
  if (!p) return ToolOutcome{nullptr, p.error(), ""};
  RooflineRequest req;
  req.path = *p;
  req.gpu = arg_string(a, "gpu");
  const int top = arg_int(a, "top", 25);
  if (top < 1 || top > 1000)  // the same range as the CLI's --top
    return ToolOutcome{nullptr, make_error(ErrorKind::Usage, "top must be between 1 and 1000"), ""};
  req.top = static_cast<size_t>(top);
  return from_verb(run_roofline(req));
}

ToolOutcome diagnose_tool(const Json& a, Session& s, CallContext&) {
  DiagnoseRequest req;
  auto p = s.roots().resolve(a["ncu_csv"], "ncu_csv");
  if (!p) return ToolOutcome{nullptr, p.error(), ""};
  req.ncu = *p;
  if (a.contains("kernel_source_file")) {
    auto k = s.roots().resolve(a["kernel_source_file"], "kernel_source_file");
    if (!k) return ToolOutcome{nullptr, k.error(), ""};
    req.kernel_src = *k;
  }
  req.problem = arg_string(a, "problem");
  req.gpu = arg_string(a, "gpu");
  req.prompt = arg_bool(a, "judge_prompt", false);
  if (a.contains("kernel_id")) req.id = a["kernel_id"].get<int64_t>();
  return from_verb(run_diagnose(req));
}

}  // namespace

void add_hw_tools(ToolRegistry& r) {
  r.add({"specs",
         "GPU spec sheet with sources",
         "One GPU's spec sheet from goblin's cited database (peak FLOP/s per dtype, bandwidth, memory, SM/CU "
         "counts, each with its source), or the list of known GPU ids when gpu is omitted. Same as `goblin specs`.",
         {},
         object_schema({{"gpu", prop("string", "GPU id or name, e.g. h100_sxm, mi300x")}}),
         false,
         false,
         specs_tool});
  r.add({"roofline",
         "Roofline of a trace",
         "Achieved TFLOP/s and bandwidth per op and kernel against the GPU's peaks (Kineto trace, Nsight Compute raw "
         "CSV or rocprof counters). Same as `goblin roofline`.",
         {},
         object_schema({{"path", prop("string", "trace or counters file inside the roots")},
                        {"gpu", prop("string", "GPU id (default: from the trace)")},
                        {"top", prop("integer", "rows in the table (default 25)")}},
                       {"path"}),
         false,
         false,
         roofline_tool});
  r.add({"diagnose",
         "Kernel bottleneck diagnosis (seed 003)",
         "Nsight Compute kernel diagnosis: the two strongest bottlenecks of distinct categories with evidence "
         "metrics and fixes; with judge_prompt=true, seed 003's LLM-judge system and user prompts for the longest "
         "(or the given) kernel instead. Same as `goblin diagnose`.",
         {},
         object_schema({{"ncu_csv", prop("string", "Nsight Compute raw CSV (ncu --csv --page raw) inside the roots")},
                        {"kernel_id", prop("integer", "only this NCU kernel ID")},
                        {"judge_prompt", prop("boolean", "return the judge's system and user prompts")},
                        {"kernel_source_file", prop("string", "kernel source shown to the judge (inside the roots)")},
                        {"problem", prop("string", "problem description shown to the judge")},
                        {"gpu", prop("string", "GPU id (default: from the CSV)")}},
                       {"ncu_csv"}),
         false,
         false,
         diagnose_tool});
}

ToolRegistry make_registry() {
  ToolRegistry r;
  add_audit_tools(r);
  add_analysis_tools(r);
  add_hw_tools(r);
  return r;
}

}  // namespace goblin::mcp
