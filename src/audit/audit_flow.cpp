#include "audit/audit_flow.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <regex>
#include <set>

#include "analysis/memory_events.h"
#include "audit/audit_internal.h"
#include "audit/compare.h"
#include "audit/knowledge.h"
#include "audit/patch.h"
#include "audit/replay_runner.h"
#include "audit/rules.h"

namespace goblin::audit {

namespace detail {

std::string f2(double v, int d) { return fmt::format("{:.{}f}", v, d); }

std::string str_of(const Json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

void step_begin(AuditOutcome& o, const AuditOptions& opt, const std::string& tool, const std::string& thought) {
  o.trajectory.push_back(AuditStep{tool, thought, "", true, o.current_round});
  std::string label = o.current_round > 1 ? fmt::format("round {} {}", o.current_round, tool) : tool;
  if (opt.progress) opt.progress(label, "thought: " + thought);
}

void step_end(AuditOutcome& o, const AuditOptions& opt, const std::string& outcome, bool ok) {
  if (o.trajectory.empty()) return;
  o.trajectory.back().outcome = outcome;
  o.trajectory.back().ok = ok;
  const AuditStep& st = o.trajectory.back();
  std::string label = st.round > 1 ? fmt::format("round {} {}", st.round, st.tool) : st.tool;
  if (opt.progress) opt.progress(label, (ok ? "-> " : "FAILED: ") + outcome);
}

std::string metrics_line(const analysis::RunMetrics& m) {
  std::string s = fmt::format("step {} ms", f2(m.step_time_s * 1e3, 1));
  auto out = std::back_inserter(s);
  if (m.tokens_per_sec) fmt::format_to(out, ", {} tokens/s", f2(*m.tokens_per_sec, 0));
  if (!m.steps.empty()) {
    fmt::format_to(out, ", GPU busy {} %", f2(m.gpu_util_pct, 1));
  } else if (m.gpu_util_pct > 0) {
    bool tel = std::any_of(m.warnings.begin(), m.warnings.end(),
                           [](const Warning& w) { return w.id == W::gpu_util_from_telemetry; });
    fmt::format_to(out, ", GPU util {} % ({})", f2(m.gpu_util_pct, 1), tel ? "telemetry" : "no step trace");
  } else {
    s += ", GPU busy not observed";
  }
  if (!m.gpu_name.empty()) fmt::format_to(out, " on {}", m.gpu_name);
  return s;
}

std::string profile_line(const analysis::RunMetrics& m) {
  const analysis::WasteBudget& w = m.waste_budget;
  std::string s = fmt::format(
      "{}; waste/step: precision_path {} ms, host_gap {} ms, data_wait {} ms, kernel_shape {} ms", metrics_line(m),
      f2(w.precision_path * 1e3, 1), f2(w.host_gap * 1e3, 1), f2(w.data_wait * 1e3, 2), f2(w.kernel_shape * 1e3, 1));
  if (m.memory_headroom_gb) fmt::format_to(std::back_inserter(s), "; HBM headroom {} GB", f2(*m.memory_headroom_gb, 1));
  return s;
}

}  // namespace detail

using namespace detail;

Result<AuditOutcome> run_audit(const std::string& config_path, Runner& runner, const AuditOptions& opt) {
  AuditOutcome o;
  o.runner_kind = runner.kind();
  auto fail = [&](const Error& e) -> Result<AuditOutcome> {
    step_end(o, opt, e.describe(), false);
    o.error = e;
    return o;
  };

  // 1. parse_config
  step_begin(o, opt, "parse_config",
             "Read " + config_path + " into a WorkloadConfig so every knob has a value and an origin.");
  auto cfg = config::parse_config_file(config_path);
  if (!cfg) {
    step_end(o, opt, cfg.error().describe(), false);
    return cfg.error();
  }
  o.config = *cfg;
  {
    step_end(o, opt,
             fmt::format("{}: precision {}, attention {}, workers {}, pin_memory {}, optimizer {}, compile {}",
                         str_of(o.config.get("model_name")), str_of(o.config.get("precision")),
                         str_of(o.config.get("attention_impl")), str_of(o.config.get("dataloader_workers")),
                         str_of(o.config.get("dataloader_pin_memory")), str_of(o.config.get("optimizer")),
                         str_of(o.config.get("torch_compile"))));
  }

  // 2. profile_run
  step_begin(o, opt, "profile_run",
             "Profile the config as it is (" + runner.kind() + ") to get RunMetrics and an additive waste budget.");
  auto prof = runner.profile(o.config);
  if (!prof) return fail(prof.error());
  o.profile = *prof;
  step_end(o, opt, profile_line(*o.profile));

  auto kb = knowledge();  // rules, taxonomy, speedup factors: once for every round
  if (!kb) return fail(kb.error());
  if (opt.memory) {
    std::string why;
    const std::string gpu = opt.memory_device_name.empty() ? o.profile->gpu_name : opt.memory_device_name;
    if (auto h = analysis::memory_headroom(*opt.memory, (*kb)->analysis(), gpu, opt.memory_device_total, why)) {
      analysis::apply_memory_headroom(*o.profile, *h);
      o.notes.push_back("memory: " + h->basis);
    } else {
      o.notes.push_back("memory: " + opt.memory->source + " not used: " + why);
    }
  }
  AuditHistory hist = open_history(opt);
  if (!hist.note.empty()) o.notes.push_back(hist.note);

  // 3.. rounds: query, patch, bench the pair, compare, profile the AFTER side; accept and go on
  // while a round is significant and rules still apply (docs/audit.md § Rounds).
  const int rounds = std::max(1, opt.rounds);
  std::string cur_path = config_path;
  config::WorkloadConfig cur_cfg = o.config;
  analysis::RunMetrics cur_prof = *o.profile;
  std::string cur_trace = runner.last_trace();
  // Round 1's config: the untraced steps the profile measured beside its window, when it did.
  std::optional<UnprofiledStep> cur_unprofiled = runner.last_unprofiled_step();
  // The profile's Timeline, when the runner kept it: round 1's what-if works on it rather than
  // reading cur_trace again. Later rounds start from an AFTER profile and read their trace.
  std::shared_ptr<const Timeline> cur_timeline = runner.take_last_timeline();
  o.rounds.clear();
  double total = 1, total_lo = 1, total_hi = 1;
  bool all_ci = true;
  int accepted = 0;
  std::string stop;
  for (int r = 1; r <= rounds; ++r) {
    if (r > 1 && opt.cancelled && opt.cancelled()) {
      stop = fmt::format("cancelled before round {}", r);
      break;
    }
    o.current_round = r;
    RoundResult rr = run_round(r, cur_path, cur_cfg, cur_prof, cur_trace, std::move(cur_timeline), cur_unprofiled,
                               runner, opt, **kb, hist, o);
    if (rr.error) {
      if (r == 1) return fail(*rr.error);
      o.rounds.push_back(rr.summary);
      stop = fmt::format("round {} failed: {}", r, rr.error->describe());
      break;
    }
    o.rounds.push_back(rr.summary);
    if (!rr.accepted) {
      stop = rr.stop_reason;
      break;
    }
    ++accepted;
    total *= rr.speedup;
    all_ci = all_ci && rr.ci_low && rr.ci_high;
    total_lo *= rr.ci_low.value_or(rr.speedup);
    total_hi *= rr.ci_high.value_or(rr.speedup);
    if (r == rounds) {
      stop = fmt::format("the rounds ended (--rounds {})", rounds);
      break;
    }
    if (!rr.after_profile) {
      stop = fmt::format("round {} has no AFTER profile to derive the next round from", r);
      break;
    }
    // The next round starts from this round's patched config and its AFTER profile.
    auto next = write_round_config(opt, r, cur_path, rr.patched_text);
    if (!next) {
      stop = next.error().describe();
      break;
    }
    auto ncfg = config::parse_config_file(*next);
    if (!ncfg) {
      stop = ncfg.error().describe();
      break;
    }
    cur_path = *next;
    cur_cfg = *ncfg;
    cur_prof = *rr.after_profile;
    cur_trace = rr.after_profile_trace;
    cur_unprofiled = rr.after_unprofiled;
  }
  o.current_round = 0;
  Report& rep = o.report;
  rep.rounds = o.rounds;
  rep.rounds_requested = rounds;
  rep.rounds_accepted = accepted;
  rep.rounds_stop_reason = stop;
  rep.total_speedup = std::optional<TotalSpeedup>();
  if (accepted > 0)
    rep.total_speedup = TotalSpeedup{round_to(total, 3), all_ci ? std::optional(round_to(total_lo, 3)) : std::nullopt,
                                     all_ci ? std::optional(round_to(total_hi, 3)) : std::nullopt,
                                     "product of the accepted rounds' measured speedups (each round benchmarked "
                                     "interleaved against the previous one); the interval multiplies the rounds' "
                                     "interval ends (conservative)"};
  if (!o.final_config_text.empty()) rep.final_config_file = o.final_config_name;
  for (const auto& n : o.notes) rep.notes.push_back(n);
  rep.trajectory = o.trajectory;
  return o;
}

Json trajectory_to_json(const AuditOutcome& o) { return trajectory_to_json(o.trajectory); }

}  // namespace goblin::audit
