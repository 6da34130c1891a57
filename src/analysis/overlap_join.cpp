#include "analysis/overlap_join.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/kernel_table.h"
#include "analysis/knowledge.h"
#include "analysis/triage_artifacts.h"

namespace goblin::analysis {

namespace {
struct OpAttr {
  int64_t scope = -1;
  std::string cpu_op, python;
};

// kind + canonical name per op, cached by interned name.
std::vector<std::string> op_keys(const Timeline& tl) {
  const GpuOpTable& ops = tl.gpu_ops;
  std::unordered_map<uint64_t, std::string> cache;
  std::vector<std::string> keys(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    uint64_t k = (static_cast<uint64_t>(ops.kind[i]) << 32) | ops.name[i];
    auto it = cache.find(k);
    if (it == cache.end())
      it =
          cache
              .emplace(k, std::string(gpu_op_kind_name(ops.kind[i])) + ":" + canonical_kernel_name(tl.str(ops.name[i])))
              .first;
    keys[i] = it->second;
  }
  return keys;
}

// Op indexes per key, in start order (the GPU-op table's order, Timeline::finish).
std::unordered_map<std::string, std::vector<size_t>> ordered_groups(const std::vector<std::string>& keys) {
  std::unordered_map<std::string, std::vector<size_t>> g;
  for (size_t i = 0; i < keys.size(); ++i) g[keys[i]].push_back(i);
  return g;
}

std::string most_frequent(const std::unordered_map<std::string, int64_t>& m) {
  std::string best;
  int64_t bc = -1;
  for (const auto& [k, c] : m)
    if (c > bc || (c == bc && k < best)) best = k, bc = c;
  return best;
}
}  // namespace

Result<OverlapJoinResult> overlap_join(const Timeline& map_tl, const Timeline& tl) {
  ASSIGN_OR_RETURN(auto k, analysis_knowledge());
  return overlap_join(map_tl, tl, *k);
}

OverlapJoinResult overlap_join(const Timeline& map_tl, const Timeline& tl, const AnalysisKnowledge& k) {
  const Taxonomy& tax = k.taxonomy;
  const OverlapHeuristics& heur = k.overlap;
  OverlapJoinResult out;

  LaunchAttribution mla = attribute_launches(map_tl);
  std::vector<int64_t> mscope = scopes_from_attribution(mla);
  auto mgroups = ordered_groups(op_keys(map_tl));
  auto fgroups = ordered_groups(op_keys(tl));
  const GpuOpTable& fops = tl.gpu_ops;
  std::vector<OpAttr> attr(fops.size());
  for (auto& [key, fv] : fgroups) {
    auto it = mgroups.find(key);
    if (it == mgroups.end()) {
      out.unmatched += static_cast<int64_t>(fv.size());
      if (out.unmatched_sample.size() < 20) out.unmatched_sample.push_back(key);
      continue;
    }
    const auto& mv = it->second;
    for (size_t k = 0; k < fv.size(); ++k) {
      size_t mi = mv[k % mv.size()];
      OpAttr& a = attr[fv[k]];
      a.scope = mscope[mi];
      if (mla.cpu_op[mi] >= 0) a.cpu_op = std::string(map_tl.str(map_tl.cpu_ops.name[mla.cpu_op[mi]]));
      if (mla.python[mi] != kNoStr) a.python = std::string(map_tl.str(mla.python[mi]));
      ++out.matched;
    }
  }

  ExposureResult ex = compute_exposure(tl);
  LaunchAttribution fla = attribute_launches(tl);  // the formal trace's own (graph launches): overridden below
  KernelTableResult kt = build_kernel_table(tl, ex, fla, &tax);
  std::vector<std::unordered_map<std::string, int64_t>> cpu_counts(kt.rows.size()), py_counts(kt.rows.size());
  std::vector<int64_t> scope(fops.size(), -1);
  for (size_t i = 0; i < fops.size(); ++i) {
    scope[i] = attr[i].scope;
    if (kt.op_row[i] < 0) continue;
    if (!attr[i].cpu_op.empty()) ++cpu_counts[kt.op_row[i]][attr[i].cpu_op];
    if (!attr[i].python.empty()) ++py_counts[kt.op_row[i]][attr[i].python];
  }
  for (size_t r = 0; r < kt.rows.size(); ++r) {
    kt.rows[r].cpu_op = most_frequent(cpu_counts[r]);
    kt.rows[r].python_location = most_frequent(py_counts[r]);
  }
  out.rows = build_overlap_table(tl, kt, scope, detect_vendor(tl), heur, tax);
  out.devices = ex.devices;
  return out;
}

Json overlap_join_to_json(const OverlapJoinResult& r) {
  Json res;
  res["join"] = {{"method", "kind + canonical kernel name, then launch order (k-th ↔ k mod m)"},
                 {"formal_ops_matched", r.matched},
                 {"formal_ops_unmatched", r.unmatched},
                 {"unmatched_names_sample", r.unmatched_sample}};
  Json devs = Json::array();
  for (const auto& d : r.devices)
    devs.push_back({{"device", d.device},
                    {"window_us", round_to((d.window_end_ns - d.window_start_ns) / 1000.0, 3)},
                    {"busy_us", round_to(d.busy_ns / 1000.0, 3)},
                    {"multi_stream_us", round_to(d.multi_stream_ns / 1000.0, 3)},
                    {"peak_concurrency", d.peak_concurrency}});
  res["devices"] = devs;
  res["overlap_opportunities"] = overlap_table_to_json(r.rows);
  return res;
}

}  // namespace goblin::analysis
