// Measured evidence for rule evaluation: RunMetrics → vendor, architecture, versions, buckets.
#include "audit/rules.h"
#include "core/text.h"
#include "hw/arch.h"
#include "hw/vendor.h"

namespace goblin::audit {

// ---- evidence ---------------------------------------------------------------------------------

std::string vendor_of(const RunMetrics& m) {
  if (Vendor v = vendor_from_gpu_name(m.gpu_name); v != Vendor::Unknown) return vendor_name(v);
  if (m.versions.count("rocm") || m.versions.count("hip")) return "amd";
  if (m.versions.count("cuda") || m.versions.count("cuda_runtime") || m.versions.count("cuda_driver")) return "nvidia";
  return "";
}

Evidence evidence_from_metrics(const RunMetrics* m, const std::string& vendor_hint) {
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
    const WasteBudget& w = m->waste_budget;
    for (const auto& bucket : WasteBudget::kBuckets) {
      if (!w.observed(bucket.name)) continue;
      const std::string k = bucket.name;
      const double v = w.*bucket.field;
      ev.bucket_s[k] = v;
      ev.metrics["bucket_s." + k] = v;
      ev.metrics["bucket_share." + k] = v / m->step_time_s;
    }
  }
  if (!m->top_kernels.empty()) {
    double total = 0, fp32 = 0, gemm = 0, rocblas = 0, hipblaslt = 0, comm = 0, conv = 0;
    for (const auto& k : m->top_kernels) {
      std::string n = ascii_lower(k.name);
      double t = k.pct_time;
      total += t;
      bool is_gemm = n.find("gemm") != std::string::npos || n.find("nvjet") != std::string::npos ||
                     n.find("cijk") != std::string::npos || n.find("xmma") != std::string::npos ||
                     n.find("cutlass") != std::string::npos || n.find("hipblaslt") != std::string::npos ||
                     n.find("matmul") != std::string::npos;
      if (is_gemm) gemm += t;
      if (n.find("sgemm") != std::string::npos || n.find("f32f32_f32f32_f32") != std::string::npos ||
          (is_gemm && n.find("_ffma_") != std::string::npos) ||
          (n.find("cijk") != std::string::npos && n.find("_sb_") != std::string::npos))
        fp32 += t;
      if (n.find("cijk") != std::string::npos) rocblas += t;
      if (n.find("hipblaslt") != std::string::npos) hipblaslt += t;
      if (n.find("nccl") != std::string::npos || n.find("rccl") != std::string::npos ||
          n.find("allreduce") != std::string::npos || n.find("all_reduce") != std::string::npos ||
          n.find("allgather") != std::string::npos || n.find("reducescatter") != std::string::npos)
        comm += t;
      if (n.find("conv") != std::string::npos || n.find("miopen") != std::string::npos) conv += t;
    }
    // pct_time is a share of summed kernel time; the listed kernels are what was observed.
    double denom = 100.0;
    ev.metrics["fp32_simt_gemm_share"] = fp32 / denom;
    ev.metrics["gemm_share"] = gemm / denom;
    ev.metrics["rocblas_gemm_share"] = rocblas / denom;
    ev.metrics["hipblaslt_gemm_share"] = hipblaslt / denom;
    ev.metrics["comm_share"] = comm / denom;
    ev.metrics["conv_share"] = conv / denom;
  }
  if (!m->attention_kernel_loaded.empty()) ev.metrics["attention_kernel"] = m->attention_kernel_loaded;
  // Memory capacity from telemetry (docs/metrics.md § RunMetrics): the memory rules' evidence.
  if (m->hbm_peak_gb && m->hbm_total_gb && *m->hbm_total_gb > 0) {
    ev.metrics["hbm_peak_frac"] = *m->hbm_peak_gb / *m->hbm_total_gb;
    ev.metrics["memory_headroom_gb"] = *m->memory_headroom_gb;
  }
  return ev;
}

}  // namespace goblin::audit
