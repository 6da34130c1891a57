#include "app/breakdown_run.h"

#include <fmt/format.h>

#include "analysis/category_breakdown.h"
#include "analysis/exposure.h"
#include "analysis/kernel_table.h"
#include "analysis/knowledge.h"
#include "analysis/modules.h"
#include "analysis/stages.h"
#include "analysis/step_time.h"
#include "model/warning_json.h"
#include "trace/load.h"

namespace goblin::app {

namespace {
std::string render(const analysis::CategoryBreakdown& b) {
  std::string h;
  auto out = std::back_inserter(h);
  fmt::format_to(out, "GPU time by category (denominator: summed op time {:.6f} s; busy union {:.6f} s)\n",
                 b.total_op_ns / 1e9, b.busy_union_ns / 1e9);
  for (const auto& r : b.rows)
    fmt::format_to(out, "  {:>6.2f}%  {:>10.6f} s  {:<14} {}\n", r.pct, r.time_ns / 1e9, r.category, r.family);
  if (b.has_before_first_step) {
    const analysis::WindowBreakdown& w = b.before_first_step;
    fmt::format_to(out,
                   "before the first step: wall {:.6f} s busy {:.6f} s ({} GPU ops, {} without a launch record in the "
                   "trace), in no step\n",
                   w.wall_ns / 1e9, w.busy_ns / 1e9, b.steps.before_first_step_ops, b.steps.before_first_step_orphans);
  }
  h += "per step (" + b.steps.method + "):\n";
  for (size_t i = 0; i < b.steps.steps.size(); ++i) {
    const analysis::Step& s = b.steps.steps[i];
    const analysis::WindowBreakdown& w = b.step_breakdowns[i];
    fmt::format_to(
        out,
        "  {:<18} wall {:.6f} s busy {:.2f}% idle {:.6f} s (host-bound {:.6f}, launch {:.6f}, sync/other {:.6f}, "
        "unknown {:.6f}) "
        "exposed comm {:.6f} s, kernels {}, short<10us {:.1f}%{}\n",
        s.name, w.wall_ns / 1e9, w.wall_ns ? 100.0 * w.busy_ns / w.wall_ns : 0.0, w.idle_ns / 1e9,
        w.idle.host_bound_ns / 1e9, w.idle.launch_latency_ns / 1e9, w.idle.sync_other_ns / 1e9, w.idle.unknown_ns / 1e9,
        w.exposed_comm_ns / 1e9, static_cast<long long>(w.launches.kernels), w.launches.short_count_pct,
        s.partial ? " (partial)" : "");
  }
  if (const analysis::StepTime st = analysis::step_time(b.steps); !st.averaged.empty())
    fmt::format_to(out, "step time {:.6f} s (mean wall of {} {}step(s))\n", st.seconds(), st.averaged.size(),
                   st.every_step_partial ? "partial " : "complete ");
  return h;
}
}  // namespace

VerbResult run_breakdown(const analysis::AnalysisKnowledge& k, const std::string& trace, const std::string& by) {
  VerbResult vr;
  if (by != "category" && by != "module" && by != "stage") {
    vr.error = make_error(ErrorKind::Usage, "--by must be category, module or stage (got '" + by + "')");
    return vr;
  }
  auto in = trace::load_trace(trace, trace::kNeedGpuOps);
  if (!in) {
    vr.error = in.error();
    return vr;
  }
  if (Status st = trace::require_gpu_activity(in->timeline, trace); !st.ok()) {
    vr.error = st.error();
    return vr;
  }
  const analysis::Taxonomy* tax = &k.taxonomy;
  const Timeline& tl = in->timeline;
  analysis::CategoryBreakdown b = analysis::category_breakdown(tl, *tax);
  vr.result = analysis::category_breakdown_to_json(b);
  vr.result["by"] = by;
  // The one step time (docs/metrics.md § Step time), the figure metrics, diff and ranks report.
  const double step_s = analysis::step_time(b.steps).seconds();
  vr.result["step_time_s"] = step_s > 0 ? Json(round_to(step_s, 9)) : Json(nullptr);
  std::string lead;
  if (by != "category") {
    analysis::LaunchAttribution la = analysis::attribute_launches(tl);
    analysis::KernelTableResult kt = analysis::build_kernel_table(tl, analysis::compute_exposure(tl), la, tax);
    if (by == "module") {
      analysis::ModuleTable mt = analysis::build_module_table(tl, la, analysis::attribute_modules(tl, la), kt);
      vr.result["modules"] = analysis::module_rows_to_json(mt);
      vr.result["module_method"] = mt.method;
      vr.result["module_attribution"] = analysis::module_attribution_to_json(mt);
      lead = "GPU time by nn.Module (" + mt.method + "):\n" + analysis::module_table_markdown(mt, 40) + "\n" +
             analysis::module_attribution_line(mt) + "\n";
    } else {
      const analysis::StageSplit st = analysis::split_stages(tl, la, kt, *k.stages);
      vr.result["stages"] = analysis::stage_split_to_json(st);
      lead = analysis::stage_split_markdown(st, 20) + "\n";
    }
  }
  vr.human = lead + render(b);
  // What the reader found wrong with the input (negative durations, overlaps on one stream,
  // damaged ids) changes how far these figures can be trusted: say it here too.
  for (const auto& w : in->timeline.warnings) vr.human += "warning: " + warning_text(w) + "\n";
  if (!vr.result.contains("warnings")) vr.result["warnings"] = warnings_to_json(in->timeline.warnings);
  if (in->damage) vr.error = in->damage;
  return vr;
}

}  // namespace goblin::app
