#include "hw/arch.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>
#include <vector>

#include "core/text.h"
#include "hw/gpu_specs.h"
#include "hw/knowledge.h"

namespace goblin::hw {

void parse_arch_sections(const std::string& yaml_text, ArchNames& out) {
  ArchNames a;
  try {
    YAML::Node y = YAML::Load(yaml_text);
    for (const auto& n : y["fragments"])
      a.fragments.emplace_back(ascii_lower(n["fragment"].as<std::string>()), n["arch"].as<std::string>());
    for (const auto& n : y["hip_compute"]) {
      ArchNames::HipCompute h;
      h.major = n["major"].as<int>();
      h.minor = n["minor"].as<int>();
      h.targets = n["targets"].as<std::vector<std::string>>();
      if (n["assume"]) h.assume = n["assume"].as<std::string>();
      if (n["assume_reason"]) h.assume_reason = n["assume_reason"].as<std::string>();
      a.hip_compute.push_back(std::move(h));
    }
    for (const auto& n : y["amd_generations"])
      for (const auto& t : n["targets"])
        a.generation_of.emplace_back(t.as<std::string>(), "amd " + n["generation"].as<std::string>());
    for (const auto& n : y["amd_generation_prefixes"])
      a.generation_prefixes.push_back({n["prefix"].as<std::string>(), "amd " + n["generation"].as<std::string>()});
    for (const auto& n : y["compatible_pairs"]) {
      auto t = n["targets"].as<std::vector<std::string>>();
      if (t.size() == 2) a.compatible.push_back({t[0], t[1], n["reason"].as<std::string>()});
    }
  } catch (const YAML::Exception&) {
    return;  // all arch sections empty: the architecture is then unobserved, never a guess
  }
  out.fragments = std::move(a.fragments);
  out.hip_compute = std::move(a.hip_compute);
  out.generation_of = std::move(a.generation_of);
  out.generation_prefixes = std::move(a.generation_prefixes);
  out.compatible = std::move(a.compatible);
}

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::string arch_of(std::string_view gpu_name) { return arch_of(*hw_knowledge(), gpu_name); }

std::string arch_of(const HwKnowledge& k, std::string_view gpu_name) {
  if (gpu_name.empty()) return "";
  if (auto g = k.gpu(gpu_name); g && !g->arch_id.empty()) return g->arch_id;
  const std::string n = ascii_lower(std::string(gpu_name));
  for (const auto& [frag, arch] : k.arch.fragments)
    if (n.find(frag) != std::string::npos) return arch;
  return "";
}

ArchFromCompute arch_from_hip_compute(const DeviceInfo& d) { return arch_from_hip_compute(*hw_knowledge(), d); }

ArchFromCompute arch_from_hip_compute(const HwKnowledge& k, const DeviceInfo& d) {
  ArchFromCompute r;
  const std::string mm = fmt::format("{}.{}", d.compute_major, d.compute_minor);
  const ArchNames::HipCompute* hc = nullptr;
  for (const auto& h : k.arch.hip_compute)
    if (h.major == d.compute_major && h.minor == d.compute_minor) hc = &h;
  if (!hc || hc->targets.empty()) {
    r.how = "HIP major.minor " + mm + " is not in data/gpu_arch_names.yaml § hip_compute";
    return r;
  }
  if (hc->targets.size() == 1) {
    r.arch = hc->targets[0];
    r.how = "HIP major.minor " + mm + " → " + r.arch + " (the only target, data/gpu_arch_names.yaml § hip_compute)";
    return r;
  }
  // Narrow with the spec database: GPUs whose arch_id is one of the targets and whose CU count and
  // memory match the device (one MI250X GCD shows half the module's CUs).
  std::set<std::string> archs;
  std::string ids;
  if (d.num_sms > 0) {
    for (const auto& g : k.gpus) {
      if (std::find(hc->targets.begin(), hc->targets.end(), ascii_lower(g.arch_id)) == hc->targets.end()) continue;
      const bool gcd = g.match_devices_per_module > 1 && d.num_sms * g.match_devices_per_module == g.match_sm_count;
      if (g.match_sm_count > 0 && g.match_sm_count != d.num_sms && !gcd) continue;
      if (!gcd && d.total_memory_bytes > 0 && g.match_mem_gb_min > 0) {
        double gb = static_cast<double>(d.total_memory_bytes) / 1e9;
        if (gb < g.match_mem_gb_min || gb > g.match_mem_gb_max) continue;
      }
      archs.insert(ascii_lower(g.arch_id));
      ids += (ids.empty() ? "" : ", ") + g.id + (gcd ? " (one GCD)" : "");
    }
  }
  std::string mem;
  if (d.total_memory_bytes > 0) mem = fmt::format(", {:.1f} GB", static_cast<double>(d.total_memory_bytes) / 1e9);
  if (archs.size() == 1) {
    r.arch = *archs.begin();
    r.how = "HIP major.minor " + mm + " (" + join(hc->targets) + ") and " + fmt::format("{}", d.num_sms) + " CUs" +
            mem + " match " + ids + " in data/gpus.yaml → " + r.arch;
    return r;
  }
  if (!hc->assume.empty()) {
    r.arch = hc->assume;
    r.how = "HIP major.minor " + mm + " → " + r.arch + ": " + hc->assume_reason +
            " (data/gpu_arch_names.yaml § hip_compute; no GPU of data/gpus.yaml matches the device's CUs/memory)";
    return r;
  }
  r.how = "HIP major.minor " + mm + " names several gfx targets (" + join(hc->targets) +
          ") and the device's CUs/memory match none of data/gpus.yaml; the trace does not say which";
  return r;
}

namespace {

bool has(std::string_view h, std::string_view n) { return h.find(n) != std::string_view::npos; }

std::string norm_arch(std::string a) {
  a = ascii_lower(a);
  size_t c = a.find(':');
  if (c != std::string::npos) a = a.substr(0, c);
  while (!a.empty() && a.back() == ' ') a.pop_back();
  return a;
}

// Generation of an arch string, for "compatible": NVIDIA by compute-capability major, AMD from
// data/gpu_arch_names.yaml.
std::string generation(const hw::HwKnowledge& k, const std::string& a) {
  if (a.rfind("sm_", 0) == 0) {
    std::string d;
    for (char c : a.substr(3))
      if (std::isdigit(static_cast<unsigned char>(c))) d.push_back(c);
    if (d.size() >= 2) return "nvidia sm_" + d.substr(0, d.size() - 1) + "x";
    return "";
  }
  for (const auto& [t, g] : k.arch.generation_of)
    if (t == a) return g;
  for (const auto& p : k.arch.generation_prefixes)
    if (a.rfind(p.prefix, 0) == 0) return p.generation;
  return "";
}

}  // namespace

ObservedArch observe_arch(const DeviceInfo& d, Vendor hint) { return observe_arch(*hw::hw_knowledge(), d, hint); }

ObservedArch observe_arch(const hw::HwKnowledge& k, const DeviceInfo& d, Vendor hint) {
  ObservedArch o;
  std::string n = ascii_lower(d.name);
  Vendor v = hint;
  if (has(n, "nvidia") || has(n, "tesla") || has(n, "quadro") || has(n, "geforce")) v = Vendor::Nvidia;
  if (has(n, "amd") || has(n, "radeon") || has(n, "instinct")) v = Vendor::Amd;
  if (!d.arch.empty()) {
    o.arch = norm_arch(d.arch);
    o.vendor = o.arch.rfind("gfx", 0) == 0 ? "amd" : o.arch.rfind("sm_", 0) == 0 ? "nvidia" : vendor_name(v);
    o.how = "device properties (arch reported by the profiler)";
    return o;
  }
  o.vendor = vendor_name(v);
  if (v == Vendor::Nvidia && d.compute_major >= 0) {
    o.arch = fmt::format("sm_{}{}", d.compute_major, d.compute_minor);
    o.how = fmt::format("computeMajor {} / computeMinor {}", d.compute_major, d.compute_minor);
    return o;
  }
  if (v != Vendor::Nvidia && !d.name.empty()) {
    if (std::string a = hw::arch_of(k, d.name); !a.empty()) {
      o.arch = a;
      if (o.vendor == "unknown") o.vendor = a.rfind("gfx", 0) == 0 ? "amd" : "nvidia";
      o.how = "device name '" + d.name + "' → " + a + " (data/gpus.yaml aliases, data/gpu_arch_names.yaml fragments)";
      return o;
    }
  }
  if (d.compute_major < 0) {
    o.how = "device properties carry no architecture";
    return o;
  }
  if (v == Vendor::Amd) {
    hw::ArchFromCompute a = hw::arch_from_hip_compute(k, d);
    o.arch = a.arch;
    o.how = a.how;
  } else {
    o.how = "vendor unknown; computeMajor/Minor alone do not name an architecture";
  }
  return o;
}

ArchMatch match_arch(const std::string& observed, const std::string& target) {
  return match_arch(*hw::hw_knowledge(), observed, target);
}

ArchMatch match_arch(const hw::HwKnowledge& k, const std::string& observed, const std::string& target) {
  std::string o = norm_arch(observed), t = norm_arch(target);
  if (t.empty()) return {"unknown", "no --target-arch given: relevance to the target hardware is not established"};
  if (o.empty())
    return {"unknown", "the trace does not reveal its GPU architecture, so relevance to " + t + " is unknown"};
  if (o == t)
    return {"exact", "profiled on " + o + ", the target architecture: kernel choices and timings apply directly"};
  std::string go = generation(k, o), gt = generation(k, t);
  if (!go.empty() && go == gt)
    return {"compatible", "same generation (" + go + ") but not the same target (" + o + " vs " + t +
                              "): structure and overlap findings transfer; library kernel selection, tuned configs "
                              "and absolute timings may differ"};
  for (const auto& p : k.arch.compatible)
    if ((p.a == o && p.b == t) || (p.a == t && p.b == o))
      return {"compatible", "profiled on " + o + (go.empty() ? "" : " (" + go + ")") + ", target " + t +
                                (gt.empty() ? "" : " (" + gt + ")") + ": " + p.reason +
                                " (data/gpu_arch_names.yaml § compatible_pairs)"};
  return {"unknown", o + (go.empty() ? "" : " (" + go + ")") + " differs from the target " + t +
                         (gt.empty() ? "" : " (" + gt + ")") +
                         ": timings and kernel choices do not transfer; use the profile for structure only"};
}

}  // namespace goblin::hw
