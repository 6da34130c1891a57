// goblin ranks: reading the ranks (streamed: one or two Timelines alive at a time) and refusing
// inputs that are not one job. The cross-rank analysis is in ranks_match.cpp.
#include "analysis/ranks.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>

#include "analysis/gpu_op_names.h"
#include "analysis/group_summary.h"
#include "analysis/knowledge.h"
#include "analysis/rank_summary.h"
#include "analysis/ranks_scale.h"
#include "model/profiler_step.h"
#include "trace/load.h"
#include "trace/readers.h"
#include "trace/rocpd_rank.h"

namespace goblin::analysis {

namespace {

namespace fs = std::filesystem;

uint64_t file_bytes(const RankInput& r) {
  uint64_t n = 0;
  std::error_code ec;
  for (const auto& f : r.files) {
    auto s = fs::file_size(f, ec);
    if (!ec) n += s;
  }
  return n;
}

// |A ∩ B| / min(|A|, |B|): 1 when one rank's kernels are a subset of the other's (a partly read
// rank, a rank that skipped a branch), low for different programs.
double overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() || b.empty()) return 1.0;
  size_t i = 0, j = 0, both = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) {
      ++both, ++i, ++j;
    } else if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return static_cast<double>(both) / static_cast<double>(std::min(a.size(), b.size()));
}

std::string only_in(const std::vector<std::string>& a, const std::vector<std::string>& b, size_t max) {
  std::string s;
  size_t n = 0;
  for (const auto& x : a)
    if (!std::binary_search(b.begin(), b.end(), x)) {
      if (n++ == max) {
        s += ", ...";
        break;
      }
      s += (s.empty() ? "" : ", ") + (x.size() > 60 ? x.substr(0, 57) + "..." : x);
    }
  return s;
}

// Lean reading: of the CPU ops only what this analysis uses (ProfilerStep spans of old traces,
// record_param_comms with the collectives' metadata, data-loading spans), no flows.
trace::ReadOptions lean_read_options(const Taxonomy& tax) {
  trace::ReadOptions ro;
  ro.skip_flows = true;
  ro.keep_cpu_op = [t = &tax](std::string_view n) {
    if (is_profiler_step(n) || n == "record_param_comms") return true;
    struct Hash {
      using is_transparent = void;
      size_t operator()(std::string_view x) const { return std::hash<std::string_view>()(x); }
    };
    thread_local std::unordered_map<std::string, bool, Hash, std::equal_to<>> cache;
    // In front of it, one slot per hash of the name's length and its first and last 8 bytes: a
    // rank's CPU ops repeat a few hundred names hundreds of thousands of times, and hashing each
    // whole name for the map was ~1 % of goblin summarize.
    struct Slot {
      std::string name;
      bool keep = false;
    };
    thread_local std::array<Slot, 512> front;
    uint64_t head = 0, tail = 0;
    const size_t k = std::min<size_t>(n.size(), 8);
    std::memcpy(&head, n.data(), k);
    std::memcpy(&tail, n.data() + n.size() - k, k);
    Slot& slot = front[((head * 0x9E3779B97F4A7C15ULL) ^ (tail * 0xC2B2AE3D27D4EB4FULL) ^ n.size()) >> 55];
    if (slot.name.size() == n.size() && !slot.name.empty() && slot.name == n) return slot.keep;
    auto it = cache.find(n);
    if (it == cache.end()) it = cache.emplace(std::string(n), t->is_dataloader_span(n)).first;
    slot.name.assign(n);
    slot.keep = it->second;
    return it->second;
  };
  return ro;
}

// One rank: every file of it into one Timeline, reduced to its profile.
RankProfile read_rank_traces(const RankInput& in, const AnalysisKnowledge& k, const trace::ReadOptions& ro,
                             const std::function<void(const Timeline&, const GpuOpNames&)>& seen) {
  Timeline tl;
  std::optional<Error> err;
  for (const auto& f : in.files) {
    Status st = in.rocpd_process ? trace::read_rocpd_rank(f, *in.rocpd_process, tl) : trace::read_path(f, tl, ro);
    if (st.ok()) continue;
    // One process's rocprofv3 files include ones goblin does not read (agent info, ...).
    if (in.files.size() > 1 && st.error().kind == ErrorKind::UnknownFormat) {
      tl.warn(W::input_skipped,
              "skipped " + std::filesystem::path(f).filename().string() + ": not a format goblin reads", f);
      continue;
    }
    if (!err) err = st.error();
  }
  RankProfile p;
  const bool usable = trace::has_needed_rows(tl, trace::kNeedGpuOps);
  const GpuOpNames names = usable || seen ? gpu_op_names(tl, k.taxonomy) : GpuOpNames{};
  if (usable) p = rank_profile(tl, k.taxonomy, k.collectives, names, k);
  p.usable = usable;
  p.damage = err;
  p.label = in.label;
  p.files = in.files;
  if (p.rank >= 0) {
    p.rank_from = "distributedInfo";
    if (in.rank_hint >= 0 && in.rank_hint != p.rank)
      p.notes.push_back(
          fmt::format("{}: the file name says rank {}, the trace's distributedInfo says {} (the trace wins)", in.label,
                      in.rank_hint, p.rank));
  } else if (in.rank_hint >= 0) {
    p.rank = in.rank_hint;
    p.rank_from = in.rocpd_process ? "rocpd process order (node, pid)" : "file name";
  }
  if (!usable && !err) p.damage = make_error(ErrorKind::Malformed, "no GPU activity in this rank's trace", in.label);
  if (seen) seen(tl, names);
  return p;
}

// One rank from its summary: the profile as the trace gave it (label and files name the trace).
analysis::ReadRank read_rank_summary(const RankInput& in) {
  auto s = analysis::read_rank_summary_file(in.files.front());
  if (s.ok()) return {std::move(s->profile), std::move(s->host)};
  RankProfile p;
  p.label = in.label;
  p.files = in.files;
  p.rank = in.rank_hint;
  p.rank_from = in.rank_hint >= 0 ? "file name" : "";
  p.damage = s.error();
  return {std::move(p), {}};
}

analysis::ReadRank read_rank_any(const RankInput& in, const AnalysisKnowledge& k, const trace::ReadOptions& ro,
                                 const std::function<void(const Timeline&, const GpuOpNames&)>& seen) {
  if (in.files.size() == 1 && analysis::is_rank_summary_file(in.files.front())) return read_rank_summary(in);
  return {read_rank_traces(in, k, ro, seen), {}};
}

// The ranks of one input: those of a group summary (goblin summarize --merge), else the one rank.
// A group summary that cannot be read is one damaged input, named by its file.
std::vector<analysis::ReadRank> read_ranks_any(const RankInput& in, const AnalysisKnowledge& k,
                                               const trace::ReadOptions& ro) {
  std::vector<analysis::ReadRank> out;
  if (in.files.size() == 1 && analysis::is_group_summary_file(in.files.front())) {
    auto g = analysis::read_group_summary_file(in.files.front());
    if (g.ok()) return analysis::group_ranks(std::move(*g));
    RankProfile p;
    p.label = in.label;
    p.files = in.files;
    p.damage = g.error();
    out.push_back({std::move(p), {}});
    return out;
  }
  out.push_back(read_rank_any(in, k, ro, {}));
  return out;
}

// Ranks of one job run the same kernels, so their kernel-name lists (read only by the same-job
// check) are one list many times over: the reduce keeps each distinct list once and drops each
// rank's own copy as soon as the rank is read (docs/scale.md § What the top reduce holds).
class KernelNamePool {
 public:
  // `names` moved into the pool (left empty); nullptr for an empty list.
  std::shared_ptr<const std::vector<std::string>> share(std::vector<std::string>& names) {
    if (names.empty()) return nullptr;
    size_t h = names.size();
    for (const std::string& n : names) h = h * 1000003 ^ std::hash<std::string>()(n);
    std::lock_guard<std::mutex> lock(mu_);
    auto& same_hash = lists_[h];
    for (const auto& l : same_hash)
      if (*l == names) {
        std::vector<std::string>().swap(names);
        return l;
      }
    return same_hash.emplace_back(std::make_shared<const std::vector<std::string>>(std::exchange(names, {})));
  }

 private:
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<std::shared_ptr<const std::vector<std::string>>>> lists_;
};

}  // namespace

Result<RanksResult> analyse_ranks(const std::vector<std::string>& paths, const RanksOptions& opt) {
  ASSIGN_OR_RETURN(auto k, analysis_knowledge());
  return analyse_ranks(paths, *k, opt);
}

Result<RanksResult> analyse_ranks(const std::vector<std::string>& paths, const AnalysisKnowledge& k,
                                  const RanksOptions& opt) {
  return analysis::analyse_ranks(paths, k, analysis::ScaleRanksOptions{opt.threads, {}});
}

ReadRank read_rank(const RankInput& in, const AnalysisKnowledge& k,
                   const std::function<void(const Timeline&, const GpuOpNames&)>& seen) {
  return read_rank_any(in, k, lean_read_options(k.taxonomy), seen);
}

Result<RanksResult> analyse_ranks(const std::vector<std::string>& paths, const AnalysisKnowledge& k,
                                  const ScaleRanksOptions& opt) {
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(auto inputs, enumerate_ranks(paths, &notes, opt.discovery));
  const Taxonomy& tax = k.taxonomy;
  const CollectiveKnowledge& ck = k.collectives;

  // Small ranks are read two at a time (each reader on one thread); a large one alone, its
  // reader using both cores (blocks parsed on two workers, inflate included for .gz).
  const trace::ReadOptions ro = lean_read_options(tax);
  uint64_t largest = 0;
  for (const auto& in : inputs) largest = std::max(largest, file_bytes(in));
  const bool parallel_ranks = opt.threads > 1 && inputs.size() > 1 && largest < ro.parallel_min_bytes;
  std::vector<std::vector<ReadRank>> read(inputs.size());  // per input: its rank, or a group's ranks
  std::atomic<size_t> next{0};
  KernelNamePool pool;
  std::vector<std::vector<std::shared_ptr<const std::vector<std::string>>>> names(inputs.size());  // as `read`
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < inputs.size();) {
      read[i] = read_ranks_any(inputs[i], k, ro);
      for (ReadRank& r : read[i]) names[i].push_back(pool.share(r.profile.kernel_names));
    }
  };
  if (parallel_ranks) {
    std::thread t(worker);
    worker();
    t.join();
  } else {
    worker();
  }
  // The shared lists by label. Two ranks of one label with different lists (the same path on two
  // hosts) keep their own, so a rank is never given another's names.
  KernelNamesByLabel by_label;
  std::set<std::string> differ;
  for (size_t i = 0; i < read.size(); ++i)
    for (size_t j = 0; j < read[i].size(); ++j) {
      auto [it, added] = by_label.emplace(read[i][j].profile.label, names[i][j]);
      if (!added && it->second != names[i][j]) differ.insert(it->first);
    }
  for (size_t i = 0; i < read.size(); ++i)
    for (size_t j = 0; j < read[i].size(); ++j)
      if (names[i][j] && differ.count(read[i][j].profile.label)) read[i][j].profile.kernel_names = *names[i][j];
  for (const std::string& l : differ) by_label.erase(l);
  names.clear();
  std::vector<RankProfile> profiles;
  size_t n = 0;
  for (const auto& ranks : read) n += ranks.size();
  profiles.reserve(n);
  std::map<std::string, std::string> host_by_label;
  for (auto& ranks : read)
    for (ReadRank& r : ranks) {
      if (!r.host.empty()) host_by_label[r.profile.label] = r.host;
      profiles.push_back(std::move(r.profile));
    }
  read.clear();
  return analyse_rank_profiles(std::move(profiles), ck, std::move(notes), host_by_label, by_label);
}

namespace {
// Ranks may start profiling seconds apart, and hosts' wall clocks drift by less than a second
// under NTP; runs started by hand are minutes apart.
constexpr int64_t kMaxRankSpanGapNs = 60'000'000'000;
constexpr int64_t kEpoch2001Ns = 1'000'000'000'000'000'000;  // below: not an epoch clock
// The gap between two ranks' step spans on the wall clock (0 when they overlap); nullopt when
// either has no steps or is not on an epoch clock (timestamps below 2001).
std::optional<int64_t> span_gap_ns(const RankProfile& a, const RankProfile& b) {
  if (a.steps.empty() || b.steps.empty()) return std::nullopt;
  auto span = [](const RankProfile& r) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const auto& s : r.steps) lo = std::min(lo, s.start_ns), hi = std::max(hi, s.end_ns);
    return std::pair{lo, hi};
  };
  auto [a0, a1] = span(a);
  auto [b0, b1] = span(b);
  a0 += a.epoch_base_ns, a1 += a.epoch_base_ns, b0 += b.epoch_base_ns, b1 += b.epoch_base_ns;
  if (a0 < kEpoch2001Ns || b0 < kEpoch2001Ns) return std::nullopt;
  return std::max<int64_t>({0, b0 - a1, a0 - b1});
}
}  // namespace

std::optional<Error> refuse_not_one_job(const std::vector<const RankProfile*>& use, const CollectiveKnowledge& ck) {
  return refuse_not_one_job(use, ck, {});
}

// The same-job checks; the error says why the inputs are refused.
std::optional<Error> refuse_not_one_job(const std::vector<const RankProfile*>& use, const CollectiveKnowledge& ck,
                                        const KernelNamesByLabel& kernel_names) {
  auto names_of = [&](const RankProfile& p) -> const std::vector<std::string>& {
    auto it = kernel_names.find(p.label);
    return it != kernel_names.end() && it->second ? *it->second : p.kernel_names;
  };
  std::map<int64_t, const RankProfile*> by_rank;
  for (const RankProfile* p : use) {
    auto [it, ins] = by_rank.emplace(p->rank, p);
    if (!ins)
      return make_error(ErrorKind::Usage, fmt::format("not one job: rank {} is given twice ({} and {}, both by {})",
                                                      p->rank, it->second->label, p->label, p->rank_from));
  }
  const RankProfile* ref = use.front();
  for (const RankProfile* p : use) {
    if (p->world_size != kNone && ref->world_size != kNone && p->world_size != ref->world_size)
      return make_error(ErrorKind::Usage, fmt::format("not one job: {} says world size {}, {} says {}", ref->label,
                                                      ref->world_size, p->label, p->world_size));
    if (!p->backend.empty() && !ref->backend.empty() && p->backend != ref->backend)
      return make_error(ErrorKind::Usage, "not one job: " + ref->label + " used backend " + ref->backend + ", " +
                                              p->label + " used " + p->backend);
    if (p->vendor != ref->vendor && p->vendor != "unknown" && ref->vendor != "unknown")
      return make_error(ErrorKind::Usage,
                        "not one job: " + ref->label + " ran on " + ref->vendor + ", " + p->label + " on " + p->vendor);
    const std::vector<std::string>&ref_names = names_of(*ref), &names = names_of(*p);
    const double j = overlap(ref_names, names);
    if (j < ck.min_kernel_overlap) {
      const std::string b = fmt::format("{:.0f}%", 100 * j);
      return make_error(ErrorKind::Usage,
                        "not one job: " + ref->label + " and " + p->label + " share only " + b +
                            " of their kernel names (ranks of one job run the same kernels; data/collectives.yaml "
                            "min_kernel_overlap). Only in the first: " +
                            only_in(ref_names, names, 3) + ". Only in the second: " + only_in(names, ref_names, 3));
    }
    // Ranks of one job run at the same time. On epoch clocks (Kineto, Nsight: comparable across
    // hosts) two traces whose steps are far apart in time are two runs, even of one workload
    // (the collectives would otherwise be matched by order across runs that never met).
    // Boot-relative clocks (rocprofv3) differ between hosts, so they are not compared.
    if (auto gap = span_gap_ns(*ref, *p); gap && *gap > kMaxRankSpanGapNs) {
      const std::string b = fmt::format("{:.1f} minutes", static_cast<double>(*gap) / 60e9);
      return make_error(ErrorKind::Usage, "not one job: the steps of " + ref->label + " and " + p->label + " are " + b +
                                              " apart on the wall clock (ranks of one job run at the same time: "
                                              "these are two runs)");
    }
  }
  return std::nullopt;
}

}  // namespace goblin::analysis
