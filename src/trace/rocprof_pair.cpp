#include "trace/rocprof_pair.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string_view>

#include "core/json.h"
#include "trace/readers.h"

namespace goblin::trace {

namespace {
// Kineto (roctracer / rocprofiler-sdk underneath) and rocprofv3 stamp the same dispatches from
// the same HSA timestamps, converted by different libraries: one offset lines them up to within
// microseconds. 50 µs leaves room for the conversion's rounding and drift over a run while
// staying far below the gaps between a training step's kernels of one name.
constexpr int64_t kMatchToleranceNs = 50'000;
// The share of Kineto kernels that must find their rocprof kernel: a second run of the same
// program (same names, other timing) matches a handful by chance, never most.
constexpr double kMatchedShareNeeded = 0.9;
// Two wall-clock recordings of one run are seconds apart at most (the profiler's start-up);
// beyond a minute they are two runs of the same program.
constexpr double kWallClockGapMaxS = 60;
constexpr int64_t kEpochFloorNs = 1'000'000'000'000'000'000;  // 2001-09-09 in ns
// Kernels whose candidate offsets are voted on: the ones of the rarest names, at most this many,
// each with at most kMaxCandidates rocprof kernels of its name (bounded work on any input).
constexpr size_t kVoters = 64, kMaxCandidates = 512;

// A kernel name reduced to what both tools print, whatever their demangling and truncation
// options: no "void ", no argument list, no template arguments, no namespace.
std::string_view name_key(std::string_view n) {
  if (n.rfind("void ", 0) == 0) n.remove_prefix(5);
  int depth = 0;
  size_t end = n.size();
  for (size_t i = 0; i < n.size(); ++i) {
    if (n[i] == '<') {
      if (depth == 0) end = std::min(end, i);
      ++depth;
    } else if (n[i] == '>') {
      --depth;
    } else if (n[i] == '(' && depth <= 0) {
      end = std::min(end, i);
      break;
    }
  }
  n = n.substr(0, end);
  if (auto c = n.rfind("::"); c != std::string_view::npos) n.remove_prefix(c + 2);
  while (!n.empty() && n.back() == ' ') n.remove_suffix(1);
  return n;
}

struct Kernels {
  std::vector<std::pair<std::string, int64_t>> list;                // key, start
  std::map<std::string, std::vector<int64_t>, std::less<>> by_key;  // key → sorted starts
};

Kernels kernels_of(const Timeline& tl) {
  Kernels k;
  for (size_t i = 0; i < tl.gpu_ops.size(); ++i) {
    if (tl.gpu_ops.kind[i] != GpuOpKind::Kernel) continue;
    std::string key(name_key(tl.str(tl.gpu_ops.name[i])));
    k.by_key[key].push_back(tl.gpu_ops.start_ns[i]);
    k.list.emplace_back(std::move(key), tl.gpu_ops.start_ns[i]);
  }
  for (auto& [key, v] : k.by_key) std::sort(v.begin(), v.end());
  return k;
}

// The offset most rare-named Kineto kernels agree on (median of the densest cluster of
// candidate offsets), or nullopt when no candidate exists.
std::optional<int64_t> vote_offset(const Kernels& kin, const Kernels& roc) {
  std::vector<std::pair<size_t, size_t>> voters;  // (rocprof count of its name, index in kin.list)
  for (size_t i = 0; i < kin.list.size(); ++i) {
    auto r = roc.by_key.find(kin.list[i].first);
    if (r != roc.by_key.end() && r->second.size() <= kMaxCandidates) voters.emplace_back(r->second.size(), i);
  }
  std::stable_sort(voters.begin(), voters.end(), [](auto& a, auto& b) { return a.first < b.first; });
  if (voters.size() > kVoters) voters.resize(kVoters);
  std::vector<int64_t> cand;
  for (auto [n, i] : voters)
    for (int64_t r : roc.by_key.find(kin.list[i].first)->second) cand.push_back(kin.list[i].second - r);
  if (cand.empty()) return std::nullopt;
  std::sort(cand.begin(), cand.end());
  size_t best_lo = 0, best_n = 0;
  for (size_t lo = 0, hi = 0; lo < cand.size(); ++lo) {
    while (hi < cand.size() && cand[hi] - cand[lo] <= 2 * kMatchToleranceNs) ++hi;
    if (hi - lo > best_n) best_n = hi - lo, best_lo = lo;
  }
  return cand[best_lo + best_n / 2];
}

size_t count_matched(const Kernels& kin, const Kernels& roc, int64_t offset) {
  size_t n = 0;
  for (const auto& [key, start] : kin.list) {
    auto r = roc.by_key.find(key);
    if (r == roc.by_key.end()) continue;
    const int64_t want = start - offset;
    auto it = std::lower_bound(r->second.begin(), r->second.end(), want - kMatchToleranceNs);
    n += it != r->second.end() && *it <= want + kMatchToleranceNs;
  }
  return n;
}

std::string base(const std::string& p) { return std::filesystem::path(p).filename().string(); }
}  // namespace

bool is_rocprof_format(Format f) {
  return f == Format::RocprofV3Csv || f == Format::RocprofV3Json || f == Format::RocprofV1 || f == Format::Rocpd;
}

Result<RocprofPairCheck> cross_check_rocprof(Timeline& tl, const std::string& kineto_file,
                                             const std::vector<std::pair<std::string, Format>>& side,
                                             const std::string& dir) {
  Timeline roc_tl;
  std::string roc_names;
  for (const auto& [f, fmt] : side) {
    roc_names += (roc_names.empty() ? "" : ", ") + base(f);
    Status s = read_file_as(fmt, f, roc_tl);
    if (!s.ok()) tl.warn(W::input_damaged, s.error().describe(), f, s.error().byte_offset, s.error().line);
  }
  const std::string roc_what = fmt::format("{} ({})", roc_names, format_name(side.front().second));
  const std::string kin_what = base(kineto_file) + " (Kineto)";
  const std::string read_alone = fmt::format(
      "; a folder is read as one run: give one of them as the path (`goblin triage {}`), or keep each run's "
      "files in a folder of their own",
      (std::filesystem::path(dir) / base(kineto_file)).string());
  RocprofPairCheck c;
  const Kernels kin = kernels_of(tl), roc = kernels_of(roc_tl);
  c.kineto_kernels = kin.list.size();
  c.rocprof_kernels = roc.list.size();
  if (kin.list.empty() || roc.list.empty())
    return make_error(ErrorKind::Usage,
                      fmt::format("{} and {} cannot be aligned: {} records no GPU kernels, and the two are on "
                                  "different clocks, lined up only through the kernels both record{}",
                                  kin_what, roc_what, kin.list.empty() ? kin_what : roc_what, read_alone),
                      dir);
  int64_t roc_first = roc.list.front().second;
  for (const auto& k : roc.list) roc_first = std::min(roc_first, k.second);
  c.rocprof_clock = roc_first >= kEpochFloorNs ? "wall clock" : "boot clock";
  auto off = vote_offset(kin, roc);
  c.offset_ns = off.value_or(0);
  c.matched = off ? count_matched(kin, roc, *off) : 0;
  const double share = static_cast<double>(c.matched) / static_cast<double>(c.kineto_kernels);
  if (share < kMatchedShareNeeded)
    return make_error(ErrorKind::Usage,
                      fmt::format("{} and {} do not record the same kernels: {} of the {} Kineto kernels have a "
                                  "{} kernel of the same name at one clock offset ({:.0f} % needed), so they are "
                                  "not one run{}",
                                  kin_what, roc_what, c.matched, c.kineto_kernels, format_name(side.front().second),
                                  kMatchedShareNeeded * 100, read_alone),
                      dir);
  // The clock-domain check: a wall-clock rocprof recording and a Kineto trace with an epoch
  // base are on one clock already, so the offset must be about the Kineto epoch base.
  const bool kineto_epoch = tl.meta.clock_is_epoch;
  if (c.rocprof_clock == "wall clock" && kineto_epoch) {
    const int64_t kin_base = tl.meta.clock_base_ns;  // Kineto times + base = epoch ns
    c.wall_clock_gap_s = static_cast<double>(c.offset_ns + kin_base) / 1e9;
    if (std::abs(c.wall_clock_gap_s) > kWallClockGapMaxS)
      return make_error(ErrorKind::Usage,
                        fmt::format("{} and {} record the same kernels, but their wall-clock times are {:.0f} s "
                                    "apart: two runs of the same program{}",
                                    kin_what, roc_what, c.wall_clock_gap_s, read_alone),
                        dir);
  }
  tl.warn(W::rocprof_cross_checked,
          fmt::format("{} ({}) records the same kernels as {}: {} of the {} Kineto kernels found theirs among its "
                      "{} by name and order, within {} µs at one clock offset; the Kineto kernels are the run's, "
                      "the rocprof ones only cross-check them (never counted twice)",
                      roc_names, c.rocprof_clock, kin_what, c.matched, c.kineto_kernels, c.rocprof_kernels,
                      kMatchToleranceNs / 1000),
          dir);
  Json j{{"files", roc_names},
         {"clock", c.rocprof_clock},
         {"kineto_kernels", c.kineto_kernels},
         {"rocprof_kernels", c.rocprof_kernels},
         {"matched", c.matched},
         {"offset_ns", c.offset_ns}};
  tl.meta.extra.insert_or_assign("rocprof_cross_check", j.dump());
  return c;
}

}  // namespace goblin::trace
