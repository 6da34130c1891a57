// Rules and predicates as JSON (kb list / query output, reports).
#include <fmt/format.h>

#include "audit/rules.h"

namespace goblin::audit {

std::string fmt_json(const Json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

Json predicate_to_json(const Predicate& p) {
  Json j;
  if (!p.field.empty()) j["field"] = p.field;
  if (!p.metric.empty()) j["metric"] = p.metric;
  j["op"] = p.op;
  if (!p.value.is_null()) j["value"] = p.value;
  if (!p.field.empty()) j["if_unset"] = p.if_unset;
  if (!p.fallback.empty()) j["fallback"] = predicate_to_json(p.fallback.front());
  return j;
}

Json kb_hit_to_json(const KbHit& h) {
  return {{"rule_id", h.rule->id},
          {"score", round_to(h.score, 4)},
          {"title", h.rule->title},
          {"vendor", h.rule->vendor},
          {"targets_bucket", h.rule->targets_bucket},
          {"citation", h.rule->citation},
          {"matched_queries", h.matched_queries}};
}

Json rule_to_json(const Rule& r) {
  Json j;
  j["id"] = r.id;
  j["title"] = r.title;
  j["category"] = r.category;
  j["vendor"] = r.vendor;
  j["performance"] = r.performance;
  j["advisory"] = r.advisory;
  j["symptoms"] = r.symptoms;
  j["guards"] = {{"mode", r.modes}, {"arch", r.arch}, {"versions", r.version_ranges}};
  Json d;
  d["config"] = Json::array();
  for (const auto& p : r.detect_config) d["config"].push_back(predicate_to_json(p));
  d["evidence"] = Json::array();
  for (const auto& p : r.detect_evidence) d["evidence"].push_back(predicate_to_json(p));
  d["require_evidence"] = r.require_evidence;
  j["detect"] = d;
  j["counter_evidence"] = Json::array();
  for (const auto& p : r.counter_evidence) j["counter_evidence"].push_back(predicate_to_json(p));
  j["transform"] = Json::object();
  for (const auto& [k, v] : r.transform) j["transform"][k] = v;
  j["targets_bucket"] = r.targets_bucket;
  j["expected_recovery_fraction"] = {{"low", r.recovery.low}, {"high", r.recovery.high}, {"basis", r.recovery.basis}};
  j["citation"] = r.citation;
  j["priority"] = r.priority;
  j["superseded_by"] = r.superseded_by.empty() ? Json() : Json(r.superseded_by);
  j["deprecated"] = r.deprecated_reason.empty() && r.deprecated_since.empty()
                        ? Json()
                        : Json({{"since", r.deprecated_since}, {"reason", r.deprecated_reason}});
  j["source"] = r.source_file + ":" + fmt::to_string(r.source_line);
  return j;
}

}  // namespace goblin::audit
