#include "hw/rocprof_compute_map.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <optional>

#include "core/json.h"

namespace goblin::hw {

Result<RocprofComputeMap> parse_rocprof_compute_map(const std::string& text) {
  RocprofComputeMap m;
  try {
    YAML::Node n = YAML::Load(text);
    for (const auto& t : n["targets"]) {
      RocprofComputeTarget target;
      target.key = t["key"].as<std::string>();
      target.unit = t["unit"] ? t["unit"].as<std::string>() : std::string();
      if (t["combine"] && t["combine"].as<std::string>() != "max")
        return make_error(ErrorKind::Malformed,
                          "rocprof_compute_metrics.yaml: target " + target.key + ": only combine: max is known",
                          "data/rocprof_compute_metrics.yaml");
      for (const auto& s : t["from"]) {
        RocprofComputeSource src;
        src.metric = s["metric"].as<std::string>();
        if (s["over"]) src.over = s["over"].as<std::string>();
        if (s["scale"]) src.scale = s["scale"].as<double>();
        src.definition = s["definition"].as<std::string>();
        if (src.definition.empty())
          return make_error(ErrorKind::Malformed,
                            "rocprof_compute_metrics.yaml: " + src.metric + " has no AMD definition",
                            "data/rocprof_compute_metrics.yaml");
        target.from.push_back(std::move(src));
      }
      m.targets.push_back(std::move(target));
    }
    if (auto r = n["roofline"]) {
      for (const auto& f : r["flop_rates"]) m.flop_rates.push_back(f.as<std::string>());
      m.hbm_bandwidth = r["hbm_bandwidth"].as<std::string>();
      m.bench_hbm = r["benchmark"]["hbm"].as<std::string>();
      for (const auto& kv : r["benchmark"]["roofs"])
        m.bench_roofs.emplace_back(kv.first.as<std::string>(), kv.second.as<std::string>());
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("cannot parse rocprof_compute_metrics.yaml: ") + e.what(),
                      "data/rocprof_compute_metrics.yaml");
  }
  return m;
}

int add_schema_metrics(CounterKernel& k, const RocprofComputeMap& map) {
  int added = 0;
  for (const auto& t : map.targets) {
    if (k.get(t.key)) continue;  // the kernel's own metric wins
    std::optional<double> best;
    std::string from;
    for (const auto& s : t.from) {
      const double* v = k.get(s.metric);
      if (!v || !std::isfinite(*v)) continue;
      double x = *v;
      if (!s.over.empty()) {
        const double* d = k.get(s.over);
        if (!d || !std::isfinite(*d) || *d <= 0) continue;
        x = x / *d * s.scale;
      } else {
        x *= s.scale;
      }
      if (!best || x > *best) {
        best = x;
        from = s.over.empty() ? s.metric : s.metric + " / " + s.over;
      }
    }
    if (!best) continue;
    k.m[t.key] = *best;
    k.unit[t.key] = t.unit;
    k.source[t.key] = "rocprofiler-compute " + from;
    ++added;
  }
  return added;
}

std::optional<ComputePoint> rocprof_compute_point(const CounterKernel& k, const RocprofComputeMap& map) {
  const double* bw = k.get(map.hbm_bandwidth);
  if (!bw || !std::isfinite(*bw) || *bw <= 0) return std::nullopt;
  double gflops = 0;
  bool any = false;
  for (const auto& f : map.flop_rates) {
    if (const double* v = k.get(f); v && std::isfinite(*v) && *v >= 0) {
      gflops += *v;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return ComputePoint{gflops * 1e9, *bw * 1e9};
}

std::optional<EmpiricalRoofline> empirical_roofline(const std::string& bench_json, const RocprofComputeMap& map) {
  auto j = parse_json_text(bench_json, "roofline_bench_extdata", "rocprofiler-compute roofline benchmark");
  if (!j.ok() || !j->is_object()) return std::nullopt;
  auto num = [&](const std::string& key) -> std::optional<double> {
    auto it = j->find(key);
    if (it == j->end() || !it->is_number()) return std::nullopt;
    const double v = it->get<double>();
    return std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
  };
  auto hbm = num(map.bench_hbm);
  if (!hbm) return std::nullopt;
  EmpiricalRoofline r;
  r.hbm_gbps = *hbm;
  for (const auto& [label, key] : map.bench_roofs)
    if (auto v = num(key)) r.roofs_tflops.emplace_back(label, *v / 1000);
  return r;
}

}  // namespace goblin::hw
