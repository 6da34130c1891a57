// `goblin kernel suite DIR`: every kernel file of a directory through the honest harness, scored
// with KernelBench's metrics (docs/kernel.md "Suite"): correctness rate, fast_1 and fast_1.5
// against eager PyTorch and against torch.compile, the geometric-mean speedup with a bootstrap
// interval, and each kernel's fraction of the platform's roofline (the KernelBench-Hard metric).
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "kernel/loop.h"

namespace goblin::kernel {

struct SuiteOptions {
  std::string dir;       // the kernel files: DIR/*.py and DIR/*/*.py (names starting with _ are helpers)
  std::string platform;  // GPU id of the spec database (the roofline and Stop Conditions are its)
  std::string dtype = "bf16";
  double rtol = 1e-2;
  // Recorded raw bench results (kernel_harness.py bench --suite), one <file stem>.json per kernel
  // file: scored without running anything (a CPU machine scores a GPU run this way).
  std::string results;
  std::string out;  // where a run writes each raw result (<stem>.json), suite.json and suite.md
  // Only these tasks: a problem folder ("matmul") or one file ("matmul/v2"); empty = every file.
  // A run on a GPU with little time picks some; re-scoring a run picks the tasks it ran.
  std::vector<std::string> tasks;
  RunOptions run;
};

// One row per kernel file (a file that fails is a row with "error", counted as incorrect) and the
// aggregate metrics; then one row per problem (the folder of its versions: "matmul" for
// "matmul/v2") with its best correct version, and the same metrics over problems, as KernelBench
// scores a problem by its solution. A directory without kernel files, or a task that names none of
// its files, is a Usage error.
Result<Json> run_suite(const Knowledge& k, const SuiteOptions& o);
// The Markdown table and the metrics, as `goblin kernel suite` prints them.
std::string suite_markdown(const Json& suite);

// KernelBench's fast_p over all tasks: the fraction that are correct and faster than the
// reference by more than p (speedups of incorrect tasks are ignored; null speedups never count).
double fast_p(const Json& rows, const std::string& key, double p);
// A speedup above this over either reference is flagged for re-verification (row "reverify",
// metrics "reverify_tasks"): KernelBench's EVAL.md warns that a >2x speedup is unlikely and that
// benchmark exploits produce the large ones (Sakana's "150x" kernel was 3x slower).
inline constexpr double kReverifySpeedup = 10.0;
// The geometric mean of the correct tasks' speedups with a 95 % percentile-bootstrap interval over
// tasks (fixed seed): {"point", "low", "high", "n"}; null when no correct task has one.
Json geomean_speedup(const Json& rows, const std::string& key);
// correctness_rate, fast_p against both references and both geometric means over these rows.
Json aggregate(const Json& rows);
// One row per problem, in the order of its first task: the fastest correct version's row with
// "problem", "best" (its task) and "versions"; {"problem", "correct": false, "best": null} when
// none of its versions is correct.
Json best_per_problem(const Json& rows);

}  // namespace goblin::kernel
