// Reading compare's inputs: a run's metrics (goblin metrics / bench --json, with or without the
// envelope) and a patch (goblin patch --json).
#include "analysis/metrics_io.h"
#include "audit/compare.h"
#include "core/io.h"
#include "core/limits.h"
#include "core/text.h"

namespace goblin::audit {

namespace {
Result<Json> parse_json_file(const std::string& path) {
  ASSIGN_OR_RETURN(auto text, read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxJsonInputBytes}));
  return parse_json_text(text, path, "not valid JSON");
}
}  // namespace

Result<RunInput> run_input_from_json(const Json& j0, const std::string& file) {
  const Json* j = &j0;
  if (j->is_object() && j->contains("ok") && j->contains("result")) {
    if (!(*j)["ok"].is_boolean() || !(*j)["ok"].get<bool>())
      return make_error(ErrorKind::Malformed,
                        "the file holds a failed result (ok=false); expected goblin metrics/bench --json output", file);
    j = &(*j)["result"];
  }
  if (!j->is_object())
    return make_error(ErrorKind::Malformed, "expected a JSON object (goblin metrics --json or goblin bench --json)",
                      file);
  RunInput in;
  in.source = file;
  bool bench_shape = j->contains("a") && (*j)["a"].is_object() && (*j)["a"].contains("runs");
  in.shape = bench_shape ? "bench" : "metrics";
  ASSIGN_OR_RETURN(auto m, metrics_from_json(*j, file));
  in.metrics = m;
  if (bench_shape && !j->contains("runner_kind")) in.metrics.runner_kind = "live";
  try {
    if (bench_shape) {
      for (const auto& r : (*j)["a"]["runs"]) {
        if (!r.is_object() || r.contains("error")) continue;
        if (r.contains("step_time_s") && r["step_time_s"].is_number())
          in.bench.step_time_s.push_back(r["step_time_s"].get<double>());
        if (r.contains("tokens_per_sec") && r["tokens_per_sec"].is_number() && r["tokens_per_sec"].get<double>() > 0)
          in.bench.tokens_per_sec.push_back(r["tokens_per_sec"].get<double>());
      }
      const Json& st = (*j)["a"].contains("step_time_s") ? (*j)["a"]["step_time_s"] : Json();
      if (st.is_object() && st.contains("low") && st.contains("high")) {
        in.bench.ci_metric = "step_time_s";
        in.bench.median = st.value("point", 0.0);
        in.bench.ci_low = st["low"].get<double>();
        in.bench.ci_high = st["high"].get<double>();
      }
    }
    if (j->contains("bench") && (*j)["bench"].is_object()) {
      const Json& b = (*j)["bench"];
      std::string metric = b.value("metric", "step_time_s");
      if (metric != "step_time_s" && metric != "tokens_per_sec")
        return make_error(ErrorKind::Malformed, "bench.metric must be step_time_s or tokens_per_sec, got " + metric,
                          file);
      auto& dst = metric == "step_time_s" ? in.bench.step_time_s : in.bench.tokens_per_sec;
      if (b.contains("samples")) {
        if (!b["samples"].is_array())
          return make_error(ErrorKind::Malformed, "bench.samples must be an array of numbers", file);
        for (const auto& s : b["samples"]) {
          if (!s.is_number())
            return make_error(ErrorKind::Malformed, "bench.samples must be an array of numbers, found " + s.dump(),
                              file);
          dst.push_back(s.get<double>());
        }
      }
      if (b.contains("ci_low") && b.contains("ci_high") && b["ci_low"].is_number() && b["ci_high"].is_number()) {
        in.bench.ci_metric = metric;
        in.bench.ci_low = b["ci_low"].get<double>();
        in.bench.ci_high = b["ci_high"].get<double>();
        if (b.contains("median") && b["median"].is_number()) in.bench.median = b["median"].get<double>();
        if (*in.bench.ci_low > *in.bench.ci_high)
          return make_error(ErrorKind::Malformed, "bench.ci_low is above bench.ci_high", file);
      }
    }
  } catch (const Json::exception& e) {
    return make_error(ErrorKind::Malformed, std::string("bench samples: ") + e.what(), file);
  }
  // Every sample and interval bound must be a plausible figure too (a ratio of 5e-324 s is inf).
  for (double v : in.bench.step_time_s) RETURN_IF_ERROR(check_plausible_rates(v == 0.0 ? -1.0 : v, std::nullopt, file));
  for (double v : in.bench.tokens_per_sec) RETURN_IF_ERROR(check_plausible_rates(0.0, v, file));
  for (const auto& b : {in.bench.ci_low, in.bench.ci_high, in.bench.median})
    if (b && (in.bench.ci_metric == "tokens_per_sec" ? check_plausible_rates(0.0, *b, file)
                                                     : check_plausible_rates(*b == 0.0 ? -1.0 : *b, std::nullopt, file))
                     .ok() == false)
      return make_error(ErrorKind::Malformed,
                        "bench interval " + format_sig(*b, 6) + " is not a plausible " + in.bench.ci_metric, file);
  return in;
}

Result<RunInput> load_run_input(const std::string& path) {
  ASSIGN_OR_RETURN(auto j, parse_json_file(path));
  return run_input_from_json(j, path);
}

Result<Patch> patch_input_from_json(const Json& j, const std::string& file) {
  const Json* p = &j;
  if (p->is_object() && p->contains("ok") && p->contains("result")) {
    if (!(*p)["ok"].is_boolean() || !(*p)["ok"].get<bool>())
      return make_error(ErrorKind::Malformed, "the patch file holds a failed result (ok=false)", file);
    p = &(*p)["result"];
  }
  if (!p->is_object() || !p->contains("new_config") || !p->contains("rationale"))
    return make_error(ErrorKind::Malformed,
                      "expected a patch (goblin patch --json): an object with new_config, rationale, diff", file);
  auto patch = patch_from_json(*p);
  if (!patch) {
    Error e = patch.error();
    e.file = file;
    return e;
  }
  return patch;
}

Result<Patch> load_patch_file(const std::string& path) {
  ASSIGN_OR_RETURN(auto j, parse_json_file(path));
  return patch_input_from_json(j, path);
}

}  // namespace goblin::audit
