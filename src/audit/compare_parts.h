// Internal to the audit module: the pieces compare_runs (compare.cpp) assembles its report from,
// each small enough to read alone: metric rows, findings, the validity footer.
#pragma once
#include <initializer_list>
#include <optional>
#include <string>

#include "analysis/run_metrics.h"
#include "audit/report_types.h"
#include "audit/rules.h"
#include "config/workload_config.h"

namespace goblin::audit {

// v rounded to `digits` decimals (round_to), nullopt kept.
std::optional<double> rounded(std::optional<double> v, int digits);
// 1234567 → "1,234,567".
std::string fmt_thousands(double v);
// CUDA encodes versions as 1000 * major + 10 * minor: 13000 → "13.0". Anything else as written.
std::string readable_cuda_version(const std::string& v);
// The first non-empty version among `keys`, CUDA integers made readable.
std::string version_of(const analysis::RunMetrics& m, std::initializer_list<const char*> keys);
// Metrics computed from a profiler trace: the timings carry the profiler's overhead.
bool profiled(const analysis::RunMetrics& m);
bool has_budget(const analysis::RunMetrics& m);
DeltaRow delta_row(const std::string& metric, const std::string& unit, const std::string& better,
                   std::optional<double> b, std::optional<double> a, int digits);
// Appends a finding unless one with this id is there already.
void add_finding(std::vector<Finding>& findings, const std::string& id, const std::string& severity,
                 const std::string& title, const std::string& detail, const std::string& citation);
// The rule's citation when the rule base has it, else `fallback`.
std::string rule_citation(const RuleBase* kb, const std::string& id, const std::string& fallback);
// "0.50.1" >= 0.50?  Numeric dotted compare; nullopt when unparsable.
std::optional<bool> version_at_least(const std::string& v, int major, int minor);

// Findings the patched config itself raises: profiler variables set as tuning, bitsandbytes
// optimizers where ROCm support is version-gated.
void add_config_findings(std::vector<Finding>& findings, const config::WorkloadConfig& cfg,
                         const analysis::RunMetrics& B, const analysis::RunMetrics& A, const RuleBase* kb);

// The report's validity footer: GPU, driver, CUDA/ROCm, PyTorch and workload shape it holds for.
// `V` is the side whose GPU is reported (AFTER unless only BEFORE names one).
ValidityFooter validity_footer(const analysis::RunMetrics& V, const analysis::RunMetrics& B,
                               const config::WorkloadConfig& cfg, const std::string& workload,
                               const std::string& runner_kind);

}  // namespace goblin::audit
