// memory/v<N>.json: one record per iteration (data/kernel/iteration.schema.json). Every read here
// skips `masked: true` files unless asked for them (docs/kernel.md: a masked iteration is invisible to
// status, best, planning and deduplication).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "kernel/workspace.h"

namespace goblin::kernel {

// One memory/v<N>.json record, in the order the file lists its keys (field list in
// iteration_json.cpp; the schema it must meet is data/kernel/iteration.schema.json).
struct IterationCorrectness {
  bool passed = false;
  Json max_rel_err, threshold;  // as the bench summary gave them (a number, or null when not computed)
};
struct IterationRecord {
  int version = 0;
  std::optional<int> parent;  // the unmasked iteration this one changed; null for v0
  bool masked = false;
  std::string change_summary, hypothesis;
  std::optional<std::vector<std::string>> tags;  // optional in the schema (older records have none)
  // The diagnosis of the version's profile (hw/diagnose's judge shape, which differs per
  // bottleneck category) and the primary kernel's classification (null without a profile): kept
  // as the diagnosis wrote them.
  Json bottlenecks = Json::array();
  Json classification;
  IterationCorrectness correctness;
  // The bench summary's performance (summarize_bench, or the `summary` a workload's own bench
  // wrote): its keys depend on the producer, so it is kept as written.
  Json performance;
  std::optional<std::string> profile, commit;
  std::vector<std::string> pitfalls_and_fixes;
  std::optional<std::string> recorded_at;  // optional in the schema
};
Json iteration_to_json(const IterationRecord& r);
Result<IterationRecord> iteration_from_json(const Json& j, const std::string& file);

struct Iteration {
  int version = -1;
  std::string path;
  IterationRecord rec;
  Json j;  // the file as read: set_masked rewrites it, keeping any key this goblin does not know
  bool masked() const { return rec.masked; }
};

// memory/v*.json in version order. A file that is not valid JSON is a Malformed error naming it
// and the byte; a file that breaks the schema (k.iteration_schema) is Malformed naming the field.
Result<std::vector<Iteration>> load_iterations(const Knowledge& k, const std::string& ws, bool include_masked = false);
// Version the next record gets: one past the highest, masked files included (numbers are never reused).
Result<int> next_version(const Knowledge& k, const std::string& ws);
// Problems of `j` against the schema's required fields and types: "performance.tflops: want number|null".
std::vector<std::string> validate_iteration(const Knowledge& k, const Json& j);

// The iteration's throughput in the target metric ("GB/s" → gbs, else tflops); 0 when absent.
double metric_of(const IterationRecord& it, const std::string& metric);
// The iteration's own commit: the one that added memory/v<N>.json (empty when git cannot say).
std::string iteration_commit(const std::string& ws, int version);
// What the loop should do next: {"action": "stop"|"continue", "reason", "iterations_used",
// "max_iterations", "hours_used", "max_hours"}: stop once the best iteration meets the Stop
// Condition or the budget of workspace.json is spent.
Json next_step(const Config& cfg, int recorded, bool target_met, const std::string& best_text);

// The best unmasked, correct iteration by the target metric (nullptr when none).
const Iteration* best_iteration(const std::vector<Iteration>& its);

// Sets `masked` in memory/v<N>.json and commits the change ("mask vN" / "unmask vN"). The
// overloads without the context read the process's (knowledge(): tests).
Result<Json> set_masked(const Knowledge& k, const std::string& ws, int version, bool masked);
Result<Json> set_masked(const std::string& ws, int version, bool masked);

struct StatusReport {
  Json json;
  std::string human;
};
Result<StatusReport> workspace_status(const Knowledge& k, const std::string& ws);
Result<StatusReport> workspace_status(const std::string& ws);

}  // namespace goblin::kernel
