#include "hw/measured_ceilings.h"

#include <cctype>

#include "core/data.h"
#include "hw/knowledge.h"

namespace goblin::hw {

std::string measured_ceilings_file(const std::string& gpu_id) {
  std::string f = gpu_id;
  for (auto& c : f) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "measured/" + f + ".json";
}

MeasuredCeilings parse_measured_ceilings(const std::string& text, const std::string& rel) {
  MeasuredCeilings m;
  Json j = Json::parse(text, nullptr, false);
  if (!j.is_object()) return m;
  m.json = j;
  m.origin = data_file_origin(rel);
  m.file = "data/" + rel;
  if (j.contains("copy_bandwidth_gbs") && j["copy_bandwidth_gbs"].is_number())
    m.copy_gbs = j["copy_bandwidth_gbs"].get<double>();
  if (j.contains("gemm") && j["gemm"].is_array())
    for (const auto& x : j["gemm"]) {
      if (!x.is_object() || !x.contains("tflops") || !x["tflops"].is_number()) continue;
      std::string dt = x.value("dtype", std::string());
      if (dt == "fp32" && x.value("allow_tf32", false)) dt = "tf32";
      MeasuredCeilings::Gemm gm;
      gm.median = x["tflops"].get<double>();
      gm.best = x.contains("tflops_best") && x["tflops_best"].is_number() ? x["tflops_best"].get<double>() : gm.median;
      if (!dt.empty()) m.gemm[dt] = gm;
    }
  return m;
}

}  // namespace goblin::hw
