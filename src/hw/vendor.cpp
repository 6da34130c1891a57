#include "hw/vendor.h"

#include <regex>
#include <string>

namespace goblin {

const char* vendor_name(Vendor v) {
  switch (v) {
    case Vendor::Nvidia:
      return "nvidia";
    case Vendor::Amd:
      return "amd";
    default:
      return "unknown";
  }
}

Vendor vendor_from_gpu_name(std::string_view name) {
  static const std::regex amd("(AMD|Instinct|Radeon|MI[0-9]{3}|gfx[0-9])", std::regex::icase);
  static const std::regex nv("(NVIDIA|GeForce|Tesla|H100|H200|A100|B200|L40)", std::regex::icase);
  const std::string n(name);
  if (std::regex_search(n, nv)) return Vendor::Nvidia;
  if (std::regex_search(n, amd)) return Vendor::Amd;
  return Vendor::Unknown;
}

}  // namespace goblin
