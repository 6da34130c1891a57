#include "audit/audit_flow.h"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>

#include "audit/compare.h"
#include "audit/patch.h"
#include "audit/replay_runner.h"
#include "audit/report_diff.h"
#include "audit/rules.h"

namespace goblin::audit {

namespace {

std::string f2(double v, int d = 2) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", d, v);
  return b;
}

std::string str_of(const Json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

void step_begin(AuditOutcome& o, const AuditOptions& opt, const std::string& tool, const std::string& thought) {
  o.trajectory.push_back(AuditStep{tool, thought, "", true});
  if (opt.progress) opt.progress(tool, "thought: " + thought);
}

void step_end(AuditOutcome& o, const AuditOptions& opt, const std::string& outcome, bool ok = true) {
  if (o.trajectory.empty()) return;
  o.trajectory.back().outcome = outcome;
  o.trajectory.back().ok = ok;
  if (opt.progress) opt.progress(o.trajectory.back().tool, (ok ? "-> " : "FAILED: ") + outcome);
}

std::string metrics_line(const RunMetrics& m) {
  std::ostringstream os;
  os << "step " << f2(m.step_time_s * 1e3, 1) << " ms";
  if (m.tokens_per_sec) os << ", " << f2(*m.tokens_per_sec, 0) << " tokens/s";
  if (!m.steps.empty()) {
    os << ", GPU busy " << f2(m.gpu_util_pct, 1) << " %";
  } else if (m.gpu_util_pct > 0) {
    bool tel = std::any_of(m.warnings.begin(), m.warnings.end(),
                           [](const std::string& w) { return w.rfind("gpu_util_pct: telemetry", 0) == 0; });
    os << ", GPU util " << f2(m.gpu_util_pct, 1) << " % (" << (tel ? "telemetry" : "no step trace") << ")";
  } else {
    os << ", GPU busy not observed";
  }
  if (!m.gpu_name.empty()) os << " on " << m.gpu_name;
  return os.str();
}

}  // namespace

std::vector<std::string> derive_symptoms(const config::WorkloadConfig& c, const RunMetrics* profile) {
  std::vector<std::string> s;
  auto is = [&](const char* f, const Json& v) { return c.get(f) == v; };
  std::string gpu = profile && !profile->gpu_name.empty() ? profile->gpu_name : "GPU";
  // (a) the config (docs/audit.md lists them).
  if (is("precision", "fp32") || is("precision", "fp16"))
    s.push_back(str_of(c.get("precision")) + " training precision used on " + gpu + " instead of bf16 mixed precision");
  if (is("attention_impl", "eager")) s.push_back("naive eager attention on " + gpu);
  if (is("dataloader_workers", 0)) s.push_back("DataLoader num_workers=0 starves GPU");
  if (is("dataloader_pin_memory", false)) s.push_back("DataLoader pin_memory=False");
  if (is("dataloader_persistent_workers", false)) s.push_back("DataLoader workers respawn each epoch");
  if (is("gradient_checkpointing", false) && c.get("seq_len").is_number() && c.get("seq_len").get<double>() >= 4096)
    s.push_back("no gradient checkpointing at long context");
  if (is("torch_compile", false)) s.push_back("torch.compile disabled");
  if (is("tf32", false) && is("precision", "fp32")) s.push_back("fp32 matmuls without TF32");
  if (c.get("optimizer").is_string()) {
    std::string o = c.get("optimizer").get<std::string>();
    static const std::regex bnb("(bnb|8bit|paged_)", std::regex::icase);
    if (std::regex_search(o, bnb)) s.push_back("bitsandbytes optimizer on ROCm");
    if (o.find("fused") == std::string::npos && (o.find("adam") != std::string::npos))
      s.push_back("Adam/AdamW optimizer not fused");
  }
  if (c.get("world_size").is_number() && c.get("world_size").get<double>() > 1 &&
      !c.env_vars.count("NCCL_MIN_NCHANNELS"))
    s.push_back("NCCL_MIN_NCHANNELS not set");
  for (const auto& [k, v] : c.env_vars)
    if (k.rfind("ROCPROFSYS_", 0) == 0) {
      s.push_back("ROCPROFSYS_ profiler env vars set as tuning knobs");
      break;
    }
  if (is("profiler_enabled", true) || is("anomaly_detection", true)) s.push_back("profiler left on");
  // (b) the waste budget: every non-zero waste bucket gets its own query.
  if (profile) {
    const WasteBudget& w = profile->waste_budget;
    // The query text per waste bucket (useful_gpu and unattributed are not symptoms).
    const std::pair<const char*, const char*> symptom_of[] = {
        {"data_wait", "data_wait: GPU idle waiting for the input pipeline / DataLoader"},
        {"host_gap", "host_gap: GPU idle between kernel launches, launch-bound host overhead"},
        {"comm_excess", "comm_excess: exposed communication collectives"},
        {"memory_headroom", "memory_headroom: unused HBM memory, batch could grow"},
        {"precision_path", "precision_path: fp32 SIMT GEMM kernels, tensor cores unused"},
        {"kernel_shape", "kernel_shape: small GEMM grids, low occupancy kernels"}};
    for (const auto& [bucket, text] : symptom_of)
      if (w.value_of(bucket).value_or(0.0) > 0) s.push_back(text);
  }
  return s;
}

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
    std::ostringstream os;
    os << str_of(o.config.get("model_name")) << ": precision " << str_of(o.config.get("precision")) << ", attention "
       << str_of(o.config.get("attention_impl")) << ", workers " << str_of(o.config.get("dataloader_workers"))
       << ", pin_memory " << str_of(o.config.get("dataloader_pin_memory")) << ", optimizer "
       << str_of(o.config.get("optimizer")) << ", compile " << str_of(o.config.get("torch_compile"));
    step_end(o, opt, os.str());
  }

  // 2. profile_run
  step_begin(o, opt, "profile_run",
             "Profile the config as it is (" + runner.kind() + ") to get RunMetrics and an additive waste budget.");
  auto prof = runner.profile(o.config);
  if (!prof) return fail(prof.error());
  o.profile = *prof;
  const std::string profiled_trace = runner.last_trace();
  {
    const WasteBudget& w = o.profile->waste_budget;
    std::ostringstream os;
    os << metrics_line(*o.profile) << "; waste/step: precision_path " << f2(w.precision_path * 1e3, 1)
       << " ms, host_gap " << f2(w.host_gap * 1e3, 1) << " ms, data_wait " << f2(w.data_wait * 1e3, 2)
       << " ms, kernel_shape " << f2(w.kernel_shape * 1e3, 1) << " ms";
    step_end(o, opt, os.str());
  }

  // 3. query_kb
  auto kb = load_rule_base();
  o.symptoms = derive_symptoms(o.config, &*o.profile);
  step_begin(o, opt, "query_kb",
             "Query the rule base with " + std::to_string(o.symptoms.size()) +
                 " symptoms derived from BOTH the config and the waste budget, in one batched call.");
  if (!kb) return fail(kb.error());
  if (o.symptoms.empty()) {
    step_end(o, opt, "no non-optimal config field and no waste bucket: nothing to look up");
  } else {
    auto hits = kb_query(*kb, o.symptoms, opt.top_k);
    std::set<std::string> seen;
    for (const auto& h : hits) {
      if (seen.insert(h.rule->id).second) o.rule_ids.push_back(h.rule->id);
      o.kb_hits.push_back({{"rule_id", h.rule->id}, {"score", round_to(h.score, 3)}, {"queries", h.matched_queries}});
    }
    step_end(o, opt, std::to_string(o.rule_ids.size()) + " candidate rules (deduplicated union over the symptoms)");
  }

  // 4. propose_patch
  step_begin(o, opt, "propose_patch",
             "Apply the candidate rules whose detect holds against the config and the measured evidence; predict the "
             "speedup from the waste budget.");
  if (o.rule_ids.empty()) return fail(make_error(ErrorKind::NotFound, "the rule base returned no candidate rule"));
  PatchOptions po;
  po.rule_ids = o.rule_ids;
  po.metrics = &*o.profile;
  po.vendor = opt.vendor;
  auto patch = make_patch(config_path, po, *kb);
  if (!patch) return fail(patch.error());
  o.patch = patch->result;
  if (patch->unsafe) return fail(*patch->unsafe);  // the edit would damage the user's file
  o.patched_text = patch->patched_text;
  {
    std::ostringstream os;
    os << o.patch["rationale"].size() << " rules applied";
    if (o.patch["expected_speedup_low"].is_number())
      os << ", predicted " << f2(o.patch["expected_speedup_low"].get<double>()) << "-"
         << f2(o.patch["expected_speedup_high"].get<double>()) << "x";
    os << ", confidence " << o.patch["confidence"].dump();
    step_end(o, opt, os.str());
  }

  // 5. benchmark before and after as a pair (interleaved A B A B ... when the runner can)
  step_begin(o, opt, "benchmark_pair",
             "Benchmark the original and the patched config as a pair (" + runner.kind() +
                 " runner): interleaved A B A B ... when the runner can, so drift hits both sides, with per-run "
                 "samples for the speedup's interval.");
  auto pair = runner.bench_pair(o.config, patch->new_config);
  if (!pair) return fail(pair.error());
  o.before = pair->before;
  o.after = pair->after;
  o.interleaved = pair->interleaved;
  o.run_order = pair->order;
  std::optional<config::WorkloadConfig> before_ran = pair->before_ran, after_ran = pair->after_ran;
  {
    std::ostringstream os;
    os << "before: " << metrics_line(*o.before) << "; after: " << metrics_line(*o.after)
       << (after_ran ? " (the recorded run standing in for the patched config)" : "") << "; "
       << (pair->interleaved ? "interleaved" : "blocks");
    if (!pair->order.empty()) os << ", run order " << pair->order;
    os << ", " << pair->before_samples.step_time_s.size() << "+" << pair->after_samples.step_time_s.size()
       << " per-run samples";
    step_end(o, opt, os.str());
  }

  // 6. compare_runs
  step_begin(o, opt, "compare_runs", "Compare before and after against the prediction: the final Report.");
  RunInput bi{*o.before, {}, "benchmark(original config)", "metrics"};
  RunInput ai{*o.after, {}, "benchmark(patched config)", "metrics"};
  bi.bench.step_time_s = pair->before_samples.step_time_s;
  bi.bench.tokens_per_sec = pair->before_samples.tokens_per_sec;
  ai.bench.step_time_s = pair->after_samples.step_time_s;
  ai.bench.tokens_per_sec = pair->after_samples.tokens_per_sec;
  CompareOptions co;
  co.workload_name = opt.workload_name;
  co.after_run_config = after_ran;
  co.runner_kind = runner.kind();
  co.notes = opt.notes;
  co.kb = &*kb;
  co.interleaved = pair->interleaved;
  co.run_order = pair->order;
  co.profiled_before = *o.profile;
  if (!pair->note.empty()) co.notes.push_back(pair->note);
  if (before_ran) {
    std::string f;
    for (const auto& x : config_differences(o.config, *before_ran)) f += (f.empty() ? "" : ", ") + x;
    co.notes.push_back("the measured BEFORE run is not exactly the given config (differs on " + f + ")");
  }
  auto rep = compare_runs(bi, ai, o.patch, co);
  if (!rep) return fail(rep.error());
  o.report = *rep;
  o.report["kernel_diff"] = kernel_diff_for_report(profiled_trace, pair->after_trace);
  o.report["trajectory"] = trajectory_to_json(o);
  o.report["symptoms"] = o.symptoms;
  step_end(o, opt, o.report["summary_line"].get<std::string>());
  o.report["trajectory"] = trajectory_to_json(o);
  return o;
}

Json trajectory_to_json(const AuditOutcome& o) {
  Json a = Json::array();
  for (const auto& s : o.trajectory)
    a.push_back({{"tool", s.tool}, {"thought", s.thought}, {"outcome", s.outcome}, {"ok", s.ok}});
  return a;
}

}  // namespace goblin::audit
