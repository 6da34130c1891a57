// FLOP counting per window: leaf FLOP-family CPU ops priced by op_cost (roofline.cpp).
#include "hw/flop_count.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "hw/roofline.h"

namespace goblin::hw {

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
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops.kind[i] == CpuOpKind::Op && is_flop_op(tl.str(ops.name[i]))) {
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
  return out;
}

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
        auto c =
            op_cost(nm, tl.str(ops.input_dims[i]), tl.str(ops.input_types[i]), tl.str(ops.concrete_inputs[i]), &why);
        if (!c) {
          ++fc.ops_unmodelled;
          ++fc.unmodelled[std::string(nm) + ": " + why];
          continue;
        }
        ++fc.ops_counted;
        fc.flops += c->flops;
        fc.flops_by_dtype[c->dtype] += c->flops;
        fc.flops_by_kind[c->kind] += c->flops;
        fc.flops_by_op[std::string(nm)] += c->flops;
      }
    }
  return out;
}

}  // namespace goblin::hw
