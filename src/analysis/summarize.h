// `goblin summarize TRACE... -o DIR`: the map step of a many-rank job (docs/scale.md). Each rank's
// trace is read (lean, as goblin ranks reads it), reduced to its RankSummary and written to DIR as
// rank<R>.summary.json.gz, one rank in memory at a time; `goblin ranks DIR` then reads the
// summaries in place of the traces and gives the same result.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/ranks_scale.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin::analysis {

struct SummarizeOptions {
  std::string out_dir;
  std::string host;  // recorded in each summary (a trace does not name its host)
  RankDiscovery discovery;
};

struct SummarizedRank {
  std::string source, summary;  // the trace (as given) and the summary written
  int64_t rank = -1;
  std::string rank_from;
  int64_t source_bytes = 0, summary_bytes = 0;
  size_t steps = 0, collectives = 0;
  bool usable = false;
  std::optional<Error> damage;  // the trace was damaged (the summary keeps what was read)
};

// The verb's result: {out_dir, summaries: [{rank, rank_from, source, written (the summary),
// source_bytes, summary_bytes, size_pct, steps, collectives, usable, damage}]}.
// Errors: no input, an input that is already a summary, two inputs that would write one file, an
// output directory that cannot be made or written.
Result<std::vector<SummarizedRank>> summarize_ranks(const std::vector<std::string>& paths, const AnalysisKnowledge& k,
                                                    const SummarizeOptions& opt);

Json summarized_json(const std::vector<SummarizedRank>& ranks, const std::string& out_dir);
std::string summarized_human(const std::vector<SummarizedRank>& ranks, const std::string& out_dir);

}  // namespace goblin::analysis
