// `goblin ranks PATH...`: one distributed job's per-rank traces side by side: steps matched
// across ranks, per step and rank compute / exposed and hidden communication / idle / time waiting
// inside collectives, the straggler (who arrives last to the collectives, by how much, and what
// it did before arriving) and skew tables (step time, kernel time by category, collective
// bandwidth). Definitions: docs/metrics.md § ranks; knowledge: data/collectives.yaml.
//
// Ranks are read one at a time (two at a time when they are small): each rank's Timeline is
// reduced to a RankProfile and dropped before the next one is read, so memory is bounded by the
// largest rank, not by their sum.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/taxonomy.h"
#include "core/json.h"
#include "core/status.h"
#include "model/timeline.h"
#include "trace/rocprof/rocpd.h"

namespace goblin::analysis {

struct AnalysisKnowledge;  // analysis/knowledge.h

// ---- inputs ---------------------------------------------------------------------------------

// One rank's files: one trace (Kineto, nsys), or a rocprofv3 process's files (PID_*.csv/json).
struct RankInput {
  std::vector<std::string> files;
  std::string label;       // what the user named: the file, or DIR/PID for rocprofv3
  int64_t rank_hint = -1;  // from the file name (rank-3, rank_3, rank3), -1 when none
  // One process of a several-process rocpd database (files holds the database alone): the rank
  // is that process's rows, and rank_hint its place in the database's (node, pid) order.
  std::optional<trace::RocpdProcess> rocpd_process;
};

// Files and directories → ranks, in a stable order (a directory: its trace files, one rank each;
// rocprofv3 files grouped by process id; a rocpd database of several processes: one rank each). `notes` gets what was
// skipped.
Result<std::vector<RankInput>> enumerate_ranks(const std::vector<std::string>& paths, std::vector<std::string>* notes);

// The rank a trace is for: its distributedInfo rank, else the number in its file name, else -1.
// `from` gets "distributedInfo", "file name" or "".
int64_t rank_of(const Timeline& tl, const std::string& path, std::string* from);

// The rank number in a file name ("rank-3", "rank_3", "rank3", "r3_" not accepted), -1 if none.
int64_t rank_from_name(const std::string& file_name);

// ---- one rank -------------------------------------------------------------------------------

// Where the time before a collective went on one rank: the pre-arrival window from the end of the
// rank's previous synchronising collective (all-reduce, all-gather, ...: every rank was there) to
// this one's start; from the previous collective of any type when the rank has no synchronising
// one before it, from its first GPU work when it has none at all.
struct PreArrival {
  int64_t compute_ns = 0;    // |COMPUTE ∩ w|: kernels other than communication, and memsets
  int64_t other_gpu_ns = 0;  // |(ALL \ COMPUTE) ∩ w|: other communication, memcpy
  int64_t data_wait_ns = 0;  // GPU idle while the CPU was in a data-loading span (taxonomy dataloader_spans)
  int64_t host_gap_ns = 0;   // GPU idle otherwise
  int64_t window_ns() const { return compute_ns + other_gpu_ns + data_wait_ns + host_gap_ns; }
};

struct RankCollective {
  std::string
      type;  // allreduce | allgather | reducescatter | alltoall | broadcast | reduce | sendrecv | barrier | other
  std::string name;   // Kineto "Collective name", else the kernel's canonical name
  std::string group;  // process group name ("" when the trace does not say)
  int64_t seq = kNone;
  int64_t bytes = kNone;       // S of nccl-tests: max(in, out) nelems × dtype size
  int64_t group_size = kNone;  // ranks in the group (args, else the job's world size)
  int64_t start_ns = 0, end_ns = 0;
  int32_t step = -1;  // index into RankProfile::steps, -1 when outside every step
  bool synchronizes = false;
  PreArrival pre;
};

struct RankStep {
  std::string key;  // name plus occurrence ("ProfilerStep#5", "ProfilerStep#5@2" for a repeat)
  std::string name;
  int64_t start_ns = 0, end_ns = 0;
  bool partial = false;
  int64_t busy_ns = 0, compute_ns = 0, comm_ns = 0, exposed_comm_ns = 0, data_wait_ns = 0;
  std::map<std::string, int64_t> category_ns;  // Σ kernel time clipped to the step, by category
  int64_t wall_ns() const { return end_ns - start_ns; }
  int64_t idle_ns() const { return wall_ns() - busy_ns; }
};

struct RankProfile {
  int64_t rank = -1;
  std::string rank_from;  // distributedInfo | file name | order
  int64_t world_size = kNone;
  std::string backend;
  std::string label;
  std::vector<std::string> files;
  std::string gpu, vendor;
  std::string step_method;
  std::vector<RankStep> steps;
  std::vector<RankCollective> collectives;  // by start time
  std::vector<std::string> kernel_names;    // distinct kernel base names (the same-job check)
  bool collective_metadata = false;         // sizes/groups from the trace's collective args
  int64_t epoch_base_ns = 0;                // add to a timestamp for epoch ns (0: none, or already epoch)
  std::optional<Error> damage;              // read error; `usable` says whether anything was kept
  bool usable = false;
  std::vector<std::string> notes;
};

// Knowledge from data/collectives.yaml.
struct CollectiveKnowledge {
  struct Type {
    std::string type;
    std::vector<std::string> match;
    std::string busbw_factor;   // "2(n-1)/n" | "(n-1)/n" | "1" | "none"
    bool synchronizes = false;  // every rank must join before any finishes (data/collectives.yaml)
    std::string source;
  };
  std::vector<Type> types;
  std::map<std::string, int> dtype_bytes;
  std::string bandwidth_source;
  double min_late_share = 0.6, min_wait_fraction_of_step = 0.05, min_kernel_overlap = 0.5;
  static Result<CollectiveKnowledge> load();
  const Type* type_of(std::string_view name) const;  // by the lower-cased name; nullptr: unknown
  // busbw / algbw for `t` over n ranks; nullopt when the type moves no payload or n is unknown.
  static std::optional<double> factor(const std::string& busbw_factor, int64_t n);
};

RankProfile rank_profile(const Timeline& tl, const Taxonomy& tax, const CollectiveKnowledge& ck);

// ---- across ranks ---------------------------------------------------------------------------

struct RanksOptions {
  int threads = 2;  // ranks read at once when they are small (each larger one uses both cores itself)
};

struct RanksResult {
  Json result;  // the `goblin ranks --json` result
  std::string human;
  std::optional<Error> damage;  // a rank file was damaged (the others analysed)
};

// Reads every rank and analyses them together. Errors: no input, fewer than two usable ranks,
// ranks that are not one job (different workloads, world sizes, a rank given twice).
// Taxonomy and collectives from `k` (analysis/knowledge.h).
Result<RanksResult> analyse_ranks(const std::vector<std::string>& paths, const AnalysisKnowledge& k,
                                  const RanksOptions& opt = {});
// The same with the process's knowledge (analysis_knowledge()); for tests and one-shot tools.
Result<RanksResult> analyse_ranks(const std::vector<std::string>& paths, const RanksOptions& opt = {});

// The same-job checks (ranks.cpp): why `use` are not ranks of one job (a rank given twice,
// different world sizes, backends, vendors or kernel sets), nullopt when they are.
std::optional<Error> refuse_not_one_job(const std::vector<const RankProfile*>& use, const CollectiveKnowledge& ck);

// The cross-rank analysis over profiles already computed (tests feed profiles directly).
Result<RanksResult> analyse_rank_profiles(std::vector<RankProfile> ranks, const CollectiveKnowledge& ck,
                                          std::vector<std::string> notes);

}  // namespace goblin::analysis
