#include "audit/replay_runner.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "analysis/metrics_io.h"
#include "core/io.h"
#include "trace/readers.h"

namespace goblin::audit {

namespace fs = std::filesystem;

std::vector<std::string> config_differences(const config::WorkloadConfig& a, const config::WorkloadConfig& b) {
  std::vector<std::string> out;
  for (const auto& f : config::config_fields()) {
    std::string n = f.name;
    if (n == "model_name") continue;
    if (a.get(n) != b.get(n)) out.push_back(n);
  }
  std::map<std::string, int> env;
  for (const auto& [k, v] : a.env_vars) env[k] = 1;
  for (const auto& [k, v] : b.env_vars) env[k] = 1;
  for (const auto& [k, v] : env)
    if (a.get("env." + k) != b.get("env." + k)) out.push_back("env." + k);
  return out;
}

Result<ReplayRunner> ReplayRunner::open(const std::string& path) {
  std::error_code ec;
  std::string manifest = fs::is_directory(path, ec) ? (fs::path(path) / "replay.yaml").string() : path;
  if (!fs::exists(manifest, ec))
    return make_error(ErrorKind::Io,
                      "no replay manifest: expected " + manifest +
                          " (a replay.yaml listing recorded runs: role, config, trace; see docs/audit.md)",
                      manifest);
  ASSIGN_OR_RETURN(auto text, read_all(manifest));
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, "replay manifest is not valid YAML: " + e.msg, manifest, -1,
                      e.mark.line >= 0 ? e.mark.line + 1 : -1);
  }
  ReplayRunner rr;
  rr.manifest_ = manifest;
  fs::path base = fs::path(manifest).parent_path();
  auto bad = [&](const std::string& what, const YAML::Node& n) {
    return make_error(ErrorKind::Malformed, "replay manifest: " + what, manifest, -1,
                      n.Mark().line >= 0 ? n.Mark().line + 1 : -1);
  };
  try {
    if (!root.IsMap()) return bad("expected a mapping with `runs:` (a list of recorded runs)", root);
    if (root["workload"]) rr.workload_ = root["workload"].as<std::string>();
    if (root["notes"] && root["notes"].IsSequence())
      for (const auto& n : root["notes"]) rr.notes_.push_back(n.as<std::string>());
    const YAML::Node runs = root["runs"];
    if (!runs || !runs.IsSequence() || runs.size() == 0)
      return bad("expected `runs:` to be a non-empty list of {id, role, config, trace|metrics}", root);
    for (const auto& n : runs) {
      if (!n.IsMap()) return bad("each run must be a mapping {id, role, config, trace|metrics}", n);
      ReplayRun r;
      r.id = n["id"] ? n["id"].as<std::string>() : "run" + fmt::to_string(rr.runs_.size() + 1);
      r.role = n["role"] ? n["role"].as<std::string>() : "";
      if (r.role != "baseline" && r.role != "after")
        return bad("run " + r.id + ": role must be `baseline` or `after`, got `" + r.role + "`", n);
      if (!n["config"]) return bad("run " + r.id + ": missing `config` (the config file this run ran)", n);
      if (!n["trace"] && !n["metrics"])
        return bad("run " + r.id + ": needs `trace` (a recorded trace) or `metrics` (a RunMetrics JSON)", n);
      auto resolve = [&](const YAML::Node& v) {
        fs::path p = v.as<std::string>();
        return (p.is_absolute() ? p : base / p).string();
      };
      r.config_path = resolve(n["config"]);
      if (n["trace"]) r.trace_path = resolve(n["trace"]);
      if (n["metrics"]) r.metrics_path = resolve(n["metrics"]);
      if (n["description"]) r.description = n["description"].as<std::string>();
      if (const YAML::Node u = n["unprofiled"]) {
        if (!u.IsMap() || !u["step_s"] || !u["source"] || u["source"].Scalar().empty() ||
            !(u["step_s"].as<double>() > 0))
          return bad(
              "run " + r.id + ": `unprofiled` needs `step_s` (> 0, seconds) and `source` (where it was measured)", u);
        r.unprofiled = UnprofiledStep{u["step_s"].as<double>(), u["source"].as<std::string>()};
      }
      auto cfg = config::parse_config_file(r.config_path);
      if (!cfg) {
        Error e = cfg.error();
        e.message = "replay manifest run " + r.id + ": " + e.message;
        return e;
      }
      r.config = std::move(*cfg);
      const std::string& data = r.trace_path.empty() ? r.metrics_path : r.trace_path;
      if (!fs::exists(data, ec))
        return make_error(ErrorKind::Io, "replay manifest run " + r.id + ": recorded file not found", data);
      rr.runs_.push_back(std::move(r));
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, "replay manifest: " + e.msg, manifest, -1,
                      e.mark.line >= 0 ? e.mark.line + 1 : -1);
  }
  return rr;
}

Result<analysis::RunMetrics> ReplayRunner::metrics_of(const ReplayRun& r) {
  auto it = cache_.find(r.id);
  if (it != cache_.end()) return it->second;
  analysis::RunMetrics m;
  if (!r.trace_path.empty()) {
    auto tl = std::make_shared<Timeline>();
    Status st = trace::read_path(r.trace_path, *tl);
    if (!st) {
      Error e = st.error();
      e.message = "replaying run " + r.id + ": " + e.message;
      return e;
    }
    // What the hook timed unrecorded just before the window, in the same process (the CUPTI tracer's
    // profile): the profiler correction's unprofiled step.
    if (auto it = tl->meta.extra.find("goblin_untraced_step_time_seconds"); it != tl->meta.extra.end()) {
      const Json v = Json::parse(it->second, nullptr, false);
      if (v.is_number() && v.get<double>() > 0) {
        std::string steps;
        if (auto n = tl->meta.extra.find("goblin_untraced_steps"); n != tl->meta.extra.end()) steps = n->second + " ";
        untraced_[r.id] = UnprofiledStep{
            v.get<double>(), fmt::format("the recording's own {}untraced steps just before its window ({})", steps,
                                         fs::path(r.trace_path).filename().string())};
      }
    }
    ASSIGN_OR_RETURN(auto cm, analysis::compute_run_metrics(*tl));
    last_timeline_ = std::move(tl);
    m = std::move(cm);
    m.window +=
        (m.window.empty() ? "" : "; ") + std::string("replayed from ") + fs::path(r.trace_path).filename().string();
  } else {
    ASSIGN_OR_RETURN(auto lm, analysis::load_metrics_file(r.metrics_path));
    m = std::move(lm);
  }
  m.runner_kind = "replay";
  cache_[r.id] = m;
  return m;
}

Result<analysis::RunMetrics> ReplayRunner::run_for(const config::WorkloadConfig& config, const std::string& role) {
  last_timeline_.reset();  // the previous call's, not taken: nobody asked for it
  const ReplayRun* best = nullptr;
  std::vector<std::string> best_diff;
  // An exact match of any role wins.
  for (const auto& r : runs_) {
    auto d = config_differences(config, r.config);
    if (d.empty()) {
      best = &r;
      best_diff.clear();
      break;
    }
    if (r.role == role && (!best || d.size() < best_diff.size())) best = &r, best_diff = d;
  }
  if (!best)
    return make_error(ErrorKind::NotFound,
                      "the replay manifest has no recorded run for this config and no run with role `" + role +
                          "` to stand in for it",
                      manifest_);
  last_id_ = best->id;
  if (best_diff.empty()) {
    last_match_ = "exact";
    last_config_.reset();
  } else {
    std::string f;
    for (const auto& x : best_diff) f += (f.empty() ? "" : ", ") + x;
    last_match_ = "nearest recorded `" + role + "` run; differs on " + f;
    last_config_ = best->config;
  }
  return metrics_of(*best);
}

std::string ReplayRunner::last_trace() const {
  for (const auto& r : runs_)
    if (r.id == last_id_) return r.trace_path;
  return {};
}

std::optional<UnprofiledStep> ReplayRunner::last_unprofiled_step() const {
  if (auto it = untraced_.find(last_id_); it != untraced_.end()) return it->second;
  for (const auto& r : runs_)
    if (r.id == last_id_) return r.unprofiled;
  return std::nullopt;
}

Result<analysis::RunMetrics> ReplayRunner::profile(const config::WorkloadConfig& config) {
  return run_for(config, "baseline");
}

Result<analysis::RunMetrics> ReplayRunner::bench(const config::WorkloadConfig& config) {
  return run_for(config, "after");
}

}  // namespace goblin::audit
