#include "run/live_runner.h"

#include <filesystem>
#include <sstream>

#include "audit/metrics_io.h"
#include "audit/patch.h"
#include "audit/workload_config.h"
#include "core/io.h"
#include "run/runners.h"

namespace fs = std::filesystem;

namespace goblin::run {

Result<std::string> LiveRunner::materialise(const audit::WorkloadConfig& config, const std::string& tag) {
  const std::string& src = config.source_file;
  if (src.empty()) return make_error(ErrorKind::Usage, "the config has no source file to run");
  auto orig = audit::parse_config_file(src);
  if (!orig) return orig.error();
  std::map<std::string, Json> edits;
  for (const auto& [k, v] : config.values) {
    Json old = orig->get(k);
    if (old != v) edits[k] = v;
  }
  for (const auto& [k, v] : config.env_vars) {
    auto it = orig->env_vars.find(k);
    if (it == orig->env_vars.end() || it->second != v) edits["env." + k] = v;
  }
  if (edits.empty()) return src;
  auto text = read_all(src);
  if (!text) return text.error();
  std::vector<std::string> unplaced;
  auto edited = audit::edit_config_text(*text, *orig, edits, &unplaced);
  if (!edited) return edited.error();
  if (!unplaced.empty()) {
    std::string u;
    for (auto& f : unplaced) u += (u.empty() ? "" : ", ") + f;
    return make_error(ErrorKind::Usage, "the patched config sets fields that have no place in " + src + ": " + u);
  }
  std::string dir = opt_.out_dir + "/live";
  if (Status st = make_dirs(dir); !st.ok()) return st.error();
  std::string path = dir + "/" + tag + fs::path(src).extension().string();
  if (Status st = write_file(path, *edited); !st.ok()) return st.error();
  return path;
}

Result<RunMetrics> LiveRunner::profile(const audit::WorkloadConfig& config) {
  auto file = materialise(config, "profiled_config");
  if (!file) return file.error();
  files_.push_back(*file);
  auto w = resolve_workload(*file, opt_.workload_flag);
  if (!w) return w.error();
  ProfileRequest req;
  req.workload = *w;
  req.workload.steps = opt_.profile_steps;
  req.workload.warmup = opt_.profile_warmup;
  req.workload.timeout_s = opt_.timeout_s;
  req.run_dir = opt_.out_dir + "/live/profile-" + std::to_string(++n_);
  auto po = profile_workload(req);
  log_.push_back(Json{{"call", "profile"}, {"config_file", *file}, {"run", po.run}});
  if (po.error) return *po.error;
  auto m = audit::load_metrics_file(req.run_dir + "/metrics.json");
  if (!m) return m.error();
  m->runner_kind = "live";
  return *m;
}

RunMetrics bench_to_run_metrics(const Json& b) {
  RunMetrics m;
  m.runner_kind = "live";
  m.step_time_s = b.value("step_time_s", 0.0);
  if (b.contains("tokens_per_sec") && b["tokens_per_sec"].is_number())
    m.tokens_per_sec = b["tokens_per_sec"].get<double>();
  m.gpu_name = b.contains("gpu") ? b["gpu"].value("name", "") : "";
  if (b.contains("versions") && b["versions"].is_object())
    for (auto& [k, v] : b["versions"].items())
      if (v.is_string()) m.versions[k] = v.get<std::string>();
  std::ostringstream win;
  win << "bench: median of " << b.value("repeats", 0) << " unprofiled runs x " << b.value("steps", 0)
      << " steps (first " << b.value("warmup", 0) << " steps of each run excluded)";
  m.window = win.str();
  if (b.contains("a") && b["a"].contains("step_time_s")) {
    const Json& ci = b["a"]["step_time_s"];
    std::ostringstream w;
    w << "bench median step time " << ci.value("point", 0.0) << " s, 95% bootstrap interval [" << ci.value("low", 0.0)
      << ", " << ci.value("high", 0.0) << "]";
    if (b["a"].contains("aa_noise_floor_pct") && b["a"]["aa_noise_floor_pct"].is_number())
      w << ", A/A noise floor " << b["a"]["aa_noise_floor_pct"].get<double>() << "%";
    m.warnings.push_back(w.str());
  }
  m.waste_budget.unobserved = {"useful_gpu",      "data_wait",      "host_gap",     "comm_excess",
                               "memory_headroom", "precision_path", "kernel_shape", "unattributed"};
  return m;
}

Result<RunMetrics> LiveRunner::bench(const audit::WorkloadConfig& config) {
  auto file = materialise(config, "bench_config_" + std::to_string(n_ + 1));
  if (!file) return file.error();
  files_.push_back(*file);
  auto w = resolve_workload(*file, opt_.workload_flag);
  if (!w) return w.error();
  BenchRequest req;
  req.a = *w;
  req.a.steps = opt_.bench_steps;
  req.a.warmup = opt_.bench_warmup;
  req.a.timeout_s = opt_.timeout_s;
  req.repeats = opt_.repeats;
  req.use_cache = opt_.use_cache;
  req.work_dir = opt_.out_dir + "/live/bench-" + std::to_string(++n_);
  auto bo = bench_workloads(req);
  log_.push_back(Json{{"call", "bench"}, {"config_file", *file}, {"bench", bo.result}});
  if (bo.error) return *bo.error;
  return bench_to_run_metrics(bo.result);
}

}  // namespace goblin::run
