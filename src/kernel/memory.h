// memory/v<N>.json: one record per iteration (data/kernel/iteration.schema.json). Every read here
// skips `masked: true` files unless asked for them (docs/kernel.md: a masked iteration is invisible to
// status, best, planning and deduplication).
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "kernel/workspace.h"

namespace goblin::kernel {

struct Iteration {
  int version = -1;
  std::string path;
  Json j;
  bool masked() const { return j.value("masked", false); }
};

// memory/v*.json in version order. A file that is not valid JSON is a Malformed error naming it
// and the byte; a file that breaks the schema is Malformed naming the field.
Result<std::vector<Iteration>> load_iterations(const std::string& ws, bool include_masked = false);
// Version the next record gets: one past the highest, masked files included (numbers are never reused).
Result<int> next_version(const std::string& ws);
// Problems of `j` against the schema's required fields and types: "performance.tflops: want number|null".
std::vector<std::string> validate_iteration(const Json& j);

// The best unmasked, correct iteration by the target metric (nullptr when none).
const Iteration* best_iteration(const std::vector<Iteration>& its);

// Sets `masked` in memory/v<N>.json and commits the change ("mask vN" / "unmask vN").
Result<Json> set_masked(const std::string& ws, int version, bool masked);

struct StatusReport {
  Json json;
  std::string human;
};
Result<StatusReport> workspace_status(const std::string& ws);

}  // namespace goblin::kernel
