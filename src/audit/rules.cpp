// Loading the rule base: data/rules/*.yaml into Rules (structural problems collected for lint).
#include "audit/rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "audit/predicates.h"
#include "core/data.h"
#include "core/text.h"

namespace goblin::audit {

const std::vector<std::string>& bucket_names() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (const auto& b : analysis::WasteBudget::kBuckets) v.emplace_back(b.name);
    return v;
  }();
  return k;
}

const Rule* RuleBase::find(const std::string& id) const {
  for (const auto& r : rules)
    if (r.id == id) return &r;
  return nullptr;
}

// ---- loading ----------------------------------------------------------------------------------

static Json yaml_to_json(const YAML::Node& n) {
  if (n.IsNull()) return nullptr;
  if (n.IsScalar()) {
    if (n.Tag() == "!") return n.Scalar();
    const std::string& s = n.Scalar();
    if (s == "true") return true;
    if (s == "false") return false;
    try {
      size_t p = 0;
      long long v = std::stoll(s, &p);
      if (p == s.size()) return static_cast<int64_t>(v);
    } catch (...) {
    }
    try {
      size_t p = 0;
      double v = std::stod(s, &p);
      if (p == s.size()) return v;
    } catch (...) {
    }
    return s;
  }
  if (n.IsSequence()) {
    Json a = Json::array();
    for (const auto& x : n) a.push_back(yaml_to_json(x));
    return a;
  }
  Json o = Json::object();
  for (auto it = n.begin(); it != n.end(); ++it) o[it->first.Scalar()] = yaml_to_json(it->second);
  return o;
}

static std::vector<std::string> str_list(const YAML::Node& n) {
  std::vector<std::string> v;
  if (!n) return v;
  if (n.IsScalar()) return {n.Scalar()};
  if (n.IsSequence())
    for (const auto& x : n) v.push_back(x.Scalar());
  return v;
}

// A fallback nests predicates; rules are data, so the depth is bounded (a hostile file cannot
// recurse the parser away).
constexpr int kMaxFallbackDepth = 4;

static Predicate predicate(const YAML::Node& x, const std::string& file, RuleBase& out, const std::string& id,
                           int depth) {
  Predicate p;
  if (x["field"]) p.field = x["field"].Scalar();
  if (x["metric"]) p.metric = x["metric"].Scalar();
  if (x["op"]) p.op = x["op"].Scalar();
  if (x["value"]) p.value = yaml_to_json(x["value"]);
  if (x["if_unset"]) p.if_unset = x["if_unset"].as<bool>(false);
  if (x["of"]) {
    p.of = x["of"].Scalar();
    if (p.of != "config" && p.of != "original")
      out.problems.push_back(make_error(ErrorKind::Malformed,
                                        id + ": predicate `of` must be config or original, not '" + p.of + "'", file,
                                        -1, x.Mark().line + 1));
  }
  if (const YAML::Node f = x["fallback"]) {
    if (!f.IsMap())
      out.problems.push_back(make_error(ErrorKind::Malformed, id + ": predicate `fallback` must be one predicate", file,
                                        -1, f.Mark().line + 1));
    else if (depth >= kMaxFallbackDepth)
      out.problems.push_back(
          make_error(ErrorKind::Malformed, id + ": fallbacks nested too deep", file, -1, f.Mark().line + 1));
    else
      p.fallback.push_back(predicate(f, file, out, id, depth + 1));
  }
  return p;
}

static std::vector<Predicate> predicates(const YAML::Node& n, const std::string& file, RuleBase& out,
                                         const std::string& id) {
  std::vector<Predicate> ps;
  if (!n) return ps;
  if (!n.IsSequence()) {
    out.problems.push_back(
        make_error(ErrorKind::Malformed, id + ": predicates must be a list", file, -1, n.Mark().line + 1));
    return ps;
  }
  for (const auto& x : n) {
    if (!x.IsMap()) {
      out.problems.push_back(
          make_error(ErrorKind::Malformed, id + ": predicate is not a mapping", file, -1, x.Mark().line + 1));
      continue;
    }
    ps.push_back(predicate(x, file, out, id, 0));
  }
  return ps;
}

Status parse_rules_yaml(const std::string& text, const std::string& file, RuleBase& out) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, "YAML: " + e.msg, file, -1, e.mark.line + 1);
  }
  if (!root["rules"] || !root["rules"].IsSequence())
    return make_error(ErrorKind::Malformed, "expected a top-level `rules:` list", file, -1, 1);
  for (const auto& n : root["rules"]) {
    Rule r;
    r.source_file = file;
    r.source_line = n.Mark().line + 1;
    try {
      r.id = n["id"] ? n["id"].Scalar() : "";
      r.title = n["title"] ? n["title"].Scalar() : "";
      r.category = n["category"] ? n["category"].Scalar() : "";
      r.vendor = n["vendor"] ? n["vendor"].Scalar() : "";
      r.performance = n["performance"] ? n["performance"].as<bool>() : true;
      r.advisory = n["advisory"] ? n["advisory"].as<bool>() : false;
      r.symptoms = str_list(n["symptoms"]);
      if (auto g = n["guards"]) {
        r.modes = str_list(g["mode"]);
        r.arch = str_list(g["arch"]);
        for (const char* k : {"rocm", "cuda", "pytorch"})
          if (g[k]) r.version_ranges[k] = g[k].Scalar();
      }
      if (auto d = n["detect"]) {
        r.detect_config = predicates(d["config"], file, out, r.id);
        r.detect_evidence = predicates(d["evidence"], file, out, r.id);
        r.require_evidence = d["require_evidence"] ? d["require_evidence"].as<bool>() : false;
      }
      r.counter_evidence = predicates(n["counter_evidence"], file, out, r.id);
      if (auto t = n["transform"]) {
        if (t.IsMap())
          for (auto it = t.begin(); it != t.end(); ++it) r.transform[it->first.Scalar()] = yaml_to_json(it->second);
      }
      r.targets_bucket = n["targets_bucket"] ? n["targets_bucket"].Scalar() : "";
      if (auto e = n["expected_recovery_fraction"]) {
        r.recovery.low = e["low"] ? e["low"].as<double>() : -1;
        r.recovery.high = e["high"] ? e["high"].as<double>() : -1;
        r.recovery.basis = e["basis"] ? e["basis"].Scalar() : "";
      } else {
        r.recovery.low = r.recovery.high = -1;
      }
      r.citation = n["citation"] ? n["citation"].Scalar() : "";
      r.priority = n["priority"] ? n["priority"].as<int>() : 50;
      r.superseded_by = n["superseded_by"] ? n["superseded_by"].Scalar() : "";
      if (auto d = n["deprecated"]) {
        r.deprecated_since = d["since"] ? d["since"].Scalar() : "";
        r.deprecated_reason = d["reason"] ? d["reason"].Scalar() : "";
      }
    } catch (const YAML::Exception& e) {
      out.problems.push_back(
          make_error(ErrorKind::Malformed, "rule " + r.id + ": " + e.msg, file, -1, e.mark.line + 1));
      continue;
    }
    out.rules.push_back(std::move(r));
  }
  return {};
}

Result<RuleBase> load_rule_base() {
  RuleBase kb;
  auto files = list_data_files("rules/");
  for (const auto& f : files) {
    if (f.size() < 5 || (f.substr(f.size() - 5) != ".yaml" && f.substr(f.size() - 4) != ".yml")) continue;
    ASSIGN_OR_RETURN(auto text, load_data_file(f));
    RETURN_IF_ERROR(parse_rules_yaml(text, "data/" + f, kb));
  }
  if (kb.rules.empty()) return make_error(ErrorKind::NotFound, "no rules found under data/rules/");
  return kb;
}

std::vector<Predicate> parse_predicates(const YAML::Node& list, const std::string& file, const std::string& what,
                                        std::vector<Error>& problems) {
  RuleBase sink;
  std::vector<Predicate> ps = predicates(list, file, sink, what);
  for (auto& e : sink.problems) problems.push_back(std::move(e));
  return ps;
}

}  // namespace goblin::audit
