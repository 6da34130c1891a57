// One rank's summary (`goblin summarize`; docs/scale.md): everything `goblin ranks` needs from a
// rank's trace — its RankProfile (steps, per-step figures, collectives with their pre-arrival
// windows, kernel names for the same-job check) — plus what a person or a later reduce wants to
// see about the rank without its trace (host, devices, process groups, kernel time by category,
// the top kernels, the clock). A summary is a small gzip'd JSON document whose first key is
// "goblin_rank_summary" (the schema version): the format sniffer knows it by that
// (trace/sniff.cpp), and `goblin ranks` reads it in place of the trace it was made from, giving the
// same result. The fields are declared once, as field lists (rank_summary.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/gpu_op_names.h"
#include "analysis/ranks.h"
#include "core/limits.h"
#include "core/status.h"

namespace goblin::analysis {

// Version 1: the first schema. A reader refuses a summary of a version it does not know.
inline constexpr int kRankSummaryVersion = 1;

struct SummaryDevice {
  int64_t id = kNone;
  std::string name, arch;
};

// A process group as this rank saw it: the collectives it ran in the group and their payload.
struct SummaryGroup {
  std::string name;  // "" when the trace does not name groups
  int64_t size = kNone;
  int64_t collectives = 0;
  int64_t bytes = 0;  // Σ payload of the collectives whose size is known
  int64_t time_ns = 0;
};

struct SummaryKernel {
  std::string name;  // canonical kernel name
  std::string category;
  int64_t count = 0, total_ns = 0;
};

// The clock of the rank's times: with the epoch base, ranks on several hosts line up on the wall
// clock (the offset between two ranks is the difference of their bases plus their times).
struct SummaryClock {
  std::string domain;  // clock_domain_name of the trace clock
  bool epoch = false;
  int64_t epoch_base_ns = 0;
  int64_t first_ns = 0, last_ns = 0;  // GPU activity span, in the trace's own times
};

struct RankSummary {
  int64_t version = kRankSummaryVersion;
  std::string source;        // the trace file it was made from, as given
  int64_t source_bytes = 0;  // its size on disk
  std::string host;          // --host, else "" (a trace does not name its host)
  std::vector<SummaryDevice> devices;
  std::vector<SummaryGroup> process_groups;
  std::map<std::string, int64_t> category_ns;  // kernel time by taxonomy category (memcpy, memset too)
  std::vector<SummaryKernel> top_kernels;      // by total time, at most kTopKernels
  SummaryClock clock;
  // Bus bandwidth of each collective of `profile.collectives` (same order), GB/s: bytes / duration
  // × the type's busbw factor (nccl-tests PERFORMANCE.md, data/collectives.yaml); null when the
  // size or the factor is unknown. goblin ranks does not read it (its bandwidth table uses the
  // shortest duration of each matched collective across ranks).
  std::vector<std::optional<double>> collective_busbw_gbps;
  RankProfile profile;  // what goblin ranks reads
};

inline constexpr size_t kTopKernels = 20;

// The extras of a summary from the rank's Timeline and its classified kernel names
// (gpu_op_names): devices, kernel time by category, top kernels, clock. One pass over the GPU-op
// columns, summing per distinct name; names are merged by canonical name only at the end.
void fill_summary_extras(RankSummary& s, const Timeline& tl, const GpuOpNames& names);
// The process groups, from `s.profile`'s collectives.
void fill_summary_groups(RankSummary& s);
// collective_busbw_gbps from `s.profile`'s collectives.
void fill_summary_busbw(RankSummary& s, const CollectiveKnowledge& ck);

Json rank_summary_json(const RankSummary& s);
// Reads a summary document; errors name `file` and the field ("collectives[3].seq: expected ...").
Result<RankSummary> rank_summary_from_json(const Json& j, const std::string& file);
// The text form: gzip'd JSON (the file `goblin summarize` writes) or plain JSON.
Result<RankSummary> parse_rank_summary(const std::string& text, const std::string& file);
Result<RankSummary> read_rank_summary_file(const std::string& path);
// Writes `s` gzip'd to `path` (AtomicFile); returns the bytes written.
Result<int64_t> write_rank_summary_file(const RankSummary& s, const std::string& path);
// `text` gzip'd to `path` (AtomicFile; the summaries' file form); returns the bytes written.
Result<int64_t> write_gzip_json_file(const std::string& text, const std::string& path);
// The checks a profile read from a summary passes (what goblin ranks relies on: rank and world
// size below limits::kMaxRanks, steps and collectives in time order, step indices in range, kernel
// names sorted); errors start with `what` and name `file`.
Status check_summary_profile(const RankProfile& p, std::string_view what, const std::string& file);

// True when `path`'s content is a rank summary (sniffed, never by name).
bool is_rank_summary_file(const std::string& path);

}  // namespace goblin::analysis
