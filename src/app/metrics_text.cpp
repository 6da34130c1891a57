// RunMetrics as readable text (goblin metrics without --json).
#include "app/metrics_text.h"

#include <cstdio>

#include "model/warning_json.h"

namespace goblin::app {

namespace {
std::string fmt_opt(const std::optional<double>& v, const char* unit) {
  if (!v) return "unobserved";
  char b[64];
  std::snprintf(b, sizeof b, "%.3f%s", *v, unit);
  return b;
}
}  // namespace

std::string run_metrics_text(const RunMetrics& m) {
  std::string s;
  char b[512];
  if (m.step_time_s > 0)
    std::snprintf(b, sizeof b, "step time      %.6f s", m.step_time_s);
  else
    std::snprintf(b, sizeof b, "step time      unobserved");
  s += b;
  if (m.gpu_activity)
    std::snprintf(b, sizeof b, "   (gpu util %.2f%% = busy union / step wall)\n", m.gpu_util_pct);
  else
    std::snprintf(b, sizeof b, "   (gpu util n/a: no GPU activity in the input)\n");
  s += b;
  s += "tokens/s       " + fmt_opt(m.tokens_per_sec, "") + "\n";
  s += "mfu            " + fmt_opt(m.mfu_pct, " %") + "   (dtype path: " + fmt_opt(m.mfu_dtype_path_pct, " %") + ")\n";
  if (m.flops_per_step) {
    std::snprintf(b, sizeof b, "flops/step     %.4g\n", *m.flops_per_step);
    s += b;
  }
  if (!m.mfu_basis.empty()) s += "mfu basis      " + m.mfu_basis + "\n";
  s += "hbm peak/avg   " + fmt_opt(m.hbm_peak_gb, " GB") + " / " + fmt_opt(m.hbm_avg_gb, " GB") + "\n";
  s += "attention      " + m.attention_kernel_loaded + "\n";
  s += "steps:\n";
  for (const auto& st : m.steps) {
    std::snprintf(b, sizeof b, "  %-20s wall %.6f s  busy %.6f s%s\n", st.name.c_str(), st.wall_s, st.busy_s,
                  st.partial ? "  (partial)" : "");
    s += b;
  }
  const WasteBudget& w = m.waste_budget;
  std::snprintf(b, sizeof b, "waste budget (s/step, sums to %.6f s):\n", w.step_time_s);
  s += b;
  for (const auto& k : WasteBudget::kBuckets) {
    const char* n = k.name;
    const double v = w.*k.field;
    std::snprintf(b, sizeof b, "  %-16s %.6f  (%.1f%%)\n", n, v, w.step_time_s > 0 ? 100.0 * v / w.step_time_s : 0.0);
    s += b;
  }
  if (!w.unobserved.empty()) {
    s += "  unobserved:";
    for (const auto& u : w.unobserved) s += " " + u;
    s += "\n";
  }
  s += "top kernels (share of summed kernel time):\n";
  for (const auto& k : m.top_kernels) {
    std::snprintf(b, sizeof b, "  %6.2f%%  %-13s %-16s %.90s\n", k.pct_time, k.category.c_str(), k.family.c_str(),
                  k.name.c_str());
    s += b;
  }
  for (const auto& w2 : m.warnings) s += "warning: " + warning_text(w2) + "\n";
  s += "window: " + m.window + "\n";
  return s;
}

}  // namespace goblin::app
