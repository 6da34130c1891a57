// The loop of a kernel workspace: bench (correctness + timing on the GPU through
// tools/kernel_harness.py), profile (ncu / rocprofv3 on the kernel's launches, then the
// two-bottleneck diagnosis), record (memory/v<N>.json + one git commit) and plan
// (plans/v<N>_plan.md from the cited candidate catalogue). Results of a run land in
// profiles/v<N>/ where N is the version the next `record` will write.
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "kernel/workspace.h"

namespace goblin::kernel {

struct RunOptions {
  std::string python = "python3", harness;  // harness: tools/kernel_harness.py (found when empty)
  double rep_ms = 500, warmup_ms = 50;      // do_bench's rep/warmup budgets
  double timeout_s = 900;
  int launches = 1;          // profiled launches
  std::string kernel_regex;  // ncu -k regex:..., on top of the NVTX filter
  std::string ncu = "ncu", rocprof = "rocprofv3";
  bool prompt = false;  // also write the judge prompts (docs/hardware.md)
};

// What bench and profile both start from: the workspace's config, the version N the next record
// writes, the harness script, and profiles/v<N>/ (created).
struct RunSetup {
  Config cfg;
  int version = 0;
  std::string harness;
  std::string dir;  // profiles/v<N>
};
Result<RunSetup> prepare_run(const Knowledge& k, const std::string& ws, const RunOptions& o);

// Statistics of the harness's raw samples: median latency with its 95 % bootstrap interval
// (run/stats), TFLOP/s and GB/s from the workspace's FLOPs/bytes, % of the Stop Condition, and
// the integrity checks against k.integrity.
Result<Json> summarize_bench(const Knowledge& k, const Json& raw, const Config& cfg);
std::string bench_human(const Json& summary, const Config& cfg);
// Runs the harness; writes profiles/v<N>/bench.json (raw + "summary"); returns the summary.
// A failed correctness check is a Workload error carrying the summary.
// The entry points below take the kernel knowledge context; each overload without one reads the
// process's (knowledge(): tests, one-shot tools).
Result<Json> run_bench(const Knowledge& k, const std::string& ws, const RunOptions& o);
Result<Json> run_bench(const std::string& ws, const RunOptions& o);

// The diagnosis of an Nsight Compute raw CSV (or a rocprofv3 counter CSV): per kernel the
// classification and two bottlenecks; "primary" is the longest kernel.
// The NCU rules, metric schema and GPU spec come from the hardware knowledge context; the
// overloads without one read the process's (hw::hw_knowledge()).
Result<Json> diagnose_profile(const hw::HwKnowledge& hwk, const std::string& csv, const Config& cfg);
Result<Json> diagnose_profile(const std::string& csv, const Config& cfg);
std::string diagnosis_human(const Json& d);
// The ncu command line profile runs (exposed for tests): metric set from the NCU schema.
Result<std::vector<std::string>> ncu_command(const hw::HwKnowledge& hwk, const Config& cfg, const RunOptions& o,
                                             const std::string& harness, const std::string& log_path);
Result<std::vector<std::string>> ncu_command(const Config& cfg, const RunOptions& o, const std::string& harness,
                                             const std::string& log_path);
std::vector<std::string> rocprof_command(const Config& cfg, const RunOptions& o, const std::string& harness,
                                         const std::string& out_dir);
// Profiles, keeps the CSV under profiles/v<N>/, writes diagnosis.json (and judge prompts).
Result<Json> run_profile(const Knowledge& k, const std::string& ws, const RunOptions& o);
Result<Json> run_profile(const std::string& ws, const RunOptions& o);

struct RecordOptions {
  std::string summary, hypothesis, bench_file, profile_file;
  std::vector<std::string> tags;
  bool keep = false;  // keep kernel.py even when this iteration is slower than the best
};
// Writes memory/v<N>.json and commits the iteration. Correctness failed → Workload error, nothing
// written or committed. An iteration slower than the best so far stays in the history, but
// kernel.py is restored from the best iteration's commit (a second commit; `keep` skips it), so
// the next iteration starts from the best version (docs/kernel.md "Loop discipline").
Result<Json> record_iteration(const Knowledge& k, const std::string& ws, const RecordOptions& o);
Result<Json> record_iteration(const std::string& ws, const RecordOptions& o);

// plans/v<N>_plan.md from k.plan_template and k.candidates; returns {path, candidates}.
Result<Json> write_plan(const Knowledge& k, const std::string& ws);
Result<Json> write_plan(const std::string& ws);

}  // namespace goblin::kernel
