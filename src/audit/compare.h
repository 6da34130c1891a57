// compare (the audit's compare_runs step (docs/audit.md)): the final Report of an audit from the BEFORE and AFTER
// measurements and the patch. Speedup actual vs predicted, per-metric deltas, both waste budgets,
// the findings (footguns, profiler left on, low evidence coverage) and the validity footer.
// The Report is a struct (audit/report_types.h; its JSON form, documented in docs/audit.md, is
// one field list: report_json.cpp); report.h renders it as text, Markdown and a self-contained
// HTML page.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "audit/patch.h"
#include "audit/report_types.h"
#include "audit/rules.h"
#include "config/workload_config.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin::audit {

// Repeat samples of one side of a benchmark (goblin bench --json, or a hand-written
// `bench: {metric, median, ci_low, ci_high, samples}` object).
struct BenchSamples {
  std::vector<double> step_time_s;     // per repeat
  std::vector<double> tokens_per_sec;  // per repeat (may be empty)
  // Throughput in the workload's own unit when it is not tokens (images, samples): per repeat,
  // the median, and the unit ("" for a token workload). docs/metrics.md § Throughput unit.
  std::vector<double> throughput;
  std::optional<double> throughput_median;
  std::string throughput_unit;
  // A summary interval given without samples: metric is "step_time_s" or "tokens_per_sec".
  std::string ci_metric;
  std::optional<double> median, ci_low, ci_high;
  bool empty() const { return step_time_s.empty() && tokens_per_sec.empty() && !ci_low; }
};

// One side of the comparison as read from a file.
struct RunInput {
  analysis::RunMetrics metrics;
  BenchSamples bench;
  std::string source;  // file it came from ("" when built in memory)
  std::string shape;   // "metrics" | "bench"
};

// Accepts `goblin metrics --json` (envelope or bare RunMetrics), `goblin bench --json` (top-level
// step_time_s/tokens_per_sec/gpu_name/versions and `a.runs[]` repeats; `a.step_time_s` interval),
// or any RunMetrics object with an optional `bench` object. Errors name the file.
Result<RunInput> run_input_from_json(const Json& j, const std::string& file);
Result<RunInput> load_run_input(const std::string& path);
// `goblin patch --json` (envelope or bare Patch result), read through the Patch's field list.
Result<Patch> load_patch_file(const std::string& path);
// The same over JSON already parsed; `file` names it in errors.
Result<Patch> patch_input_from_json(const Json& j, const std::string& file);

struct CompareOptions {
  std::string workload_name;  // "" → model_name of the patch's config
  // The config the AFTER run really ran, when it is not the patch's new_config (a replayed
  // recording). Fields that differ are reported in `measurement_scope`.
  std::optional<config::WorkloadConfig> after_run_config;
  std::string runner_kind;         // "replay" | "live" | "" (from the metrics)
  std::vector<std::string> notes;  // extra notes for the report (e.g. replay caveats)
  const RuleBase* kb = nullptr;    // for the citations of footgun findings (optional)
  // How the two sides were benchmarked (audit: Runner::bench_pair). interleaved: the runs
  // alternated A B A B ... (drift hits both sides); false: blocks; nullopt: not known (files).
  std::optional<bool> interleaved;
  std::string run_order;  // one letter per run, A = before, B = after ("" when not known)
  // The profiled run of the BEFORE config (the audit's profile_run), when the BEFORE side is an
  // unprofiled bench. It gives the report the before waste budget (labelled as profiled) and the
  // profiler perturbation: profiled step time against the unprofiled one (docs/live.md: state it when
  // it exceeds 10 %).
  std::optional<analysis::RunMetrics> profiled_before;
};

// The Report. Never fails on missing optional data: what cannot be computed is null with a note.
Result<Report> compare_runs(const RunInput& before, const RunInput& after, const Patch& patch,
                            const CompareOptions& opt = {});

}  // namespace goblin::audit
