// The kernel workspace's knowledge context (DEVELOPING.md § One knowledge context): every file of
// data/kernel/ the workspace reads (the problem formulas, the candidate catalogue, the integrity
// limits, the iteration schema, the README and plan templates), parsed once per process and data
// directory by knowledge(), beside the hardware part (hw/knowledge.h: GPU specs, measured
// ceilings, NCU rules). The kernel code takes it as `const Knowledge&` and never opens a data
// file itself; the verbs (app/verbs_kernel.cpp) get it with app::kernel_knowledge_of(ctx).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "hw/knowledge.h"

namespace goblin::kernel {

// One op of data/kernel/problems.yaml: the dimensions its formulas need, their defaults, and the
// FLOP and byte formulas (E: bytes per element of the dtype) with their source.
struct ProblemOp {
  std::string name;
  std::vector<std::string> shape;
  std::map<std::string, double> defaults;
  std::string flops, bytes, source;
};
struct Problems {
  std::vector<ProblemOp> ops;  // in the file's order (the "known:" list of an unknown op)
  std::map<std::string, double> dtype_bytes;
  const ProblemOp* op(const std::string& name) const;
};

// One candidate of data/kernel/optimizations.yaml. An absent filter (vendors, archs, bound)
// matches every workspace.
struct Candidate {
  std::string id, title, source;
  std::optional<std::vector<std::string>> vendors, archs, bound;
  std::vector<std::string> keywords;
};

// data/kernel/integrity.yaml.
struct IntegrityLimits {
  double tolerance = 0.05, timer_resolution_ms = 0.0005;
  double skipped_below = 0.5, excess_above = 4.0, fp32_flops_below = 0.1;
  std::vector<std::string> likely_causes;
};

struct Knowledge {
  std::shared_ptr<const hw::HwKnowledge> hw_ptr;  // shared with hw::hw_knowledge() (or the door's)
  Problems problems;                              // data/kernel/problems.yaml
  std::vector<Candidate> candidates;              // data/kernel/optimizations.yaml
  IntegrityLimits integrity;                      // data/kernel/integrity.yaml
  Json iteration_schema;                          // data/kernel/iteration.schema.json
  std::string readme_template, plan_template;     // data/kernel/readme_template.md, plan_template.md
  const hw::HwKnowledge& hw() const { return *hw_ptr; }

  // Parses every data/kernel/ file above now (no cache) beside the given hardware part: an
  // unreadable or malformed file is a Malformed/NotFound error naming it (and the line for YAML).
  static Result<Knowledge> load(std::shared_ptr<const hw::HwKnowledge> hw);
};

// The process's kernel knowledge: loaded on first use with hw::hw_knowledge(), then shared (one
// load per data directory: --data-dir / GOBLIN_DATA_DIR). Thread-safe; a failed load is not cached.
Result<std::shared_ptr<const Knowledge>> knowledge();
// How many times Knowledge::load() ran in this process (tests: loaded once for several verbs).
int64_t knowledge_loads();

}  // namespace goblin::kernel
