#include "mcp/live_calls.h"

#include <fmt/format.h>

#include "audit/replay_runner.h"
#include "run/live_audit.h"
#include "run/live_runner.h"

namespace goblin::mcp {

namespace {

Result<analysis::RunMetrics> run_live(const std::string& kind, const config::WorkloadConfig& cfg, int steps, Session& s,
                                      CallContext& ctx, RunRecord& rec) {
  run::LiveAuditKnobs knobs;
  if (kind == "profile")
    knobs.profile_steps = steps;
  else
    knobs.bench_steps = steps;
  knobs.repeats = s.options().live_repeats;
  ASSIGN_OR_RETURN(auto setup, run::make_live_audit(s.options().out_dir + "/" + rec.id, knobs));
  rec.runner = "live";
  rec.notes = setup.notes;
  if (ctx.progress) ctx.progress(0, "live " + kind + " started (" + rec.id + ")");
  auto m = kind == "profile" ? setup.runner->profile(cfg) : setup.runner->bench(cfg);
  if (ctx.is_cancelled())
    return make_error(ErrorKind::Workload, "cancelled by the client: the workload's process group was killed");
  if (!m) return m.error();
  if (kind == "bench" && setup.log) {
    Json log = setup.log();
    if (log.is_array() && !log.empty() && log.back().contains("bench")) {
      auto samples = run::bench_side_samples(log.back()["bench"], "a");
      rec.step_time_samples = samples.step_time_s;
      rec.tokens_samples = samples.tokens_per_sec;
    }
  }
  return m;
}

Result<analysis::RunMetrics> run_replay(const std::string& kind, const config::WorkloadConfig& cfg, int steps,
                                        Session& s, RunRecord& rec) {
  ASSIGN_OR_RETURN(auto rp, s.replay());
  audit::ReplayRunner& r = *rp;
  ASSIGN_OR_RETURN(auto m, kind == "profile" ? r.profile(cfg) : r.bench(cfg));
  rec.runner = "replay";
  rec.ran = r.last_run_config();
  rec.notes.push_back("replay: every measurement comes from recorded artefacts listed in " + r.manifest_path() +
                      "; nothing was run now");
  for (const auto& n : r.notes()) rec.notes.push_back(n);
  rec.notes.push_back(kind + " " + rec.id + " answered by recording '" + r.last_run_id() +
                      "' (match: " + r.last_match() + ")");
  if (steps > 0) rec.notes.push_back(fmt::format("steps={} ignored: a recording has its own steps", steps));

  return m;
}

}  // namespace

Result<analysis::RunMetrics> run_measurement(const std::string& kind, const config::WorkloadConfig& cfg, int steps,
                                             Session& s, CallContext& ctx, RunRecord& rec) {
  std::string live_refusal;
  if (s.options().allow_live) {
    auto m = run_live(kind, cfg, steps, s, ctx, rec);
    if (m) {
      if (kind == "bench") rec.notes.push_back("measured now: the live audit runner uses no cached figures");
      return m;
    }
    // Only "this machine cannot run it" falls back to a replay; a workload that ran and failed
    // (or was cancelled) is the answer.
    if (m.error().kind != ErrorKind::Environment || s.options().replay_dir.empty()) return m.error();
    live_refusal = m.error().message;
    rec.notes.clear();
  }
  if (s.options().replay_dir.empty())
    return make_error(ErrorKind::Environment,
                      std::string(kind == "profile" ? "profile_run" : "benchmark") +
                          " cannot measure: this server allows no live runs and has no replay recordings (its operator "
                          "chooses both when starting it). No figures were invented; without a measurement, "
                          "call compare_runs with before/after metrics you already have (e.g. from metrics on "
                          "two traces), or ask the user for a server that can measure.");
  auto m = run_replay(kind, cfg, steps, s, rec);
  if (m && !live_refusal.empty())
    rec.notes.insert(rec.notes.begin(), "live run refused (" + live_refusal + "); answered from the replay");
  return m;
}

}  // namespace goblin::mcp
