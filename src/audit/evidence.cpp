// Measured evidence for rule evaluation: RunMetrics → vendor, architecture, versions, buckets.
#include <map>

#include "audit/rules.h"
#include "hw/arch.h"
#include "hw/vendor.h"

namespace goblin::audit {

// ---- evidence ---------------------------------------------------------------------------------

std::string vendor_of(const analysis::RunMetrics& m) {
  if (hw::Vendor v = hw::vendor_from_gpu_name(m.gpu_name); v != hw::Vendor::Unknown) return hw::vendor_name(v);
  if (m.versions.count("rocm") || m.versions.count("hip")) return "amd";
  if (m.versions.count("cuda") || m.versions.count("cuda_runtime") || m.versions.count("cuda_driver")) return "nvidia";
  return "";
}

Evidence evidence_from_metrics(const analysis::RunMetrics* m, const analysis::Taxonomy& tax,
                               const std::string& vendor_hint) {
  Evidence ev;
  ev.vendor = vendor_hint;
  if (!m) return ev;
  ev.have_metrics = true;
  ev.versions = m->versions;
  if (ev.vendor.empty()) ev.vendor = vendor_of(*m);
  ev.arch = m->versions.count("arch") ? m->versions.at("arch") : hw::arch_of(m->gpu_name);
  ev.step_time_s = m->step_time_s;
  if (m->gpu_activity) ev.metrics["gpu_util_pct"] = m->gpu_util_pct;  // no GPU activity: unobserved
  if (m->step_time_s > 0) {
    const analysis::WasteBudget& w = m->waste_budget;
    for (const auto& bucket : analysis::WasteBudget::kBuckets) {
      if (!w.observed(bucket.name)) continue;
      const std::string k = bucket.name;
      const double v = w.*bucket.field;
      ev.bucket_s[k] = v;
      ev.metrics["bucket_s." + k] = v;
      ev.metrics["bucket_share." + k] = v / m->step_time_s;
    }
  }
  if (!m->top_kernels.empty()) {
    // Each kernel counts where the taxonomy files it (data/taxonomy.yaml § rule_evidence): the
    // category and family the metrics recorded, else (metrics from an older goblin) its name's.
    std::map<std::string, double> pct;
    for (const std::string& name : tax.evidence_metric_names()) pct[name] = 0;
    for (const auto& k : m->top_kernels) {
      analysis::KernelClass kc{k.category, k.family, "", ""};
      if (kc.category.empty()) kc = tax.classify(k.name);
      for (const std::string& metric : tax.evidence_metrics(k.name, kc.category, kc.family)) pct[metric] += k.pct_time;
    }
    // pct_time is a share of summed kernel time; the listed kernels are what was observed.
    for (const auto& [name, p] : pct) ev.metrics[name] = p / 100.0;
  }
  if (!m->attention_kernel_loaded.empty()) ev.metrics["attention_kernel"] = m->attention_kernel_loaded;
  // Memory capacity from telemetry (docs/metrics.md § RunMetrics): the memory rules' evidence.
  if (m->hbm_peak_gb && m->hbm_total_gb && *m->hbm_total_gb > 0) {
    ev.metrics["hbm_peak_frac"] = *m->hbm_peak_gb / *m->hbm_total_gb;
    ev.metrics["memory_headroom_gb"] = *m->memory_headroom_gb;
  }
  // From a memory source (--memory): how many times larger the batch fits.
  if (m->batch_scale_fits) ev.metrics["batch_scale_fits"] = *m->batch_scale_fits;
  return ev;
}

}  // namespace goblin::audit
