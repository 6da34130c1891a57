// Pieces of the compare report (see compare_parts.h).
#include "audit/compare_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <regex>

#include "core/text.h"
#include "hw/vendor.h"

namespace goblin::audit {

std::optional<double> rounded(std::optional<double> v, int digits) {
  return v ? std::optional<double>(round_to(*v, digits)) : std::nullopt;
}

std::string fmt_thousands(double v) {
  std::string s = format_fixed(v, 0);
  std::string out;
  int n = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    if (n && n % 3 == 0 && *it != '-') out.push_back(',');
    out.push_back(*it);
    ++n;
  }
  return {out.rbegin(), out.rend()};
}

// CUDA encodes versions as 1000 * major + 10 * minor (cudaRuntimeGetVersion /
// cudaDriverGetVersion, the integers Kineto writes as cuda_runtime_version / cuda_driver_version):
// 13000 → "13.0", 12040 → "12.4". Anything else is returned as written.
std::string readable_cuda_version(const std::string& v) {
  if (v.size() < 4 || v.size() > 6 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return v;
  const long n = std::stol(v);
  return fmt::format("{}.{}", n / 1000, (n % 1000) / 10);
}

// The first non-empty version among `keys`; the CUDA-integer keys made readable and, for the
// CUDA driver API version standing in for the driver, labelled as such.
std::string version_of(const analysis::RunMetrics& m, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = m.versions.find(k);
    if (it == m.versions.end() || it->second.empty()) continue;
    const std::string key = k;
    if (key == "cuda" || key == "cuda_runtime") return readable_cuda_version(it->second);
    if (key == "cuda_driver") return "CUDA driver API " + readable_cuda_version(it->second);
    // HIP writes its version integer (Kineto's hip_runtime_version 70253211 = HIP 7.2.53211);
    // HIP is versioned with its ROCm release, so the ROCm version is its major.minor.
    if (key == "hip" || key == "hip_runtime" || key == "hip_driver") {
      std::string hip = hw::decode_hip_version(it->second).value_or(it->second);
      if (key == "hip_driver") return "HIP driver API " + hip;
      // torch.version.hip reads "6.4.43482-0f2d60242": its major.minor is the ROCm release too.
      const size_t dot = hip.find('.'), dot2 = dot == std::string::npos ? dot : hip.find('.', dot + 1);
      return dot2 == std::string::npos ? hip : hip.substr(0, dot2);
    }
    return it->second;
  }
  return "";
}

// Metrics computed from a profiler trace: the timings carry the profiler's overhead.
bool profiled(const analysis::RunMetrics& m) {
  if (m.runner_kind == "trace" || m.runner_kind == "replay") return true;
  for (const char* k : {"cupti", "kineto_schema", "rocprofiler", "rocprofiler_sdk", "roctracer"})
    if (m.versions.count(k)) return true;
  return false;
}

bool has_budget(const analysis::RunMetrics& m) { return m.waste_budget.unobserved.size() < bucket_names().size(); }

DeltaRow delta_row(const std::string& metric, const std::string& unit, const std::string& better,
                   std::optional<double> b, std::optional<double> a, int digits) {
  DeltaRow r{metric, unit, better, rounded(b, digits), rounded(a, digits), std::nullopt, std::nullopt};
  if (a && b) {
    r.delta = round_to(*a - *b, digits);
    if (*b != 0) r.pct = round_to(100.0 * (*a - *b) / std::fabs(*b), 2);
  }
  return r;
}

void add_finding(std::vector<Finding>& findings, const std::string& id, const std::string& severity,
                 const std::string& title, const std::string& detail, const std::string& citation) {
  for (const auto& f : findings)
    if (f.id == id) return;
  findings.push_back(Finding{id, severity, title, detail, citation});
}

std::string rule_citation(const RuleBase* kb, const std::string& id, const std::string& fallback) {
  if (kb)
    if (const Rule* r = kb->find(id)) return r->citation;
  return fallback;
}

// "0.50.1" >= "0.50"?  Numeric dotted compare; false when unparsable.
std::optional<bool> version_at_least(const std::string& v, int major, int minor) {
  int a = 0, b = 0;
  if (std::sscanf(v.c_str(), "%d.%d", &a, &b) < 2) return std::nullopt;
  return a > major || (a == major && b >= minor);
}

void add_config_findings(std::vector<Finding>& findings, const config::WorkloadConfig& cfg,
                         const analysis::RunMetrics& B, const analysis::RunMetrics& A, const RuleBase* kb) {
  std::vector<std::string> rocprofsys;
  for (const auto& [k, v] : cfg.env_vars)
    if (k.rfind("ROCPROFSYS_", 0) == 0) rocprofsys.push_back(k);
  if (!rocprofsys.empty()) {
    std::string names;
    for (const auto& n : rocprofsys) names += (names.empty() ? "" : ", ") + n;
    add_finding(findings, "footgun.rocprofsys_env_as_tuning", "warning",
                "ROCPROFSYS_* variables set as if they tuned the workload",
                names +
                    ": these configure the profiler, not the workload - they will not change throughput. They were "
                    "not treated as tuning knobs.",
                rule_citation(kb, "footgun.rocprofsys_env_as_tuning",
                              "https://rocm.docs.amd.com/projects/rocprofiler-systems/en/latest/how-to/"
                              "configuring-runtime-options.html"));
  }
  {
    std::string optim = cfg.get("optimizer").is_string() ? cfg.get("optimizer").get<std::string>() : "";
    static const std::regex bnb("(bnb|8bit|paged_)", std::regex::icase);
    std::string vendor = vendor_of(B).empty() ? vendor_of(A) : vendor_of(B);
    if (!optim.empty() && std::regex_search(optim, bnb) && vendor != "nvidia") {
      std::string v = version_of(B, {"bitsandbytes", "bnb"});
      auto ok = v.empty() ? std::nullopt : version_at_least(v, 0, 50);
      std::string cite = rule_citation(kb, "optim.bitsandbytes_on_rocm",
                                       "https://huggingface.co/docs/bitsandbytes/v0.50.0/installation");
      if (ok && *ok) {
        add_finding(findings, "optim.bitsandbytes_on_rocm", "info", "bitsandbytes optimizer on ROCm",
                    "optimizer " + optim + " with bitsandbytes " + v +
                        ": bitsandbytes >= 0.50 documents official ROCm support (ROCm wheels).",
                    cite);
      } else {
        add_finding(
            findings, "optim.bitsandbytes_on_rocm", vendor == "amd" ? "warning" : "info",
            "bitsandbytes optimizer" + std::string(vendor == "amd" ? " on ROCm" : " (ROCm support is version-gated)"),
            "optimizer " + optim + " uses bitsandbytes; bitsandbytes " + (v.empty() ? "(version not recorded)" : v) +
                ": before 0.50 ROCm support was experimental, not official. Use bitsandbytes >= 0.50 (ROCm "
                "wheels) or an Optimum-AMD-validated optimizer such as adamw_torch_fused.",
            cite);
      }
    }
  }
}

ValidityFooter validity_footer(const analysis::RunMetrics& V, const analysis::RunMetrics& B,
                               const config::WorkloadConfig& cfg, const std::string& workload,
                               const std::string& runner_kind) {
  ValidityFooter vf;
  if (!V.gpu_name.empty()) vf.gpu = V.gpu_name;
  auto vv = [&](std::initializer_list<const char*> keys) -> std::optional<std::string> {
    std::string s = version_of(V, keys);
    if (s.empty()) s = version_of(B, keys);
    return s.empty() ? std::nullopt : std::optional<std::string>(s);
  };
  vf.cuda = vv({"cuda", "cuda_runtime"});
  vf.rocm = vv({"rocm", "rocm_version", "hip", "hip_runtime"});
  // An AMD run (ROCm or HIP recorded, no CUDA): its driver is amd-smi's (run.json's "driver"),
  // else the HIP driver the trace recorded; never CUDA's.
  const bool amd = vf.rocm && !vf.cuda;
  vf.driver = amd ? vv({"driver", "amdgpu_driver", "rocm_driver", "hip_driver"})
                  : vv({"driver", "cuda_driver", "rocm_driver", "amdgpu_driver"});
  vf.pytorch = vv({"pytorch", "torch"});
  vf.workload = workload;
  vf.model = cfg.get("model_name");
  vf.mode = cfg.get("mode");
  vf.batch_size = cfg.get("batch_size");
  vf.seq_len = cfg.get("seq_len");
  vf.grad_accum_steps = cfg.get("grad_accum_steps");
  vf.measured_by = runner_kind;
  auto s = [](const Json& j) {
    return j.is_null() ? std::string("not recorded") : j.is_string() ? j.get<std::string>() : j.dump();
  };
  auto o = [](const std::optional<std::string>& x) { return x ? *x : std::string("not recorded"); };
  std::string t = fmt::format(
      "Valid only for the observed workload ({}, model {}, {}, batch {} x seq {}, grad accum {}) on GPU {}, {}driver "
      "{}",
      workload, s(vf.model), s(vf.mode), s(vf.batch_size), s(vf.seq_len), s(vf.grad_accum_steps), o(vf.gpu),
      amd && vf.driver && !vf.driver->starts_with("HIP") ? "AMD " : "", o(vf.driver));
  if (vf.cuda) fmt::format_to(std::back_inserter(t), ", CUDA {}", *vf.cuda);
  if (vf.rocm) fmt::format_to(std::back_inserter(t), ", ROCm {}", *vf.rocm);
  if (!vf.cuda && !vf.rocm) t += ", CUDA/ROCm version not recorded";
  fmt::format_to(std::back_inserter(t),
                 ", PyTorch {}; measured by {}. Re-run the audit if the model, hardware, framework version or "
                 "batch/seq pattern changes.",
                 o(vf.pytorch), runner_kind);
  vf.text = std::move(t);
  return vf;
}

}  // namespace goblin::audit
