#include "hw/vendor.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <regex>
#include <string>
#include <unordered_set>

#include "core/text.h"
#include "hw/knowledge.h"
#include "model/timeline.h"

namespace goblin::hw {

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

std::optional<std::string> decode_hip_version(std::string_view raw) {
  while (!raw.empty() && (raw.front() == ' ' || raw.front() == '"')) raw.remove_prefix(1);
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '"')) raw.remove_suffix(1);
  int64_t v = 0;
  auto [p, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
  if (ec != std::errc() || p != raw.data() + raw.size() || v < 10'000'000) return std::nullopt;
  return fmt::format("{}.{}.{}", v / 10'000'000, v / 100'000 % 100, v % 100'000);
}

void parse_vendor_markers(const std::string& yaml_text, ArchNames& out) {
  try {
    YAML::Node y = YAML::Load(yaml_text)["vendor_kernel_markers"];
    std::vector<std::string> amd, nvidia;
    if (y && y["amd"]) amd = y["amd"]["markers"].as<std::vector<std::string>>();
    if (y && y["nvidia"]) nvidia = y["nvidia"]["markers"].as<std::vector<std::string>>();
    out.amd_kernel_markers = std::move(amd);
    out.nvidia_kernel_markers = std::move(nvidia);
  } catch (const YAML::Exception&) {
    // No markers: library kernel names then decide nothing.
  }
}

VendorFinding vendor_of_timeline(const Timeline& tl) { return vendor_of_timeline(*hw::hw_knowledge(), tl); }

VendorFinding vendor_of_timeline(const hw::HwKnowledge& k, const Timeline& tl) {
  VendorFinding f;
  auto vote = [&](Vendor v, const std::string& what) {
    if (v == Vendor::Unknown) return;
    std::string line = what + " → " + vendor_name(v);
    if (f.vendor == Vendor::Unknown) {
      f.vendor = v;
      f.decided_by = what;
    } else if (v != f.vendor) {
      f.conflicts.push_back(line);
    }
    f.evidence.push_back(std::move(line));
  };
  // 1. device names, 2. architecture ids reported by the profiler.
  for (const auto& d : tl.meta.devices)
    if (!d.name.empty()) vote(vendor_from_gpu_name(d.name), fmt::format("device {} name '{}'", d.id, d.name));
  for (const auto& d : tl.meta.devices) {
    std::string a = ascii_lower(d.arch);
    if (a.rfind("gfx", 0) == 0) vote(Vendor::Amd, fmt::format("device {} arch {}", d.id, d.arch));
    if (a.rfind("sm_", 0) == 0) vote(Vendor::Nvidia, fmt::format("device {} arch {}", d.id, d.arch));
  }
  // 3. version metadata.
  for (const auto& [k, v] : tl.meta.versions) {
    std::string key = ascii_lower(k);
    if (key.find("rocm") != std::string::npos || key.find("hip") != std::string::npos ||
        key.find("roctracer") != std::string::npos || key.find("rocprof") != std::string::npos)
      vote(Vendor::Amd, "trace metadata " + k + "_version " + v);
    else if (key.find("cuda") != std::string::npos || key.find("cupti") != std::string::npos)
      vote(Vendor::Nvidia, "trace metadata " + k + "_version " + v);
  }
  // 4. runtime API names (one vote per vendor, with a count).
  int64_t hip = 0, cuda = 0;
  std::string hip_ex, cuda_ex;
  std::unordered_set<StrId> seen;
  for (size_t i = 0; i < tl.runtime.size(); ++i) {
    std::string_view n = tl.str(tl.runtime.name[i]);
    if (n.rfind("hip", 0) == 0 || n.rfind("hsa_", 0) == 0) {
      ++hip;
      if (hip_ex.empty()) hip_ex = n;
    } else if (n.rfind("cuda", 0) == 0 || n.rfind("cu", 0) == 0) {
      ++cuda;
      if (cuda_ex.empty()) cuda_ex = n;
    }
  }
  if (hip) vote(Vendor::Amd, fmt::format("{} HIP runtime calls ({}, ...)", hip, hip_ex));
  if (cuda) vote(Vendor::Nvidia, fmt::format("{} CUDA runtime/driver calls ({}, ...)", cuda, cuda_ex));
  // 5. warp size.
  for (const auto& d : tl.meta.devices)
    if (d.warp_size == 64)
      vote(Vendor::Amd, fmt::format("warpSize 64 (device {}): an AMD wavefront; NVIDIA warps are 32", d.id));
  // 6. library kernel names.
  int64_t amd_k = 0, nv_k = 0;
  std::string amd_ex, nv_ex;
  const hw::ArchNames& m = k.arch;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    if (!seen.insert(tl.gpu_ops.name[i]).second) continue;
    std::string n = ascii_lower(tl.str(tl.gpu_ops.name[i]).substr(0, 200));
    for (const auto& s : m.amd_kernel_markers)
      if (n.find(s) != std::string::npos) {
        if (!amd_k++) amd_ex = s;
        break;
      }
    for (const auto& s : m.nvidia_kernel_markers)
      if (n.find(s) != std::string::npos) {
        if (!nv_k++) nv_ex = s;
        break;
      }
  }
  if (amd_k) vote(Vendor::Amd, fmt::format("{} distinct kernel names of AMD libraries ('{}', ...)", amd_k, amd_ex));
  if (nv_k) vote(Vendor::Nvidia, fmt::format("{} distinct kernel names of NVIDIA libraries ('{}', ...)", nv_k, nv_ex));
  // 7. input formats.
  for (Format fm : tl.meta.formats) {
    if (fm == Format::RocprofV3Csv || fm == Format::RocprofV3Json || fm == Format::RocprofV1 || fm == Format::Rocpd ||
        fm == Format::RocprofCompute || fm == Format::AmdSmi || fm == Format::RocmSmi)
      vote(Vendor::Amd, std::string("input format ") + format_name(fm));
    if (fm == Format::NsysSqlite || fm == Format::NcuCsv || fm == Format::NvidiaSmi)
      vote(Vendor::Nvidia, std::string("input format ") + format_name(fm));
  }
  return f;
}

}  // namespace goblin::hw
