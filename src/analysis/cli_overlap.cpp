// `goblin overlap MAPPING_TRACE FORMAL_TRACE [--target-arch A] [--top N] [--json]` (SGLang's
// two-trace workflow): the graph-off *mapping* trace tells which CPU op / Python location
// launches each kernel; the graph-on *formal* trace gives the timing (graph replays carry no
// per-kernel launch attribution). Join: by kind + canonical kernel name, and within one name by
// order — the k-th launch in the formal trace takes the attribution of the (k mod m)-th of the m
// launches of that name in the mapping trace. The overlap table is computed on the formal trace
// (exposure sweep line, dependency risk with the joined scopes).
#include <algorithm>
#include <unordered_map>

#include "analysis/opportunities.h"
#include "analysis/triage_artifacts.h"
#include "cli/verbs.h"
#include "core/cli.h"
#include "trace/readers.h"

namespace goblin {

namespace {
struct OpAttr {
  int64_t scope = -1;
  std::string cpu_op, python;
};

// kind + canonical name per op, cached by interned name.
std::vector<std::string> op_keys(const Timeline& tl) {
  GpuOps ops(tl);
  std::unordered_map<uint64_t, std::string> cache;
  std::vector<std::string> keys(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    uint64_t k = (static_cast<uint64_t>(ops.kind(i)) << 32) | ops.name(i);
    auto it = cache.find(k);
    if (it == cache.end())
      it =
          cache
              .emplace(k, std::string(gpu_op_kind_name(ops.kind(i))) + ":" + canonical_kernel_name(tl.str(ops.name(i))))
              .first;
    keys[i] = it->second;
  }
  return keys;
}

std::unordered_map<std::string, std::vector<size_t>> ordered_groups(const Timeline& tl,
                                                                    const std::vector<std::string>& keys) {
  GpuOps ops(tl);
  std::unordered_map<std::string, std::vector<size_t>> g;
  for (size_t i = 0; i < keys.size(); ++i) g[keys[i]].push_back(i);
  for (auto& [k, v] : g)
    std::stable_sort(v.begin(), v.end(), [&](size_t a, size_t b) { return ops.start(a) < ops.start(b); });
  return g;
}
}  // namespace

void register_overlap(CLI::App& app) {
  struct Opts {
    std::string mapping, formal;
    int top = 20;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd =
      app.add_subcommand("overlap",
                         "Overlap-opportunity table from a graph-on FORMAL trace, with kernels attributed to "
                         "CPU ops / Python through a graph-off MAPPING trace (joined by kernel name and order)");
  cmd->add_option("mapping", o->mapping, "Graph-off trace (attribution)")->required();
  cmd->add_option("formal", o->formal, "Graph-on trace (timing)")->required();
  cmd->add_option("--top", o->top, "Rows in the readable table")->check(CLI::Range(1, 1000));
  cmd->add_flag("--json", o->json, "Print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&]() -> VerbResult {
      VerbResult vr;
      Timeline map_tl, tl;
      Status s1 = read_path(o->mapping, map_tl);
      if (!s1 && map_tl.kernels.size() == 0) {
        vr.error = s1.error();
        return vr;
      }
      Status s2 = read_path(o->formal, tl);
      if (!s2 && tl.gpu_op_count() == 0) {
        vr.error = s2.error();
        return vr;
      }
      map_tl.build_indexes();
      tl.build_indexes();
      LaunchAttribution mla = attribute_launches(map_tl);
      std::vector<int64_t> mscope = scopes_from_attribution(mla);
      auto mkeys = op_keys(map_tl);
      auto mgroups = ordered_groups(map_tl, mkeys);
      auto fkeys = op_keys(tl);
      auto fgroups = ordered_groups(tl, fkeys);
      GpuOps fops(tl);
      std::vector<OpAttr> attr(fops.size());
      int64_t matched = 0, unmatched = 0;
      std::vector<std::string> unmatched_names;
      for (auto& [key, fv] : fgroups) {
        auto it = mgroups.find(key);
        if (it == mgroups.end()) {
          unmatched += static_cast<int64_t>(fv.size());
          if (unmatched_names.size() < 20) unmatched_names.push_back(key);
          continue;
        }
        const auto& mv = it->second;
        for (size_t k = 0; k < fv.size(); ++k) {
          size_t mi = mv[k % mv.size()];
          OpAttr& a = attr[fv[k]];
          a.scope = mscope[mi];
          if (mla.cpu_op[mi] >= 0) a.cpu_op = std::string(map_tl.str(map_tl.cpu_ops.name[mla.cpu_op[mi]]));
          if (mla.python[mi] != kNoStr) a.python = std::string(map_tl.str(mla.python[mi]));
          ++matched;
        }
      }
      ExposureResult ex = compute_exposure(tl);
      LaunchAttribution fla = attribute_launches(tl);  // formal's own (graph launches): overridden below
      auto tax = Taxonomy::load();
      KernelTableResult kt = build_kernel_table(tl, ex, fla, tax ? &*tax : nullptr);
      // Row-level attribution: the most frequent joined CPU op / Python location.
      std::vector<std::unordered_map<std::string, int64_t>> cpu_counts(kt.rows.size()), py_counts(kt.rows.size());
      std::vector<int64_t> scope(fops.size(), -1);
      for (size_t i = 0; i < fops.size(); ++i) {
        scope[i] = attr[i].scope;
        if (kt.op_row[i] < 0) continue;
        if (!attr[i].cpu_op.empty()) ++cpu_counts[kt.op_row[i]][attr[i].cpu_op];
        if (!attr[i].python.empty()) ++py_counts[kt.op_row[i]][attr[i].python];
      }
      auto mode = [](const std::unordered_map<std::string, int64_t>& m) {
        std::string best;
        int64_t bc = -1;
        for (auto& [k, c] : m)
          if (c > bc || (c == bc && k < best)) best = k, bc = c;
        return best;
      };
      for (size_t r = 0; r < kt.rows.size(); ++r) {
        kt.rows[r].cpu_op = mode(cpu_counts[r]);
        kt.rows[r].python_location = mode(py_counts[r]);
      }
      auto heur = OverlapHeuristics::load();
      if (!heur) {
        vr.error = heur.error();
        return vr;
      }
      Vendor vendor = detect_vendor(tl);
      auto rows = build_overlap_table(tl, kt, scope, vendor, *heur);
      Json res;
      res["mapping_trace"] = o->mapping;
      res["formal_trace"] = o->formal;
      res["join"] = {{"method", "kind + canonical kernel name, then launch order (k-th ↔ k mod m)"},
                     {"formal_ops_matched", matched},
                     {"formal_ops_unmatched", unmatched},
                     {"unmatched_names_sample", unmatched_names}};
      Json devs = Json::array();
      for (const auto& d : ex.devices)
        devs.push_back({{"device", d.device},
                        {"window_us", round_to((d.window_end_ns - d.window_start_ns) / 1000.0, 3)},
                        {"busy_us", round_to(d.busy_ns / 1000.0, 3)},
                        {"multi_stream_us", round_to(d.multi_stream_ns / 1000.0, 3)},
                        {"peak_concurrency", d.peak_concurrency}});
      res["devices"] = devs;
      res["overlap_opportunities"] = overlap_table_to_json(rows);
      vr.result = std::move(res);
      std::string h = "join: " + std::to_string(matched) + " formal GPU ops attributed through the mapping trace, " +
                      std::to_string(unmatched) + " without a same-name kernel there\n";
      for (const auto& d : ex.devices)
        h += "device " + std::to_string(d.device) + ": busy " + std::to_string(d.busy_ns / 1000) + " us, 2+ streams " +
             std::to_string(d.multi_stream_ns / 1000) + " us, peak concurrency " + std::to_string(d.peak_concurrency) +
             "\n";
      int n = 0;
      for (const auto& r : rows) {
        if (n++ >= o->top) break;
        char b[256];
        std::snprintf(b, sizeof b, "%s  excl %3.0f%%  hid %3.0f%%  share %6.2f%%  dep %-6s ", priority_name(r.priority),
                      r.exclusive_pct, r.hidden_pct, r.share_pct, r.dependency_risk.c_str());
        h += b + r.verdict + "  " + r.kernel.substr(0, 60) + "  [" + (r.cpu_op.empty() ? "?" : r.cpu_op) +
             (r.python_location.empty() ? "" : " @ " + r.python_location) + "]\n";
      }
      vr.human = h;
      if (!s1)
        vr.error = s1.error();
      else if (!s2)
        vr.error = s2.error();
      return vr;
    });
  });
}

}  // namespace goblin
