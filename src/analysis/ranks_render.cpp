// goblin ranks: the JSON result and the readable report.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/ranks_report.h"
#include "analysis/step_time.h"

namespace goblin::analysis {

namespace {

double s9(double ns) { return round_to(ns / 1e9, 9); }

struct Spread {
  double min = 0, max = 0, mean = 0, imbalance_pct = 0;
  size_t argmax = 0;
};
Spread spread(const std::vector<double>& v) {
  Spread s;
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  auto mx = std::max_element(v.begin(), v.end());
  s.max = *mx;
  s.argmax = static_cast<size_t>(mx - v.begin());
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  s.imbalance_pct = s.mean > 0 ? round_to(100.0 * (s.max - s.min) / s.mean, 2) : 0.0;
  return s;
}

std::vector<double> step_times(const RanksReport& R, const std::vector<const RankProfile*>& use) {
  std::vector<double> v;
  for (size_t u = 0; u < use.size(); ++u)
    v.push_back(mean_over_steps(R, u, [&](size_t uu, size_t s) { return use[uu]->steps[s].wall_ns(); }));
  return v;
}

double gbps(double bytes, double ns) { return ns > 0 ? round_to(bytes / ns, 3) : 0.0; }  // bytes/ns = GB/s
// The same bandwidth in GiB/s (2^30 bytes/s), the unit TraceLens' collective tables use.
constexpr double kGiBPerGB = 1e9 / 1073741824.0;
double gib(double gb_per_s) { return round_to(gb_per_s * kGiBPerGB, 3); }

}  // namespace

namespace {
// The sections of ranks_report_json, in its order.
Json ranks_section(const RanksReport& R) {
  Json ranks = Json::array();
  for (const auto& p : R.ranks) {
    Json r;
    r["rank"] = p.rank;
    r["rank_from"] = p.rank_from;
    r["label"] = p.label;
    r["files"] = p.files;
    r["usable"] = p.usable;
    r["world_size"] = p.world_size == kNone ? Json(nullptr) : Json(p.world_size);
    r["gpu"] = p.gpu;
    r["vendor"] = p.vendor;
    r["steps"] = p.steps.size();
    // This rank's own step time (docs/metrics.md § Step time): what `goblin metrics` reports for
    // its trace; the skew table's figures are means over the steps matched across ranks.
    const double step_s = analysis::step_time_of(p.steps).seconds();
    r["step_time_s"] = step_s > 0 ? Json(round_to(step_s, 9)) : Json(nullptr);
    r["collectives"] = p.collectives.size();
    r["collective_metadata"] = p.collective_metadata;
    r["damage"] = p.damage ? error_to_json(*p.damage) : Json(nullptr);
    ranks.push_back(r);
  }
  return ranks;
}

Json steps_section(const RanksReport& R, const std::vector<const RankProfile*>& use) {
  const size_t U = use.size();
  Json steps = Json::array();
  for (size_t k = 0; k < R.steps.size(); ++k) {
    const MatchedItem& m = R.steps[k];
    Json s;
    s["step"] = m.key;
    s["complete"] = m.complete;
    Json per = Json::array();
    for (size_t u = 0; u < U; ++u) {
      const RankStep& st = use[u]->steps[static_cast<size_t>(m.idx[u])];
      Json x;
      x["rank"] = use[u]->rank;
      x["wall_s"] = s9(static_cast<double>(st.wall_ns()));
      x["busy_s"] = s9(static_cast<double>(st.busy_ns));
      x["compute_s"] = s9(static_cast<double>(st.compute_ns));
      x["exposed_comm_s"] = s9(static_cast<double>(st.exposed_comm_ns));
      x["hidden_comm_s"] = s9(static_cast<double>(st.comm_ns - st.exposed_comm_ns));
      x["idle_s"] = s9(static_cast<double>(st.idle_ns()));
      x["data_wait_s"] = s9(static_cast<double>(st.data_wait_ns));
      x["wait_in_collectives_s"] = s9(static_cast<double>(R.waits[u].wait_by_step[k]));
      per.push_back(x);
    }
    s["ranks"] = per;
    steps.push_back(s);
  }
  return steps;
}

Json collectives_section(const RanksReport& R, const std::vector<const RankProfile*>& use) {
  const size_t U = use.size();
  Json coll;
  coll["matched_by"] = R.collective_match;
  coll["matched"] = R.collectives.size();
  Json per = Json::array();
  const double nsteps = static_cast<double>(std::max<size_t>(R.steps.size(), 1));
  for (size_t u = 0; u < U; ++u) {
    const RankWaits& w = R.waits[u];
    Json x;
    x["rank"] = use[u]->rank;
    x["collectives"] = use[u]->collectives.size();
    x["wait_in_collectives_s"] = s9(static_cast<double>(w.wait_ns));
    x["wait_in_collectives_per_step_s"] = s9(static_cast<double>(w.wait_ns) / nsteps);
    x["arrived_last"] = w.last_count;
    x["late_s"] = s9(static_cast<double>(w.late_ns));
    per.push_back(x);
  }
  coll["per_rank"] = per;
  // The collectives with the most lateness: who ran shortest (arrived last) and what each rank did
  // in the window before it.
  {
    std::vector<std::pair<int64_t, size_t>> late;
    for (size_t k = 0; k < R.collectives.size(); ++k) {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (size_t u = 0; u < U; ++u) {
        const RankCollective& c = use[u]->collectives[static_cast<size_t>(R.collectives[k].idx[u])];
        lo = std::min(lo, c.end_ns - c.start_ns);
        hi = std::max(hi, c.end_ns - c.start_ns);
      }
      late.emplace_back(hi - lo, k);
    }
    std::stable_sort(late.begin(), late.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    Json top = Json::array();
    for (size_t i = 0; i < late.size() && i < 10; ++i) {
      const MatchedItem& m = R.collectives[late[i].second];
      const RankCollective& c0 = use[0]->collectives[static_cast<size_t>(m.idx[0])];
      Json x;
      x["type"] = c0.type;
      x["name"] = c0.name;
      x["bytes"] = c0.bytes == kNone ? Json(nullptr) : Json(c0.bytes);
      x["step"] = c0.step >= 0 ? Json(use[0]->steps[static_cast<size_t>(c0.step)].key) : Json(nullptr);
      x["late_s"] = s9(static_cast<double>(late[i].first));
      Json pr = Json::array();
      for (size_t u = 0; u < U; ++u) {
        const RankCollective& c = use[u]->collectives[static_cast<size_t>(m.idx[u])];
        pr.push_back({{"rank", use[u]->rank},
                      {"duration_s", s9(static_cast<double>(c.end_ns - c.start_ns))},
                      {"before_arrival",
                       {{"window_s", s9(static_cast<double>(c.pre.window_ns()))},
                        {"compute_s", s9(static_cast<double>(c.pre.compute_ns))},
                        {"host_gap_s", s9(static_cast<double>(c.pre.host_gap_ns))},
                        {"data_wait_s", s9(static_cast<double>(c.pre.data_wait_ns))},
                        {"other_gpu_s", s9(static_cast<double>(c.pre.other_gpu_ns))}}}});
      }
      x["ranks"] = pr;
      top.push_back(x);
    }
    coll["latest"] = top;
  }
  return coll;
}

Json straggler_section(const RanksReport& R) {
  const double nsteps = static_cast<double>(std::max<size_t>(R.steps.size(), 1));
  const Straggler& S = R.straggler;
  Json st;
  st["named"] = S.named;
  st["rank"] = S.named ? Json(S.rank) : Json(nullptr);
  st["most_often_last"] = S.rank >= 0 ? Json(S.rank) : Json(nullptr);
  st["late_share"] = round_to(S.late_share, 4);
  st["late_per_step_s"] = s9(S.late_per_step_ns);
  st["step_time_s"] = s9(S.step_time_ns);
  st["cause"] = S.cause.empty() ? Json(nullptr) : Json(S.cause);
  if (S.rank >= 0) {
    const RankWaits& w = R.waits[S.use_index];
    st["before_arrival_vs_others_per_step"] = {{"compute_s", s9(w.delta_compute_ns / nsteps)},
                                               {"host_gap_s", s9(w.delta_host_gap_ns / nsteps)},
                                               {"data_wait_s", s9(w.delta_data_wait_ns / nsteps)},
                                               {"other_gpu_s", s9(w.delta_other_gpu_ns / nsteps)}};
  }
  st["reason"] = S.verdict_reason;
  st["summary"] = S.summary;
  return st;
}

Json skew_section(const RanksReport& R, const std::vector<const RankProfile*>& use) {
  const size_t U = use.size();
  Json skew;
  {
    std::vector<double> t = step_times(R, use);
    Spread sp = spread(t);
    Json pr = Json::array();
    for (size_t u = 0; u < U; ++u) pr.push_back({{"rank", use[u]->rank}, {"step_time_s", s9(t[u])}});
    skew["step_time"] = {{"per_rank", pr},
                         {"min_s", s9(sp.min)},
                         {"max_s", s9(sp.max)},
                         {"mean_s", s9(sp.mean)},
                         {"imbalance_pct", sp.imbalance_pct},
                         {"slowest_rank", U ? Json(use[sp.argmax]->rank) : Json(nullptr)}};
  }
  Json cats = Json::array();
  for (const auto& c : R.categories) {
    std::vector<double> v;
    Json pr = Json::array();
    for (size_t u = 0; u < U; ++u) {
      const double x = mean_over_steps(R, u, [&](size_t uu, size_t s) {
        const auto& m = use[uu]->steps[s].category_ns;
        auto it = m.find(c);
        return it == m.end() ? int64_t{0} : it->second;
      });
      v.push_back(x);
      pr.push_back({{"rank", use[u]->rank}, {"time_s", s9(x)}});
    }
    Spread sp = spread(v);
    cats.push_back({{"category", c}, {"per_rank", pr}, {"imbalance_pct", sp.imbalance_pct}});
  }
  skew["categories_per_step"] = cats;
  Json bw = Json::array();
  for (const auto& b : R.bandwidth) {
    auto f = CollectiveKnowledge::factor(b.busbw_factor, b.group_size);
    Json pr = Json::array();
    for (size_t u = 0; u < U; ++u) {
      const double alg = gbps(static_cast<double>(b.bytes), b.mean_dur_ns[u]);
      pr.push_back({{"rank", use[u]->rank},
                    {"mean_us", round_to(b.mean_dur_ns[u] / 1e3, 3)},
                    {"algbw_gbps", alg},
                    {"busbw_gbps", f ? Json(round_to(alg * *f, 3)) : Json(nullptr)},
                    {"algbw_gib_per_s", gib(alg)},
                    {"busbw_gib_per_s", f ? Json(gib(alg * *f)) : Json(nullptr)}});
    }
    const double alg = gbps(static_cast<double>(b.bytes), b.transfer_dur_ns);
    bw.push_back({{"type", b.type},
                  {"group", b.group},
                  {"bytes", b.bytes},
                  {"group_size", b.group_size == kNone ? Json(nullptr) : Json(b.group_size)},
                  {"count", b.count},
                  {"busbw_factor", b.busbw_factor},
                  {"per_rank", pr},
                  {"transfer",
                   {{"mean_us", round_to(b.transfer_dur_ns / 1e3, 3)},
                    {"algbw_gbps", alg},
                    {"busbw_gbps", f ? Json(round_to(alg * *f, 3)) : Json(nullptr)},
                    {"algbw_gib_per_s", gib(alg)},
                    {"busbw_gib_per_s", f ? Json(gib(alg * *f)) : Json(nullptr)}}}});
  }
  skew["bandwidth"] = bw;
  skew["bandwidth_source"] = R.bandwidth_source;
  skew["bandwidth_units"] =
      "*_gbps: GB/s = 10^9 bytes/s (nccl-tests' unit); *_gib_per_s: GiB/s = 2^30 bytes/s (TraceLens' collective "
      "tables)";
  return skew;
}

}  // namespace

Json ranks_report_json(const RanksReport& R, const std::vector<const RankProfile*>& use) {
  Json j;
  j["ranks"] = ranks_section(R);
  j["world_size"] = R.world_size == kNone ? Json(nullptr) : Json(R.world_size);
  j["ranks_analysed"] = use.size();
  j["missing_ranks"] = R.missing;
  j["step_match"] = R.step_match;
  j["steps"] = steps_section(R, use);
  j["collectives"] = collectives_section(R, use);
  j["straggler"] = straggler_section(R);
  j["skew"] = skew_section(R, use);
  j["damaged"] = R.damaged;
  j["notes"] = R.notes;
  return j;
}

std::string ranks_report_human(const RanksReport& R, const std::vector<const RankProfile*>& use) {
  const size_t U = use.size();
  std::string s;
  auto out = std::back_inserter(s);
  s += R.straggler.summary + "\n\n";
  fmt::format_to(out, "{} ranks analysed{}; steps matched {}: {}; collectives matched by {}: {}\n", U,
                 R.world_size != kNone ? fmt::format(" of world size {}", R.world_size) : "", R.step_match,
                 R.steps.size(), R.collective_match, R.collectives.size());
  s += "\nper rank, mean per step (ms):  rank   step   compute  exp.comm  hid.comm    idle  data wait  wait in coll  "
       "last\n";
  const double nsteps = static_cast<double>(std::max<size_t>(R.steps.size(), 1));
  for (size_t u = 0; u < U; ++u) {
    auto mean = [&](auto f) {
      return mean_over_steps(R, u, [&](size_t uu, size_t st) { return f(use[uu]->steps[st]); }) / 1e6;
    };
    fmt::format_to(
        out, "{:>35} {:>8.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>7.3f} {:>10.3f} {:>13.3f}  {:>4}\n",
        static_cast<long long>(use[u]->rank), mean([](const RankStep& x) { return x.wall_ns(); }),
        mean([](const RankStep& x) { return x.compute_ns; }), mean([](const RankStep& x) { return x.exposed_comm_ns; }),
        mean([](const RankStep& x) { return x.comm_ns - x.exposed_comm_ns; }),
        mean([](const RankStep& x) { return x.idle_ns(); }), mean([](const RankStep& x) { return x.data_wait_ns; }),
        static_cast<double>(R.waits[u].wait_ns) / nsteps / 1e6, static_cast<long long>(R.waits[u].last_count));
  }
  std::vector<double> t = step_times(R, use);
  Spread sp = spread(t);
  fmt::format_to(out, "\nstep time skew: min {:.3f} ms, max {:.3f} ms (rank {}), imbalance {:.2f}% of the mean\n",
                 sp.min / 1e6, sp.max / 1e6, U ? static_cast<long long>(use[sp.argmax]->rank) : -1LL, sp.imbalance_pct);
  if (!R.categories.empty()) {
    s += "kernel time by category, mean per step (ms):\n";
    for (const auto& c : R.categories) {
      std::vector<double> v;
      std::string line;
      for (size_t u = 0; u < U; ++u) {
        v.push_back(mean_over_steps(R, u, [&](size_t uu, size_t st) {
          const auto& m = use[uu]->steps[st].category_ns;
          auto it = m.find(c);
          return it == m.end() ? int64_t{0} : it->second;
        }));
        fmt::format_to(std::back_inserter(line), " r{} {:.3f}", static_cast<long long>(use[u]->rank), v.back() / 1e6);
      }
      fmt::format_to(out, "  {:<14}{}  (imbalance {:.1f}%)\n", c, line, spread(v).imbalance_pct);
    }
  }
  if (!R.bandwidth.empty()) {
    // GB/s here is 10^9 bytes/s (nccl-tests' unit); TraceLens users compare with GiB/s (2^30): named.
    s += "collective bandwidth (GB/s = 10^9 bytes/s, in brackets GiB/s = 2^30 bytes/s as TraceLens reports; busbw = "
         "algbw x factor, nccl-tests PERFORMANCE.md; transfer = shortest rank):\n";
    for (const auto& bw : R.bandwidth) {
      auto f = CollectiveKnowledge::factor(bw.busbw_factor, bw.group_size);
      const double alg = gbps(static_cast<double>(bw.bytes), bw.transfer_dur_ns);
      const std::string bus = f ? fmt::format("{:.2f} GB/s ({:.2f} GiB/s)", alg * *f, alg * *f * kGiBPerGB) : "n/a";
      fmt::format_to(out,
                     "  {:<13} {:>10} B x{:<5} transfer {:>9.1f} us  algbw {:>8.2f} GB/s ({:.2f} GiB/s)  busbw {}\n",
                     bw.type, static_cast<long long>(bw.bytes), static_cast<long long>(bw.count),
                     bw.transfer_dur_ns / 1e3, alg, alg * kGiBPerGB, bus);
    }
  }
  for (const auto& d : R.damaged) s += "damaged: " + d + "\n";
  for (const auto& n : R.notes) s += "note: " + n + "\n";
  return s;
}

}  // namespace goblin::analysis
