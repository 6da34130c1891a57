#include "analysis/breakdown_run.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/breakdown.h"
#include "analysis/steps.h"
#include "trace/readers.h"

namespace goblin {

VerbResult run_breakdown(const std::string& trace) {
  VerbResult vr;
  Timeline tl;
  Status st = read_path(trace, tl);
  if (!st && tl.gpu_op_count() == 0) {
    vr.error = st.error();
    return vr;
  }
  auto tax = Taxonomy::load();
  if (!tax) {
    vr.error = tax.error();
    return vr;
  }
  PreparedTrace p = prepare_trace(tl, *tax);
  // category/family → Σ dur
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> agg;  // (ns, count)
  int64_t total = 0;
  for (size_t i = 0; i < tl.kernels.size(); ++i) {
    const KernelClass& kc = p.classes[p.kernel_class[i]];
    auto& a = agg[{kc.category, kc.family}];
    a.first += tl.kernels.dur_ns[i];
    ++a.second;
    total += tl.kernels.dur_ns[i];
  }
  for (size_t i = 0; i < tl.memcpys.size(); ++i) {
    auto& a = agg[{"memcpy", "copy engine"}];
    a.first += tl.memcpys.dur_ns[i];
    ++a.second;
    total += tl.memcpys.dur_ns[i];
  }
  for (size_t i = 0; i < tl.memsets.size(); ++i) {
    auto& a = agg[{"memset", "runtime"}];
    a.first += tl.memsets.dur_ns[i];
    ++a.second;
    total += tl.memsets.dur_ns[i];
  }
  std::vector<std::pair<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>>> rows(agg.begin(), agg.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  Json cats = Json::array();
  std::string h;
  char buf[256];
  int64_t busy = total_length(p.all);
  std::snprintf(buf, sizeof buf, "GPU time by category (denominator: summed op time %.6f s; busy union %.6f s)\n",
                total / 1e9, busy / 1e9);
  h += buf;
  for (const auto& [key, v] : rows) {
    double pct = total > 0 ? 100.0 * v.first / static_cast<double>(total) : 0;
    cats.push_back({{"category", key.first},
                    {"family", key.second},
                    {"time_s", round_to(v.first / 1e9, 9)},
                    {"pct", round_to(pct, 3)},
                    {"count", v.second}});
    std::snprintf(buf, sizeof buf, "  %6.2f%%  %10.6f s  %-14s %s\n", pct, v.first / 1e9, key.first.c_str(),
                  key.second.c_str());
    h += buf;
  }
  Json cat_union = Json::object();
  for (const auto& [c, set] : p.per_category) cat_union[c] = round_to(total_length(set) / 1e9, 9);
  StepDetection sd = find_steps(tl);
  Json steps = Json::array();
  h += "per step (" + sd.method + "):\n";
  for (const Step& s : sd.steps) {
    WindowBreakdown b = analyse_window(p, s.name, {s.start_ns, s.end_ns}, s.partial);
    steps.push_back(window_breakdown_to_json(b));
    std::snprintf(buf, sizeof buf,
                  "  %-18s wall %.6f s busy %.2f%% idle %.6f s (host-bound %.6f, launch %.6f, sync/other %.6f) "
                  "exposed comm %.6f s, kernels %lld, short<10us %.1f%%%s\n",
                  s.name.c_str(), b.wall_ns / 1e9, b.wall_ns ? 100.0 * b.busy_ns / b.wall_ns : 0.0, b.idle_ns / 1e9,
                  b.idle.host_bound_ns / 1e9, b.idle.launch_latency_ns / 1e9, b.idle.sync_other_ns / 1e9,
                  b.exposed_comm_ns / 1e9, static_cast<long long>(b.launches.kernels), b.launches.short_count_pct,
                  s.partial ? " (partial)" : "");
    h += buf;
  }
  Json res;
  res["categories"] = cats;
  res["denominator"] =
      "summed duration of all GPU ops (kernels, memcpy, memset) in the trace; concurrent ops each count";
  res["total_op_time_s"] = round_to(total / 1e9, 9);
  res["busy_union_s"] = round_to(busy / 1e9, 9);
  res["category_union_s"] = cat_union;
  res["steps"] = steps;
  res["step_method"] = sd.method;
  res["notes"] = sd.notes;
  vr.result = res;
  vr.human = h;
  if (!st) vr.error = st.error();
  return vr;
}

}  // namespace goblin
