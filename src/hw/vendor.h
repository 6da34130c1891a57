// The GPU vendor, one enum for every module (analysis's triage, audit's rule guards, run's
// detection report it as text through vendor_name), and the vendor of a trace from every signal
// it carries.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace goblin {
class Timeline;
}  // namespace goblin

namespace goblin::hw {

struct HwKnowledge;

enum class Vendor { Unknown, Nvidia, Amd };

// "nvidia" | "amd" | "unknown".
const char* vendor_name(Vendor v);

// From a GPU's name as profilers and tools print it ("NVIDIA H100 80GB HBM3", "AMD Instinct
// MI300X", "gfx942"); Unknown when the name does not say. NVIDIA names are checked first.
Vendor vendor_from_gpu_name(std::string_view name);

// The vendor of a trace from every signal it carries, strongest first: device names, device
// architecture ids, version metadata (hip_runtime/hip_driver/roctracer/rocm vs
// cuda_runtime/cuda_driver/cupti keys), runtime API names (hip* vs cuda*/cu*), device warp size
// (64 is an AMD wavefront; NVIDIA warps are 32 threads, and so are RDNA's in wave32 mode, so 32
// decides nothing), library kernel names (data/gpu_arch_names.yaml § vendor_kernel_markers), the
// input formats. The first signal that names a vendor decides; `evidence` lists every signal
// found ("warpSize 64 (device 0)") and `conflicts` the ones that named the other vendor.
struct VendorFinding {
  Vendor vendor = Vendor::Unknown;
  std::string decided_by;  // the signal that decided, "" when none did
  std::vector<std::string> evidence;
  std::vector<std::string> conflicts;
};
// The kernel markers come from the hardware knowledge context (hw/knowledge.h); the overload
// without one reads the process's (tests, one-shot tools).
VendorFinding vendor_of_timeline(const hw::HwKnowledge& k, const Timeline& tl);
VendorFinding vendor_of_timeline(const Timeline& tl);

// HIP's version integers (hipRuntimeGetVersion / hipDriverGetVersion, Kineto's
// hip_runtime_version / hip_driver_version) are HIP_VERSION_MAJOR * 10000000 +
// HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH: "70253211" → "7.2.53211". nullopt when the
// text is not such an integer.
std::optional<std::string> decode_hip_version(std::string_view raw);

}  // namespace goblin::hw
