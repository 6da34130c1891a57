// A GPU's architecture id ("sm_90", "gfx942") from its name or its device properties, from data
// rather than C++ tables: data/gpus.yaml's aliases (exact, folded) and match facts (CUs, memory),
// data/gpu_arch_names.yaml's name fragments, HIP compute-capability targets and the AMD
// generations / compatible pairs that decide triage's arch_match.
#pragma once
#include <string>
#include <string_view>

#include "hw/vendor.h"
#include "model/timeline.h"

namespace goblin::hw {

struct HwKnowledge;

// Each function reads the architecture tables from a hardware knowledge context (hw/knowledge.h);
// the overloads without one read the process's (hw_knowledge(): tests, one-shot tools).

// "" when neither data file knows the name (or a data file cannot be read: the caller then
// treats the architecture as unobserved, as for an unknown GPU).
std::string arch_of(const HwKnowledge& k, std::string_view gpu_name);
std::string arch_of(std::string_view gpu_name);

// AMD: the LLVM target of a device from HIP's major.minor (computeMajor/Minor), narrowed by the
// devices of data/gpus.yaml with that target family and the device's CU count and memory, else
// the `assume` target of data/gpu_arch_names.yaml § hip_compute. arch "" when ambiguous (9.0:
// gfx900 .. gfx90c); `how` says which facts decided.
struct ArchFromCompute {
  std::string arch;
  std::string how;
};
ArchFromCompute arch_from_hip_compute(const HwKnowledge& k, const DeviceInfo& d);
ArchFromCompute arch_from_hip_compute(const DeviceInfo& d);

// Observed architecture of a device: DeviceInfo::arch when the reader set it; the device name
// through data (hw::arch_of); NVIDIA computeMajor/Minor → "sm_<major><minor>"; AMD HIP
// major.minor → hw::arch_from_hip_compute (9.4 → gfx942, 9.5 → gfx950; 9.0 is ambiguous and
// yields "" with a reason). `vendor_hint` (vendor_of_timeline) decides which path applies when the
// name is empty.
struct ObservedArch {
  std::string arch;    // "" when unknown
  std::string vendor;  // nvidia | amd | unknown
  std::string how;     // how it was derived
};
ObservedArch observe_arch(const hw::HwKnowledge& k, const DeviceInfo& d, Vendor vendor_hint);
ObservedArch observe_arch(const DeviceInfo& d, Vendor vendor_hint);

struct ArchMatch {
  std::string match;   // exact | compatible | unknown
  std::string reason;  // hardware_relevance_reason
};
// exact: same arch string (case, ":feature" suffixes ignored); compatible: same vendor and same
// generation (NVIDIA same major, e.g. sm_90 vs sm_90a; AMD same CDNA generation from
// data/gpu_arch_names.yaml § amd_generations), or an AMD pair listed in § compatible_pairs
// (gfx942 vs gfx950) with its differences in the reason; unknown otherwise (including when either
// side is unknown).
ArchMatch match_arch(const hw::HwKnowledge& k, const std::string& observed, const std::string& target);
ArchMatch match_arch(const std::string& observed, const std::string& target);

}  // namespace goblin::hw
