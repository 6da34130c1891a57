// goblin ranks: waiting inside collectives, the straggler verdict and the bandwidth table.
// Definitions: docs/metrics.md § ranks; thresholds and formulas: data/collectives.yaml.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/ranks_report.h"

namespace goblin::analysis {

namespace {

std::string ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }
std::string signed_ms(double ns) { return fmt::format("{:+.3f} ms", ns / 1e6); }
std::string pct(double x) { return fmt::format("{:.0f}%", 100 * x); }

const char* cause_words(const std::string& c) {
  if (c == "data_wait") return "data loading (its GPU sat idle while the CPU was inside a data-loading span)";
  if (c == "host_gap")
    return "host-side delay (its GPU sat idle waiting for the CPU outside data loading: Python work, a sleep, a "
           "synchronisation)";
  if (c == "compute") return "more GPU compute (its kernels before the collective took longer)";
  if (c == "other_gpu") return "other GPU work (other communication or memory copies) before the collective";
  return "unexplained";
}

}  // namespace

void compute_waits_and_straggler(RanksReport& R, const std::vector<const RankProfile*>& use,
                                 const CollectiveKnowledge& ck) {
  const size_t U = use.size();
  R.waits.assign(U, RankWaits{});
  for (auto& w : R.waits) w.wait_by_step.assign(R.steps.size(), 0);
  // Own step index → matched step index, per rank.
  std::vector<std::vector<int>> to_matched(U);
  for (size_t u = 0; u < U; ++u) {
    to_matched[u].assign(use[u]->steps.size(), -1);
    for (size_t j = 0; j < R.steps.size(); ++j)
      to_matched[u][static_cast<size_t>(R.steps[j].idx[u])] = static_cast<int>(j);
  }
  for (const MatchedItem& m : R.collectives) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t last = 0;
    for (size_t u = 0; u < U; ++u) {
      const RankCollective& c = use[u]->collectives[static_cast<size_t>(m.idx[u])];
      const int64_t d = c.end_ns - c.start_ns;
      if (d < lo) lo = d, last = u;
      hi = std::max(hi, d);
    }
    for (size_t u = 0; u < U; ++u) {
      const RankCollective& c = use[u]->collectives[static_cast<size_t>(m.idx[u])];
      const int64_t w = (c.end_ns - c.start_ns) - lo;
      R.waits[u].wait_ns += w;
      if (c.step >= 0) {
        const int j = to_matched[u][static_cast<size_t>(c.step)];
        if (j >= 0) R.waits[u].wait_by_step[static_cast<size_t>(j)] += w;
      }
    }
    if (hi == lo) continue;  // everyone ran equally long: nobody was late
    RankWaits& L = R.waits[last];
    ++L.last_count;
    L.late_ns += hi - lo;
    const PreArrival& p = use[last]->collectives[static_cast<size_t>(m.idx[last])].pre;
    double oc = 0, oo = 0, od = 0, oh = 0;
    for (size_t u = 0; u < U; ++u) {
      if (u == last) continue;
      const PreArrival& q = use[u]->collectives[static_cast<size_t>(m.idx[u])].pre;
      oc += static_cast<double>(q.compute_ns), oo += static_cast<double>(q.other_gpu_ns);
      od += static_cast<double>(q.data_wait_ns), oh += static_cast<double>(q.host_gap_ns);
    }
    const double n = static_cast<double>(U - 1);
    L.delta_compute_ns += static_cast<double>(p.compute_ns) - oc / n;
    L.delta_other_gpu_ns += static_cast<double>(p.other_gpu_ns) - oo / n;
    L.delta_data_wait_ns += static_cast<double>(p.data_wait_ns) - od / n;
    L.delta_host_gap_ns += static_cast<double>(p.host_gap_ns) - oh / n;
  }

  // ---- the verdict ----
  Straggler& S = R.straggler;
  double step_time = 0;
  for (size_t u = 0; u < U; ++u)
    step_time += mean_over_steps(R, u, [&](size_t uu, size_t s) { return use[uu]->steps[s].wall_ns(); });
  S.step_time_ns = step_time / static_cast<double>(U);
  int64_t total_late = 0;
  size_t cand = 0;
  for (size_t u = 0; u < U; ++u) {
    total_late += R.waits[u].late_ns;
    if (R.waits[u].late_ns > R.waits[cand].late_ns) cand = u;
  }
  const double steps = static_cast<double>(std::max<size_t>(R.steps.size(), 1));
  if (R.collectives.empty()) {
    S.verdict_reason = "no collective matched across the ranks: nothing to wait for";
    S.summary = "no straggler can be named: " + S.verdict_reason;
    return;
  }
  if (total_late == 0) {
    S.verdict_reason = "every matched collective ran equally long on every rank";
    S.summary = "no straggler: " + S.verdict_reason;
    return;
  }
  const RankWaits& W = R.waits[cand];
  S.rank = use[cand]->rank;
  S.use_index = cand;
  S.late_share = static_cast<double>(W.late_ns) / static_cast<double>(total_late);
  S.late_per_step_ns = static_cast<double>(W.late_ns) / steps;
  const bool share_ok = S.late_share >= ck.min_late_share;
  const bool size_ok = S.step_time_ns > 0 && S.late_per_step_ns >= ck.min_wait_fraction_of_step * S.step_time_ns;
  S.named = share_ok && size_ok;
  const std::pair<const char*, double> deltas[] = {{"compute", W.delta_compute_ns},
                                                   {"host_gap", W.delta_host_gap_ns},
                                                   {"data_wait", W.delta_data_wait_ns},
                                                   {"other_gpu", W.delta_other_gpu_ns}};
  double best = 0;
  for (const auto& [name, v] : deltas)
    if (v > best) best = v, S.cause = name;
  const std::string counts = fmt::to_string(W.last_count) + " of " + fmt::to_string(R.collectives.size());
  const std::string frac = S.step_time_ns > 0 ? pct(S.late_per_step_ns / S.step_time_ns) : std::string("?");
  const std::string before =
      "Before arriving it spent, per step, against the other ranks' mean: " + signed_ms(W.delta_compute_ns / steps) +
      " compute, " + signed_ms(W.delta_host_gap_ns / steps) + " host gap, " + signed_ms(W.delta_data_wait_ns / steps) +
      " data wait, " + signed_ms(W.delta_other_gpu_ns / steps) + " other GPU work";
  if (!S.named) {
    S.verdict_reason = std::string(!share_ok ? "the last arriver changes between ranks" : "") +
                       (!share_ok && !size_ok ? " and " : "") +
                       (!size_ok ? "the waiting is small against the step time" : "");
    S.summary = "no straggler: " + S.verdict_reason + ". The rank most often last, rank " + fmt::to_string(S.rank) +
                ", arrived last at " + counts + " matched collectives (" + pct(S.late_share) + " of all lateness), " +
                ms(S.late_per_step_ns) + " per step = " + frac + " of the " + ms(S.step_time_ns) +
                " step (thresholds: " + pct(ck.min_late_share) + " of the lateness and " +
                pct(ck.min_wait_fraction_of_step) + " of the step, data/collectives.yaml). " + before + ".";
    return;
  }
  S.verdict_reason = "it caused " + pct(S.late_share) + " of all lateness, " + frac + " of the step time";
  S.summary = "rank " + fmt::to_string(S.rank) + " is the straggler: it arrived last at " + counts +
              " matched collectives, " + ms(S.late_per_step_ns) + " per step after the earliest rank (" + frac +
              " of the " + ms(S.step_time_ns) +
              " step); the other ranks' long time inside the collectives is the "
              "symptom. " +
              before + ". Cause: " +
              (S.cause.empty() ? std::string("not explained by what the trace shows before the collectives")
                               : cause_words(S.cause)) +
              ".";
}

void compute_skew(RanksReport& R, const std::vector<const RankProfile*>& use, const CollectiveKnowledge& ck) {
  const size_t U = use.size();
  std::set<std::string> cats;
  for (const auto& m : R.steps)
    for (size_t u = 0; u < U; ++u)
      for (const auto& [c, ns] : use[u]->steps[static_cast<size_t>(m.idx[u])].category_ns) cats.insert(c);
  R.categories.assign(cats.begin(), cats.end());

  std::map<std::tuple<std::string, std::string, int64_t>, size_t> rows;
  for (const MatchedItem& m : R.collectives) {
    const RankCollective& c0 = use[0]->collectives[static_cast<size_t>(m.idx[0])];
    if (c0.bytes == kNone || c0.bytes <= 0) continue;
    auto key = std::make_tuple(c0.type, c0.group, c0.bytes);
    auto [it, ins] = rows.try_emplace(key, R.bandwidth.size());
    if (ins) {
      BandwidthRow b;
      b.type = c0.type;
      b.group = c0.group;
      b.bytes = c0.bytes;
      b.group_size = c0.group_size;
      b.mean_dur_ns.assign(U, 0);
      const auto* t = ck.type_of(c0.type);
      b.busbw_factor = t ? t->busbw_factor : "none";
      R.bandwidth.push_back(b);
    }
    BandwidthRow& b = R.bandwidth[it->second];
    ++b.count;
    int64_t lo = INT64_MAX;
    for (size_t u = 0; u < U; ++u) {
      const RankCollective& c = use[u]->collectives[static_cast<size_t>(m.idx[u])];
      b.mean_dur_ns[u] += static_cast<double>(c.end_ns - c.start_ns);
      lo = std::min(lo, c.end_ns - c.start_ns);
    }
    b.transfer_dur_ns += static_cast<double>(lo);
  }
  for (auto& b : R.bandwidth) {
    for (auto& d : b.mean_dur_ns) d /= static_cast<double>(b.count);
    b.transfer_dur_ns /= static_cast<double>(b.count);
  }
  std::stable_sort(R.bandwidth.begin(), R.bandwidth.end(), [](const BandwidthRow& a, const BandwidthRow& b) {
    return a.transfer_dur_ns * static_cast<double>(a.count) > b.transfer_dur_ns * static_cast<double>(b.count);
  });
  if (!R.collectives.empty() && R.bandwidth.empty())
    R.notes.push_back(
        "collective sizes unknown (no collective metadata in the traces: PyTorch adds \"In msg nelems\" and \"dtype\" "
        "to NCCL kernels in recent releases): no bandwidth table");
}

}  // namespace goblin::analysis
