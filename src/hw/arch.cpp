#include "hw/arch.h"

#include <yaml-cpp/yaml.h>

#include <utility>
#include <vector>

#include "core/data.h"
#include "core/text.h"
#include "hw/gpu_specs.h"

namespace goblin::hw {

namespace {

// data/gpu_arch_names.yaml's fragments, in file order; empty when the file is missing or broken.
const std::vector<std::pair<std::string, std::string>>& fragments() {
  static const std::vector<std::pair<std::string, std::string>> f = [] {
    std::vector<std::pair<std::string, std::string>> out;
    auto text = load_data_file("gpu_arch_names.yaml");
    if (!text) return out;
    try {
      for (const auto& n : YAML::Load(*text)["fragments"])
        out.emplace_back(ascii_lower(n["fragment"].as<std::string>()), n["arch"].as<std::string>());
    } catch (const YAML::Exception&) {
      out.clear();
    }
    return out;
  }();
  return f;
}

}  // namespace

std::string arch_of(std::string_view gpu_name) {
  if (gpu_name.empty()) return "";
  if (auto g = lookup_gpu(gpu_name); g && !g->arch_id.empty()) return g->arch_id;
  const std::string n = ascii_lower(std::string(gpu_name));
  for (const auto& [frag, arch] : fragments())
    if (n.find(frag) != std::string::npos) return arch;
  return "";
}

}  // namespace goblin::hw
