// The hardware knowledge context (hw/knowledge.h): the hw module's data files parsed once per
// process and data directory.
#include "hw/knowledge.h"

#include <mutex>

#include "core/data.h"

namespace goblin::hw {

Result<std::vector<GpuSpec>> HwKnowledge::gpu_db() const {
  if (gpus_error) return *gpus_error;
  return gpus;
}

Result<GpuSpec> HwKnowledge::gpu(std::string_view name) const {
  if (gpus_error) return *gpus_error;
  return lookup_gpu_in(gpus, name);
}

MeasuredCeilings HwKnowledge::measured(const GpuSpec& g) const {
  auto it = ceilings.find(g.id);
  return it == ceilings.end() ? MeasuredCeilings{} : it->second;
}

ArchNames load_arch_names() {
  ArchNames a;
  if (auto text = load_data_file("gpu_arch_names.yaml"); text.ok()) {
    parse_arch_sections(*text, a);
    parse_vendor_markers(*text, a);
  }
  return a;
}

HwKnowledge HwKnowledge::load() {
  HwKnowledge k;
  if (auto text = load_data_file("gpus.yaml"); !text.ok()) {
    k.gpus_error = text.error();
  } else if (auto db = parse_gpu_db(*text); !db.ok()) {
    k.gpus_error = db.error();
  } else {
    k.gpus = std::move(*db);
  }
  for (const auto& g : k.gpus) {
    const std::string rel = measured_ceilings_file(g.id);
    auto text = load_data_file(rel);
    if (!text.ok()) continue;
    if (MeasuredCeilings m = parse_measured_ceilings(*text, rel); !m.file.empty())
      k.ceilings.emplace(g.id, std::move(m));
  }
  k.arch = load_arch_names();
  if (auto text = load_data_file("ncu_rules.yaml"); !text.ok())
    k.ncu_rules = text.error();
  else
    k.ncu_rules = parse_ncu_rules(*text);
  if (auto text = load_data_file("ncu_metric_schema.yaml"); !text.ok())
    k.ncu_metric_schema = text.error();
  else
    k.ncu_metric_schema = parse_metric_schema(*text);
  if (auto text = load_data_file("op_models.yaml"); !text.ok())
    k.op_models = text.error();
  else
    k.op_models = parse_op_models(*text);
  if (auto text = load_data_file("rocprof_compute_metrics.yaml"); !text.ok())
    k.rocprof_compute_map = text.error();
  else
    k.rocprof_compute_map = parse_rocprof_compute_map(*text);
  return k;
}

namespace {
std::mutex g_mu;
std::string g_dir;
std::shared_ptr<const HwKnowledge> g_cached;
}  // namespace

std::shared_ptr<const HwKnowledge> hw_knowledge() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_cached || g_dir != data_dir_override()) {
    g_cached = std::make_shared<const HwKnowledge>(HwKnowledge::load());
    g_dir = data_dir_override();
  }
  return g_cached;
}

void reset_hw_knowledge() {
  std::lock_guard<std::mutex> lock(g_mu);
  g_cached.reset();
}

}  // namespace goblin::hw
