// goblin ranks, the job's shape (docs/scale.md § topology): ranks grouped by host with the slow
// node, the communication matrix of each process group and its slow links. Everything here comes
// from the matched collectives and waits of ranks_match.cpp / ranks_straggler.cpp, so it is the
// same whether the ranks were read from traces or from their summaries.
#include "analysis/ranks_topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace goblin::analysis {

namespace {

double s9(double ns) { return round_to(ns / 1e9, 9); }

struct Link {
  int64_t from = 0, to = 0;
  size_t from_u = 0, to_u = 0;  // use indices
  double bytes = 0, time_ns = 0;
};

struct Group {
  std::string name, type_mix;
  std::vector<size_t> members;  // use indices, by rank
  double bytes = 0;             // Σ bus bytes (payload × busbw factor) of its matched collectives
  double transfer_ns = 0;       // Σ shortest duration of each (the time the transfer itself took)
  int64_t count = 0;
  std::vector<Link> links;
  double busbw_gbps() const { return transfer_ns > 0 ? bytes / transfer_ns : 0.0; }
};

}  // namespace

Topology ranks_topology(const RanksReport& R, const std::vector<const RankProfile*>& use,
                        const std::vector<std::string>& hosts, const CollectiveKnowledge& ck) {
  Topology t;
  const size_t U = use.size();
  // ---- nodes ----
  std::map<std::string, std::vector<size_t>> by_host;
  for (size_t u = 0; u < U; ++u)
    if (!hosts[u].empty()) by_host[hosts[u]].push_back(u);
  int64_t late_total = 0;
  for (const auto& w : R.waits) late_total += w.late_ns;
  for (const auto& [host, us] : by_host) {
    NodeRow n;
    n.host = host;
    double step = 0;
    int64_t top_late = 0;
    for (size_t u : us) {
      n.ranks.push_back(use[u]->rank);
      n.wait_ns += R.waits[u].wait_ns;
      n.late_ns += R.waits[u].late_ns;
      n.arrived_last += R.waits[u].last_count;
      top_late = std::max(top_late, R.waits[u].late_ns);
      step += mean_over_steps(R, u, [&](size_t uu, size_t s) { return use[uu]->steps[s].wall_ns(); });
    }
    n.mean_step_ns = step / static_cast<double>(us.size());
    n.late_share = late_total > 0 ? static_cast<double>(n.late_ns) / static_cast<double>(late_total) : 0.0;
    n.one_rank_share = n.late_ns > 0 ? static_cast<double>(top_late) / static_cast<double>(n.late_ns) : 0.0;
    t.nodes.push_back(std::move(n));
  }
  // The slow node: one host carries most of the lateness (data/collectives.yaml min_late_share,
  // the straggler's threshold) and it is spread over its ranks — one late rank on a host is the
  // straggler, not its node.
  if (t.nodes.size() > 1) {
    auto it = std::max_element(t.nodes.begin(), t.nodes.end(),
                               [](const NodeRow& a, const NodeRow& b) { return a.late_share < b.late_share; });
    t.slow_node.host = it->host;
    t.slow_node.late_share = it->late_share;
    if (it->late_share < ck.min_late_share) {
      t.slow_node.reason = fmt::format("no host carries {:.0f}% of the lateness (the most: {} with {:.0f}%)",
                                       100 * ck.min_late_share, it->host, 100 * it->late_share);
    } else if (it->ranks.size() > 1 && it->one_rank_share >= 0.8) {
      t.slow_node.reason = fmt::format(
          "{} carries {:.0f}% of the lateness, but {:.0f}% of it from one rank: a straggling rank, not its node",
          it->host, 100 * it->late_share, 100 * it->one_rank_share);
    } else {
      t.slow_node.named = true;
      t.slow_node.reason = fmt::format("{} carries {:.0f}% of the lateness, spread over its {} rank(s)", it->host,
                                       100 * it->late_share, it->ranks.size());
    }
  } else {
    t.slow_node.reason =
        t.nodes.empty() ? "hosts unknown (summaries made with goblin summarize --host name them)" : "one host";
  }

  // ---- communication matrix, per process group ----
  // NCCL moves a ring collective's bus bytes (payload × the busbw factor, nccl-tests
  // PERFORMANCE.md) from each rank to the next in the ring; the ring order is not in the trace, so
  // the group's ranks in order stand for it (exact for two ranks). The time of a transfer is the
  // shortest duration of the collective across ranks (the others include waiting).
  std::map<std::string, Group> groups;
  for (const MatchedItem& m : R.collectives) {
    const RankCollective& c0 = use[0]->collectives[static_cast<size_t>(m.idx[0])];
    Group& g = groups[c0.group];
    g.name = c0.group;
    int64_t lo = INT64_MAX;
    for (size_t u = 0; u < U; ++u) {
      const RankCollective& c = use[u]->collectives[static_cast<size_t>(m.idx[u])];
      lo = std::min(lo, c.end_ns - c.start_ns);
    }
    const CollectiveKnowledge::Type* ty = nullptr;
    for (const auto& x : ck.types)
      if (x.type == c0.type) ty = &x;
    std::optional<double> f = ty ? CollectiveKnowledge::factor(ty->busbw_factor, c0.group_size) : std::nullopt;
    if (!f || c0.bytes == kNone) continue;
    g.bytes += static_cast<double>(c0.bytes) * *f;
    g.transfer_ns += static_cast<double>(lo);
    ++g.count;
  }
  for (auto& [name, g] : groups) {
    if (g.count == 0) continue;
    for (size_t u = 0; u < U; ++u) g.members.push_back(u);
    const size_t n = g.members.size();
    for (size_t i = 0; i < n && n > 1; ++i) {
      Link l;
      l.from = use[g.members[i]]->rank;
      l.to = use[g.members[(i + 1) % n]]->rank;
      l.from_u = g.members[i];
      l.to_u = g.members[(i + 1) % n];
      l.bytes = g.bytes;
      l.time_ns = g.transfer_ns;
      if (n == 2 && i == 1) break;  // two ranks: one link, both directions at once
      g.links.push_back(l);
    }
    GroupMatrix gm;
    gm.group = name;
    for (size_t u : g.members) gm.ranks.push_back(use[u]->rank);
    gm.collectives = g.count;
    gm.bus_bytes = g.bytes;
    gm.transfer_ns = g.transfer_ns;
    gm.busbw_gbps = round_to(g.busbw_gbps(), 3);
    for (const Link& l : g.links) {
      const bool cross = !hosts[l.from_u].empty() && hosts[l.from_u] != hosts[l.to_u];
      gm.links.push_back({l.from, l.to, l.bytes, l.time_ns, cross});
    }
    t.matrix.push_back(std::move(gm));
  }
  // Slow links: a group whose bus bandwidth is under half the median of the job's groups. One ring
  // runs at the pace of its slowest link, so the group is as fine as kernel timings can locate it.
  if (t.matrix.size() > 1) {
    std::vector<double> bw;
    for (const auto& g : t.matrix) bw.push_back(g.busbw_gbps);
    std::sort(bw.begin(), bw.end());
    const double median = bw[bw.size() / 2];
    for (const auto& g : t.matrix)
      if (g.busbw_gbps < 0.5 * median)
        t.slow_links.push_back(
            fmt::format("process group {}: {:.1f} GB/s bus bandwidth, under half the median "
                        "group's {:.1f} GB/s",
                        g.group.empty() ? "(unnamed)" : g.group, g.busbw_gbps, median));
  }
  return t;
}

Json topology_json(const Topology& t) {
  Json nodes = Json::array();
  for (const NodeRow& n : t.nodes)
    nodes.push_back({{"host", n.host},
                     {"ranks", n.ranks},
                     {"mean_step_s", s9(n.mean_step_ns)},
                     {"wait_in_collectives_s", s9(static_cast<double>(n.wait_ns))},
                     {"arrived_last", n.arrived_last},
                     {"late_s", s9(static_cast<double>(n.late_ns))},
                     {"late_share", round_to(n.late_share, 4)}});
  Json matrix = Json::array();
  for (const GroupMatrix& g : t.matrix) {
    Json links = Json::array();
    for (const auto& l : g.links)
      links.push_back({{"from", l.from},
                       {"to", l.to},
                       {"bus_bytes", l.bytes},
                       {"time_s", s9(l.time_ns)},
                       {"busbw_gbps", l.time_ns > 0 ? round_to(l.bytes / l.time_ns, 3) : 0.0},
                       {"crosses_hosts", l.crosses_hosts}});
    matrix.push_back({{"group", g.group},
                      {"ranks", g.ranks},
                      {"collectives", g.collectives},
                      {"bus_bytes", g.bus_bytes},
                      {"transfer_s", s9(g.transfer_ns)},
                      {"busbw_gbps", g.busbw_gbps},
                      {"model", "ring over the group's ranks in order (the trace does not record NCCL's ring)"},
                      {"links", std::move(links)}});
  }
  return Json{{"nodes", std::move(nodes)},
              {"slow_node",
               {{"named", t.slow_node.named},
                {"host", t.slow_node.named ? Json(t.slow_node.host) : Json(nullptr)},
                {"late_share", round_to(t.slow_node.late_share, 4)},
                {"reason", t.slow_node.reason}}},
              {"comm_matrix", std::move(matrix)},
              {"slow_links", t.slow_links}};
}

std::string topology_human(const Topology& t) {
  std::string s;
  auto out = std::back_inserter(s);
  if (!t.nodes.empty()) {
    fmt::format_to(out, "\nnodes ({}):\n", t.nodes.size());
    size_t shown = 0;
    for (const NodeRow& n : t.nodes) {
      if (shown++ == 16) {
        fmt::format_to(out, "  ... {} more\n", t.nodes.size() - 16);
        break;
      }
      fmt::format_to(out, "  {:<20} {:>4} ranks  step {:>9.3f} ms  waits {:>9.3f} ms  late {:>9.3f} ms ({:.0f}%)\n",
                     n.host, n.ranks.size(), n.mean_step_ns / 1e6, static_cast<double>(n.wait_ns) / 1e6,
                     static_cast<double>(n.late_ns) / 1e6, 100 * n.late_share);
    }
  }
  fmt::format_to(
      out, "slow node: {}\n",
      t.slow_node.named ? t.slow_node.host + ": " + t.slow_node.reason : "none named: " + t.slow_node.reason);
  for (const GroupMatrix& g : t.matrix)
    fmt::format_to(out, "process group {}: {} ranks, {} collectives, {:.3f} GB bus bytes in {:.3f} ms: {:.1f} GB/s\n",
                   g.group.empty() ? "(unnamed)" : g.group, g.ranks.size(), g.collectives, g.bus_bytes / 1e9,
                   g.transfer_ns / 1e6, g.busbw_gbps);
  if (t.slow_links.empty())
    s += "slow links: none\n";
  else
    for (const auto& l : t.slow_links) s += "slow link: " + l + "\n";
  return s;
}

}  // namespace goblin::analysis
