// Lint of the rule base (`goblin kb lint`): schema, citations, transforms, detect predicates.
#include <algorithm>
#include <regex>
#include <set>

#include "audit/rules.h"
#include "core/text.h"

namespace goblin::audit {

// ---- lint -------------------------------------------------------------------------------------

static const std::set<std::string> kOps = {"eq", "ne",     "lt",  "le",    "gt",     "ge",
                                           "in", "not_in", "set", "unset", "matches"};
static const std::set<std::string> kMetrics = {
    "gpu_util_pct",           "fp32_simt_gemm_share", "gemm_share",          "rocblas_gemm_share",
    "hipblaslt_gemm_share",   "comm_share",           "conv_share",          "attention_kernel",
    "hbm_peak_frac",          "world_size",           "sync_calls_per_step", "malloc_calls_per_step",
    "layout_transpose_share", "uses_data_parallel",   "uses_vllm",           "autograd_in_inference",
    "numa_balancing",         "devices_per_process",  "memory_headroom_gb",  "batch_scale_fits"};

static bool metric_known(const std::string& m) {
  if (kMetrics.count(m)) return true;
  for (const char* p : {"bucket_share.", "bucket_s."})
    if (m.rfind(p, 0) == 0) {
      auto b = m.substr(std::string(p).size());
      return std::find(bucket_names().begin(), bucket_names().end(), b) != bucket_names().end();
    }
  return false;
}

// A predicate that holds whatever the input: `in` covering every enum value with if_unset, `ge 0`
// on a share, `set` with if_unset...
static bool always_true(const Predicate& p) {
  if (!p.field.empty()) {
    const config::FieldSpec* f = config::find_field(p.field);
    if (p.op == "in" && f && f->type == config::FieldType::Enum && p.if_unset && p.value.is_array()) {
      for (const auto& e : f->enum_values)
        if (std::find(p.value.begin(), p.value.end(), Json(e)) == p.value.end()) return false;
      return true;
    }
    if (p.op == "in" && f && f->type == config::FieldType::Bool && p.if_unset && p.value.is_array())
      return std::find(p.value.begin(), p.value.end(), Json(true)) != p.value.end() &&
             std::find(p.value.begin(), p.value.end(), Json(false)) != p.value.end();
    if ((p.op == "set" && p.if_unset) || (p.op == "unset" && false)) return true;
  } else {
    bool share = p.metric.find("share") != std::string::npos || p.metric.rfind("bucket_s.", 0) == 0;
    if (share && p.value.is_number() &&
        ((p.op == "ge" && p.value.get<double>() <= 0) || (p.op == "gt" && p.value.get<double>() < 0)))
      return true;
    if (share && p.value.is_number() && p.op == "le" && p.value.get<double>() >= 1) return true;
  }
  return false;
}

static bool url_shaped(const std::string& c) {
  static const std::regex url(R"(^https?://[A-Za-z0-9.\-]+\.[A-Za-z]{2,}(/[^\s]*)?$)");
  static const std::regex repo(R"(^repo:[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+/[^\s]+$)");
  return std::regex_match(c, url) || std::regex_match(c, repo);
}

std::vector<Error> lint_rules(const RuleBase& kb) {
  std::vector<Error> out = kb.problems;
  std::set<std::string> ids;
  auto err = [&](const Rule& r, const std::string& m) {
    out.push_back(make_error(ErrorKind::Malformed, (r.id.empty() ? "(no id)" : r.id) + ": " + m, r.source_file, -1,
                             r.source_line));
  };
  for (const auto& r : kb.rules) {
    if (r.id.empty()) err(r, "missing id");
    if (!ids.insert(r.id).second) err(r, "duplicate id");
    if (r.title.empty()) err(r, "missing title");
    if (r.category.empty()) err(r, "missing category");
    if (r.vendor != "amd" && r.vendor != "nvidia" && r.vendor != "any") err(r, "vendor must be amd, nvidia or any");
    if (r.symptoms.empty()) err(r, "no symptoms (retrieval text)");
    if (!url_shaped(r.citation)) err(r, "citation is not a URL or repo:owner/name/path: '" + r.citation + "'");
    if (std::find(bucket_names().begin(), bucket_names().end(), r.targets_bucket) == bucket_names().end())
      err(r, "targets_bucket '" + r.targets_bucket + "' is not a waste bucket");
    if (r.recovery.low < 0 || r.recovery.high > 1 || r.recovery.low > r.recovery.high)
      err(r, "expected_recovery_fraction must satisfy 0 <= low <= high <= 1");
    if (r.recovery.basis.empty()) err(r, "expected_recovery_fraction has no basis");
    for (const auto& m : r.modes)
      if (m != "training" && m != "inference") err(r, "guard mode must be training or inference: " + m);
    for (const auto& [k, v] : r.version_ranges)
      if (!std::regex_match(
              v, std::regex(
                     R"(^\s*(>=|<=|>|<|==)?\s*[0-9]+(\.[0-9]+)*\s*(,\s*(>=|<=|>|<|==)?\s*[0-9]+(\.[0-9]+)*\s*)*$)")))
        err(r, "bad version range for " + k + ": " + v);
    // detect
    std::vector<const Predicate*> all;
    for (const auto& p : r.detect_config) all.push_back(&p);
    for (const auto& p : r.detect_evidence) all.push_back(&p);
    if (all.empty()) err(r, "detect is empty: the rule would fire on every input");
    bool all_trivial = !all.empty();
    // A fallback is checked like any predicate, and stands in for a metric only.
    std::vector<const Predicate*> fallbacks;
    auto add_fallbacks = [&](const Predicate& p) {
      for (const Predicate* q = &p; !q->fallback.empty(); q = &q->fallback.front()) {
        if (q->metric.empty() || q->fallback.front().metric.empty())
          err(r, "a fallback stands in for an unmeasured metric: both it and its predicate read a metric");
        fallbacks.push_back(&q->fallback.front());
      }
    };
    for (const auto& p : r.detect_config) add_fallbacks(p);
    for (const auto& p : r.detect_evidence) add_fallbacks(p);
    for (const auto& p : r.counter_evidence) add_fallbacks(p);
    for (const auto* p : fallbacks) {
      if (!kOps.count(p->op)) err(r, "unknown op '" + p->op + "' in a fallback");
      if (!p->metric.empty() && !metric_known(p->metric)) err(r, "fallback on unknown metric '" + p->metric + "'");
    }
    for (const auto* p : all) {
      if (!kOps.count(p->op)) err(r, "unknown op '" + p->op + "'");
      if (p->field.empty() == p->metric.empty()) err(r, "a predicate needs exactly one of field / metric");
      if (!p->field.empty() && !config::is_known_field(p->field) && p->field.rfind("env_prefix.", 0) != 0)
        err(r, "predicate on unknown field '" + p->field + "'");
      if (!p->metric.empty() && !metric_known(p->metric)) err(r, "predicate on unknown metric '" + p->metric + "'");
      if ((p->op == "in" || p->op == "not_in") && !p->value.is_array()) err(r, "op " + p->op + " needs a list value");
      if (p->op == "matches") {
        try {
          std::regex re(p->value.is_string() ? p->value.get<std::string>() : "");
        } catch (...) {
          err(r, "bad regex in matches");
        }
      }
      if (!always_true(*p)) all_trivial = false;
    }
    if (all_trivial) err(r, "detect is always true: the rule would fire on every input");
    for (const auto& p : r.counter_evidence)
      if ((!p.metric.empty() && !metric_known(p.metric)) || (!p.field.empty() && !config::is_known_field(p.field)))
        err(r, "counter_evidence on unknown field/metric");
    // transform
    if (r.transform.empty() && !r.advisory) err(r, "no transform: mark the rule `advisory: true` or add config edits");
    config::WorkloadConfig probe;
    for (const auto& [f, v] : r.transform) {
      if (!config::is_known_field(f)) {
        err(r, "transform touches unknown field '" + f + "'");
        continue;
      }
      if (v.is_object()) {  // {scale: k}: the field's current value times k (numeric fields)
        const auto* spec = config::find_field(f);
        bool ok = v.size() == 1 && v.contains("scale") && v["scale"].is_number() && v["scale"].get<double>() > 0 &&
                  spec && (spec->type == config::FieldType::Int || spec->type == config::FieldType::Number);
        if (!ok) err(r, "transform value for " + f + ": an object must be {scale: k > 0} on a numeric field");
        continue;
      }
      Status s = probe.set(f, v);
      if (!s) err(r, "transform value for " + f + ": " + s.error().message);
    }
    if (r.performance && r.transform.empty() && !r.advisory) err(r, "performance rule without transform");
  }
  for (const auto& r : kb.rules)
    if (!r.superseded_by.empty() && !kb.find(r.superseded_by))
      err(r, "superseded_by names an unknown rule '" + r.superseded_by + "'");
  return out;
}

}  // namespace goblin::audit
