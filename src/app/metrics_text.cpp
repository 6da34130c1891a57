// RunMetrics as readable text (goblin metrics without --json).
#include "app/metrics_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "hw/ceiling.h"
#include "model/warning_json.h"

namespace goblin::app {

namespace {
std::string fmt_opt(const std::optional<double>& v, const char* unit) {
  if (!v) return "unobserved";
  return fmt::format("{:.3f}{}", *v, unit);
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

std::string run_metrics_text(const analysis::RunMetrics& m) {
  std::string s =
      m.step_time_s > 0 ? fmt::format("step time      {:.6f} s", m.step_time_s) : "step time      unobserved";
  auto out = std::back_inserter(s);
  if (m.gpu_activity)
    fmt::format_to(out, "   (gpu util {:.2f}% = busy union / step wall)\n", m.gpu_util_pct);
  else
    s += "   (gpu util n/a: no GPU activity in the input)\n";
  if (m.workload_step_time_s)
    fmt::format_to(out,
                   "workload timer {:.6f} s   (the workload's own step_time_seconds; not the step measured here)\n",
                   *m.workload_step_time_s);
  s += "tokens/s       " + fmt_opt(m.tokens_per_sec, "") + "\n";
  auto flagged = [](const std::optional<double>& v) {
    return hw::above_peak_marker(hw::above_physical_peak(v ? *v : 0, "", ""));
  };
  s += "mfu            " + fmt_opt(m.mfu_pct, " %") + flagged(m.mfu_pct) +
       "   (dtype path: " + fmt_opt(m.mfu_dtype_path_pct, " %") + flagged(m.mfu_dtype_path_pct) + ")\n";
  if (m.flops_per_step) fmt::format_to(out, "flops/step     {:.4g}\n", *m.flops_per_step);
  if (!m.mfu_basis.empty()) s += "mfu basis      " + m.mfu_basis + "\n";
  s += "hbm peak/avg   " + fmt_opt(m.hbm_peak_gb, " GB") + " / " + fmt_opt(m.hbm_avg_gb, " GB") + "\n";
  if (m.batch_scale_fits)
    s += fmt::format("batch fits     {:.2f}x  ({})\n", *m.batch_scale_fits, m.memory_basis.value_or(""));
  s += "attention      " + m.attention_kernel_loaded + "\n";
  s += "steps:\n";
  for (const auto& st : m.steps)
    fmt::format_to(out, "  {:<20} wall {:.6f} s  busy {:.6f} s{}\n", st.name, st.wall_s, st.busy_s,
                   st.partial ? "  (partial)" : "");
  const analysis::WasteBudget& w = m.waste_budget;
  fmt::format_to(out, "waste budget (s/step, sums to {:.6f} s):\n", w.step_time_s);
  for (const auto& k : analysis::WasteBudget::kBuckets) {
    const double v = w.*k.field;
    fmt::format_to(out, "  {:<16} {:.6f}  ({:.1f}%)\n", k.name, v, w.step_time_s > 0 ? 100.0 * v / w.step_time_s : 0.0);
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
    fmt::format_to(out, "  {:>6.2f}%  {:<13} {:<16} {}\n", k.pct_time, k.category, k.family,
                   row_name(names[i], names, 90));
  }
  for (const auto& w2 : m.warnings) s += "warning: " + warning_text(w2) + "\n";
  s += "window: " + m.window + "\n";
  return s;
}

}  // namespace goblin::app
