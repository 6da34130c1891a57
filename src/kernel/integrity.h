// Honest measurement (docs/kernel.md § Honest measurement, issue #29): what goblin checks of a
// bench before it reports or records it, on top of the harness's own checks (input rotation,
// every output checked, work left on other streams, wall clock vs events, timer identity,
// held-out shapes): a throughput above the platform's physical roofline is refused, `record`
// refuses a bench that failed any check or was made of another kernel.py, and `profile`
// compares ncu's DRAM bytes (and SIMT FLOPs) with the problem's formula.
#pragma once
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "kernel/knowledge.h"
#include "kernel/workspace.h"

namespace goblin::kernel {

// {"passed", "problems": [{"check", "message"}], "harness_checks"}: the harness's findings
// (raw["integrity"]; absent from benches of harness 1, then harness_checks is false) plus the
// physical limits (data/kernel/integrity.yaml: Knowledge::integrity) for a median latency (none
// when nothing was timed).
Json bench_integrity(const Json& raw, const Config& cfg, const double* median_ms, const IntegrityLimits& lim);
// The lines bench prints about the checks, and the error a failed check turns the bench into.
std::string integrity_human(const Json& summary);
std::string integrity_error(const Json& integrity);

// What record refuses (Workload error): a failed integrity check, a failed held-out shape or
// seed, and (for the workspace's own bench) a kernel.py that changed since it was benched.
// Returns the notes for the record's pitfalls (checks an older harness did not run).
Result<std::vector<std::string>> check_recordable(const std::string& ws, const Json& bench, const Json& summary,
                                                  bool own_bench);

// profile: ncu's DRAM bytes (and SIMT FP32 FLOPs) per kernel() call against the formula.
// {"dram_bytes_per_call", "ideal_bytes", "ratio", "flags": [...]}; null when ncu gave no DRAM bytes.
// The flag thresholds are lim's (Knowledge::integrity).
Json work_done(const std::string& csv, const Config& cfg, int launches, const IntegrityLimits& lim);
std::string work_done_human(const Json& w);

}  // namespace goblin::kernel
