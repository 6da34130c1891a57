// The GPU vendor, one enum for every module (analysis's triage, audit's rule guards, run's
// detection report it as text through vendor_name).
#pragma once
#include <string_view>

namespace goblin {

enum class Vendor { Unknown, Nvidia, Amd };

// "nvidia" | "amd" | "unknown".
const char* vendor_name(Vendor v);

// From a GPU's name as profilers and tools print it ("NVIDIA H100 80GB HBM3", "AMD Instinct
// MI300X", "gfx942"); Unknown when the name does not say. NVIDIA names are checked first.
Vendor vendor_from_gpu_name(std::string_view name);

}  // namespace goblin
