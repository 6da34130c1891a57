// A workload's changes: the change points of one metric over its runs (store/change_point.h), each
// with the two runs around it, what changed between them by the trust fields, and the commands
// that reproduce both sides (docs/store.md § Change points). `goblin store trend` and the
// dashboard's home page read these.
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "store/change_point.h"
#include "store/store.h"

namespace goblin::store {

struct ChangeAlert {
  ChangePoint point;
  int64_t before_run = 0, after_run = 0;  // the last run before the change, the first after it
  std::string before_created, after_created;
  bool regression = false;  // worse by the metric's direction
  // "config changed" | "hardware or driver changed" | "real change" | "not checked": from the
  // trust fields of the two runs (a field unknown on either side is not checked, never "same").
  std::string classification;
  std::vector<std::string> changed_fields, unknown_fields;
  std::string reproduce_before, reproduce_after, compare;  // commands
};

// The runs a series is read from: the newest `limit` runs of the newest run's figure source.
inline constexpr int64_t kChangeSeriesLimit = 200;
Result<std::vector<ChangeAlert>> workload_changes(const Store& s, const std::string& workload,
                                                  const std::string& metric, const ChangePointOptions& o = {});
Json changes_to_json(const std::vector<ChangeAlert>& alerts);

// The trust fields (dashboard.md § Comparison): linkage base_image, resource_class, gpu_device_ids,
// server_flags, benchmark_config_hash; environment gpu, driver, cuda, rocm, pytorch.
bool higher_is_better_metric(const std::string& metric);
// The command that recomputes a stored run from its recorded inputs ("" when it read none).
std::string reproduce_command(const RunRecord& r);

}  // namespace goblin::store
