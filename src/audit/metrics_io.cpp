#include "audit/metrics_io.h"

#include "audit/rules.h"
#include "core/io.h"

namespace goblin::audit {

Result<RunMetrics> metrics_from_json(const Json& j0, const std::string& file) {
  const Json* j = &j0;
  if (j->is_object() && j->contains("ok") && j->contains("result")) {
    if (!(*j)["ok"].get<bool>())
      return make_error(ErrorKind::Malformed, "the metrics file holds a failed result (ok=false)", file);
    j = &(*j)["result"];
  }
  if (j->is_object() && j->contains("metrics") && (*j)["metrics"].is_object()) j = &(*j)["metrics"];
  if (!j->is_object()) return make_error(ErrorKind::Malformed, "RunMetrics JSON is not an object", file);
  RunMetrics m;
  auto num = [&](const char* k) -> std::optional<double> {
    if (j->contains(k) && (*j)[k].is_number()) return (*j)[k].get<double>();
    return std::nullopt;
  };
  if (auto v = num("step_time_s")) m.step_time_s = *v;
  m.tokens_per_sec = num("tokens_per_sec");
  m.mfu_pct = num("mfu_pct");
  m.hbm_peak_gb = num("hbm_peak_gb");
  m.hbm_avg_gb = num("hbm_avg_gb");
  if (auto v = num("gpu_util_pct")) m.gpu_util_pct = *v;
  if (j->contains("attention_kernel_loaded") && (*j)["attention_kernel_loaded"].is_string())
    m.attention_kernel_loaded = (*j)["attention_kernel_loaded"];
  if (j->contains("gpu_name") && (*j)["gpu_name"].is_string()) m.gpu_name = (*j)["gpu_name"];
  if (j->contains("runner_kind") && (*j)["runner_kind"].is_string()) m.runner_kind = (*j)["runner_kind"];
  if (j->contains("window") && (*j)["window"].is_string()) m.window = (*j)["window"];
  if (j->contains("versions") && (*j)["versions"].is_object())
    for (auto& [k, v] : (*j)["versions"].items()) m.versions[k] = v.is_string() ? v.get<std::string>() : v.dump();
  if (j->contains("warnings") && (*j)["warnings"].is_array())
    for (const auto& w : (*j)["warnings"]) m.warnings.push_back(w.is_string() ? w.get<std::string>() : w.dump());
  if (j->contains("top_kernels") && (*j)["top_kernels"].is_array())
    for (const auto& k : (*j)["top_kernels"]) {
      TopKernel t;
      t.name = k.value("name", "");
      t.category = k.value("category", "");
      t.family = k.value("family", "");
      t.pct_time = k.value("pct_time", 0.0);
      t.time_s = k.value("time_s", 0.0);
      t.count = k.value("count", int64_t{0});
      m.top_kernels.push_back(t);
    }
  if (j->contains("steps") && (*j)["steps"].is_array())
    for (const auto& s : (*j)["steps"]) {
      StepMetrics st;
      st.name = s.value("name", "");
      st.wall_s = s.value("wall_s", 0.0);
      st.busy_s = s.value("busy_s", 0.0);
      st.partial = s.value("partial", false);
      m.steps.push_back(st);
    }
  WasteBudget& w = m.waste_budget;
  if (j->contains("waste_budget") && (*j)["waste_budget"].is_object()) {
    const Json& b = (*j)["waste_budget"];
    std::map<std::string, double*> f = {{"useful_gpu", &w.useful_gpu},
                                        {"data_wait", &w.data_wait},
                                        {"host_gap", &w.host_gap},
                                        {"comm_excess", &w.comm_excess},
                                        {"memory_headroom", &w.memory_headroom},
                                        {"precision_path", &w.precision_path},
                                        {"kernel_shape", &w.kernel_shape},
                                        {"unattributed", &w.unattributed}};
    if (b.contains("unobserved") && b["unobserved"].is_array())
      for (const auto& u : b["unobserved"])
        if (u.is_string()) w.unobserved.push_back(u);
    for (auto& [k, p] : f) {
      if (b.contains(k) && b[k].is_number())
        *p = b[k].get<double>();
      else if (std::find(w.unobserved.begin(), w.unobserved.end(), k) == w.unobserved.end())
        w.unobserved.push_back(k);
    }
  } else {
    w.unobserved = bucket_names();
  }
  if (m.step_time_s <= 0 && !m.tokens_per_sec)
    return make_error(ErrorKind::Malformed, "RunMetrics has neither step_time_s nor tokens_per_sec", file);
  return m;
}

Result<RunMetrics> load_metrics_file(const std::string& path) {
  auto text = read_all(path);
  if (!text) return text.error();
  Json j;
  try {
    j = Json::parse(*text);
  } catch (const Json::parse_error& e) {
    int64_t byte = static_cast<int64_t>(e.byte);
    int64_t line = 1 + std::count(text->begin(), text->begin() + std::min<int64_t>(byte, text->size()), '\n');
    return make_error(ErrorKind::Malformed, std::string("JSON: ") + e.what(), path, byte, line);
  }
  return metrics_from_json(j, path);
}

}  // namespace goblin::audit
