// Symptom strings for the kb query (docs/audit.md § audit): one per non-optimal config field and
// one per non-zero waste bucket (and measured memory headroom) of the profile.
#include <regex>

#include "audit/audit_flow.h"

namespace goblin::audit {
namespace {
std::string str_of(const Json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }
}  // namespace

std::vector<std::string> derive_symptoms(const config::WorkloadConfig& c, const analysis::RunMetrics* profile) {
  std::vector<std::string> s;
  auto is = [&](const char* f, const Json& v) { return c.get(f) == v; };
  std::string gpu = profile && !profile->gpu_name.empty() ? profile->gpu_name : "GPU";
  // (a) the config (docs/audit.md lists them).
  if (is("precision", "fp32") || is("precision", "fp16"))
    s.push_back(str_of(c.get("precision")) + " training precision used on " + gpu + " instead of bf16 mixed precision");
  if (is("attention_impl", "eager")) s.push_back("naive eager attention on " + gpu);
  if (is("dataloader_workers", 0)) s.push_back("DataLoader num_workers=0 starves GPU");
  if (is("dataloader_pin_memory", false)) s.push_back("DataLoader pin_memory=False");
  if (is("dataloader_persistent_workers", false)) s.push_back("DataLoader workers respawn each epoch");
  if (is("gradient_checkpointing", false) && c.get("seq_len").is_number() && c.get("seq_len").get<double>() >= 4096)
    s.push_back("no gradient checkpointing at long context");
  if (is("torch_compile", false)) s.push_back("torch.compile disabled");
  if (is("tf32", false) && is("precision", "fp32")) s.push_back("fp32 matmuls without TF32");
  if (c.get("optimizer").is_string()) {
    std::string o = c.get("optimizer").get<std::string>();
    static const std::regex bnb("(bnb|8bit|paged_)", std::regex::icase);
    if (std::regex_search(o, bnb)) s.push_back("bitsandbytes optimizer on ROCm");
    if (o.find("fused") == std::string::npos && (o.find("adam") != std::string::npos))
      s.push_back("Adam/AdamW optimizer not fused");
  }
  if (c.get("world_size").is_number() && c.get("world_size").get<double>() > 1 &&
      !c.env_vars.count("NCCL_MIN_NCHANNELS"))
    s.push_back("NCCL_MIN_NCHANNELS not set");
  for (const auto& [k, v] : c.env_vars)
    if (k.rfind("ROCPROFSYS_", 0) == 0) {
      s.push_back("ROCPROFSYS_ profiler env vars set as tuning knobs");
      break;
    }
  if (is("profiler_enabled", true) || is("anomaly_detection", true)) s.push_back("profiler left on");
  // (b) the waste budget: every non-zero waste bucket gets its own query.
  if (profile) {
    const analysis::WasteBudget& w = profile->waste_budget;
    // The query text per waste bucket (useful_gpu and unattributed are not symptoms).
    const std::pair<const char*, const char*> symptom_of[] = {
        {"data_wait", "data_wait: GPU idle waiting for the input pipeline / DataLoader"},
        {"host_gap", "host_gap: GPU idle between kernel launches, launch-bound host overhead"},
        {"comm_excess", "comm_excess: exposed communication collectives"},
        {"memory_headroom", "memory_headroom: unused HBM memory, batch could grow"},
        {"precision_path", "precision_path: fp32 SIMT GEMM kernels, tensor cores unused"},
        {"kernel_shape", "kernel_shape: small GEMM grids, low occupancy kernels"}};
    for (const auto& [bucket, text] : symptom_of)
      if (w.value_of(bucket).value_or(0.0) > 0) s.push_back(text);
    // Memory capacity is not time (the bucket stays 0 s): measured headroom is its own symptom.
    if (profile->memory_headroom_gb && profile->hbm_total_gb && *profile->hbm_total_gb > 0 &&
        *profile->memory_headroom_gb / *profile->hbm_total_gb > 0.5)
      s.push_back("memory_headroom: unused HBM memory, batch could grow");
  }
  return s;
}

}  // namespace goblin::audit
