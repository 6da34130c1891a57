// FLOP counting per window: leaf FLOP-family CPU ops priced by op_cost (roofline.cpp).
#include "hw/flop_count.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/text.h"
#include "hw/roofline.h"

namespace goblin::hw {

namespace {

// Scaled (FP8 / MX-FP4) and grouped (MoE) GEMMs: the roofline prices them by data/op_models.yaml's
// scaled_mm / grouped_mm models (hw/op_models.cpp); MFU counts the same FLOPs here, with the same
// formula: A[..., M, K] x B[..., K, N] -> 2*G*M*N*K, G the group count of a 3d x 3d grouped GEMM
// (a 2d x 3d one has every group's rows in M), K doubled for FP4 (two values per byte). They are
// leaf ops (nothing else prices them), outside select_flop_ops so the roofline's selection and
// its figures stay as they were.
const char* kScaledGemm[] = {"aten::_scaled_mm", "aten::_scaled_mm_v2", "aten::_grouped_mm",
                             "aten::_scaled_grouped_mm"};

bool is_scaled_gemm(std::string_view n) {
  for (const char* g : kScaledGemm)
    if (n == g) return true;
  return false;
}

std::optional<OpCost> scaled_gemm_cost(std::string_view name, std::string_view dims_text, std::string_view types_text,
                                       std::string* why) {
  auto dims = parse_input_dims(dims_text);
  if (!dims || dims->size() < 2 || (*dims)[0].size() < 2 || (*dims)[1].size() < 2) {
    *why =
        dims && !dims->empty() ? "unexpected GEMM shapes" : "no Input Dims recorded (profile with record_shapes=True)";
    return std::nullopt;
  }
  const auto& a = (*dims)[0];
  const auto& b = (*dims)[1];
  std::string t0;
  if (auto types = parse_string_list(types_text); types && !types->empty()) t0 = (*types)[0];
  const std::string lower = ascii_lower(t0);
  const bool fp4 = lower.find("float4") != std::string::npos;
  OpCost c;
  c.kind = "gemm";
  c.dtype = fp4 ? "fp4" : lower.find("float8") != std::string::npos ? "fp8" : normalize_dtype(t0);
  if (c.dtype.empty()) c.dtype = "unknown";
  const double M = static_cast<double>(a[a.size() - 2]), K = static_cast<double>(a.back()) * (fp4 ? 2 : 1),
               N = static_cast<double>(b.back());
  const bool grouped = name.find("grouped") != std::string_view::npos;
  const double G = grouped && a.size() == 3 ? static_cast<double>(a[0]) : 1;
  c.flops = 2 * G * M * N * K;
  return c;
}

}  // namespace

std::string FlopCount::dominant_dtype() const {
  std::string best;
  double f = 0;
  for (const auto& [d, v] : flops_by_dtype)
    if (v > f) {
      f = v;
      best = d;
    }
  return best;
}

FlopOps select_flop_ops(const Timeline& tl) {
  FlopOps out;
  const CpuOpTable& ops = tl.cpu_ops;
  // is_flop_op compares the name with every GEMM, conv and attention op: once per name id.
  std::vector<int8_t> flop_name(tl.strings.size(), -1);
  auto is_flop = [&](StrId id) {
    if (id >= flop_name.size()) return is_flop_op(tl.str(id));
    if (flop_name[id] < 0) flop_name[id] = is_flop_op(tl.str(id)) ? 1 : 0;
    return flop_name[id] == 1;
  };
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops.kind[i] == CpuOpKind::Op && is_flop(ops.name[i])) {
      out.by_tid[ops.tid[i]].push_back(i);
      ++out.count;
    }
  for (auto& [tid, v] : out.by_tid) {
    std::sort(v.begin(), v.end(), [&](size_t a, size_t b) {
      return ops.start_ns[a] != ops.start_ns[b] ? ops.start_ns[a] < ops.start_ns[b] : ops.dur_ns[a] > ops.dur_ns[b];
    });
    // Op k is a composite when the next FLOP op of its thread lies inside it.
    for (size_t k = 0; k + 1 < v.size(); ++k)
      if (ops.start_ns[v[k + 1]] >= ops.start_ns[v[k]] && ops.end_ns(v[k + 1]) <= ops.end_ns(v[k]))
        out.composite.insert(v[k]);
  }
  infer_shape_hints(tl, out);
  return out;
}

namespace {
// One op into a window's count: its FLOPs by dtype, kind and name, or why it has no model.
void tally(FlopCount& fc, std::string_view nm, const std::optional<OpCost>& c, const std::string& why) {
  if (!c) {
    ++fc.ops_unmodelled;
    ++fc.unmodelled[std::string(nm) + ": " + why];
    return;
  }
  ++fc.ops_counted;
  fc.flops += c->flops;
  fc.flops_by_dtype[c->dtype] += c->flops;
  fc.flops_by_kind[c->kind] += c->flops;
  fc.flops_by_op[std::string(nm)] += c->flops;
}
}  // namespace

std::vector<FlopCount> count_flops(const Timeline& tl, const std::vector<std::pair<int64_t, int64_t>>& windows) {
  std::vector<FlopCount> out(windows.size());
  const CpuOpTable& ops = tl.cpu_ops;
  const FlopOps sel = select_flop_ops(tl);
  const auto& by_tid = sel.by_tid;
  const auto& composite = sel.composite;
  for (const auto& [tid, v] : by_tid)
    for (size_t i : v) {
      int64_t ts = ops.start_ns[i];
      for (size_t w = 0; w < windows.size(); ++w) {
        if (ts < windows[w].first || ts >= windows[w].second) continue;
        FlopCount& fc = out[w];
        if (composite.count(i)) {
          ++fc.ops_composite;
          continue;
        }
        std::string why;
        std::string_view nm = tl.str(ops.name[i]);
        static const OpCostHints kNoHints;
        const auto h = sel.hints.find(i);
        auto c = op_cost(nm, tl.str(ops.input_dims[i]), tl.str(ops.input_types[i]), tl.str(ops.concrete_inputs[i]),
                         h == sel.hints.end() ? kNoHints : h->second, &why);
        tally(fc, nm, c, why);
      }
    }
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != CpuOpKind::Op) continue;
    std::string_view nm = tl.str(ops.name[i]);
    if (!is_scaled_gemm(nm)) continue;
    for (size_t w = 0; w < windows.size(); ++w) {
      if (ops.start_ns[i] < windows[w].first || ops.start_ns[i] >= windows[w].second) continue;
      FlopCount& fc = out[w];
      std::string why;
      auto c = scaled_gemm_cost(nm, tl.str(ops.input_dims[i]), tl.str(ops.input_types[i]), &why);
      tally(fc, nm, c, why);
    }
  }
  return out;
}

}  // namespace goblin::hw
