// The analysis tools: info, triage, breakdown, metrics — each the library call behind the CLI
// verb of the same name, on a trace or run directory inside the server's roots.
#include <filesystem>

#include "analysis/run_metrics.h"
#include "analysis/triage_artifacts.h"
#include "app/breakdown_run.h"
#include "app/info_run.h"
#include "mcp/tools.h"
#include "mcp/verb_outcome.h"
#include "trace/readers.h"

namespace goblin::mcp {

namespace {

Json path_schema(const std::string& what) {
  return object_schema({{"path", prop("string", what + " inside the server's --root directories")}}, {"path"});
}

ToolOutcome info_tool(const Json& a, Session& s, CallContext&) {
  auto p = s.roots().resolve(a["path"], "path");
  if (!p) return ToolOutcome{nullptr, p.error(), ""};
  return from_verb(info({*p}));
}

ToolOutcome breakdown_tool(const Json& a, Session& s, CallContext&) {
  auto p = s.roots().resolve(a["path"], "path");
  if (!p) return ToolOutcome{nullptr, p.error(), ""};
  const std::string by = arg_string(a, "by");
  return from_verb(run_breakdown(*p, by.empty() ? "category" : by));
}

ToolOutcome metrics_tool(const Json& a, Session& s, CallContext&) {
  ToolOutcome o;
  auto p = s.roots().resolve(a["path"], "path");
  if (!p) return ToolOutcome{nullptr, p.error(), ""};
  Timeline tl;
  Status st = read_path(*p, tl);
  if (!st && tl.gpu_op_count() + tl.samples.size() == 0) return ToolOutcome{nullptr, st.error(), ""};
  MetricsOptions opt;
  if (a.contains("tokens_per_step") && a["tokens_per_step"].get<double>() > 0)
    opt.tokens_per_step = a["tokens_per_step"].get<double>();
  auto m = compute_run_metrics(tl, opt);
  if (!m) return ToolOutcome{nullptr, m.error(), ""};
  if (!st) {
    m->warnings.push_back("input damaged, figures cover what was read: " + st.error().describe());
    o.error = st.error();
  }
  o.result = run_metrics_to_json(*m);
  o.text = "step " + std::to_string(m->step_time_s) + " s, GPU util " + std::to_string(m->gpu_util_pct) + " %";
  return o;
}

ToolOutcome triage_tool(const Json& a, Session& s, CallContext&) {
  ToolOutcome o;
  auto p = s.roots().resolve(a["path"], "path");
  if (!p) return ToolOutcome{nullptr, p.error(), ""};
  Timeline tl;
  Status st = read_path(*p, tl);
  if (!st && tl.gpu_op_count() == 0) return ToolOutcome{nullptr, st.error(), ""};
  TriageOptions opt;
  opt.stage = arg_string(a, "stage");
  opt.target_arch = arg_string(a, "target_arch");
  opt.source_path = *p;
  opt.top = arg_int(a, "top", 15);
  if (opt.top < 1 || opt.top > 1000)  // the same range as the CLI's --top
    return ToolOutcome{nullptr, make_error(ErrorKind::Usage, "top must be between 1 and 1000"), ""};
  auto rep = run_triage(tl, opt);
  if (!rep) return ToolOutcome{nullptr, rep.error(), ""};
  std::string dir = s.options().out_dir + "/" + s.next_id("triage");
  if (Status ws = write_triage_artifacts(*rep, dir); !ws) return ToolOutcome{nullptr, ws.error(), ""};
  o.result["out_dir"] = dir;
  o.result["metadata"] = rep->metadata;
  Json top = kernel_table_to_json(rep->kernels);
  if (top.size() > static_cast<size_t>(opt.top)) top.erase(top.begin() + opt.top, top.end());
  o.result["top_kernels"] = top;
  o.result["stages"] = stage_split_to_json(rep->stages);
  Json mods = module_rows_to_json(rep->modules);
  if (mods.size() > static_cast<size_t>(opt.top)) mods.erase(mods.begin() + opt.top, mods.end());
  o.result["modules"] = mods;
  o.result["summary"] = triage_human_summary(*rep, opt.top);
  if (!st) o.error = st.error();
  o.text =
      "triage artefacts (profile_summary.md, kernel_table.json, overlap/fuse opportunities, module and stage "
      "tables) in " +
      dir;
  return o;
}

}  // namespace

void add_analysis_tools(ToolRegistry& r) {
  r.add({"info",
         "What goblin reads from a trace",
         "Format, event counts per table, time span, devices, versions and warnings of a trace file or run directory "
         "(PyTorch/Kineto, rocprofv3, Nsight, smi telemetry). Same as `goblin info`.",
         {},
         path_schema("trace file or run directory"),
         false,
         false,
         info_tool});
  r.add({"triage",
         "Triage a trace (seed 002)",
         "Seed 002's triage of a trace: kernel table, overlap and fusion opportunities, a readable summary; the "
         "artefacts are written to the session's output directory. Same as `goblin triage`.",
         {},
         object_schema({{"path", prop("string", "trace file or run directory inside the roots")},
                        {"stage", prop("string",
                                       "prefill | extend | decode (default: from the trace's stage annotations, "
                                       "else the file name)")},
                        {"target_arch", prop("string", "target architecture for the fusion hints")},
                        {"top", prop("integer", "rows in the summary (default 15)")}},
                       {"path"}),
         false,
         false,
         triage_tool});
  r.add({"breakdown",
         "GPU time by category",
         "GPU time by kernel category and library family, and per step busy/idle, exposed communication, idle "
         "attribution and launch statistics; by=module adds GPU time per nn.Module, by=stage the prefill/decode "
         "split. Same as `goblin breakdown`.",
         {},
         object_schema({{"path", prop("string", "trace file or run directory inside the roots")},
                        {"by", prop("string", "category (default) | module | stage")}},
                       {"path"}),
         false,
         false,
         breakdown_tool});
  r.add({"metrics",
         "RunMetrics of a trace",
         "RunMetrics of a trace or run directory: steps, step time, GPU utilisation, the additive waste budget per "
         "step, top kernels, tokens/s, MFU, HBM. Same as `goblin metrics`.",
         {},
         object_schema({{"path", prop("string", "trace file or run directory inside the roots")},
                        {"tokens_per_step", prop("number", "tokens per step, for tokens/s")}},
                       {"path"}),
         false,
         false,
         metrics_tool});
}

}  // namespace goblin::mcp
