// tracer_overhead_stats CSV...: the tracer's overhead with goblin bench's statistics
// (src/run/stats.h: medians, 2000-resample percentile bootstrap, fixed seed). Reads the CSV
// rows tracer/device/device.sh writes (config,repeat,mode,step_time_s,tokens_per_sec,wall_s;
// modes none | cupti | torch, interleaved per repeat) and prints, per config, each traced
// mode's step time relative to untraced: median(traced)/median(untraced) with its 95 % interval,
// and the untraced runs' A/A noise floor. JSON on stdout.
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "run/stats.h"

int main(int argc, char** argv) {
  using namespace goblin;
  std::map<std::string, std::map<std::string, std::vector<double>>> runs;  // config → mode → step s
  for (int a = 1; a < argc; ++a) {
    std::ifstream in(argv[a]);
    if (!in) {
      std::cerr << "tracer_overhead_stats: cannot open " << argv[a] << "\n";
      return 3;
    }
    std::string line;
    std::getline(in, line);  // header
    int ln = 1;
    while (std::getline(in, line)) {
      ++ln;
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
      if (f.size() < 4) {
        std::cerr << argv[a] << ":" << ln << ": expected config,repeat,mode,step_time_s,...\n";
        return 5;
      }
      double st = std::strtod(f[3].c_str(), nullptr);
      if (!(st > 0) || !std::isfinite(st)) continue;  // a failed run (nan): reported by count below
      runs[f[0]][f[2]].push_back(st);
    }
  }
  Json out = Json::object();
  for (auto& [cfg, modes] : runs) {
    Json c;
    const auto& base = modes["none"];
    c["untraced_runs"] = base.size();
    c["untraced_step_s_median"] = round_to(median(base), 6);
    run::NoiseFloor nf = run::aa_noise_floor(base);
    c["aa_noise_floor_pct"] = nf.available ? Json(round_to(nf.floor_pct, 2)) : Json(nullptr);
    for (const char* m : {"cupti", "torch"}) {
      const auto& t = modes[m];
      if (t.empty() || base.empty()) continue;
      ConfidenceInterval r = bootstrap_ratio(t, base);
      c[m] =
          Json{{"runs", t.size()},
               {"step_s_median", round_to(median(t), 6)},
               {"ratio_to_untraced", run::interval_to_json(r)},
               {"overhead_pct", round_to(100 * (r.point - 1), 2)},
               {"overhead_pct_95ci", Json::array({round_to(100 * (r.low - 1), 2), round_to(100 * (r.high - 1), 2)})}};
    }
    out[cfg] = c;
  }
  out["method"] =
      "goblin bench statistics (src/run/stats.h): ratio of median step times, traced / untraced, 2000-resample "
      "percentile bootstrap (95 %, seed 0x60B11), each side resampled independently; runs interleaved "
      "none, cupti, torch per repeat";
  std::cout << out.dump(1) << "\n";
  return 0;
}
