#include "audit/report_diff.h"

#include "analysis/diff.h"

namespace goblin::audit {

Json kernel_diff_for_report(const std::string& before_trace, const std::string& after_trace) {
  Json j;
  if (before_trace.empty() || after_trace.empty()) {
    j["available"] = false;
    j["reason"] = std::string("no profiler trace for the ") + (before_trace.empty() ? "before" : "after") +
                  " side (an unprofiled benchmark): no kernel-level comparison";
    return j;
  }
  auto d = diff_paths(before_trace, after_trace);
  if (!d) {
    j["available"] = false;
    j["reason"] = "goblin diff failed: " + d.error().describe();
    return j;
  }
  Json full = diff_to_json(*d);
  j["available"] = true;
  j["before_trace"] = before_trace;
  j["after_trace"] = after_trace;
  j["step_time_change_s"] = full["step_time_change_s"];
  j["decomposition"] = full["decomposition"];
  j["categories"] = full["categories"];
  j["counts"] = full["counts"];
  constexpr size_t kTop = 5;
  for (const char* status : {"faster", "gone", "new", "slower"}) {
    Json rows = Json::array();
    for (const auto& r : full["kernels"])
      if (r["status"] == status && rows.size() < kTop) rows.push_back(r);
    j[status] = rows;
  }
  j["story"] = diff_story(*d, static_cast<int>(kTop));
  return j;
}

std::vector<std::string> kernel_diff_lines(const Report& report) {
  std::vector<std::string> out;
  if (!report.kernel_diff || !report.kernel_diff->is_object()) return out;
  const Json& k = *report.kernel_diff;
  if (!k.value("available", false)) {
    out.push_back(k.value("reason", std::string("no kernel-level comparison")));
    return out;
  }
  for (const auto& l : k["story"]) out.push_back(l.get<std::string>());
  return out;
}

}  // namespace goblin::audit
