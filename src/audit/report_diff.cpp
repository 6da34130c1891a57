#include "audit/report_diff.h"

#include "analysis/diff.h"

namespace goblin::audit {

KernelDiff kernel_diff_for_report(const std::string& before_trace, const std::string& after_trace) {
  KernelDiff k;
  if (before_trace.empty() || after_trace.empty()) {
    k.reason = std::string("no profiler trace for the ") + (before_trace.empty() ? "before" : "after") +
               " side (an unprofiled benchmark): no kernel-level comparison";
    return k;
  }
  auto d = analysis::diff_paths(before_trace, after_trace);
  if (!d) {
    k.reason = "goblin diff failed: " + d.error().describe();
    return k;
  }
  Json full = analysis::diff_to_json(*d);
  k.available = true;
  k.before_trace = before_trace;
  k.after_trace = after_trace;
  k.step_time_change_s = full["step_time_change_s"];
  k.decomposition = full["decomposition"];
  k.categories = full["categories"];
  k.counts = full["counts"];
  constexpr size_t kTop = 5;
  auto top = [&](const char* status) {
    Json rows = Json::array();
    for (const auto& r : full["kernels"])
      if (r["status"] == status && rows.size() < kTop) rows.push_back(r);
    return rows;
  };
  k.faster = top("faster");
  k.gone = top("gone");
  k.added = top("new");
  k.slower = top("slower");
  k.story = analysis::diff_story(*d, static_cast<int>(kTop));
  return k;
}

std::vector<std::string> kernel_diff_lines(const Report& report) {
  if (!report.kernel_diff) return {};
  const KernelDiff& k = *report.kernel_diff;
  if (!k.available) return {k.reason.value_or("no kernel-level comparison")};
  return k.story.value_or(std::vector<std::string>{});
}

}  // namespace goblin::audit
