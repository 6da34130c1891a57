// goblin ranks at scale (docs/scale.md): how ranks are found (directories, globs, a rank pattern
// over file names), one rank read from its trace or from its summary (goblin summarize), and the
// cross-rank analysis with each rank's host (the node view, analysis/ranks_topology.h). The
// entry points of analysis/ranks.h call these with no pattern and no hosts.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/ranks.h"

namespace goblin::analysis {
struct GpuOpNames;  // analysis/gpu_op_names.h
}

namespace goblin::analysis {

// How ranks are found among the files given.
struct RankDiscovery {
  // A regular expression over the file name whose first group (else the whole match) is the rank
  // number ("node[0-9]+_gpu([0-9]+)"); empty: rank-3, rank_3, rank3. A trace's own distributedInfo
  // rank still wins over the name.
  std::string rank_regex;
};

// Files, directories and globs ("traces/*.json.gz", expanded here so every door and the Slurm
// scripts see the same list) → ranks, in a stable order (a directory: its trace files, one rank
// each; rocprofv3 files grouped by process id). `notes` gets what was skipped. Errors: a path that
// does not exist, a glob that matches nothing, a rank pattern that does not compile.
Result<std::vector<RankInput>> enumerate_ranks(const std::vector<std::string>& paths, std::vector<std::string>* notes,
                                               const RankDiscovery& discovery);

// The rank number in a file name by a user's pattern (RankDiscovery::rank_regex; empty: the
// default rank-3 / rank_3 / rank3), -1 when it does not match a number.
int64_t rank_from_name(const std::string& file_name, const std::string& rank_regex);

// One rank as goblin ranks reads it: its trace files read lean (only what the analysis uses) and
// reduced to a profile, or, when the one file is a rank summary, the profile it holds and the host
// it names. `seen`, when set, is given the Timeline and its classified kernel names before they
// are dropped (summarize takes its extras from them; not called for a summary). Damage is kept in the profile
// (`damage`, `usable`).
struct ReadRank {
  RankProfile profile;
  std::string host;  // from the summary ("" for a trace: it does not name its host)
};
ReadRank read_rank(const RankInput& in, const AnalysisKnowledge& k,
                   const std::function<void(const Timeline&, const GpuOpNames&)>& seen = {});

struct ScaleRanksOptions {
  int threads = 2;  // ranks read at once when they are small (each larger one uses both cores itself)
  RankDiscovery discovery;
};

Result<RanksResult> analyse_ranks(const std::vector<std::string>& paths, const AnalysisKnowledge& k,
                                  const ScaleRanksOptions& opt);

// The kernel-name lists the reduce keeps once for all the ranks that have them (analyse_ranks:
// ranks of one job share theirs, so it holds per rank only what the report reads), by rank label.
// A rank whose label is not in it (or maps to nothing) keeps its own list in its profile.
using KernelNamesByLabel = std::map<std::string, std::shared_ptr<const std::vector<std::string>>>;

// The cross-rank analysis with each rank's host, by its label ("" or absent: unknown); the
// result's per-rank entries gain `host` and the result `topology`.
Result<RanksResult> analyse_rank_profiles(std::vector<RankProfile> ranks, const CollectiveKnowledge& ck,
                                          std::vector<std::string> notes,
                                          const std::map<std::string, std::string>& host_by_label,
                                          const KernelNamesByLabel& kernel_names = {});

// refuse_not_one_job (ranks.h), each rank's kernel names read from `kernel_names` where it has them.
std::optional<Error> refuse_not_one_job(const std::vector<const RankProfile*>& use, const CollectiveKnowledge& ck,
                                        const KernelNamesByLabel& kernel_names);

}  // namespace goblin::analysis
