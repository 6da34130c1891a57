// Evaluating one rule against a WorkloadConfig and measured evidence: guards (mode, arch,
// version ranges), config predicates, evidence and counter-evidence.
#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

#include "audit/predicates.h"
#include "audit/rules.h"
#include "core/text.h"

namespace goblin::audit {

// ---- evaluation -------------------------------------------------------------------------------

static int cmp_versions(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  for (int i = 0; i < 4; ++i) {
    long x = 0, y = 0;
    std::string ta, tb;
    if (std::getline(sa, ta, '.')) x = std::atol(ta.c_str());
    if (std::getline(sb, tb, '.')) y = std::atol(tb.c_str());
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

static bool version_in_range(const std::string& v, const std::string& range) {
  std::istringstream rs(range);
  std::string part;
  while (std::getline(rs, part, ',')) {
    size_t b = part.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    part = part.substr(b);
    std::string op;
    for (const char* o : {">=", "<=", "==", ">", "<"})
      if (part.rfind(o, 0) == 0) {
        op = o;
        break;
      }
    std::string ver = part.substr(op.size());
    ver.erase(0, ver.find_first_not_of(' '));
    int c = cmp_versions(v, ver);
    if ((op == ">=" && c < 0) || (op == "<=" && c > 0) || (op == ">" && c <= 0) || (op == "<" && c >= 0) ||
        ((op == "==" || op.empty()) && c != 0))
      return false;
  }
  return true;
}

static bool compare(const Json& actual, const std::string& op, const Json& value) {
  auto num = [](const Json& j) {
    return j.is_number() ? j.get<double>() : j.is_boolean() ? (j.get<bool>() ? 1.0 : 0.0) : NAN;
  };
  if (op == "eq") return actual == value || (actual.is_number() && value.is_number() && num(actual) == num(value));
  if (op == "ne") return !(actual == value || (actual.is_number() && value.is_number() && num(actual) == num(value)));
  if (op == "in" || op == "not_in") {
    bool in = false;
    if (value.is_array())
      for (const auto& v : value) in |= (actual == v || (actual.is_number() && v.is_number() && num(actual) == num(v)));
    return op == "in" ? in : !in;
  }
  if (op == "matches") {
    if (!actual.is_string() || !value.is_string()) return false;
    try {
      return std::regex_search(ascii_lower(actual.get<std::string>()), std::regex(value.get<std::string>()));
    } catch (...) {
      return false;
    }
  }
  double a = num(actual), v = num(value);
  if (std::isnan(a) || std::isnan(v)) return false;
  if (op == "lt") return a < v;
  if (op == "le") return a <= v;
  if (op == "gt") return a > v;
  if (op == "ge") return a >= v;
  return false;
}

// Config predicate → true/false (unset fields take `if_unset`).
static bool eval_config(const Predicate& p, const config::WorkloadConfig& c) {
  if (p.field.rfind("env_prefix.", 0) == 0) {
    std::string pre = p.field.substr(11);
    bool any = false;
    for (const auto& [k, v] : c.env_vars) any |= k.rfind(pre, 0) == 0;
    return compare(Json(any), p.op, p.value);
  }
  Json v = c.get(p.field);
  if (p.op == "set") return !v.is_null();
  if (p.op == "unset") return v.is_null();
  if (v.is_null()) return p.if_unset;
  return compare(v, p.op, p.value);
}

// A metric predicate's measured form: `p` when its metric was measured, else its fallback's (in
// turn); null when none was. `looked` names the metrics tried ("batch_scale_fits or its fallback
// hbm_peak_frac"), `used` the value found.
static const Predicate* measured(const Predicate& p, const Evidence& ev, std::string& looked, const Json** used) {
  looked.clear();
  for (const Predicate* q = &p; q; q = q->fallback.empty() ? nullptr : &q->fallback.front()) {
    looked += looked.empty() ? q->metric : " or its fallback " + q->metric;
    if (auto it = ev.metrics.find(q->metric); it != ev.metrics.end()) {
      *used = &it->second;
      return q;
    }
  }
  return nullptr;
}

RuleEval evaluate_rule(const Rule& r, const config::WorkloadConfig& c, const Evidence& ev,
                       const config::WorkloadConfig* original) {
  // The config a predicate reads (see Predicate::of).
  auto cfg_of = [&](const Predicate& p) -> const config::WorkloadConfig& {
    return p.of == "original" && original ? *original : c;
  };
  RuleEval e;
  e.rule = &r;
  auto no = [&](std::string why) {
    e.fires = false;
    e.reason = std::move(why);
    return e;
  };
  if (!r.superseded_by.empty()) return no("superseded by " + r.superseded_by);
  // vendor
  if (r.vendor != "any") {
    if (ev.vendor.empty())
      return no("vendor-specific (" + r.vendor + ") and the GPU vendor is unknown (pass --vendor or --metrics)");
    if (ev.vendor != r.vendor) return no("applies to " + r.vendor + " GPUs; this run is " + ev.vendor);
  }
  // guards
  if (!r.modes.empty()) {
    Json m = c.get("mode");
    if (m.is_null())
      e.unverified.push_back("mode unknown (assumed to match " + r.modes[0] + ")");
    else if (std::find(r.modes.begin(), r.modes.end(), m.get<std::string>()) == r.modes.end())
      return no("guard: mode is " + m.get<std::string>());
  }
  if (!r.arch.empty()) {
    if (ev.arch.empty())
      e.unverified.push_back("GPU architecture unknown");
    else if (std::find(r.arch.begin(), r.arch.end(), ev.arch) == r.arch.end())
      return no("guard: architecture " + ev.arch + " not in the rule's list");
  }
  for (const auto& [k, range] : r.version_ranges) {
    std::string have;
    for (const auto& [vk, vv] : ev.versions)
      if (vk == k || (k == "cuda" && (vk == "cuda_runtime" || vk == "cuda")) || (k == "rocm" && vk == "hip")) have = vv;
    if (have.empty() || have == "unknown") {
      e.unverified.push_back(k + " version unknown (guard " + range + ")");
      if (!r.deprecated_since.empty())
        return no("version-gated (" + k + " " + range + ") and the " + k + " version is unknown");
      continue;
    }
    if (!version_in_range(have, range)) return no("guard: " + k + " " + have + " outside " + range);
  }
  // config predicates: all must hold
  for (const auto& p : r.detect_config) {
    const bool orig = p.of == "original";
    const std::string where = orig ? "original config: " : "config: ";
    if (!eval_config(p, cfg_of(p))) {
      Json v = cfg_of(p).get(p.field);
      return no(where + p.field + " = " + (v.is_null() ? std::string("(unset)") : fmt_json(v)) + " does not satisfy " +
                p.op + " " + fmt_json(p.value));
    }
    e.supporting.push_back((orig ? "original config " : "config ") + p.field + " " + p.op + " " + fmt_json(p.value));
  }
  // evidence predicates
  e.evidence_total = static_cast<int>(r.detect_evidence.size()) + 1;  // +1: the target bucket itself
  if (ev.bucket_s.count(r.targets_bucket)) ++e.evidence_observed;
  std::string looked;
  const Json* value = nullptr;
  for (const auto& p : r.detect_evidence) {
    const Predicate* q = measured(p, ev, looked, &value);
    if (!q) {
      e.unverified.push_back(looked + " not measured");
      if (r.require_evidence) return no("needs measured evidence: " + looked + " was not observed");
      continue;
    }
    // A fallback stands in for an unmeasured metric: the reason and the evidence say so.
    const std::string proxy = q == &p ? "" : " (fallback: " + p.metric + " not measured)";
    ++e.evidence_observed;
    if (!compare(*value, q->op, q->value))
      return no("evidence: " + q->metric + " = " + fmt_json(*value) + " does not satisfy " + q->op + " " +
                fmt_json(q->value) + proxy);
    e.supporting.push_back("measured " + q->metric + " = " + fmt_json(*value) + proxy);
  }
  for (const auto& p : r.counter_evidence) {
    if (!p.metric.empty()) {
      const Predicate* q = measured(p, ev, looked, &value);
      if (q && compare(*value, q->op, q->value)) return no("counter-evidence: " + q->metric + " = " + fmt_json(*value));
    } else if (!p.field.empty() && eval_config(p, cfg_of(p))) {
      return no("counter-evidence: config " + p.field);
    }
  }
  e.fires = true;
  e.reason = "detect holds";
  return e;
}

bool config_predicate_holds(const Predicate& p, const config::WorkloadConfig& c) { return eval_config(p, c); }

}  // namespace goblin::audit
