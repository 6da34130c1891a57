// The cost profile: docs/metrics.md § Cost profile; classes in cost_profile.h.
#include "analysis/cost_profile.h"

#include <algorithm>
#include <regex>
#include <unordered_map>

#include "analysis/breakdown.h"
#include "hw/flop_count.h"

namespace goblin::analysis {

namespace {
// A recorded input-dims string ("[[8, 16, 1024, 1024], []]") with a 4-D tensor whose last two
// dims are equal and at least 64: an attention score matrix [B, H, L, L].
bool has_score_matrix(std::string_view dims) {
  static const std::regex r(R"(\[\s*\d+\s*,\s*\d+\s*,\s*(\d+)\s*,\s*(\d+)\s*\])");
  std::string d(dims);
  for (auto it = std::sregex_iterator(d.begin(), d.end(), r); it != std::sregex_iterator(); ++it)
    if ((*it)[1] == (*it)[2] && std::stol((*it)[1]) >= 64) return true;
  return false;
}
}  // namespace

std::optional<CostProfile> compute_cost_profile(const Timeline& tl, const PreparedTrace& p,
                                                const std::vector<const WindowBreakdown*>& use) {
  if (use.empty()) return std::nullopt;
  CostProfile c;
  c.steps = static_cast<int>(use.size());
  std::vector<std::pair<int64_t, int64_t>> windows;
  for (const WindowBreakdown* w : use) {
    windows.emplace_back(w->window.start, w->window.end);
    c.step_s += static_cast<double>(w->wall_ns) / 1e9;
    c.data_wait_s += w->waste.data_wait;
    c.host_gap_s += w->waste.host_gap;
    c.unattributed_s += w->waste.unattributed;
    for (const Interval& iv : clip(p.loader, w->window)) c.loader_cpu_s += static_cast<double>(iv.length()) / 1e9;
  }
  std::sort(windows.begin(), windows.end());
  const GpuOpTable& k = tl.gpu_ops;
  std::unordered_map<StrId, bool> score_dims;  // input_dims string → holds a score matrix
  auto on_scores = [&](size_t i) {
    if (p.has_fused_attention || k.external_id[i] == kNone) return false;
    auto op = tl.cpu_op_by_external_id(k.external_id[i]);
    if (!op) return false;
    StrId d = tl.cpu_ops.input_dims[*op];
    auto it = score_dims.find(d);
    if (it == score_dims.end()) it = score_dims.emplace(d, has_score_matrix(tl.str(d))).first;
    return it->second;
  };
  for (size_t i = 0; i < k.size(); ++i) {
    if (k.kind[i] != GpuOpKind::Kernel) continue;
    const int64_t s = k.start_ns[i];
    auto it = std::upper_bound(windows.begin(), windows.end(), std::pair<int64_t, int64_t>{s, INT64_MAX});
    if (it == windows.begin() || s >= std::prev(it)->second) continue;
    const double d = static_cast<double>(k.dur_ns[i]) / 1e9;
    const uint16_t ci = p.kernel_class[i];
    const std::string& cat = p.classes[ci].category;
    uint8_t f = ci < p.class_flags.size() ? p.class_flags[ci] : 0;
    if (!p.optimizer_spans.empty() && cat != "attention" && cat != "gemm") {
      auto r = p.runtime_by_corr.find(k.correlation[i]);
      if (k.correlation[i] != kNone && r != p.runtime_by_corr.end()) {
        const int64_t t = tl.runtime.start_ns[r->second];
        if (!clip(p.optimizer_spans, {t, t + 1}).empty()) f |= 4;
      }
    }
    c.kernels += 1;
    if (cat == "attention") {
      c.attn_fused_s += d;
    } else if ((f & 8) && !p.has_fused_attention) {
      c.attn_bmm_s += d;
    } else if ((f & 2) && !p.has_fused_attention) {
      c.attn_softmax_s += d;
    } else if (f & 4) {
      c.optimizer_s += d;
      c.optimizer_kernels += 1;
    } else if (cat != "gemm" && cat != "communication" && cat != "memcpy" && on_scores(i)) {
      c.attn_score_s += d;
    } else if (cat == "gemm") {
      bool simt = false;
      for (const Interval& iv : clip(p.simt, {s, s + 1})) simt |= iv.length() > 0;
      (simt ? c.gemm_simt_s : c.gemm_tensor_s) += d;
    } else if (f & 1) {
      c.fp32_membound_s += d;
    } else if (cat == "elementwise" || cat == "reduction" || cat == "norm" || cat == "softmax" || cat == "triton") {
      c.membound_s += d;
    } else {
      c.other_gpu_s += d;
    }
  }
  // FLOPs of the same windows (op start inside a window).
  std::vector<hw::FlopCount> per = hw::count_flops(tl, windows);
  std::map<std::string, double> by_dtype;
  for (const hw::FlopCount& fc : per) {
    for (const auto& [op, fl] : fc.flops_by_op) {
      const bool bmm = op == "aten::bmm" || op == "aten::baddbmm";
      if (bmm && !p.has_fused_attention)
        c.attn_bmm_flops += fl;
      else if (fc.flops_by_kind.count("attention") && op.find("attention") != std::string::npos)
        c.attn_fused_flops += fl;
    }
    auto g = fc.flops_by_kind.find("gemm");
    if (g != fc.flops_by_kind.end()) c.gemm_flops += g->second;
    for (const auto& [dt, fl] : fc.flops_by_dtype) by_dtype[dt] += fl;
  }
  c.gemm_flops = std::max(0.0, c.gemm_flops - c.attn_bmm_flops);
  double best = 0;
  for (const auto& [dt, fl] : by_dtype)
    if (fl > best) best = fl, c.dtype = dt;
  const double n = static_cast<double>(c.steps);
  for (double* v : {&c.step_s,         &c.attn_fused_s,      &c.attn_bmm_s,    &c.attn_softmax_s,  &c.attn_score_s,
                    &c.optimizer_s,    &c.gemm_simt_s,       &c.gemm_tensor_s, &c.fp32_membound_s, &c.membound_s,
                    &c.other_gpu_s,    &c.optimizer_kernels, &c.kernels,       &c.data_wait_s,     &c.host_gap_s,
                    &c.unattributed_s, &c.loader_cpu_s,      &c.gemm_flops,    &c.attn_bmm_flops,  &c.attn_fused_flops})
    *v /= n;
  return c;
}

namespace {
struct Field {
  const char* name;
  double CostProfile::*v;
};
constexpr Field kFields[] = {{"step_s", &CostProfile::step_s},
                             {"attn_fused_s", &CostProfile::attn_fused_s},
                             {"attn_bmm_s", &CostProfile::attn_bmm_s},
                             {"attn_softmax_s", &CostProfile::attn_softmax_s},
                             {"attn_score_s", &CostProfile::attn_score_s},
                             {"optimizer_s", &CostProfile::optimizer_s},
                             {"gemm_simt_s", &CostProfile::gemm_simt_s},
                             {"gemm_tensor_s", &CostProfile::gemm_tensor_s},
                             {"fp32_membound_s", &CostProfile::fp32_membound_s},
                             {"membound_s", &CostProfile::membound_s},
                             {"other_gpu_s", &CostProfile::other_gpu_s},
                             {"optimizer_kernels", &CostProfile::optimizer_kernels},
                             {"kernels", &CostProfile::kernels},
                             {"data_wait_s", &CostProfile::data_wait_s},
                             {"host_gap_s", &CostProfile::host_gap_s},
                             {"unattributed_s", &CostProfile::unattributed_s},
                             {"loader_cpu_s", &CostProfile::loader_cpu_s},
                             {"gemm_flops", &CostProfile::gemm_flops},
                             {"attn_bmm_flops", &CostProfile::attn_bmm_flops},
                             {"attn_fused_flops", &CostProfile::attn_fused_flops}};
}  // namespace

Json cost_profile_to_json(const CostProfile& c) {
  Json j;
  j["steps"] = c.steps;
  for (const Field& f : kFields) {
    const std::string n = f.name;
    const bool count = n.size() > 6 && n.compare(n.size() - 6, 6, "_flops") == 0;
    j[f.name] = round_to(c.*f.v, count ? 0 : 9);
  }
  j["dtype"] = c.dtype;
  j["unit"] = "seconds (and launches, FLOPs) per step; kernel classes are disjoint";
  return j;
}

std::optional<CostProfile> cost_profile_from_json(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  CostProfile c;
  c.steps = j.value("steps", 0);
  for (const Field& f : kFields)
    if (j.contains(f.name) && j[f.name].is_number()) c.*f.v = j[f.name].get<double>();
  c.dtype = j.value("dtype", "");
  return c;
}

}  // namespace goblin::analysis
