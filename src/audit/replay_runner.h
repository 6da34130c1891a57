// ReplayRunner: a Runner over recorded artefacts. A manifest (DIR/replay.yaml) lists recorded
// runs, each with the config it ran and its trace (or a RunMetrics JSON); profile()/bench() map
// the requested config onto a recorded run and compute RunMetrics from its trace with the same
// code as `goblin metrics` (read_path + compute_run_metrics), runner_kind "replay".
//
// Matching: a recorded run whose config equals the requested one on every WorkloadConfig field
// and env var (model_name aside) is used as is. Otherwise profile() takes the nearest run with
// role `baseline` and bench() the nearest run with role `after` (the recording that stands in for
// the patched config); last_run_config() then returns that run's config so the report states
// exactly which patch edits the recording does and does not contain.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "audit/runner.h"

namespace goblin::audit {

struct ReplayRun {
  std::string id, role;  // role: baseline | after
  std::string config_path, trace_path, metrics_path, description;
  config::WorkloadConfig config;
  // The config's step measured unprofiled, from the manifest's `unprofiled: {step_s, source}`
  // (a bench or another recording's untraced steps of the same config); the trace's own untraced
  // steps (goblin_untraced_step_time_seconds) take precedence.
  std::optional<UnprofiledStep> unprofiled;
};

class ReplayRunner : public Runner {
 public:
  // `path`: a directory holding replay.yaml, or the manifest file itself.
  static Result<ReplayRunner> open(const std::string& path);

  Result<analysis::RunMetrics> profile(const config::WorkloadConfig& config) override;
  Result<analysis::RunMetrics> bench(const config::WorkloadConfig& config) override;
  // The AFTER side's profile: the recorded `after` run's trace (exact match first).
  Result<analysis::RunMetrics> profile_after(const config::WorkloadConfig& config) override {
    return run_for(config, "after");
  }
  std::string kind() const override { return "replay"; }
  std::optional<config::WorkloadConfig> last_run_config() const override { return last_config_; }
  std::string last_trace() const override;
  // The recording's own untraced steps (the trace's goblin_untraced_step_time_seconds, the same
  // process), else the manifest's `unprofiled` of that run, else none.
  std::optional<UnprofiledStep> last_unprofiled_step() const override;
  // The Timeline of the last call's run, when that call read its trace (the first call for each
  // run; later ones use the cached metrics). Kept only until the next call or this one.
  std::shared_ptr<const Timeline> take_last_timeline() override { return std::move(last_timeline_); }

  const std::vector<ReplayRun>& runs() const { return runs_; }
  const std::vector<std::string>& notes() const { return notes_; }  // manifest notes
  const std::string& workload() const { return workload_; }
  // Which recorded run the last call used, and how it matched ("exact" or the differing fields).
  const std::string& last_run_id() const { return last_id_; }
  const std::string& last_match() const { return last_match_; }
  const std::string& manifest_path() const { return manifest_; }

 private:
  Result<analysis::RunMetrics> run_for(const config::WorkloadConfig& config, const std::string& role);
  Result<analysis::RunMetrics> metrics_of(const ReplayRun& r);

  std::string manifest_, workload_;
  std::vector<ReplayRun> runs_;
  std::vector<std::string> notes_;
  std::map<std::string, analysis::RunMetrics> cache_;
  std::map<std::string, UnprofiledStep> untraced_;  // per run id, from its trace's metadata
  std::optional<config::WorkloadConfig> last_config_;
  std::string last_id_, last_match_;
  std::shared_ptr<const Timeline> last_timeline_;
};

// Fields (WorkloadConfig fields and env.NAME, model_name aside) on which two configs differ.
std::vector<std::string> config_differences(const config::WorkloadConfig& a, const config::WorkloadConfig& b);

}  // namespace goblin::audit
