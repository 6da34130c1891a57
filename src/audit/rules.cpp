#include "audit/rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <set>
#include <sstream>

#include "core/data.h"
#include "core/text.h"

namespace goblin::audit {

const std::vector<std::string>& bucket_names() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> v;
    for (const auto& b : WasteBudget::kBuckets) v.emplace_back(b.name);
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
    Predicate p;
    if (!x.IsMap()) {
      out.problems.push_back(
          make_error(ErrorKind::Malformed, id + ": predicate is not a mapping", file, -1, x.Mark().line + 1));
      continue;
    }
    if (x["field"]) p.field = x["field"].Scalar();
    if (x["metric"]) p.metric = x["metric"].Scalar();
    if (x["op"]) p.op = x["op"].Scalar();
    if (x["value"]) p.value = yaml_to_json(x["value"]);
    if (x["if_unset"]) p.if_unset = x["if_unset"].as<bool>(false);
    ps.push_back(p);
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
    auto text = load_data_file(f);
    if (!text) return text.error();
    Status s = parse_rules_yaml(*text, "data/" + f, kb);
    if (!s) return s.error();
  }
  if (kb.rules.empty()) return make_error(ErrorKind::NotFound, "no rules found under data/rules/");
  return kb;
}

// ---- lint -------------------------------------------------------------------------------------

static const std::set<std::string> kOps = {"eq", "ne",     "lt",  "le",    "gt",     "ge",
                                           "in", "not_in", "set", "unset", "matches"};
static const std::set<std::string> kMetrics = {
    "gpu_util_pct",           "fp32_simt_gemm_share", "gemm_share",          "rocblas_gemm_share",
    "hipblaslt_gemm_share",   "comm_share",           "conv_share",          "attention_kernel",
    "hbm_peak_frac",          "world_size",           "sync_calls_per_step", "malloc_calls_per_step",
    "layout_transpose_share", "uses_data_parallel",   "uses_vllm",           "autograd_in_inference",
    "numa_balancing",         "devices_per_process"};

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
    const FieldSpec* f = find_field(p.field);
    if (p.op == "in" && f && f->type == FieldType::Enum && p.if_unset && p.value.is_array()) {
      for (const auto& e : f->enum_values)
        if (std::find(p.value.begin(), p.value.end(), Json(e)) == p.value.end()) return false;
      return true;
    }
    if (p.op == "in" && f && f->type == FieldType::Bool && p.if_unset && p.value.is_array())
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
    for (const auto* p : all) {
      if (!kOps.count(p->op)) err(r, "unknown op '" + p->op + "'");
      if (p->field.empty() == p->metric.empty()) err(r, "a predicate needs exactly one of field / metric");
      if (!p->field.empty() && !is_known_field(p->field) && p->field.rfind("env_prefix.", 0) != 0)
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
      if ((!p.metric.empty() && !metric_known(p.metric)) || (!p.field.empty() && !is_known_field(p.field)))
        err(r, "counter_evidence on unknown field/metric");
    // transform
    if (r.transform.empty() && !r.advisory) err(r, "no transform: mark the rule `advisory: true` or add config edits");
    WorkloadConfig probe;
    for (const auto& [f, v] : r.transform) {
      if (!is_known_field(f)) {
        err(r, "transform touches unknown field '" + f + "'");
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

// ---- evidence ---------------------------------------------------------------------------------

static std::string arch_from_name(const std::string& gpu) {
  std::string g = ascii_lower(gpu);
  struct M {
    const char* k;
    const char* a;
  };
  for (auto m : std::vector<M>{{"h100", "sm_90"},
                               {"h200", "sm_90"},
                               {"gh200", "sm_90"},
                               {"b200", "sm_100"},
                               {"a100", "sm_80"},
                               {"a10", "sm_86"},
                               {"l40", "sm_89"},
                               {"4090", "sm_89"},
                               {"mi300", "gfx942"},
                               {"mi325", "gfx942"},
                               {"mi355", "gfx950"},
                               {"mi350", "gfx950"},
                               {"mi250", "gfx90a"},
                               {"mi210", "gfx90a"},
                               {"gfx942", "gfx942"},
                               {"gfx950", "gfx950"},
                               {"gfx90a", "gfx90a"}})
    if (g.find(m.k) != std::string::npos) return m.a;
  return "";
}

std::string vendor_of(const RunMetrics& m) {
  static const std::regex amd("(AMD|Instinct|Radeon|MI[0-9]{3}|gfx[0-9])", std::regex::icase);
  static const std::regex nv("(NVIDIA|GeForce|Tesla|H100|H200|A100|B200|L40)", std::regex::icase);
  if (std::regex_search(m.gpu_name, nv)) return "nvidia";
  if (std::regex_search(m.gpu_name, amd)) return "amd";
  if (m.versions.count("rocm") || m.versions.count("hip")) return "amd";
  if (m.versions.count("cuda") || m.versions.count("cuda_runtime") || m.versions.count("cuda_driver")) return "nvidia";
  return "";
}

Evidence evidence_from_metrics(const RunMetrics* m, const std::string& vendor_hint) {
  Evidence ev;
  ev.vendor = vendor_hint;
  if (!m) return ev;
  ev.have_metrics = true;
  ev.versions = m->versions;
  if (ev.vendor.empty()) ev.vendor = vendor_of(*m);
  ev.arch = m->versions.count("arch") ? m->versions.at("arch") : arch_from_name(m->gpu_name);
  ev.step_time_s = m->step_time_s;
  ev.metrics["gpu_util_pct"] = m->gpu_util_pct;
  if (m->step_time_s > 0) {
    const WasteBudget& w = m->waste_budget;
    for (const auto& bucket : WasteBudget::kBuckets) {
      if (!w.observed(bucket.name)) continue;
      const std::string k = bucket.name;
      const double v = w.*bucket.field;
      ev.bucket_s[k] = v;
      ev.metrics["bucket_s." + k] = v;
      ev.metrics["bucket_share." + k] = v / m->step_time_s;
    }
  }
  if (!m->top_kernels.empty()) {
    double total = 0, fp32 = 0, gemm = 0, rocblas = 0, hipblaslt = 0, comm = 0, conv = 0;
    for (const auto& k : m->top_kernels) {
      std::string n = ascii_lower(k.name);
      double t = k.pct_time;
      total += t;
      bool is_gemm = n.find("gemm") != std::string::npos || n.find("nvjet") != std::string::npos ||
                     n.find("cijk") != std::string::npos || n.find("xmma") != std::string::npos ||
                     n.find("cutlass") != std::string::npos || n.find("hipblaslt") != std::string::npos ||
                     n.find("matmul") != std::string::npos;
      if (is_gemm) gemm += t;
      if (n.find("sgemm") != std::string::npos || n.find("f32f32_f32f32_f32") != std::string::npos ||
          (is_gemm && n.find("_ffma_") != std::string::npos) ||
          (n.find("cijk") != std::string::npos && n.find("_sb_") != std::string::npos))
        fp32 += t;
      if (n.find("cijk") != std::string::npos) rocblas += t;
      if (n.find("hipblaslt") != std::string::npos) hipblaslt += t;
      if (n.find("nccl") != std::string::npos || n.find("rccl") != std::string::npos ||
          n.find("allreduce") != std::string::npos || n.find("all_reduce") != std::string::npos ||
          n.find("allgather") != std::string::npos || n.find("reducescatter") != std::string::npos)
        comm += t;
      if (n.find("conv") != std::string::npos || n.find("miopen") != std::string::npos) conv += t;
    }
    // pct_time is a share of summed kernel time; the listed kernels are what was observed.
    double denom = 100.0;
    ev.metrics["fp32_simt_gemm_share"] = fp32 / denom;
    ev.metrics["gemm_share"] = gemm / denom;
    ev.metrics["rocblas_gemm_share"] = rocblas / denom;
    ev.metrics["hipblaslt_gemm_share"] = hipblaslt / denom;
    ev.metrics["comm_share"] = comm / denom;
    ev.metrics["conv_share"] = conv / denom;
  }
  if (!m->attention_kernel_loaded.empty()) ev.metrics["attention_kernel"] = m->attention_kernel_loaded;
  return ev;
}

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

static std::string fmt_json(const Json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// Config predicate → true/false (unset fields take `if_unset`).
static bool eval_config(const Predicate& p, const WorkloadConfig& c) {
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

RuleEval evaluate_rule(const Rule& r, const WorkloadConfig& c, const Evidence& ev) {
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
    if (!eval_config(p, c)) {
      Json v = c.get(p.field);
      return no("config: " + p.field + " = " + (v.is_null() ? std::string("(unset)") : fmt_json(v)) +
                " does not satisfy " + p.op + " " + fmt_json(p.value));
    }
    e.supporting.push_back("config " + p.field + " " + p.op + " " + fmt_json(p.value));
  }
  // evidence predicates
  e.evidence_total = static_cast<int>(r.detect_evidence.size()) + 1;  // +1: the target bucket itself
  if (ev.bucket_s.count(r.targets_bucket)) ++e.evidence_observed;
  for (const auto& p : r.detect_evidence) {
    auto it = ev.metrics.find(p.metric);
    if (it == ev.metrics.end()) {
      e.unverified.push_back(p.metric + " not measured");
      if (r.require_evidence) return no("needs measured evidence: " + p.metric + " was not observed");
      continue;
    }
    ++e.evidence_observed;
    if (!compare(it->second, p.op, p.value))
      return no("evidence: " + p.metric + " = " + fmt_json(it->second) + " does not satisfy " + p.op + " " +
                fmt_json(p.value));
    e.supporting.push_back("measured " + p.metric + " = " + fmt_json(it->second));
  }
  for (const auto& p : r.counter_evidence) {
    if (!p.metric.empty()) {
      auto it = ev.metrics.find(p.metric);
      if (it != ev.metrics.end() && compare(it->second, p.op, p.value))
        return no("counter-evidence: " + p.metric + " = " + fmt_json(it->second));
    } else if (!p.field.empty() && eval_config(p, c)) {
      return no("counter-evidence: config " + p.field);
    }
  }
  e.fires = true;
  e.reason = "detect holds";
  return e;
}

// ---- BM25 -------------------------------------------------------------------------------------

static std::vector<std::string> tokens(const std::string& s) {
  static const std::set<std::string> stop = {"the",  "a",    "an",  "of",  "on",  "in", "for",  "to", "and", "or", "is",
                                             "with", "when", "set", "use", "not", "no", "from", "by", "at",  "as"};
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty() && !stop.count(cur)) out.push_back(cur);
    cur.clear();
  };
  for (char ch : s) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else
      flush();
  }
  flush();
  return out;
}

std::vector<KbHit> kb_query(const RuleBase& kb, const std::vector<std::string>& queries, int top_k) {
  const double k1 = 1.2, b = 0.75;
  std::vector<std::map<std::string, int>> tf(kb.rules.size());
  std::vector<double> len(kb.rules.size());
  std::map<std::string, int> df;
  for (size_t i = 0; i < kb.rules.size(); ++i) {
    const Rule& r = kb.rules[i];
    std::string text = r.id + " " + r.title + " " + r.category + " " + r.targets_bucket;
    for (const auto& s : r.symptoms) text += " " + s;
    for (const auto& [f, v] : r.transform) text += " " + f + " " + fmt_json(v);
    auto t = tokens(text);
    len[i] = static_cast<double>(t.size());
    for (const auto& w : t) tf[i][w]++;
    for (const auto& [w, n] : tf[i]) df[w]++;
  }
  double avg = 0;
  for (double l : len) avg += l;
  avg = kb.rules.empty() ? 1 : avg / static_cast<double>(kb.rules.size());
  const double N = static_cast<double>(kb.rules.size());
  std::map<size_t, KbHit> merged;
  for (const auto& q : queries) {
    auto qt = tokens(q);
    std::vector<std::pair<double, size_t>> scored;
    for (size_t i = 0; i < kb.rules.size(); ++i) {
      double s = 0;
      for (const auto& w : qt) {
        auto it = tf[i].find(w);
        if (it == tf[i].end()) continue;
        double idf = std::log(1 + (N - df[w] + 0.5) / (df[w] + 0.5));
        double f = it->second;
        s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len[i] / avg));
      }
      if (s > 0) scored.push_back({s, i});
    }
    std::sort(scored.begin(), scored.end(), [&](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : kb.rules[x.second].id < kb.rules[y.second].id;
    });
    for (size_t j = 0; j < scored.size() && static_cast<int>(j) < top_k; ++j) {
      auto& h = merged[scored[j].second];
      h.rule = &kb.rules[scored[j].second];
      h.score = std::max(h.score, scored[j].first);
      h.matched_queries.push_back(q);
    }
  }
  std::vector<KbHit> out;
  for (auto& [i, h] : merged) out.push_back(h);
  std::sort(out.begin(), out.end(), [](const KbHit& x, const KbHit& y) {
    return x.score != y.score ? x.score > y.score : x.rule->id < y.rule->id;
  });
  return out;
}

Json predicate_to_json(const Predicate& p) {
  Json j;
  if (!p.field.empty()) j["field"] = p.field;
  if (!p.metric.empty()) j["metric"] = p.metric;
  j["op"] = p.op;
  if (!p.value.is_null()) j["value"] = p.value;
  if (!p.field.empty()) j["if_unset"] = p.if_unset;
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
  j["source"] = r.source_file + ":" + std::to_string(r.source_line);
  return j;
}

}  // namespace goblin::audit
