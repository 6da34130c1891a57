// Vendor-neutral kernel taxonomy: ordered rules from data/taxonomy.yaml classify a kernel name
// (and, where that helps, the launching CPU op) into a category and a library family.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace goblin::analysis {

struct KernelClass {
  std::string category;  // gemm, attention, communication, norm, softmax, elementwise, reduction,
                         // convolution, moe, quantization, optimizer, memcpy, memset, triton, other,
                         // and the serving categories kv_cache, sampling, scheduler
  std::string family;    // cuBLAS, cuBLASLt, CUTLASS, hipBLASLt, rocBLAS/Tensile, CK, FlashAttention,
                         // cuDNN, AITER, MIOpen, NCCL, RCCL, Triton, ATen, ... ("unknown" if none)
  std::string rule_id;   // the taxonomy rule that matched (for explanations)
  // For attention kernels: flash | sdpa_flash | sdpa_mem_efficient | sdpa_cudnn | ck_fmha | aiter |
  // flashinfer | triton | paged (vLLM paged attention) | other; empty otherwise (feeds
  // RunMetrics.attention_kernel_loaded).
  std::string attention_backend;
};

class Taxonomy {
 public:
  // Loads data/taxonomy.yaml (embedded, or the --data-dir override).
  static Result<Taxonomy> load();
  KernelClass classify(std::string_view kernel_name, std::string_view cpu_op_name = {}) const;
  const std::vector<std::string>& categories() const { return categories_; }

  // Parses taxonomy YAML text (load() = this on data/taxonomy.yaml). `origin` names the file in
  // errors. Malformed YAML, an unknown category or a bad regex is a Malformed error.
  static Result<Taxonomy> parse(const std::string& yaml_text, const std::string& origin);

  // Knowledge the waste budget uses (sections of taxonomy.yaml, see the file for citations):
  // fp32 GEMMs on the SIMT/FFMA path (precision_path), GEMMs with generic/fallback names
  // (kernel_shape), CPU spans that are input-pipeline work (data_wait).
  bool is_simt_fp32_gemm(std::string_view kernel_name) const;
  bool is_shape_suspect_gemm(std::string_view kernel_name) const;
  bool is_dataloader_span(std::string_view cpu_name) const;
  // fp32 memory-bound kernels (elementwise/reduction templated on float, not the optimizer's),
  // counted in precision_path with 1 - 1/bytes_ratio recoverable when the window's GEMMs are
  // mostly SIMT fp32 (share ≥ fp32_min_simt_share()).
  bool is_fp32_memory_bound(std::string_view kernel_name, std::string_view category,
                            std::string_view cpu_op_name) const;
  double fp32_bytes_ratio() const;
  double fp32_min_simt_share() const;
  // Softmax kernels of eager attention (by launching op), counted in kernel_shape when no fused
  // attention kernel ran.
  bool is_eager_attention_softmax(std::string_view category, std::string_view cpu_op_name) const;
  // Kernels launched by the optimizer step (optimizer_ops) and eager attention's GEMMs
  // (eager_attention_gemm), by launching CPU op: the cost profile's classes.
  bool is_optimizer_op(std::string_view cpu_op_name) const;
  bool is_eager_attention_gemm_op(std::string_view cpu_op_name) const;
  // Which engine a GEMM/attention kernel ran on (§ kernel_engines, first match): "matrix"
  // (tensor/matrix cores), "vector" (SIMT), "" when the name does not say. Roofline's column.
  std::string engine(std::string_view kernel_name) const;
  // A family of tuned library or compiled kernels (§ library_families): the overlap table advises
  // library tuning for these, a kernel swap for the rest.
  bool is_library_family(std::string_view family) const;
  // The rule base's kernel-share evidence (§ rule_evidence): the metric names (gemm_share,
  // comm_share, ...) a kernel of this category and family counts in, and all of them.
  std::vector<std::string> evidence_metrics(std::string_view kernel_name, std::string_view category,
                                            std::string_view family) const;
  std::vector<std::string> evidence_metric_names() const;
  double tensor_core_speedup() const;        // s in precision_path = t_simt * (1 - 1/s)
  double tiny_grid_fraction_of_sms() const;  // GEMM grid < this * SMs counts as kernel_shape
  size_t rule_count() const;

  struct Rule;        // defined in taxonomy.cpp
  struct Extra;       // defined in taxonomy.cpp
  struct ClassCache;  // defined in taxonomy.cpp

 private:
  std::vector<std::string> categories_;
  std::vector<Rule>* rules_ = nullptr;  // owned; see taxonomy.cpp
  std::shared_ptr<std::vector<Rule>> holder_;
  std::shared_ptr<const Extra> extra_;
  // classify() runs the ordered rules' regexes, and a trace launches the same few hundred kernel
  // names thousands of times: the answers are kept per (kernel, cpu op), shared by copies.
  std::shared_ptr<ClassCache> cache_;
  KernelClass classify_uncached(std::string_view kernel_name, std::string_view cpu_op_name) const;
};

}  // namespace goblin::analysis
