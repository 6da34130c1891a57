// Reading compare's inputs: a run's metrics (goblin metrics / bench --json, with or without the
// envelope) and a patch (goblin patch --json).
#include "analysis/metrics_io.h"
#include "audit/compare.h"
#include "core/fields.h"
#include "core/io.h"
#include "core/limits.h"
#include "core/text.h"

namespace goblin::audit {

namespace {
Result<Json> parse_json_file(const std::string& path) {
  ASSIGN_OR_RETURN(auto text, read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxJsonInputBytes}));
  return parse_json_text(text, path, "not valid JSON");
}

// One repeat of `goblin bench --json`'s `a.runs` (a failed run has `error` and is skipped).
struct BenchRun {
  std::optional<double> step_time_s, tokens_per_sec;
  std::optional<double> throughput;  // in the side's throughput_unit (docs/metrics.md § Throughput unit)
  std::optional<Json> error;         // the failure as bench wrote it; only its presence matters
};
// `a.step_time_s` of goblin bench: the interval of the repeats' step times.
struct BenchInterval {
  std::optional<double> point, low, high;
};
// The hand-written `bench: {metric, median, ci_low, ci_high, samples}` object.
struct BenchObject {
  std::string metric = "step_time_s";
  std::optional<std::vector<double>> samples;
  std::optional<double> median, ci_low, ci_high;
};
}  // namespace
}  // namespace goblin::audit

namespace goblin::fields {
using goblin::audit::BenchInterval;
using goblin::audit::BenchObject;
using goblin::audit::BenchRun;
// Nullable throughout: goblin bench writes null for what a run did not measure.
template <>
struct List<BenchRun> {
  static inline const auto fields =
      std::tuple{field("step_time_s", &BenchRun::step_time_s, Nullable),
                 field("tokens_per_sec", &BenchRun::tokens_per_sec, Nullable),
                 field("throughput", &BenchRun::throughput, Nullable), field("error", &BenchRun::error)};
};
template <>
struct List<BenchInterval> {
  static inline const auto fields =
      std::tuple{field("point", &BenchInterval::point, Nullable), field("low", &BenchInterval::low, Nullable),
                 field("high", &BenchInterval::high, Nullable)};
};
template <>
struct List<BenchObject> {
  static inline const auto fields =
      std::tuple{field("metric", &BenchObject::metric, Nullable), field("samples", &BenchObject::samples, Nullable),
                 field("median", &BenchObject::median, Nullable), field("ci_low", &BenchObject::ci_low, Nullable),
                 field("ci_high", &BenchObject::ci_high, Nullable)};
};
}  // namespace goblin::fields

namespace goblin::audit {

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
  // An image or sample workload's bench writes tokens_per_sec 0 (it counts no tokens): not a
  // measured rate of 0, so it is read as not observed (docs/metrics.md § Throughput unit).
  Json no_tokens;
  if (bench_shape && j->value("throughput_unit", std::string("tokens")) != "tokens" && j->contains("tokens_per_sec") &&
      (*j)["tokens_per_sec"].is_number() && (*j)["tokens_per_sec"].get<double>() == 0.0) {
    no_tokens = *j;
    no_tokens.erase("tokens_per_sec");
    j = &no_tokens;
  }
  ASSIGN_OR_RETURN(auto m, analysis::metrics_from_json(*j, file));
  in.metrics = m;
  if (bench_shape && !j->contains("runner_kind")) in.metrics.runner_kind = "live";
  // The bench parts through their field lists; an error names the file and the key.
  auto read_as = [&](const Json& v, auto& into, const std::string& at) -> Status {
    if (Status st = fields::read(v, into, at); !st.ok())
      return make_error(ErrorKind::Malformed, st.error().message, file);
    return Status::Ok();
  };
  if (bench_shape) {
    const Json& a = (*j)["a"];
    if (!a["runs"].is_array()) return make_error(ErrorKind::Malformed, "a.runs: expected an array of runs", file);
    // An image or sample workload: its runs' throughput in that unit, and the side's median.
    if (auto u = a.find("throughput_unit"); u != a.end() && u->is_string() && u->get<std::string>() != "tokens") {
      in.bench.throughput_unit = u->get<std::string>();
      if (auto med = a.find("throughput_median"); med != a.end() && med->is_number() && med->get<double>() > 0)
        in.bench.throughput_median = med->get<double>();
    }
    for (size_t i = 0; i < a["runs"].size(); ++i) {
      const Json& r = a["runs"][i];
      if (!r.is_object() || r.contains("error")) continue;
      BenchRun run;
      RETURN_IF_ERROR(read_as(r, run, fields::at_index("a.runs", i)));
      if (run.step_time_s) in.bench.step_time_s.push_back(*run.step_time_s);
      if (run.tokens_per_sec && *run.tokens_per_sec > 0) in.bench.tokens_per_sec.push_back(*run.tokens_per_sec);
      if (!in.bench.throughput_unit.empty() && run.throughput && *run.throughput > 0)
        in.bench.throughput.push_back(*run.throughput);
    }
    if (auto st = a.find("step_time_s");
        st != a.end() && st->is_object() && st->contains("low") && st->contains("high")) {
      BenchInterval iv;
      RETURN_IF_ERROR(read_as(*st, iv, "a.step_time_s"));
      if (iv.low && iv.high) {
        in.bench.ci_metric = "step_time_s";
        in.bench.median = iv.point.value_or(0.0);
        in.bench.ci_low = iv.low;
        in.bench.ci_high = iv.high;
      }
    }
  }
  if (j->contains("bench") && (*j)["bench"].is_object()) {
    BenchObject b;
    RETURN_IF_ERROR(read_as((*j)["bench"], b, "bench"));
    if (b.metric != "step_time_s" && b.metric != "tokens_per_sec")
      return make_error(ErrorKind::Malformed, "bench.metric must be step_time_s or tokens_per_sec, got " + b.metric,
                        file);
    auto& dst = b.metric == "step_time_s" ? in.bench.step_time_s : in.bench.tokens_per_sec;
    if (b.samples) dst.insert(dst.end(), b.samples->begin(), b.samples->end());
    if (b.ci_low && b.ci_high) {
      in.bench.ci_metric = b.metric;
      in.bench.ci_low = b.ci_low;
      in.bench.ci_high = b.ci_high;
      if (b.median) in.bench.median = b.median;
      if (*in.bench.ci_low > *in.bench.ci_high)
        return make_error(ErrorKind::Malformed, "bench.ci_low is above bench.ci_high", file);
    }
  }
  // Every sample and interval bound must be a plausible figure too (a ratio of 5e-324 s is inf).
  for (double v : in.bench.step_time_s)
    RETURN_IF_ERROR(analysis::check_plausible_rates(v == 0.0 ? -1.0 : v, std::nullopt, file));
  for (double v : in.bench.tokens_per_sec) RETURN_IF_ERROR(analysis::check_plausible_rates(0.0, v, file));
  for (double v : in.bench.throughput) RETURN_IF_ERROR(analysis::check_plausible_rates(0.0, v, file));
  for (const auto& b : {in.bench.ci_low, in.bench.ci_high, in.bench.median})
    if (b && (in.bench.ci_metric == "tokens_per_sec"
                  ? analysis::check_plausible_rates(0.0, *b, file)
                  : analysis::check_plausible_rates(*b == 0.0 ? -1.0 : *b, std::nullopt, file))
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
