#include "analysis/category_breakdown.h"

#include <algorithm>

namespace goblin::analysis {

CategoryBreakdown category_breakdown(const Timeline& tl, const Taxonomy& tax) {
  CategoryBreakdown b;
  PreparedTrace p = prepare_trace(tl, tax);
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> agg;  // (ns, count)
  auto add = [&](const std::string& category, const std::string& family, int64_t dur) {
    auto& a = agg[{category, family}];
    a.first += dur;
    ++a.second;
    b.total_op_ns += dur;
  };
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    switch (tl.gpu_ops.kind[i]) {
      case GpuOpKind::Kernel: {
        const KernelClass& kc = p.classes[p.kernel_class[i]];
        add(kc.category, kc.family, tl.gpu_ops.dur_ns[i]);
        break;
      }
      case GpuOpKind::Memcpy:
        add("memcpy", "copy engine", tl.gpu_ops.dur_ns[i]);
        break;
      case GpuOpKind::Memset:
        add("memset", "runtime", tl.gpu_ops.dur_ns[i]);
        break;
    }
  }
  for (const auto& [key, v] : agg) {
    double pct = b.total_op_ns > 0 ? 100.0 * v.first / static_cast<double>(b.total_op_ns) : 0;
    b.rows.push_back({key.first, key.second, v.first, v.second, pct});
  }
  std::sort(b.rows.begin(), b.rows.end(),
            [](const CategoryRow& x, const CategoryRow& y) { return x.time_ns > y.time_ns; });
  b.busy_union_ns = total_length(p.all);
  for (const auto& [c, set] : p.per_category) b.category_union_ns[c] = total_length(set);
  b.steps = find_steps(tl);
  for (const Step& s : b.steps.steps)
    b.step_breakdowns.push_back(analyse_window(p, s.name, {s.start_ns, s.end_ns}, s.partial));
  if (b.steps.has_before_first_step) {
    const Step& s = b.steps.before_first_step;
    b.has_before_first_step = true;
    b.before_first_step = analyse_window(p, s.name, {s.start_ns, s.end_ns});
  }
  return b;
}

Json category_breakdown_to_json(const CategoryBreakdown& b) {
  Json cats = Json::array();
  for (const auto& r : b.rows)
    cats.push_back({{"category", r.category},
                    {"family", r.family},
                    {"time_s", round_to(r.time_ns / 1e9, 9)},
                    {"pct", round_to(r.pct, 3)},
                    {"count", r.count}});
  Json cat_union = Json::object();
  for (const auto& [c, ns] : b.category_union_ns) cat_union[c] = round_to(ns / 1e9, 9);
  Json steps = Json::array();
  for (const auto& w : b.step_breakdowns) steps.push_back(window_breakdown_to_json(w));
  Json res;
  res["categories"] = cats;
  res["denominator"] =
      "summed duration of all GPU ops (kernels, memcpy, memset) in the trace; concurrent ops each count";
  res["total_op_time_s"] = round_to(b.total_op_ns / 1e9, 9);
  res["busy_union_s"] = round_to(b.busy_union_ns / 1e9, 9);
  res["category_union_s"] = cat_union;
  res["steps"] = steps;
  if (b.has_before_first_step) {
    Json w = window_breakdown_to_json(b.before_first_step);
    w["gpu_ops"] = b.steps.before_first_step_ops;
    w["ops_without_launch_record"] = b.steps.before_first_step_orphans;
    res["before_first_step"] = w;
  } else {
    res["before_first_step"] = nullptr;
  }
  res["step_method"] = b.steps.method;
  res["notes"] = b.steps.notes;
  return res;
}

}  // namespace goblin::analysis
