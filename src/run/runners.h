// The two live runners behind `goblin profile` and `goblin bench`, callable from the audit.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "core/verb_result.h"
#include "run/live.h"

namespace goblin::run {

struct ProfileRequest {
  WorkloadSpec workload;  // steps = profiled steps, warmup = excluded steps before the window
  std::string run_dir;    // created; everything lands here
  bool require_gpu = true;
  // "cupti" (goblin's tracer: libgoblin_cupti.so + NVTX step ranges from the hook), "torch"
  // (torch.profiler from the hook), or "" for default_tracer() (run/tracer.h). run.json's
  // "tracer" says which ran and why.
  std::string tracer;
};

// Runs the workload once with the PyTorch profiler (or goblin's CUPTI tracer, see `tracer`) switched on by the injected
// hook (workloads/goblin_hook/sitecustomize.py on PYTHONPATH, GOBLIN_PROFILE_* variables), telemetry polled meanwhile.
// Writes RUN_DIR/{trace.json.gz, telemetry.csv, hook.json, result.json, stdout.log, stderr.log, run.json,
// metrics.json}. The result is run.json's content; on failure the error and whatever was gathered (partial).
// run.json, and the error that cut the run short (run.json still says what happened).
using ProfileOutcome = Partial<Json>;
ProfileOutcome profile_workload(const ProfileRequest& req);

struct BenchRequest {
  WorkloadSpec a;                 // the config under test (before)
  std::optional<WorkloadSpec> b;  // --against (after); runs interleave A B A B ...
  int repeats = 5;
  bool use_cache = true;
  std::string work_dir;  // per-run logs; empty: a temporary directory
  bool require_gpu = true;
  // Each run's start and figures as a line (fraction: runs done / runs planned). Unset: the
  // lines go to stderr.
  std::function<void(double fraction, const std::string& line)> progress;
  // Asked before each run: true stops the bench there (error kind Workload, the runs so far kept).
  std::function<bool()> cancelled;
};
using BenchOutcome = Partial<Json>;
// result: goblin.bench/1 — per side ("a", "b") runs[] (step_time_s, tokens_per_sec, telemetry),
// step_time_s interval, tokens_per_sec_median, aa_noise_floor_pct, telemetry, gpu_util_pct
// (telemetry-based mean, with gpu_util_basis; null with gpu_util_note when no telemetry); "order"
// (one letter per run, "ABAB..." with b); top level: side a's figures (gpu_util_pct only when
// measured).
BenchOutcome bench_workloads(const BenchRequest& req);

// One side ("a" or "b") of a bench result as a single-config bench result (its runs under "a",
// its figures at the top level): what `goblin compare` and bench_to_run_metrics read.
Json bench_side_result(const Json& bench, const std::string& side);

}  // namespace goblin::run
