#include "hw/measured_ceilings.h"

#include <cctype>

#include "core/data.h"
#include "core/json.h"

namespace goblin {

MeasuredCeilings measured_ceilings_for(const GpuSpec& g) {
  MeasuredCeilings m;
  std::string f = g.id;
  for (auto& c : f) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  f = "measured/" + f + ".json";
  auto t = load_data_file(f);
  if (!t.ok()) return m;
  Json j = Json::parse(*t, nullptr, false);
  if (!j.is_object()) return m;
  m.file = "data/" + f;
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

}  // namespace goblin
