// Detection delay and false-alert rate of the change-point detector and of goblin gate's test
// (src/store/change_point.h) under the run-to-run noise of real repeated H100 runs
// (bench/results/change_points/README.md). Not a Google Benchmark: one simulation, printed as a
// Markdown table and written as JSON.
//
//   build/bench/bench_change_points OUT.json GROUP... [-- GROUP...]
//
// Each GROUP is a path prefix DIR/p naming repeated runs of one config (DIR/p*/result.json with
// per-step `step_times`).
// Before `--`: the steady pool; after: runs added for the heavy-tailed pool. A synthetic run is
// the median of 30 steps drawn with replacement from one real run picked at random, its step
// times divided by its group's median run (so a run carries its own run-to-run offset, and
// within-run step noise).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/stats.h"
#include "store/change_point.h"

namespace fs = std::filesystem;
using goblin::Json;

namespace {

using Run = std::vector<double>;  // step times divided by the group's median run

// `group` is a path prefix: DIR/b takes DIR/b1, DIR/b2, ... (their result.json).
std::vector<Run> read_group(const fs::path& group) {
  std::vector<Run> runs;
  std::vector<double> medians;
  const std::string prefix = group.filename().string();
  for (const auto& e : fs::directory_iterator(group.parent_path())) {
    if (!e.path().filename().string().starts_with(prefix)) continue;
    const fs::path f = e.path() / "result.json";
    if (!fs::is_regular_file(f)) continue;
    std::ifstream in(f);
    Json j = Json::parse(in);
    Run r = j.at("step_times").get<std::vector<double>>();
    medians.push_back(goblin::median(r));
    runs.push_back(std::move(r));
  }
  const double m = goblin::median(medians);
  for (auto& r : runs)
    for (double& x : r) x /= m;
  return runs;
}

struct Noise {
  std::vector<Run> pool;
  double cv = 0;  // > 0: Gaussian run-to-run noise of this relative size instead of the pool
  double run(std::mt19937_64& rng) const {
    if (cv > 0) return 1 + std::normal_distribution<double>(0, cv)(rng);
    const Run& r = pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)];
    std::uniform_int_distribution<size_t> pick(0, r.size() - 1);
    std::vector<double> steps(30);
    for (double& s : steps) s = r[pick(rng)];
    return goblin::median(steps);
  }
};

struct Figures {
  std::string pool;
  double shift_pct = 0;
  int trials = 0;
  int cp_within_3 = 0, cp_within_10 = 0, gate_first_run = 0;
  std::vector<int> delays;  // runs after the shift until the detector placed it (within ±1)
};

Figures detect(const Noise& noise, const std::string& name, double shift, int trials, uint64_t seed) {
  Figures f{name, shift, trials, 0, 0, 0, {}};
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    std::vector<double> xs;
    for (int i = 0; i < 20; ++i) xs.push_back(noise.run(rng));
    std::vector<double> base(xs.end() - 10, xs.end());
    for (int k = 1; k <= 10; ++k) {
      xs.push_back(noise.run(rng) * (1 + shift / 100));
      if (k == 1 && goblin::store::newest_vs_baseline(base, xs.back(), true).p_worse < 0.01) ++f.gate_first_run;
      if (k < 3) continue;  // the detector needs 3 runs on each side
      bool found = false;
      for (const auto& cp : goblin::store::change_points(xs)) found |= cp.index + 1 >= 20 && cp.index <= 21;
      if (found) {
        f.delays.push_back(k);
        f.cp_within_3 += k <= 3;
        ++f.cp_within_10;
        break;
      }
    }
  }
  return f;
}

struct FalseAlerts {
  std::string pool;
  int series = 0, runs = 0, cp_series_with_alert = 0, cp_alerts = 0, gate_checks = 0, gate_alerts = 0;
};

FalseAlerts false_alerts(const Noise& noise, const std::string& name, int series, uint64_t seed) {
  FalseAlerts f{name, series, 30, 0, 0, 0, 0};
  std::mt19937_64 rng(seed);
  for (int s = 0; s < series; ++s) {
    std::vector<double> xs;
    for (int i = 0; i < 30; ++i) xs.push_back(noise.run(rng));
    const size_t n = goblin::store::change_points(xs).size();
    f.cp_alerts += static_cast<int>(n);
    f.cp_series_with_alert += n > 0;
    for (size_t i = 10; i < xs.size(); ++i) {  // the gate on each new run, window 10
      std::vector<double> base(xs.begin() + static_cast<long>(i) - 10, xs.begin() + static_cast<long>(i));
      ++f.gate_checks;
      f.gate_alerts += goblin::store::newest_vs_baseline(base, xs[i], true).p_worse < 0.01;
    }
  }
  return f;
}

// One slow run per series (a noisy neighbour, a cold cache): 30 runs of `noise`, one of them, at a
// random position, slower by 15-50 %. A change point there is a false alert; the gate flagging the
// slow run itself is right; the gate flagging a later run whose 10-run baseline holds it is false.
struct OutlierAlerts {
  std::string pool;
  int series = 0, cp_series_with_alert = 0, gate_on_outlier_checks = 0, gate_on_outlier = 0, gate_after_checks = 0,
      gate_after_alerts = 0;
};

OutlierAlerts outlier_alerts(const Noise& noise, const std::string& name, int series, uint64_t seed) {
  OutlierAlerts f{name, series, 0, 0, 0, 0, 0};
  std::mt19937_64 rng(seed);
  for (int s = 0; s < series; ++s) {
    std::vector<double> xs;
    for (int i = 0; i < 30; ++i) xs.push_back(noise.run(rng));
    const size_t at = std::uniform_int_distribution<size_t>(0, 29)(rng);
    xs[at] *= 1 + std::uniform_real_distribution<double>(0.15, 0.50)(rng);
    f.cp_series_with_alert += !goblin::store::change_points(xs).empty();
    for (size_t i = std::max<size_t>(at, 10); i < std::min<size_t>(xs.size(), at + 11); ++i) {
      std::vector<double> base(xs.begin() + static_cast<long>(i) - 10, xs.begin() + static_cast<long>(i));
      const bool alert = goblin::store::newest_vs_baseline(base, xs[i], true).p_worse < 0.01;
      if (i == at) {
        ++f.gate_on_outlier_checks;
        f.gate_on_outlier += alert;
      } else {
        ++f.gate_after_checks;
        f.gate_after_alerts += alert;
      }
    }
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_change_points OUT.json GROUP... [-- GROUP...]\n");
    return 2;
  }
  Noise steady, heavy;
  bool extra = false;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      extra = true;
      continue;
    }
    for (auto& r : read_group(argv[i])) {
      if (!extra) steady.pool.push_back(r);
      heavy.pool.push_back(std::move(r));
    }
  }
  // The run-to-run spread each model gives (coefficient of variation of 20,000 synthetic runs).
  Noise g03{{}, 0.003}, g1{{}, 0.01};
  const std::vector<std::pair<const Noise*, std::string>> models = {
      {&g03, "gaussian 0.3 %"}, {&g1, "gaussian 1 %"}, {&steady, "steady"}, {&heavy, "heavy-tailed"}};
  Json cvs = Json::object();
  for (const auto& [noise, name] : models) {
    std::mt19937_64 rng(1);
    std::vector<double> xs;
    for (int i = 0; i < 20000; ++i) xs.push_back(noise->run(rng));
    cvs[name] = goblin::store::coefficient_of_variation_pct(xs);
    std::printf("noise %s: run-to-run CV %.3f %%\n", name.c_str(), goblin::store::coefficient_of_variation_pct(xs));
  }
  Json out = {{"steady_runs", steady.pool.size()}, {"heavy_runs", heavy.pool.size()}, {"cv_pct", cvs}};
  Json det = Json::array(), fa = Json::array();
  std::printf(
      "| noise | shift | series | change point found within 3 runs | within 10 | median delay (runs) | gate "
      "flags the first run |\n|---|---|---|---|---|---|---|\n");
  for (const auto& [noise, name] : models)
    for (double shift : {1.0, 2.0, 5.0, 10.0}) {
      Figures f = detect(*noise, name, shift, 1000, 0xC0FFEE + static_cast<uint64_t>(shift));
      std::sort(f.delays.begin(), f.delays.end());
      const int med = f.delays.empty() ? -1 : f.delays[f.delays.size() / 2];
      std::printf("| %s | %+.0f %% | %d | %.1f %% | %.1f %% | %d | %.1f %% |\n", name.c_str(), shift, f.trials,
                  100.0 * f.cp_within_3 / f.trials, 100.0 * f.cp_within_10 / f.trials, med,
                  100.0 * f.gate_first_run / f.trials);
      det.push_back({{"noise", name},
                     {"shift_pct", shift},
                     {"series", f.trials},
                     {"found_within_3_runs", f.cp_within_3},
                     {"found_within_10_runs", f.cp_within_10},
                     {"median_delay_runs", med},
                     {"gate_flags_first_run", f.gate_first_run}});
    }
  std::printf(
      "\n| noise | series of 30 runs | series with a false change point | false change points per run | "
      "gate checks | gate false alerts |\n|---|---|---|---|---|---|\n");
  for (const auto& [noise, name] : models) {
    const FalseAlerts f = false_alerts(*noise, name, 2000, 0xBADC0DE);
    std::printf("| %s | %d | %.2f %% | %.4f | %d | %.2f %% |\n", name.c_str(), f.series,
                100.0 * f.cp_series_with_alert / f.series, static_cast<double>(f.cp_alerts) / (f.series * f.runs),
                f.gate_checks, 100.0 * f.gate_alerts / f.gate_checks);
    fa.push_back({{"noise", name},
                  {"series", f.series},
                  {"runs_per_series", f.runs},
                  {"series_with_false_change_point", f.cp_series_with_alert},
                  {"false_change_points", f.cp_alerts},
                  {"gate_checks", f.gate_checks},
                  {"gate_false_alerts", f.gate_alerts}});
  }
  std::printf(
      "\n| noise | series of 30 runs, one 15-50 %% slow | series with a false change point | gate flags the slow run | "
      "gate alerts on runs whose baseline holds it |\n|---|---|---|---|---|\n");
  Json oa = Json::array();
  for (const auto& [noise, name] : models) {
    if (noise == &heavy) continue;  // its runs already hold outliers
    const OutlierAlerts f = outlier_alerts(*noise, name, 2000, 0x0DD);
    std::printf("| %s | %d | %.2f %% | %.1f %% of %d | %.2f %% of %d |\n", name.c_str(), f.series,
                100.0 * f.cp_series_with_alert / f.series, 100.0 * f.gate_on_outlier / f.gate_on_outlier_checks,
                f.gate_on_outlier_checks, 100.0 * f.gate_after_alerts / f.gate_after_checks, f.gate_after_checks);
    oa.push_back({{"noise", name},
                  {"series", f.series},
                  {"series_with_false_change_point", f.cp_series_with_alert},
                  {"gate_checks_of_the_slow_run", f.gate_on_outlier_checks},
                  {"gate_flags_the_slow_run", f.gate_on_outlier},
                  {"gate_checks_with_it_in_the_baseline", f.gate_after_checks},
                  {"gate_false_alerts_with_it_in_the_baseline", f.gate_after_alerts}});
  }
  out.update(Json{{"detection", det}, {"false_alerts", fa}, {"one_outlier_run", oa}});
  std::ofstream(argv[1]) << out.dump(1) << "\n";
  return 0;
}
