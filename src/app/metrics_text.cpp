// RunMetrics as readable text (goblin metrics without --json).
#include "app/metrics_text.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "model/warning_json.h"

namespace goblin::app {

namespace {
std::string fmt_opt(const std::optional<double>& v, const char* unit) {
  if (!v) return "unobserved";
  char b[64];
  std::snprintf(b, sizeof b, "%.3f%s", *v, unit);
  return b;
}

// A kernel name cut to `width` characters for a table row. Names that share their first `width`
// characters (ATen's elementwise_kernel<128, 2, gpu_kernel_impl_nocast<...>> instantiations) would
// print as identical rows (issue #34): such a name shows its head, "...", and the part from a
// little before where it first differs from the others.
std::string row_name(const std::string& n, const std::vector<std::string>& all, size_t width) {
  if (n.size() <= width) return n;
  size_t differs = 0;  // the first position where n differs from another name with the same head
  for (const auto& o : all) {
    if (&o == &n || o.compare(0, width, n, 0, width) != 0) continue;
    size_t i = width;
    while (i < n.size() && i < o.size() && n[i] == o[i]) ++i;
    differs = std::max(differs, i);
  }
  if (differs == 0) return n.substr(0, width);
  const size_t head = width / 3, from = std::min(differs > 12 ? differs - 12 : 0, n.size());
  std::string out = n.substr(0, head) + "...";
  return out + n.substr(from, width - out.size());
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
  std::vector<std::string> names;
  for (const auto& k : m.top_kernels) names.push_back(k.name);
  for (size_t i = 0; i < m.top_kernels.size(); ++i) {
    const auto& k = m.top_kernels[i];
    std::snprintf(b, sizeof b, "  %6.2f%%  %-13s %-16s %s\n", k.pct_time, k.category.c_str(), k.family.c_str(),
                  row_name(names[i], names, 90).c_str());
    s += b;
  }
  for (const auto& w2 : m.warnings) s += "warning: " + warning_text(w2) + "\n";
  s += "window: " + m.window + "\n";
  return s;
}

}  // namespace goblin::app
