#include "analysis/metrics_io.h"

#include <algorithm>

#include "core/io.h"
#include "core/limits.h"
#include "core/text.h"

namespace goblin::analysis {

namespace {
// Every waste bucket's name (WasteBudget::kBuckets), in budget order.
std::vector<std::string> bucket_names() {
  std::vector<std::string> v;
  for (const auto& b : WasteBudget::kBuckets) v.emplace_back(b.name);
  return v;
}
}  // namespace

Status check_plausible_rates(double step_time_s, std::optional<double> tokens_per_sec, const std::string& file) {
  // A step of an ML workload lasts from microseconds (one kernel launch) to hours; a ratio of
  // two figures outside these bounds prints "infx faster" or 0.0, so they are refused.
  if (step_time_s != 0.0 && !(step_time_s >= kMinStepTimeS && step_time_s <= kMaxStepTimeS))
    return make_error(ErrorKind::Malformed,
                      "step_time_s " + format_sig(step_time_s, 6) + " is not a plausible step time (expected " +
                          format_sig(kMinStepTimeS, 3) + " .. " + format_sig(kMaxStepTimeS, 3) +
                          " s, or absent); the metrics file is damaged or edited",
                      file);
  if (tokens_per_sec && !(*tokens_per_sec > 0 && *tokens_per_sec <= kMaxTokensPerSec))
    return make_error(ErrorKind::Malformed,
                      "tokens_per_sec " + format_sig(*tokens_per_sec, 6) +
                          " is not a plausible throughput (expected > 0 and <= " + format_sig(kMaxTokensPerSec, 3) +
                          ")",
                      file);
  return Status::Ok();
}

Result<RunMetrics> metrics_from_json(const Json& j0, const std::string& file) {
  const Json* j = &j0;
  if (j->is_object() && j->contains("ok") && j->contains("result")) {
    if (!(*j)["ok"].get<bool>())
      return make_error(ErrorKind::Malformed, "the metrics file holds a failed result (ok=false)", file);
    j = &(*j)["result"];
  }
  if (j->is_object() && j->contains("metrics") && (*j)["metrics"].is_object()) j = &(*j)["metrics"];
  if (!j->is_object()) return make_error(ErrorKind::Malformed, "RunMetrics JSON is not an object", file);
  // One reader: analysis's run_metrics_from_json; here only what the audit adds (ok=false, a
  // bench's "metrics" object, the file name in errors, absent buckets listed as unobserved).
  auto r = run_metrics_from_json(*j);
  if (!r) {
    Error e = r.error();
    e.file = file;
    return e;
  }
  RunMetrics m = std::move(*r);
  WasteBudget& w = m.waste_budget;
  if (j->contains("waste_budget") && (*j)["waste_budget"].is_object()) {
    const Json& b = (*j)["waste_budget"];
    for (const auto& k : bucket_names())
      if (!(b.contains(k) && b[k].is_number()) &&
          std::find(w.unobserved.begin(), w.unobserved.end(), k) == w.unobserved.end())
        w.unobserved.push_back(k);
  } else {
    w.unobserved = bucket_names();
  }
  RETURN_IF_ERROR(check_plausible_rates(m.step_time_s, m.tokens_per_sec, file));
  if (m.step_time_s <= 0 && !m.tokens_per_sec)
    return make_error(ErrorKind::Malformed, "RunMetrics has neither step_time_s nor tokens_per_sec", file);
  return m;
}

Result<RunMetrics> load_metrics_file(const std::string& path) {
  ASSIGN_OR_RETURN(auto text, read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxJsonInputBytes}));
  ASSIGN_OR_RETURN(auto j, parse_json_text(text, path));
  return metrics_from_json(j, path);
}

}  // namespace goblin::analysis
