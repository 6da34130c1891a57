// `goblin summarize TRACE... -o DIR`: the map step of a many-rank job (docs/scale.md). Each rank's
// trace is read (lean, as goblin ranks reads it), reduced to its RankSummary and written to DIR as
// rank<R>.summary.json.gz, one rank in memory at a time; `goblin ranks DIR` then reads the
// summaries in place of the traces and gives the same result.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/ranks_scale.h"
#include "core/json.h"
#include "core/status.h"

namespace goblin::analysis {

// What summarize reads of the knowledge context (analysis/knowledge.h), loaded alone: the
// taxonomy, data/collectives.yaml and the architecture tables of data/gpu_arch_names.yaml (the
// vendor's kernel markers): read_rank and the summary read nothing else; the other members are
// empty. The map runs one process per rank trace, so what it loads is paid once per rank: the
// other files (GPU specs, ceilings, NCU rules, op models, overlap, fusion, serving stages) were
// ~3 % of its CPU time on a 284.5 MB rank (docs/scale.md § Figures). Loaded once per process and
// data directory.
Result<std::shared_ptr<const AnalysisKnowledge>> summarize_knowledge();

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

// `goblin summarize --merge SUMMARY... -o DIR`: the rank summaries (and group summaries) given,
// folded into one group summary (analysis/group_summary.h) DIR/ranks<LO>-<HI>.group.json.gz, LO
// and HI the lowest and highest rank in it. A rank summary that cannot be read is kept as that
// rank, damaged (the final goblin ranks reports it as it would from the rank summary).
// Errors: no input, an input that is not a summary (a trace: summarize it first), a group summary
// that cannot be read, an output directory that cannot be made or written.
struct MergedGroup {
  std::string written;
  size_t inputs = 0;
  std::vector<int64_t> ranks;  // the ranks it holds, in order read (-1: unknown)
  size_t damaged = 0;          // ranks whose summary could not be read
  int64_t input_bytes = 0, group_bytes = 0;
};
Result<MergedGroup> merge_summaries(const std::vector<std::string>& paths, const AnalysisKnowledge& k,
                                    const SummarizeOptions& opt);
// {out_dir, group: {written, inputs, ranks (count), rank_min, rank_max, damaged, input_bytes,
// group_bytes}}
Json merged_json(const MergedGroup& g, const std::string& out_dir);
std::string merged_human(const MergedGroup& g);

Json summarized_json(const std::vector<SummarizedRank>& ranks, const std::string& out_dir);
std::string summarized_human(const std::vector<SummarizedRank>& ranks, const std::string& out_dir);

}  // namespace goblin::analysis
