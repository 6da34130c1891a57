// How the audit gets measurements: a Runner profiles or benchmarks a WorkloadConfig and returns
// RunMetrics. The replay runner (recorded artefacts) and the live runner (src/run/, issue 5) sit
// behind this one interface so `goblin audit` takes the same code path either way.
#pragma once
#include <optional>
#include <string>

#include "analysis/run_metrics.h"
#include "audit/workload_config.h"
#include "core/status.h"

namespace goblin::audit {

class Runner {
 public:
  virtual ~Runner() = default;
  // Short profiled run (seed 000's profile_run): RunMetrics with a waste budget.
  virtual Result<RunMetrics> profile(const WorkloadConfig& config) = 0;
  // Benchmark run (seed 000's benchmark) of `config`: the original or the patched config.
  virtual Result<RunMetrics> bench(const WorkloadConfig& config) = 0;
  // "replay" or "live": recorded in the report's validity footer.
  virtual std::string kind() const = 0;
  // The config the last profile()/bench() really ran, when it differs from the one requested (a
  // replay maps a config onto the nearest recorded run). nullopt: exactly the requested config.
  virtual std::optional<WorkloadConfig> last_run_config() const { return std::nullopt; }
};

}  // namespace goblin::audit
