// `goblin triage`: the triage artifact contract (README, docs/metrics.md) over one timeline.
//   profile_summary.md, profile_metadata.json, kernel_table.json, overlap_opportunities.json,
//   fuse_opportunities.json (JSON arrays), written to one directory.
// Window: the whole trace, all devices (per-device busy/overlap figures in the summary).
#pragma once
#include <string>
#include <vector>

#include "analysis/exposure.h"
#include "analysis/kernel_table.h"
#include "analysis/opportunities.h"
#include "core/json.h"
#include "core/status.h"
#include "model/timeline.h"

namespace goblin {

// Observed architecture of a device: DeviceInfo::arch when the reader set it; NVIDIA
// computeMajor/Minor → "sm_<major><minor>"; AMD HIP major.minor → gfx9.4 = "gfx942",
// 9.5 = "gfx950"; gfx9.0 is ambiguous (gfx900/906/908/90a) and yields "" with a reason.
struct ObservedArch {
  std::string arch;    // "" when unknown
  std::string vendor;  // nvidia | amd | unknown
  std::string how;     // how it was derived
};
ObservedArch observe_arch(const DeviceInfo& d, Vendor vendor_hint);

struct ArchMatch {
  std::string match;   // exact | compatible | unknown
  std::string reason;  // hardware_relevance_reason
};
// exact: same arch string (case, ":feature" suffixes ignored); compatible: same vendor and same
// generation (NVIDIA same major, e.g. sm_90 vs sm_90a; AMD same CDNA generation: gfx908 |
// gfx90a | gfx940-942 | gfx950); unknown otherwise (including when either side is unknown).
ArchMatch match_arch(const std::string& observed, const std::string& target);

struct TriageOptions {
  std::string stage;        // --stage (else inferred from the file name: prefill/extend/decode)
  std::string target_arch;  // --target-arch
  std::string source_path;  // the trace path (made absolute)
  int top = 15;             // rows in the readable summary
};

struct TriageReport {
  ExposureResult exposure;
  LaunchAttribution attribution;
  KernelTableResult kernels;
  std::vector<OverlapRow> overlap;
  std::vector<FuseRow> fuse;
  Vendor vendor = Vendor::Unknown;
  Json metadata;  // profile_metadata.json
  std::string summary_md;
  std::vector<std::string> notes;  // degraded-mode explanations (taxonomy missing, ...)
};

// Runs every analysis. Errors only for unusable data files.
Result<TriageReport> run_triage(const Timeline& tl, const TriageOptions& opt);

Json kernel_table_to_json(const KernelTableResult& kt);
Json overlap_table_to_json(const std::vector<OverlapRow>& rows);
Json fuse_table_to_json(const std::vector<FuseRow>& rows);

// Writes the five artifacts into `dir` (created if missing).
Status write_triage_artifacts(const TriageReport& r, const std::string& dir);

// Terminal summary (top kernels, busy/idle, top opportunities).
std::string triage_human_summary(const TriageReport& r, int top);

}  // namespace goblin
