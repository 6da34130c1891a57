// Symptom strings for the kb query (docs/audit.md § audit): the entries of
// data/audit_symptoms.yaml whose conditions hold on the config, then one per non-zero waste bucket
// of the profile (and measured memory headroom). The conditions are the rule schema's own config
// predicates, read and evaluated by the rules' code (audit/predicates.h).
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "audit/audit_flow.h"
#include "audit/audit_internal.h"
#include "audit/predicates.h"
#include "core/data.h"

namespace goblin::audit {
namespace {

constexpr const char* kFile = "audit_symptoms.yaml";

// One entry's wording: `text`, or the vendor's own where the file gives one.
struct Wording {
  std::string text, text_amd, text_nvidia;
  const std::string& for_vendor(const std::string& vendor) const {
    if (vendor == "amd" && !text_amd.empty()) return text_amd;
    if (vendor == "nvidia" && !text_nvidia.empty()) return text_nvidia;
    return text;
  }
};
struct ConfigSymptom {
  std::vector<Predicate> when;
  std::string vendor;  // "" any
  Wording words;
};
struct BucketSymptom {
  std::string bucket;
  Wording words;
};
struct SymptomTable {
  std::vector<ConfigSymptom> config;
  std::vector<BucketSymptom> buckets;
  double memory_headroom_above = 0.5;
};

Wording wording(const YAML::Node& n) {
  auto s = [&](const char* k) { return n[k] ? n[k].Scalar() : std::string(); };
  return {s("text"), s("text_amd"), s("text_nvidia")};
}

Result<SymptomTable> parse_table(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, "YAML: " + e.msg, origin, -1, e.mark.line + 1);
  }
  auto bad = [&](const YAML::Node& n, const std::string& what) {
    return make_error(ErrorKind::Malformed, what, origin, -1, n.Mark().line + 1);
  };
  if (!root.IsMap() || !root["config"].IsSequence() || !root["buckets"].IsSequence())
    return make_error(ErrorKind::Malformed, "expected top-level `config:` and `buckets:` lists", origin, -1, 1);
  SymptomTable t;
  std::vector<Error> problems;
  for (const auto& n : root["config"]) {
    ConfigSymptom c;
    c.words = wording(n);
    if (c.words.text.empty()) return bad(n, "a config symptom needs a `text`");
    if (!n["when"] || !n["when"].IsSequence() || n["when"].size() == 0)
      return bad(n, "config symptom '" + c.words.text + "' needs a non-empty `when` list of predicates");
    c.when = parse_predicates(n["when"], origin, "symptom '" + c.words.text + "'", problems);
    for (const auto& p : c.when)
      if (p.field.empty()) return bad(n, "symptom '" + c.words.text + "': a `when` predicate reads a config `field`");
    if (n["vendor"]) c.vendor = n["vendor"].Scalar();
    if (!c.vendor.empty() && c.vendor != "amd" && c.vendor != "nvidia")
      return bad(n, "symptom '" + c.words.text + "': vendor must be amd or nvidia, not '" + c.vendor + "'");
    t.config.push_back(std::move(c));
  }
  for (const auto& n : root["buckets"]) {
    BucketSymptom b{n["bucket"] ? n["bucket"].Scalar() : std::string(), wording(n)};
    if (b.bucket.empty() || b.words.text.empty()) return bad(n, "a bucket symptom needs `bucket` and `text`");
    t.buckets.push_back(std::move(b));
  }
  if (!problems.empty()) return problems.front();
  if (root["memory_headroom_symptom_above"])
    t.memory_headroom_above = root["memory_headroom_symptom_above"].as<double>(0.5);
  return t;
}

Result<std::shared_ptr<const SymptomTable>> symptom_table() {
  static DataDirCache<SymptomTable> cache;
  return cache.get([]() -> Result<SymptomTable> {
    ASSIGN_OR_RETURN(std::string text, load_data_file(kFile));
    return parse_table(text, data_file_origin(kFile));
  });
}

// `{field}` → the config's value of that field, `{gpu}` → the GPU's name.
std::string fill(std::string text, const config::WorkloadConfig& c, const std::string& gpu) {
  for (size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open)) {
    const size_t close = text.find('}', open);
    if (close == std::string::npos) break;
    const std::string key = text.substr(open + 1, close - open - 1);
    const std::string value = key == "gpu" ? gpu : detail::str_of(c.get(key));
    text.replace(open, close - open + 1, value);
    open += value.size();
  }
  return text;
}

}  // namespace

Result<std::vector<std::string>> derive_symptoms(const config::WorkloadConfig& c, const analysis::RunMetrics* profile,
                                                 const std::string& vendor) {
  ASSIGN_OR_RETURN(auto table, symptom_table());
  std::vector<std::string> s;
  auto add = [&](std::string text) {
    if (std::find(s.begin(), s.end(), text) == s.end()) s.push_back(std::move(text));
  };
  const std::string gpu = profile && !profile->gpu_name.empty() ? profile->gpu_name : "GPU";
  // (a) the config.
  for (const ConfigSymptom& e : table->config) {
    if (!e.vendor.empty() && !vendor.empty() && e.vendor != vendor) continue;
    if (std::all_of(e.when.begin(), e.when.end(), [&](const Predicate& p) { return config_predicate_holds(p, c); }))
      add(fill(e.words.for_vendor(vendor), c, gpu));
  }
  if (!profile) return s;
  // (b) the waste budget: every non-zero bucket.
  const analysis::WasteBudget& w = profile->waste_budget;
  for (const BucketSymptom& b : table->buckets)
    if (w.value_of(b.bucket).value_or(0.0) > 0) add(b.words.for_vendor(vendor));
  // Memory capacity is not time (the bucket stays 0 s): measured headroom is its own symptom.
  if (profile->memory_headroom_gb && profile->hbm_total_gb && *profile->hbm_total_gb > 0 &&
      *profile->memory_headroom_gb / *profile->hbm_total_gb > table->memory_headroom_above)
    for (const BucketSymptom& b : table->buckets)
      if (b.bucket == "memory_headroom") add(b.words.for_vendor(vendor));
  return s;
}

}  // namespace goblin::audit
