// goblin ranks across ranks: steps and collectives matched, waiting inside collectives, the
// straggler and the skew tables. Definitions: docs/metrics.md § ranks.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/ranks.h"
#include "analysis/ranks_report.h"
#include "analysis/ranks_scale.h"
#include "analysis/ranks_topology.h"

namespace goblin::analysis {

namespace {

std::string ranges(const std::vector<int64_t>& v, size_t max_items = 12) {
  std::string s;
  size_t items = 0;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (items++ == max_items) {
      s += ", ...";
      break;
    }
    s += (s.empty() ? "" : ", ") + fmt::to_string(v[i]) + (j > i ? "-" + fmt::to_string(v[j]) : "");
    i = j + 1;
  }
  return s;
}

}  // namespace

Result<RanksResult> analyse_rank_profiles(std::vector<RankProfile> ranks, const CollectiveKnowledge& ck,
                                          std::vector<std::string> notes) {
  return analysis::analyse_rank_profiles(std::move(ranks), ck, std::move(notes), {});
}

Result<RanksResult> analyse_rank_profiles(std::vector<RankProfile> ranks, const CollectiveKnowledge& ck,
                                          std::vector<std::string> notes,
                                          const std::map<std::string, std::string>& host_by_label,
                                          const KernelNamesByLabel& kernel_names) {
  RanksReport R;
  R.notes = std::move(notes);
  R.bandwidth_source = ck.bandwidth_source;
  std::optional<Error> damage;
  // Ranks without a number get the smallest unused ones, in input order.
  {
    std::set<int64_t> used;
    for (const auto& p : ranks)
      if (p.rank >= 0) used.insert(p.rank);
    int64_t next = 0;
    for (auto& p : ranks)
      if (p.rank < 0) {
        while (used.count(next)) ++next;
        p.rank = next;
        used.insert(next);
        p.rank_from = "order";
      }
  }
  // By rank before anything is listed: the damage and the ranks' notes come out in rank order,
  // whatever order the files were given or listed in (a directory lists rank10 before rank2; a
  // two-level reduce reads ranks group by group) — the same ranks give the same result.
  std::stable_sort(ranks.begin(), ranks.end(),
                   [](const RankProfile& a, const RankProfile& b) { return a.rank < b.rank; });
  for (auto& p : ranks) {
    if (p.damage) {
      if (!damage) damage = p.damage;
      R.damaged.push_back(p.label + (p.usable ? " (partly read, analysed): " : " (not analysed): ") +
                          p.damage->describe());
    }
    for (const auto& n : p.notes) R.notes.push_back("rank " + fmt::to_string(p.rank) + ": " + n);
    std::vector<std::string>().swap(p.notes);  // listed in R.notes; the report reads them there
  }
  R.ranks = std::move(ranks);
  std::vector<const RankProfile*> use;
  for (const auto& p : R.ranks)
    if (p.usable) use.push_back(&p);
  if (use.size() < 2) {
    std::string why = "need at least two readable ranks, got " + fmt::to_string(use.size());
    for (const auto& d : R.damaged) why += "; " + d;
    return make_error(damage ? ErrorKind::Malformed : ErrorKind::Usage, why);
  }
  if (auto e = refuse_not_one_job(use, ck, kernel_names)) return *e;
  const size_t U = use.size();

  // ---- missing ranks ----
  int64_t world = kNone;
  for (const RankProfile* p : use)
    if (p->world_size != kNone) world = p->world_size;
  R.world_size = world;
  {
    std::set<int64_t> have;
    for (const RankProfile* p : use) have.insert(p->rank);
    const int64_t hi = world != kNone ? world : (*have.rbegin() + 1);
    for (int64_t r = 0; r < hi; ++r)
      if (!have.count(r)) R.missing.push_back(r);
    if (!R.missing.empty())
      R.notes.push_back(fmt::to_string(R.missing.size()) + " rank(s) of " +
                        (world != kNone ? "world size " + fmt::to_string(world) : "the numbering") + " not read (" +
                        ranges(R.missing) + "): waiting and the straggler are judged among the ranks read only");
  }

  // ---- steps ----
  {
    std::map<std::string, std::vector<int>> by_key;
    std::vector<std::string> order;
    for (size_t u = 0; u < U; ++u)
      for (size_t s = 0; s < use[u]->steps.size(); ++s) {
        auto& v = by_key[use[u]->steps[s].key];
        if (v.empty()) {
          v.assign(U, -1);
          order.push_back(use[u]->steps[s].key);
        }
        v[u] = static_cast<int>(s);
      }
    for (const auto& k : order) {
      const auto& v = by_key[k];
      if (std::all_of(v.begin(), v.end(), [](int x) { return x >= 0; })) R.steps.push_back({k, v});
    }
    if (R.steps.empty()) {
      // Step names differ: match by position.
      size_t n = SIZE_MAX;
      for (const RankProfile* p : use) n = std::min(n, p->steps.size());
      for (size_t s = 0; s < n; ++s)
        R.steps.push_back({use[0]->steps[s].key, std::vector<int>(U, static_cast<int>(s))});
      if (n > 0) {
        R.step_match = "by position (step names differ between ranks)";
        R.notes.push_back("steps do not line up by name across ranks; matched by position (" + fmt::to_string(n) +
                          " steps)");
      }
    } else {
      R.step_match = "by name";
    }
    std::vector<std::string> odd;
    for (const auto& k : order)
      if (std::any_of(by_key[k].begin(), by_key[k].end(), [](int x) { return x < 0; })) odd.push_back(k);
    if (!odd.empty() && R.step_match == "by name") {
      std::string l;
      for (size_t i = 0; i < odd.size() && i < 6; ++i) {
        std::string who;
        for (size_t u = 0; u < U; ++u)
          if (by_key[odd[i]][u] >= 0) who += (who.empty() ? "" : ",") + fmt::to_string(use[u]->rank);
        l += (l.empty() ? "" : "; ") + odd[i] + " only on rank(s) " + who;
      }
      R.notes.push_back("steps that do not line up across ranks, left out: " + l + (odd.size() > 6 ? "; ..." : ""));
    }
    for (auto& m : R.steps) {
      m.complete = true;
      for (size_t u = 0; u < U; ++u)
        if (use[u]->steps[static_cast<size_t>(m.idx[u])].partial) m.complete = false;
    }
  }

  // ---- collectives ----
  // With sequence numbers on every collective: (process group, seq). Otherwise within each
  // matched step (ranks start and stop profiling at different moments, so a trace can begin with
  // collectives the other rank's trace lacks): (step, group, type, size, order among those).
  bool all_seq = true;
  size_t total_coll = 0;
  for (const RankProfile* p : use)
    for (const auto& c : p->collectives) {
      ++total_coll;
      all_seq &= c.seq != kNone;
    }
  R.collective_match = total_coll == 0 ? "none"
                       : all_seq       ? "process group + sequence number"
                                       : "step + process group + type + size, in order";
  {
    // Own step index → matched step key, per rank.
    std::vector<std::vector<const std::string*>> step_key(U);
    for (size_t u = 0; u < U; ++u) {
      step_key[u].assign(use[u]->steps.size(), nullptr);
      for (const auto& m : R.steps) step_key[u][static_cast<size_t>(m.idx[u])] = &m.key;
    }
    std::map<std::string, std::vector<int>> by_key;
    std::vector<std::string> order;
    std::vector<int64_t> unmatched(U, 0), outside(U, 0);
    for (size_t u = 0; u < U; ++u) {
      std::map<std::string, int> occ;
      for (size_t i = 0; i < use[u]->collectives.size(); ++i) {
        const RankCollective& c = use[u]->collectives[i];
        std::string base;
        if (all_seq) {
          base = c.group + "|seq " + fmt::to_string(c.seq);
        } else {
          const std::string* sk = c.step >= 0 ? step_key[u][static_cast<size_t>(c.step)] : nullptr;
          if (!sk) {
            ++outside[u];
            continue;
          }
          base = *sk + "|" + c.group + "|" + c.type + "|" + fmt::to_string(c.bytes);
        }
        std::string key = base + "#" + fmt::to_string(occ[base]++);
        auto& v = by_key[key];
        if (v.empty()) {
          v.assign(U, -1);
          order.push_back(key);
        }
        v[u] = static_cast<int>(i);
      }
    }
    for (const auto& k : order) {
      const auto& v = by_key[k];
      if (std::all_of(v.begin(), v.end(), [](int x) { return x >= 0; })) {
        R.collectives.push_back({k, v});
      } else {
        for (size_t u = 0; u < U; ++u)
          if (v[u] >= 0) ++unmatched[u];
      }
    }
    // In time order of the first rank.
    std::stable_sort(R.collectives.begin(), R.collectives.end(), [&](const MatchedItem& a, const MatchedItem& b) {
      return use[0]->collectives[static_cast<size_t>(a.idx[0])].start_ns <
             use[0]->collectives[static_cast<size_t>(b.idx[0])].start_ns;
    });
    auto per_rank = [&](const std::vector<int64_t>& n) {
      std::string l;
      for (size_t u = 0; u < U; ++u)
        if (n[u])
          l += (l.empty() ? "" : ", ") + std::string("rank ") + fmt::to_string(use[u]->rank) + ": " +
               fmt::to_string(n[u]);
      return l;
    };
    if (auto l = per_rank(unmatched); !l.empty())
      R.notes.push_back("collectives without a counterpart on every rank, left out of the waiting analysis (" + l +
                        ")");
    if (auto l = per_rank(outside); !l.empty())
      R.notes.push_back("collectives outside the matched steps, left out (" + l + ")");
    size_t type_mismatch = 0;
    for (const auto& m : R.collectives)
      for (size_t u = 1; u < U; ++u)
        if (use[u]->collectives[static_cast<size_t>(m.idx[u])].type !=
            use[0]->collectives[static_cast<size_t>(m.idx[0])].type) {
          ++type_mismatch;
          break;
        }
    if (type_mismatch)
      R.notes.push_back(fmt::to_string(type_mismatch) +
                        " matched collective(s) have different types on different ranks: the ranks' collective "
                        "sequences diverge (different code paths?)");
  }

  compute_waits_and_straggler(R, use, ck);
  compute_skew(R, use, ck);

  std::vector<std::string> hosts;
  for (const RankProfile* p : use) {
    auto it = host_by_label.find(p->label);
    hosts.push_back(it == host_by_label.end() ? std::string() : it->second);
  }
  const analysis::Topology topo = analysis::ranks_topology(R, use, hosts, ck);
  RanksResult out;
  out.result = ranks_report_json(R, use);
  for (auto& r : out.result["ranks"]) {
    auto it = host_by_label.find(r.value("label", std::string()));
    r["host"] = it == host_by_label.end() ? Json(nullptr) : Json(it->second);
  }
  out.result["topology"] = analysis::topology_json(topo);
  out.human = ranks_report_human(R, use) + analysis::topology_human(topo);
  out.damage = damage;
  return out;
}

}  // namespace goblin::analysis
