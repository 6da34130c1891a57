#include "audit/patch.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "audit/speedup_model.h"
#include "config/config_editor.h"
#include "config/unified_diff.h"
#include "core/io.h"
#include "core/limits.h"

namespace goblin::audit {

std::string diff_display_path(const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return p.filename().string();
  std::string s = p.lexically_normal().string();
  while (s.rfind("./", 0) == 0) s.erase(0, 2);
  return s.empty() ? path : s;
}

// ---- the patch ----------------------------------------------------------------------------------

Result<PatchOutcome> make_patch(const std::string& config_path, const PatchOptions& opt, const Knowledge& kn) {
  ASSIGN_OR_RETURN(auto text, read_all(config_path, IoLimits{.max_inflated_bytes = limits::kMaxConfigBytes}));
  return make_patch_text(text, config_path, opt, kn);
}

Result<PatchOutcome> make_patch_text(const std::string& config_text, const std::string& config_path,
                                     const PatchOptions& opt, const Knowledge& kn) {
  const RuleBase& kb = kn.rules;
  const std::string* text = &config_text;
  ASSIGN_OR_RETURN(auto parsed,
                   config::parse_config_text(*text, config::sniff_config_format(config_path, *text), config_path));
  const config::WorkloadConfig& cfg = parsed;
  Evidence ev = evidence_from_metrics(opt.metrics, kn.taxonomy(), opt.vendor);

  std::vector<const Rule*> requested;
  for (const auto& id : opt.rule_ids) {
    if (id == "all") {
      for (const auto& r : kb.rules) requested.push_back(&r);
      continue;
    }
    const Rule* r = kb.find(id);
    if (!r) return make_error(ErrorKind::NotFound, "unknown rule id '" + id + "' (see `goblin kb list`)");
    if (std::find(requested.begin(), requested.end(), r) == requested.end()) requested.push_back(r);
  }
  if (requested.empty())
    return make_error(ErrorKind::Usage, "no rules given: pass --rules ID,... (from `goblin kb query`)");

  std::vector<PatchSkip> skipped;
  std::vector<PatchFinding> findings;
  std::vector<RuleEval> fired;
  for (const Rule* r : requested) {
    RuleEval e = evaluate_rule(*r, cfg, ev, opt.original);
    if (!e.fires) {
      skipped.push_back({r->id, e.reason});
      continue;
    }
    if (!r->performance || r->advisory) {
      findings.push_back({r->id, r->title, r->category, r->citation, r->recovery.basis, e.supporting});
      if (r->transform.empty()) continue;
    }
    fired.push_back(e);
  }
  // Conflict order (docs/audit.md): rules with more observed evidence first, then priority, then
  // the larger high recovery, then id. The first rule to claim a field wins it.
  std::stable_sort(fired.begin(), fired.end(), [](const RuleEval& a, const RuleEval& b) {
    if (a.evidence_observed != b.evidence_observed) return a.evidence_observed > b.evidence_observed;
    if (a.rule->priority != b.rule->priority) return a.rule->priority > b.rule->priority;
    if (a.rule->recovery.high != b.rule->recovery.high) return a.rule->recovery.high > b.rule->recovery.high;
    return a.rule->id < b.rule->id;
  });
  std::map<std::string, Json> edits;
  std::map<std::string, std::string> owner;
  std::vector<RuleEval> applied;
  int conflicts = 0;
  std::vector<PatchConflict> conflict_log;
  // Absolute values first, in rule order (a later rule that wants another value for a field loses
  // it: a conflict). Then {scale: k} transforms (docs/audit.md § Rule schema) multiply the field as
  // the absolute edits left it, so a scale composes with another rule's value instead of
  // conflicting with it, whatever the rules' order: workers 0 -> 4 by one rule, x2 with the
  // batch by another, gives 8.
  std::vector<bool> changed(fired.size(), false);
  std::vector<std::vector<std::string>> lost(fired.size());
  for (size_t i = 0; i < fired.size(); ++i) {
    const auto& e = fired[i];
    for (const auto& [f, v] : e.rule->transform) {
      if (v.is_object()) continue;  // a scale: second pass
      auto it = edits.find(f);
      if (it != edits.end() && it->second != v) {
        lost[i].push_back(f);
        continue;
      }
      if (it == edits.end() && cfg.get(f) == v) continue;  // already set
      edits[f] = v;
      if (!owner.count(f)) owner[f] = e.rule->id;
      changed[i] = true;
    }
  }
  for (size_t i = 0; i < fired.size(); ++i) {
    const auto& e = fired[i];
    for (const auto& [f, v] : e.rule->transform) {
      if (!v.is_object() || !v.contains("scale")) continue;
      auto it = edits.find(f);
      Json cur = it != edits.end() ? it->second : cfg.get(f);
      if (!cur.is_number()) continue;  // unset or not a number: nothing to scale, no edit
      double x = cur.get<double>() * v["scale"].get<double>();
      const auto* spec = config::find_field(f);
      Json nv = spec && spec->type == config::FieldType::Int ? Json(static_cast<int64_t>(std::llround(x))) : Json(x);
      if (nv == cur) continue;  // 0 workers stay 0
      edits[f] = nv;
      if (!owner.count(f)) owner[f] = e.rule->id;
      changed[i] = true;
    }
  }
  for (size_t i = 0; i < fired.size(); ++i) {
    const auto& e = fired[i];
    for (const auto& f : lost[i]) {
      ++conflicts;
      conflict_log.push_back({f, owner[f], e.rule->id});
    }
    if (changed[i] || e.rule->transform.empty())
      applied.push_back(e);
    else
      skipped.push_back({e.rule->id, lost[i].empty()
                                         ? "transform already in the config"
                                         : "conflict: field " + lost[i][0] + " taken by " + owner[lost[i][0]]});
  }

  config::WorkloadConfig nc = cfg;
  for (const auto& [f, v] : edits) {
    RETURN_IF_ERROR(nc.set(f, v));
  }
  std::vector<std::string> unplaced;
  std::map<std::string, std::string> refused;  // field → why the editor would not edit it
  ASSIGN_OR_RETURN(auto patched, config::edit_config_text(*text, cfg, edits, &unplaced, &refused));
  // Fields with no place in this file are not claimed: the rule becomes advice.
  for (const auto& f : unplaced) {
    (void)nc.set(f, cfg.get(f));
    edits.erase(f);
  }
  if (!unplaced.empty()) {
    std::vector<RuleEval> kept;
    for (const auto& e : applied) {
      bool placed = e.rule->transform.empty();
      std::string why;
      for (const auto& [f, v] : e.rule->transform) {
        placed |= edits.count(f) && owner[f] == e.rule->id;
        if (auto r = refused.find(f); r != refused.end() && why.empty()) why = r->second;
      }
      if (placed) {
        kept.push_back(e);
      } else {
        skipped.push_back({e.rule->id, why.empty() ? std::string("no place for its edit in a ") +
                                                         config::config_format_name(cfg.format) + " file; apply by hand"
                                                   : "not edited: " + config::redact_text(why) + "; apply by hand"});
        findings.push_back({e.rule->id, e.rule->title, std::nullopt, e.rule->citation,
                            "apply by hand: " + rule_to_json(*e.rule)["transform"].dump(), std::nullopt});
      }
    }
    applied = kept;
  }

  // Recovery per bucket: fractions combine as 1 - prod(1 - f) (never more than the bucket).
  double T = ev.step_time_s;
  std::map<std::string, std::vector<const RuleEval*>> by_bucket;
  for (const auto& e : applied)
    if (e.rule->performance) by_bucket[e.rule->targets_bucket].push_back(&e);
  double R_low = 0, R_high = 0;
  int overclaimed = 0;
  std::map<std::string, std::pair<double, double>> rule_rec;
  std::vector<BucketCap> bucket_caps;
  for (const auto& [b, rs] : by_bucket) {
    auto bit = ev.bucket_s.find(b);
    double sum_high = 0, keep_low = 1, keep_high = 1;
    for (const auto* e : rs) {
      sum_high += e->rule->recovery.high;
      keep_low *= 1 - e->rule->recovery.low;
      keep_high *= 1 - e->rule->recovery.high;
    }
    if (sum_high > 1) ++overclaimed;
    if (bit == ev.bucket_s.end()) {
      bucket_caps.push_back({b, false, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
      for (const auto* e : rs) rule_rec[e->rule->id] = {NAN, NAN};
      continue;
    }
    double B = bit->second, lo = B * (1 - keep_low), hi = B * (1 - keep_high);
    R_low += lo;
    R_high += hi;
    double sl = 0, sh = 0;
    for (const auto* e : rs) sl += e->rule->recovery.low, sh += e->rule->recovery.high;
    for (const auto* e : rs)
      rule_rec[e->rule->id] = {sl > 0 ? lo * e->rule->recovery.low / sl : 0,
                               sh > 0 ? hi * e->rule->recovery.high / sh : 0};
    bucket_caps.push_back({b, true, round_to(B, 6), round_to(lo, 6), round_to(hi, 6), static_cast<int64_t>(rs.size())});
  }

  // Parse the patched file back: it must give the patched config.
  std::vector<RoundtripMismatch> roundtrip_mismatch;
  auto back = config::parse_config_text(patched, cfg.format, config_path);
  if (!back) {
    roundtrip_mismatch.push_back({back.error().describe(), std::nullopt, std::nullopt, std::nullopt});
  } else {
    for (const auto& f : config::config_fields())
      if (back->get(f.name) != nc.get(f.name))
        roundtrip_mismatch.push_back({std::nullopt, f.name, nc.get(f.name), back->get(f.name)});
    for (const auto& [k, v] : edits)
      if (k.rfind("env.", 0) == 0 && back->get(k) != nc.get(k))
        roundtrip_mismatch.push_back({std::nullopt, k, nc.get(k), back->get(k)});
  }

  // Confidence = evidence_coverage × rule_consistency (docs/audit.md).
  int ev_total = 0, ev_obs = 0, n_perf = 0;
  for (const auto& e : applied)
    if (e.rule->performance) ev_total += e.evidence_total, ev_obs += e.evidence_observed, ++n_perf;
  double coverage = ev_total > 0 ? static_cast<double>(ev_obs) / ev_total : 0.0;
  double consistency =
      n_perf > 0
          ? std::max(0.0, 1.0 - static_cast<double>(conflicts + overclaimed) / static_cast<double>(n_perf + conflicts))
          : 1.0;

  Patch res;
  res.source_file = config_path;
  res.format = config::config_format_name(cfg.format);
  res.new_config = config::config_to_json(nc, false);
  for (const auto& [f, v] : edits) res.edits[f] = {cfg.get(f), v, owner[f]};
  const std::string shown = opt.display_path.empty() ? diff_display_path(config_path) : opt.display_path;
  // What is shown is redacted (by value shape and by key name); the file written is the user's own.
  std::string diff = config::unified_diff(*text, patched, "a/" + shown, "b/" + shown);
  res.diff = config::redact_text(diff);
  res.patched_file = config::redact_text(patched);
  for (const auto& e : applied) {
    auto rr = rule_rec.count(e.rule->id) ? rule_rec[e.rule->id] : std::pair<double, double>{NAN, NAN};
    std::optional<Range> est;
    if (!std::isnan(rr.second)) est = Range{round_to(rr.first, 6), round_to(rr.second, 6)};
    res.rationale.push_back({e.rule->id, e.rule->title, e.rule->citation, e.rule->targets_bucket, est,
                             Range{e.rule->recovery.low, e.rule->recovery.high}, e.rule->recovery.basis, e.supporting,
                             e.unverified, rule_to_json(*e.rule)["transform"]});
  }
  res.skipped = std::move(skipped);
  res.findings = std::move(findings);
  res.conflicts = std::move(conflict_log);
  res.bucket_caps = std::move(bucket_caps);
  if (T > 0) res.step_time_s = round_to(T, 6);
  bool predictable = T > 0 && !by_bucket.empty() && R_high > 0;
  // The bucket-fraction range (docs/audit.md § patch, step 4): kept for comparison and for rules
  // no speedup model prices.
  res.fraction_model.basis = "per bucket B: B x (1 - prod(1 - f)) over the rules' expected_recovery_fraction";
  if (predictable) {
    res.fraction_model.low = round_to(T / (T - std::min(R_low, T * 0.999)), 3);
    res.fraction_model.high = round_to(T / (T - std::min(R_high, T * 0.999)), 3);
  }
  res.expected_speedup_low = res.fraction_model.low;
  res.expected_speedup_high = res.fraction_model.high;
  res.prediction_method = predictable ? "bucket_fraction" : "none";
  // Speedup models (docs/metrics.md § Speedup models): the config change priced on the profile's
  // cost profile and the GPU. Rules whose fields no model prices add their bucket-fraction
  // recovery on top (their bucket's seconds, low/high fractions).
  if (opt.metrics && !applied.empty()) {
    SpeedupPrediction sp = predict_speedup(kn, *opt.metrics, cfg, nc, opt.unprofiled);
    static const std::set<std::string> kPriced = {"precision",
                                                  "tf32",
                                                  "attention_impl",
                                                  "optimizer",
                                                  "torch_compile",
                                                  "dataloader_workers",
                                                  "dataloader_pin_memory",
                                                  "batch_size"};
    Json unpriced = Json::array();
    double extra_lo = 0, extra_hi = 0;
    for (const auto& e : applied) {
      if (!e.rule->performance) continue;
      bool priced = false;
      for (const auto& [f, v] : e.rule->transform) priced |= kPriced.count(f) > 0 && edits.count(f) > 0;
      if (priced) continue;
      auto rr = rule_rec.count(e.rule->id) ? rule_rec[e.rule->id] : std::pair<double, double>{NAN, NAN};
      if (std::isnan(rr.second)) continue;
      extra_lo += rr.first;
      extra_hi += rr.second;
      unpriced.push_back(e.rule->id);
    }
    if (sp.predicted) {
      double fast = std::max(sp.step_after_fast - extra_hi, 0.05 * sp.step_after_fast);
      double slow = std::max(sp.step_after_slow - extra_lo, 0.05 * sp.step_after_slow);
      sp.low = sp.tokens_scale * sp.step_before / slow;
      sp.high = sp.tokens_scale * sp.step_before / fast;
      if (!unpriced.empty()) sp.notes.push_back("rules no model prices, at their bucket fraction: " + unpriced.dump());
      res.expected_speedup_low = round_to(sp.low, 3);
      res.expected_speedup_high = round_to(sp.high, 3);
      res.prediction_method = "speedup_models";
      predictable = true;
    }
    if (sp.predicted) sp.unpriced_rules = unpriced.get<std::vector<std::string>>();
    res.speedup_model = std::move(sp);
  }
  if (!predictable)
    res.speedup_note = applied.empty() ? "no rule applied: the config changes nothing, so there is nothing to predict"
                       : T > 0         ? "the targeted waste buckets were not observed in the metrics"
                               : "no metrics given (--metrics): speedup cannot be predicted without a waste budget";
  res.evidence_coverage = round_to(coverage, 3);
  res.rule_consistency = round_to(consistency, 3);
  res.confidence = round_to(coverage * consistency, 3);
  res.unplaced_fields = unplaced;
  res.roundtrip_ok = roundtrip_mismatch.empty();
  res.roundtrip_mismatch = std::move(roundtrip_mismatch);
  res.evidence = {ev.have_metrics, ev.vendor, ev.arch};
  PatchOutcome out;
  if (!res.roundtrip_ok) {
    const RoundtripMismatch& m0 = res.roundtrip_mismatch[0];
    std::string what = m0.error ? *m0.error
                                : "field " + m0.field.value_or("") + " would read " +
                                      m0.file_parses_to.value_or(Json()).dump() + " instead of " +
                                      m0.patched_config.value_or(Json()).dump();
    out.unsafe =
        make_error(ErrorKind::Malformed,
                   "the patched file would not parse back to the patched config (" + config::redact_text(what) +
                       "); nothing was written: apply the edits by hand (see `edits` and `diff`)",
                   config_path);
  }
  out.result = std::move(res);
  out.patched_text = patched;
  out.new_config = nc;
  return out;
}

}  // namespace goblin::audit
