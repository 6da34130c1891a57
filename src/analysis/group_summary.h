// A group summary (`goblin summarize --merge`; docs/scale.md § Two-level reduce): the rank
// summaries of a group of ranks (a node group, one Slurm task's share) folded into one file, so
// the final `goblin ranks` reads a few files instead of one per rank. Per-rank figures stay per
// rank: each rank keeps everything goblin ranks reads of its summary (its RankProfile and host),
// so goblin ranks over group summaries gives the same result as over the rank summaries. What the
// group drops is what goblin ranks does not read (each rank's devices, kernel time by category,
// top kernels, clock and bus bandwidths: they stay in the rank summaries), and what repeats: the
// ranks of one job share their kernel-name list, kept once per distinct list.
// A gzip'd JSON document whose first key is "goblin_group_summary" (the schema version): the
// format sniffer knows it by that (trace/summary_sniff.h). A group summary may itself be merged.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/ranks_scale.h"
#include "core/status.h"

namespace goblin::analysis {

// Version 1: the first schema. A reader refuses a version it does not know.
inline constexpr int kGroupSummaryVersion = 1;

// One rank of a group: what goblin ranks reads of its rank summary.
struct GroupRank {
  std::string host;
  int64_t kernel_names = -1;  // index into GroupSummary::kernel_name_sets (-1: none)
  RankProfile profile;        // its kernel_names are in the group's sets
};

struct GroupSummary {
  int64_t version = kGroupSummaryVersion;
  std::vector<std::string> inputs;                         // the summaries merged, as given
  std::vector<std::vector<std::string>> kernel_name_sets;  // distinct kernel-name lists
  std::vector<GroupRank> ranks;                            // in the order read
};

// Adds one rank (from its rank summary, or a damaged one) to `g`.
void add_group_rank(GroupSummary& g, ReadRank r);
// The ranks of `g` as goblin ranks reads them, each with its kernel names back.
std::vector<ReadRank> group_ranks(GroupSummary g);

Json group_summary_json(const GroupSummary& g);
// Reads a group summary document; every rank passes the checks a rank summary's profile passes
// (check_summary_profile); errors name `file` and the rank ("group summary: ranks[3]: ...").
Result<GroupSummary> group_summary_from_json(const Json& j, const std::string& file);
Result<GroupSummary> parse_group_summary(const std::string& text, const std::string& file);
Result<GroupSummary> read_group_summary_file(const std::string& path);
Result<int64_t> write_group_summary_file(const GroupSummary& g, const std::string& path);

// True when `path`'s content is a group summary (sniffed, never by name).
bool is_group_summary_file(const std::string& path);

}  // namespace goblin::analysis
