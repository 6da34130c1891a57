// goblin ranks, the job's shape: ranks by host (the node-aware view and the slow node), the
// communication matrix of each process group (bytes and time between ranks) and slow links.
// docs/scale.md § topology; computed in ranks_topology.cpp from the cross-rank report.
#pragma once
#include <string>
#include <vector>

#include "analysis/ranks_report.h"

namespace goblin::analysis {

struct NodeRow {
  std::string host;
  std::vector<int64_t> ranks;
  double mean_step_ns = 0;  // mean over its ranks of their mean matched step wall time
  int64_t wait_ns = 0, late_ns = 0, arrived_last = 0;
  double late_share = 0;      // its ranks' share of all lateness
  double one_rank_share = 0;  // the latest of its ranks' share of the host's lateness
};

struct SlowNode {
  bool named = false;
  std::string host;
  double late_share = 0;
  std::string reason;
};

struct MatrixLink {
  int64_t from = 0, to = 0;
  double bytes = 0, time_ns = 0;
  bool crosses_hosts = false;
};

struct GroupMatrix {
  std::string group;
  std::vector<int64_t> ranks;
  int64_t collectives = 0;
  double bus_bytes = 0, transfer_ns = 0, busbw_gbps = 0;
  std::vector<MatrixLink> links;
};

struct Topology {
  std::vector<NodeRow> nodes;  // hosts known (rank summaries made with --host), by name
  SlowNode slow_node;
  std::vector<GroupMatrix> matrix;
  std::vector<std::string> slow_links;
};

// `hosts`: per usable rank (as `use`), "" when unknown.
Topology ranks_topology(const RanksReport& r, const std::vector<const RankProfile*>& use,
                        const std::vector<std::string>& hosts, const CollectiveKnowledge& ck);
Json topology_json(const Topology& t);
std::string topology_human(const Topology& t);

}  // namespace goblin::analysis
