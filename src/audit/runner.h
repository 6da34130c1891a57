// How the audit gets measurements: a Runner profiles or benchmarks a WorkloadConfig and returns
// RunMetrics. The replay runner (recorded artefacts) and the live runner (src/run/, docs/live.md) sit
// behind this one interface so `goblin audit` takes the same code path either way.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_metrics.h"
#include "audit/speedup_model.h"
#include "config/workload_config.h"
#include "core/status.h"
#include "model/timeline.h"

namespace goblin::audit {

// Per-run figures of one side of a paired benchmark (empty when the runner has none, e.g. one
// recording per side).
struct SideSamples {
  std::vector<double> step_time_s;     // one per run, in run order
  std::vector<double> tokens_per_sec;  // one per run (may be empty)
  // A workload counted in another unit (docs/metrics.md § Throughput unit): images or samples per
  // second, one per run, and the side's median; empty / "" for a token workload.
  std::vector<double> throughput;
  std::optional<double> throughput_median;
  std::string throughput_unit;
};

// Both sides of a before/after benchmark.
struct PairBench {
  analysis::RunMetrics before, after;
  SideSamples before_samples, after_samples;
  // Run order, one letter per run: A = before, B = after ("ABABAB" when interleaved). Empty when
  // the runner cannot say how many runs a bench() call made.
  std::string order;
  bool interleaved = false;  // true only when the runs really alternated A B A B ...
  std::string note;          // how the pair was measured, for the report
  // As last_run_config() after each side (a replay maps a config onto the nearest recording).
  std::optional<config::WorkloadConfig> before_ran, after_ran;
  // As last_trace() after each side: the profiler traces behind the two sides ("" when none).
  std::string before_trace, after_trace;
};

class Runner {
 public:
  virtual ~Runner() = default;
  // Short profiled run (the audit's profile_run step (docs/audit.md)): RunMetrics with a waste budget.
  virtual Result<analysis::RunMetrics> profile(const config::WorkloadConfig& config) = 0;
  // Short profiled run of a patched config (the AFTER side of a round, docs/audit.md § Rounds).
  // The default profiles it like any config; a replay takes the recording that stands in for it.
  virtual Result<analysis::RunMetrics> profile_after(const config::WorkloadConfig& config) { return profile(config); }
  // Benchmark run (the audit's benchmark step (docs/audit.md)) of `config`: the original or the patched config.
  virtual Result<analysis::RunMetrics> bench(const config::WorkloadConfig& config) = 0;
  // Benchmark the original and the patched config as a pair. The default benches them in blocks
  // (bench(before), then bench(after)), returns no per-run samples and says interleaved = false;
  // a runner that can alternate runs (the live runner: A B A B ...) overrides it so drift hits
  // both sides and the samples give the speedup an interval.
  virtual Result<PairBench> bench_pair(const config::WorkloadConfig& before, const config::WorkloadConfig& after) {
    PairBench p;
    auto b = bench(before);
    if (!b) return b.error();
    p.before = *b;
    p.before_ran = last_run_config();
    p.before_trace = last_trace();
    auto a = bench(after);
    if (!a) return a.error();
    p.after = *a;
    p.after_ran = last_run_config();
    p.after_trace = last_trace();
    p.interleaved = false;
    p.note = "before and after benchmarked in blocks (one " + kind() +
             " bench call per side, before first); no per-run samples, so no interval";
    return p;
  }
  // "replay" or "live": recorded in the report's validity footer.
  virtual std::string kind() const = 0;
  // The config the last profile()/bench() really ran, when it differs from the one requested (a
  // replay maps a config onto the nearest recorded run). nullopt: exactly the requested config.
  virtual std::optional<config::WorkloadConfig> last_run_config() const { return std::nullopt; }
  // The profiler trace (file or run directory) behind the last profile()/bench() result, for the
  // report's kernel-level diff (`goblin diff`); "" when there is none (an unprofiled bench).
  virtual std::string last_trace() const { return {}; }
  // The unprofiled step time measured beside the last profile()/profile_after() (docs/audit.md §
  // Profiler correction): the default reads a run directory's run.json (`goblin profile` with the
  // CUPTI tracer times the steps just before its window unrecorded: profiled.untraced_step_time_s);
  // nullopt when nothing was measured.
  virtual std::optional<UnprofiledStep> last_unprofiled_step() const;
  // The Timeline the last profile()/profile_after()/bench() read its metrics from, handed over
  // once (a second call returns null), so the audit's critical-path what-if works on it instead of
  // reading last_trace() again. Null when that call read no trace (a replay's cached run, a
  // metrics file, a runner that does not keep it): the caller then reads last_trace().
  virtual std::shared_ptr<const Timeline> take_last_timeline() { return nullptr; }
};

}  // namespace goblin::audit
