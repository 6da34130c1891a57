// Kernel taxonomy: ordered rules from data/taxonomy.yaml (see the file header for semantics).
#include "analysis/taxonomy.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <regex>
#include <unordered_map>

#include "core/data.h"
#include "core/text.h"

namespace goblin::analysis {

namespace {

constexpr size_t kMatchChars = 400;  // see taxonomy.yaml: only the head of a name is matched

// A kernel name as the rules see it: `lower` is lower-cased, a leading "void " (demangled return
// type) removed, surrounding spaces trimmed and cut to kMatchChars; `orig` is the same characters in
// their original case (same offsets), which the word boundaries below need (camelCase).
struct Name {
  std::string lower, orig;
  size_t own_end = 0;  // end of the kernel's own qualified name (before its template/function arguments)
};

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool upper(char c) { return c >= 'A' && c <= 'Z'; }
bool lower(char c) { return c >= 'a' && c <= 'z'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// A word boundary at offset i of the original-case name (data/taxonomy.yaml, "whole name
// components"): the ends of the name, any non-alphanumeric character (`::`, `<`, `,`, `_`, space),
// a lower→upper change (SoftMax|Forward), the end of an acronym (CUDA|Kernel) and a letter↔digit
// change (gemv|2T, sm|90).
bool boundary(const std::string& o, size_t i) {
  if (i == 0 || i >= o.size()) return true;
  const char a = o[i - 1], b = o[i];
  if (!alnum(a) || !alnum(b)) return true;
  if (lower(a) && upper(b)) return true;
  if (digit(a) != digit(b)) return true;
  return upper(a) && upper(b) && i + 1 < o.size() && lower(o[i + 1]);
}

// A match [b, e) is a whole-component match when each end that is alphanumeric sits on a word
// boundary; an end that is itself punctuation ("nccl_", "cutlass::") needs none.
bool whole(const Name& n, size_t b, size_t e) {
  if (e == b) return true;
  if (alnum(n.orig[b]) && !boundary(n.orig, b)) return false;
  return !(alnum(n.orig[e - 1]) && !boundary(n.orig, e));
}

Name normalise(std::string_view name) {
  Name n;
  size_t b = name.find_first_not_of(" \t");
  if (b == std::string_view::npos) return n;
  name.remove_prefix(b);
  if (name.size() >= 5 && ascii_lower(name.substr(0, 5)) == "void ") name.remove_prefix(5);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
  if (name.size() > kMatchChars) name = name.substr(0, kMatchChars);
  n.orig = std::string(name);
  n.lower = ascii_lower(name);
  // The own name ends at the first '<' or '(' that does not open "(anonymous namespace)".
  static constexpr std::string_view kAnon = "(anonymous namespace)";
  size_t i = 0;
  for (; i < n.lower.size(); ++i) {
    if (n.lower.compare(i, kAnon.size(), kAnon) == 0) {
      i += kAnon.size() - 1;
      continue;
    }
    if (n.lower[i] == '<' || n.lower[i] == '(') break;
  }
  n.own_end = i;
  return n;
}

// regex_search restricted to whole-component matches within [0, end): tries each match in turn
// (and the ones that start inside a rejected match), so "broadcast" inside "xbroadcast" does not
// hide a later whole-word "broadcast".
bool search_whole(const Name& n, const std::regex& re, size_t end) {
  const std::string& s = n.lower;
  end = std::min(end, s.size());
  size_t pos = 0;
  std::smatch m;
  while (pos <= end) {
    const auto flags = pos == 0 ? std::regex_constants::match_default : std::regex_constants::match_prev_avail;
    if (!std::regex_search(s.begin() + static_cast<std::ptrdiff_t>(pos), s.begin() + static_cast<std::ptrdiff_t>(end),
                           m, re, flags))
      return false;
    const size_t b = pos + static_cast<size_t>(m.position(0)), e = b + static_cast<size_t>(m.length(0));
    if (whole(n, b, e)) return true;
    pos = b + 1;
  }
  return false;
}

bool find_whole(const Name& n, const std::string& needle, size_t end) {
  for (size_t p = n.lower.find(needle); p != std::string::npos && p + needle.size() <= end;
       p = n.lower.find(needle, p + 1))
    if (whole(n, p, p + needle.size())) return true;
  return false;
}

// Names are lower-cased before matching, so patterns are lower-cased too (escapes such as \\D
// keep their case) instead of using std::regex::icase, which is several times slower.
std::regex compile(const std::string& pattern) {
  std::string p;
  p.reserve(pattern.size());
  bool escaped = false;
  for (char c : pattern) {
    p.push_back(escaped ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    escaped = !escaped && c == '\\';
  }
  return std::regex(p, std::regex::ECMAScript | std::regex::optimize);
}

// A prefilter for a pattern: one literal that every match of each top-level alternative must
// contain (the characters before its first metacharacter, less one when a quantifier that admits
// zero follows). A name holding none of them cannot match, so the regex (libstdc++'s backtracking
// executor, tried at every start) is skipped: most rules never run on most names. Empty: some
// alternative starts with a metacharacter, no prefilter.
std::vector<std::string> needles_of(const std::string& pattern) {
  std::vector<std::string> out;
  std::string lower;
  bool escaped = false;
  for (char c : pattern) {  // as compile() lower-cases it
    lower.push_back(escaped ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    escaped = !escaped && c == '\\';
  }
  std::vector<std::string> alts(1);
  int depth = 0;
  bool in_class = false;
  escaped = false;
  for (char c : lower) {  // split on `|` outside groups and classes
    if (!escaped && !in_class && depth == 0 && c == '|') {
      alts.emplace_back();
      continue;
    }
    if (!escaped) {
      if (c == '[')
        in_class = true;
      else if (c == ']')
        in_class = false;
      else if (!in_class && c == '(')
        ++depth;
      else if (!in_class && c == ')')
        --depth;
    }
    escaped = !escaped && c == '\\';
    alts.back().push_back(c);
  }
  static const std::string meta = "\\^$.|?*+()[]{}";
  for (const std::string& a : alts) {
    const size_t from = !a.empty() && a[0] == '^' ? 1 : 0;
    size_t end = a.find_first_of(meta, from);
    if (end == std::string::npos) end = a.size();
    std::string lit = a.substr(from, end - from);
    if (end < a.size() && (a[end] == '?' || a[end] == '*' || a[end] == '{') && !lit.empty()) lit.pop_back();
    if (lit.empty()) return {};
    out.push_back(std::move(lit));
  }
  return out;
}

bool may_match(const std::string& s, const std::vector<std::string>& needles) {
  return needles.empty() || std::any_of(needles.begin(), needles.end(),
                                        [&](const std::string& x) { return s.find(x) != std::string::npos; });
}

}  // namespace

struct Taxonomy::Rule {
  std::string id, category, family, attention_backend;
  std::vector<std::string> any, prefix, none;
  bool has_regex = false;
  std::regex regex;
  std::vector<std::string> regex_needles;  // needles_of(regex)
  bool has_cpu_op = false;
  std::regex cpu_op;
  bool own_name = false;  // `scope: name`: `any`/`regex` match only the kernel's own qualified name

  bool matches(const Name& n, const std::string& cpu) const { return matches_name(n) && matches_cpu(cpu); }
  // The CPU op's condition alone (a rule without one admits any op).
  bool matches_cpu(const std::string& cpu) const {
    return !has_cpu_op || (!cpu.empty() && std::regex_search(cpu, cpu_op));
  }
  // Every condition on the kernel's name.
  bool matches_name(const Name& n) const {
    const size_t end = own_name ? n.own_end : n.lower.size();
    if (!any.empty() &&
        std::none_of(any.begin(), any.end(), [&](const std::string& s) { return find_whole(n, s, end); }))
      return false;
    if (!prefix.empty() &&
        std::none_of(prefix.begin(), prefix.end(), [&](const std::string& s) { return n.lower.rfind(s, 0) == 0; }))
      return false;
    for (const std::string& s : none)
      if (n.lower.find(s) != std::string::npos) return false;
    if (has_regex && (!may_match(n.lower, regex_needles) || !search_whole(n, regex, end))) return false;
    return true;
  }
};

struct Taxonomy::Extra {
  struct Family {
    bool by_cpu_op = false;  // `cpu_op`: searched in the launching op's name, else in the kernel name
    std::regex re;
    std::string family;
    std::vector<std::string> needles;  // needles_of(the pattern)
  };
  std::vector<Family> families;
  // simt_fp32_gemm / shape_suspect_gemm: kernels the taxonomy filed in one of `categories` (and,
  // when given, `families`) whose name matches `regex` in whole components, as the rules match.
  struct GemmPath {
    bool set = false;
    std::regex re;
    std::vector<std::string> categories, families;
    bool admits(const KernelClass& k) const {
      auto in = [](const std::vector<std::string>& v, const std::string& x) {
        return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
      };
      return set && in(categories, k.category) && in(families, k.family);
    }
  };
  GemmPath simt, shape;
  std::regex dataloader;
  bool has_dataloader = false;
  double tensor_core_speedup = 0;
  double tiny_grid_fraction = 0;
  // fp32_memory_bound / eager_attention_softmax sections
  std::vector<std::string> fp32_categories, softmax_categories;
  std::regex fp32, fp32_exclude, fp32_exclude_cpu, softmax_cpu, optimizer_cpu, attention_gemm_cpu;
  bool has_fp32 = false, has_fp32_exclude = false, has_fp32_exclude_cpu = false, has_softmax_cpu = false;
  bool has_optimizer_cpu = false, has_attention_gemm_cpu = false;
  double fp32_bytes_ratio = 1, fp32_min_simt_share = 1;
  struct Engine {
    std::string engine;
    std::regex re;
  };
  std::vector<Engine> engines;
  std::vector<std::string> library_family_substrings;
  struct Evidence {
    std::string metric;
    std::vector<std::string> categories, families;
    bool has_regex = false;
    std::regex re;
  };
  std::vector<Evidence> evidence;
};

namespace {

Result<std::vector<std::string>> string_list(const YAML::Node& n, const std::string& what, const std::string& origin) {
  std::vector<std::string> out;
  if (!n) return out;
  if (n.IsScalar()) {
    out.push_back(ascii_lower(n.as<std::string>()));
    return out;
  }
  if (!n.IsSequence()) return make_error(ErrorKind::Malformed, what + " must be a string or a list of strings", origin);
  for (const auto& x : n) out.push_back(ascii_lower(x.as<std::string>()));
  return out;
}

// kernel_engines, library_families and rule_evidence (see data/taxonomy.yaml for their meaning).
Status parse_sections(const YAML::Node& root, const std::vector<std::string>& categories, Taxonomy::Extra& x,
                      const std::string& origin) {
  auto bad = [&](const std::string& what, const YAML::Node& n) {
    return make_error(ErrorKind::Malformed, "taxonomy: " + what, origin, -1, n.Mark().line + 1);
  };
  try {
    for (const auto& e : root["kernel_engines"]) {
      if (!e["engine"] || !e["regex"]) return bad("every `kernel_engines` entry needs `engine` and `regex`", e);
      x.engines.push_back({e["engine"].as<std::string>(), compile(e["regex"].as<std::string>())});
    }
    if (const auto lf = root["library_families"]; lf && lf["substrings"]) {
      ASSIGN_OR_RETURN(x.library_family_substrings,
                       string_list(lf["substrings"], "taxonomy: library_families `substrings`", origin));
    }
    for (const auto& e : root["rule_evidence"]) {
      Taxonomy::Extra::Evidence ev;
      if (!e["metric"]) return bad("every `rule_evidence` entry needs `metric`", e);
      ev.metric = e["metric"].as<std::string>();
      if (e["categories"]) ev.categories = e["categories"].as<std::vector<std::string>>();
      if (e["families"]) ev.families = e["families"].as<std::vector<std::string>>();
      for (const auto& c : ev.categories)
        if (std::find(categories.begin(), categories.end(), c) == categories.end())
          return bad("rule_evidence " + ev.metric + " names unknown category '" + c + "'", e);
      if (e["regex"]) {
        ev.re = compile(e["regex"].as<std::string>());
        ev.has_regex = true;
      }
      x.evidence.push_back(std::move(ev));
    }
  } catch (const std::regex_error& e) {
    return make_error(ErrorKind::Malformed, std::string("taxonomy: bad regex: ") + e.what(), origin);
  }
  return {};
}

}  // namespace

Result<Taxonomy> Taxonomy::parse(const std::string& yaml_text, const std::string& origin) {
  Taxonomy t;
  auto rules = std::make_shared<std::vector<Rule>>();
  auto extra = std::make_shared<Extra>();
  try {
    YAML::Node root = YAML::Load(yaml_text);
    if (!root.IsMap()) return make_error(ErrorKind::Malformed, "taxonomy: top level must be a map", origin);
    if (!root["categories"] || !root["categories"].IsSequence())
      return make_error(ErrorKind::Malformed, "taxonomy: `categories` list missing", origin);
    for (const auto& c : root["categories"]) t.categories_.push_back(c.as<std::string>());
    if (!root["rules"] || !root["rules"].IsSequence())
      return make_error(ErrorKind::Malformed, "taxonomy: `rules` list missing", origin);
    for (const auto& r : root["rules"]) {
      Rule rule;
      if (!r["id"] || !r["category"])
        return make_error(ErrorKind::Malformed, "taxonomy: every rule needs `id` and `category`", origin, -1,
                          r.Mark().line + 1);
      rule.id = r["id"].as<std::string>();
      rule.category = r["category"].as<std::string>();
      if (std::find(t.categories_.begin(), t.categories_.end(), rule.category) == t.categories_.end())
        return make_error(ErrorKind::Malformed,
                          "taxonomy: rule " + rule.id + " names unknown category '" + rule.category + "'", origin, -1,
                          r.Mark().line + 1);
      if (r["family"]) rule.family = r["family"].as<std::string>();
      if (r["attention_backend"]) rule.attention_backend = r["attention_backend"].as<std::string>();
      if (r["scope"]) {
        const std::string scope = r["scope"].as<std::string>();
        if (scope != "name" && scope != "full")
          return make_error(ErrorKind::Malformed, "taxonomy: rule " + rule.id + ": `scope` is `name` or `full`", origin,
                            -1, r.Mark().line + 1);
        rule.own_name = scope == "name";
      }
      for (auto [key, dst] : {std::pair{"any", &rule.any}, {"prefix", &rule.prefix}, {"none", &rule.none}}) {
        ASSIGN_OR_RETURN(auto l, string_list(r[key], "taxonomy: rule " + rule.id + " `" + key + "`", origin));
        *dst = std::move(l);
      }
      try {
        if (r["regex"]) {
          std::string re = r["regex"].as<std::string>();
          if (!re.empty()) {
            rule.regex = compile(re);
            rule.regex_needles = needles_of(re);
            rule.has_regex = true;
          }
        }
        if (r["cpu_op"]) {
          rule.cpu_op = compile(r["cpu_op"].as<std::string>());
          rule.has_cpu_op = true;
        }
      } catch (const std::regex_error& e) {
        return make_error(ErrorKind::Malformed, "taxonomy: rule " + rule.id + ": bad regex: " + e.what(), origin, -1,
                          r.Mark().line + 1);
      }
      rules->push_back(std::move(rule));
    }
    try {
      if (root["families"]) {
        for (const auto& f : root["families"]) {
          const bool by_cpu = static_cast<bool>(f["cpu_op"]);
          if (!f["family"] || by_cpu == static_cast<bool>(f["regex"]))
            return make_error(ErrorKind::Malformed,
                              "taxonomy: every `families` entry needs `family` and one of `regex` or `cpu_op`", origin,
                              -1, f.Mark().line + 1);
          const std::string pattern = f[by_cpu ? "cpu_op" : "regex"].as<std::string>();
          extra->families.push_back({by_cpu, compile(pattern), f["family"].as<std::string>(), needles_of(pattern)});
        }
      }
      auto section = [&](const char* key, const char* field, std::regex& dst, bool& has) {
        if (root[key] && root[key][field]) {
          dst = compile(root[key][field].as<std::string>());
          has = true;
        }
      };
      for (auto [key, path] :
           {std::pair{"simt_fp32_gemm", &extra->simt}, std::pair{"shape_suspect_gemm", &extra->shape}}) {
        const YAML::Node s = root[key];
        if (!s || !s["regex"]) continue;
        path->re = compile(s["regex"].as<std::string>());
        path->set = true;
        if (s["categories"]) path->categories = s["categories"].as<std::vector<std::string>>();
        if (s["families"]) path->families = s["families"].as<std::vector<std::string>>();
        for (const auto& c : path->categories)
          if (std::find(t.categories_.begin(), t.categories_.end(), c) == t.categories_.end())
            return make_error(ErrorKind::Malformed, fmt::format("taxonomy: unknown category '{}' in {}", c, key),
                              origin);
      }
      section("dataloader_spans", "regex", extra->dataloader, extra->has_dataloader);
      section("fp32_memory_bound", "regex", extra->fp32, extra->has_fp32);
      section("fp32_memory_bound", "exclude_regex", extra->fp32_exclude, extra->has_fp32_exclude);
      section("fp32_memory_bound", "exclude_cpu_op_regex", extra->fp32_exclude_cpu, extra->has_fp32_exclude_cpu);
      section("eager_attention_softmax", "cpu_op_regex", extra->softmax_cpu, extra->has_softmax_cpu);
      section("optimizer_ops", "cpu_op_regex", extra->optimizer_cpu, extra->has_optimizer_cpu);
      section("eager_attention_gemm", "cpu_op_regex", extra->attention_gemm_cpu, extra->has_attention_gemm_cpu);
    } catch (const std::regex_error& e) {
      return make_error(ErrorKind::Malformed, std::string("taxonomy: bad regex: ") + e.what(), origin);
    }
    RETURN_IF_ERROR(parse_sections(root, t.categories_, *extra, origin));
    if (root["simt_fp32_gemm"] && root["simt_fp32_gemm"]["tensor_core_speedup"])
      extra->tensor_core_speedup = root["simt_fp32_gemm"]["tensor_core_speedup"].as<double>();
    if (const auto f = root["fp32_memory_bound"]) {
      if (f["categories"]) extra->fp32_categories = f["categories"].as<std::vector<std::string>>();
      if (f["bytes_ratio"]) extra->fp32_bytes_ratio = f["bytes_ratio"].as<double>();
      if (f["min_simt_share_of_gemm"]) extra->fp32_min_simt_share = f["min_simt_share_of_gemm"].as<double>();
    }
    if (const auto e = root["eager_attention_softmax"]; e && e["categories"])
      extra->softmax_categories = e["categories"].as<std::vector<std::string>>();
    if (root["shape_suspect_gemm"] && root["shape_suspect_gemm"]["tiny_grid_fraction_of_sms"])
      extra->tiny_grid_fraction = root["shape_suspect_gemm"]["tiny_grid_fraction_of_sms"].as<double>();
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, std::string("taxonomy: ") + e.what(), origin, -1, e.mark.line + 1);
  }
  if (rules->empty()) return make_error(ErrorKind::Malformed, "taxonomy: no rules", origin);
  if (extra->tensor_core_speedup < 1.0) extra->tensor_core_speedup = 1.0;  // 1 = nothing recoverable
  if (extra->fp32_bytes_ratio < 1.0) extra->fp32_bytes_ratio = 1.0;
  for (const auto* cats : {&extra->fp32_categories, &extra->softmax_categories})
    for (const auto& c : *cats)
      if (std::find(t.categories_.begin(), t.categories_.end(), c) == t.categories_.end())
        return make_error(ErrorKind::Malformed, "taxonomy: unknown category '" + c + "' in a waste-budget section",
                          origin);
  t.holder_ = rules;
  t.rules_ = rules.get();
  t.extra_ = extra;
  t.cache_ = std::make_shared<ClassCache>();
  return t;
}

Result<Taxonomy> Taxonomy::load() {
  ASSIGN_OR_RETURN(auto text, load_data_file("taxonomy.yaml"));
  return parse(text, data_file_origin("taxonomy.yaml"));
}

// What the kernel's name alone decides: the rules whose name conditions it meets, in order, and
// the name-matched families (data/taxonomy.yaml § library_families). The launching CPU op only
// picks among them, with short regexes on a short string, so a kernel launched from many CPU ops
// runs the name's regexes once (the costly part: long templated names, dozens of rules).
namespace {
struct NameMatch {
  std::vector<uint32_t> rules;
  std::vector<bool> families;  // per Extra::families entry: its name regex matched (cpu_op ones: false)
};
}  // namespace

// The memo of classify(): at most kMaxEntries answers and name matches each (a hostile trace may
// carry millions of unique names; past the cap the rules simply run again). Guarded by a mutex:
// per-rank analyses share one Taxonomy across threads.
struct Taxonomy::ClassCache {
  static constexpr size_t kMaxEntries = 1 << 16;
  std::mutex mu;
  std::unordered_map<std::string, KernelClass> answers;
  std::unordered_map<std::string, std::shared_ptr<const NameMatch>> names;
};

namespace {

NameMatch match_name(const std::vector<Taxonomy::Rule>& rules, const std::vector<Taxonomy::Extra::Family>& families,
                     std::string_view kernel_name) {
  const Name n = normalise(kernel_name);
  NameMatch m;
  // Up to the first rule without a CPU-op condition: it wins whenever the ones before it do not.
  bool final_rule = false, family_needed = false;
  for (size_t i = 0; i < rules.size() && !final_rule; ++i) {
    if (!rules[i].matches_name(n)) continue;
    m.rules.push_back(static_cast<uint32_t>(i));
    final_rule = !rules[i].has_cpu_op;
    family_needed |= rules[i].family.empty() || rules[i].family == "unknown";
  }
  // The families section is read only when some outcome leaves the family unknown.
  m.families.resize(families.size());
  if (family_needed || !final_rule)
    for (size_t i = 0; i < families.size(); ++i)
      m.families[i] = !families[i].by_cpu_op && may_match(n.lower, families[i].needles) &&
                      search_whole(n, families[i].re, n.lower.size());
  return m;
}

// The first rule whose name conditions matched and whose CPU-op condition the op meets; a family
// from the families section when the rule names none, in the section's order.
KernelClass decide(const std::vector<Taxonomy::Rule>& rules, const std::vector<Taxonomy::Extra::Family>& fams,
                   const NameMatch& m, std::string_view cpu_op_name) {
  KernelClass k{"other", "unknown", "none", ""};
  const std::string cpu = ascii_lower(cpu_op_name);
  for (uint32_t i : m.rules) {
    const Taxonomy::Rule& r = rules[i];
    if (!r.matches_cpu(cpu)) continue;
    k.category = r.category;
    k.rule_id = r.id;
    k.attention_backend = r.attention_backend;
    k.family = r.family;
    break;
  }
  if (k.family.empty() || k.family == "unknown") {
    k.family = "unknown";
    for (size_t i = 0; i < fams.size(); ++i) {
      if (fams[i].by_cpu_op ? (!cpu.empty() && std::regex_search(cpu, fams[i].re)) : m.families[i]) {
        k.family = fams[i].family;
        break;
      }
    }
  }
  return k;
}

}  // namespace

KernelClass Taxonomy::classify(std::string_view kernel_name, std::string_view cpu_op_name) const {
  if (!cache_) return classify_uncached(kernel_name, cpu_op_name);
  std::string key;
  key.reserve(kernel_name.size() + cpu_op_name.size() + 1);
  key.append(kernel_name).push_back('\0');
  key.append(cpu_op_name);
  std::shared_ptr<const NameMatch> nm;
  {
    std::lock_guard<std::mutex> lock(cache_->mu);
    if (auto it = cache_->answers.find(key); it != cache_->answers.end()) return it->second;
    if (auto it = cache_->names.find(key.substr(0, kernel_name.size())); it != cache_->names.end()) nm = it->second;
  }
  if (!rules_) return classify_uncached(kernel_name, cpu_op_name);
  if (!nm) {
    nm = std::make_shared<const NameMatch>(match_name(*rules_, extra_->families, kernel_name));
    std::lock_guard<std::mutex> lock(cache_->mu);
    if (cache_->names.size() < ClassCache::kMaxEntries) cache_->names.emplace(std::string(kernel_name), nm);
  }
  KernelClass k = decide(*rules_, extra_->families, *nm, cpu_op_name);
  std::lock_guard<std::mutex> lock(cache_->mu);
  if (cache_->answers.size() < ClassCache::kMaxEntries) cache_->answers.emplace(std::move(key), k);
  return k;
}

KernelClass Taxonomy::classify_uncached(std::string_view kernel_name, std::string_view cpu_op_name) const {
  if (!rules_) return KernelClass{"other", "unknown", "none", ""};
  return decide(*rules_, extra_->families, match_name(*rules_, extra_->families, kernel_name), cpu_op_name);
}

// Through the taxonomy (data/taxonomy.yaml § simt_fp32_gemm, shape_suspect_gemm): the kernel's
// class (category, family) must be one the section names, and its name must match the section's
// pattern in whole components, as the rules do (issue #34).
bool Taxonomy::is_simt_fp32_gemm(std::string_view name) const {
  if (!extra_ || !extra_->simt.set || !extra_->simt.admits(classify(name))) return false;
  const Name n = normalise(name);
  return search_whole(n, extra_->simt.re, n.lower.size());
}
bool Taxonomy::is_shape_suspect_gemm(std::string_view name) const {
  if (!extra_ || !extra_->shape.set || !extra_->shape.admits(classify(name))) return false;
  const Name n = normalise(name);
  return search_whole(n, extra_->shape.re, n.lower.size());
}
bool Taxonomy::is_dataloader_span(std::string_view name) const {
  return extra_ && extra_->has_dataloader && std::regex_search(ascii_lower(name), extra_->dataloader);
}
bool Taxonomy::is_fp32_memory_bound(std::string_view name, std::string_view category, std::string_view cpu) const {
  if (!extra_ || !extra_->has_fp32) return false;
  const auto& cats = extra_->fp32_categories;
  if (std::find(cats.begin(), cats.end(), category) == cats.end()) return false;
  const std::string n = normalise(name).lower;
  if (!std::regex_search(n, extra_->fp32)) return false;
  if (extra_->has_fp32_exclude && std::regex_search(n, extra_->fp32_exclude)) return false;
  return !(extra_->has_fp32_exclude_cpu && !cpu.empty() &&
           std::regex_search(ascii_lower(cpu), extra_->fp32_exclude_cpu));
}
double Taxonomy::fp32_bytes_ratio() const { return extra_ ? extra_->fp32_bytes_ratio : 1.0; }
double Taxonomy::fp32_min_simt_share() const { return extra_ ? extra_->fp32_min_simt_share : 1.0; }
bool Taxonomy::is_eager_attention_softmax(std::string_view category, std::string_view cpu) const {
  if (!extra_ || !extra_->has_softmax_cpu || cpu.empty()) return false;
  const auto& cats = extra_->softmax_categories;
  if (std::find(cats.begin(), cats.end(), category) == cats.end()) return false;
  return std::regex_search(ascii_lower(cpu), extra_->softmax_cpu);
}
bool Taxonomy::is_optimizer_op(std::string_view cpu) const {
  return extra_ && extra_->has_optimizer_cpu && !cpu.empty() &&
         std::regex_search(ascii_lower(cpu), extra_->optimizer_cpu);
}
bool Taxonomy::is_eager_attention_gemm_op(std::string_view cpu) const {
  return extra_ && extra_->has_attention_gemm_cpu && !cpu.empty() &&
         std::regex_search(ascii_lower(cpu), extra_->attention_gemm_cpu);
}
std::string Taxonomy::engine(std::string_view name) const {
  if (!extra_ || extra_->engines.empty()) return "";
  // The whole name (not the 400-character head): a marker may sit in a template argument.
  const std::string n = ascii_lower(name);
  for (const auto& e : extra_->engines)
    if (std::regex_search(n, e.re)) return e.engine;
  return "";
}
bool Taxonomy::is_library_family(std::string_view family) const {
  if (!extra_) return false;
  const std::string f = ascii_lower(family);
  return std::any_of(extra_->library_family_substrings.begin(), extra_->library_family_substrings.end(),
                     [&](const std::string& s) { return f.find(s) != std::string::npos; });
}
std::vector<std::string> Taxonomy::evidence_metrics(std::string_view name, std::string_view category,
                                                    std::string_view family) const {
  std::vector<std::string> out;
  if (!extra_) return out;
  std::string n;  // normalised lazily: most entries test only the category or family
  for (const auto& e : extra_->evidence) {
    if (!e.categories.empty() && std::find(e.categories.begin(), e.categories.end(), category) == e.categories.end())
      continue;
    if (!e.families.empty() && std::find(e.families.begin(), e.families.end(), family) == e.families.end()) continue;
    if (e.has_regex) {
      if (n.empty()) n = normalise(name).lower;
      if (!std::regex_search(n, e.re)) continue;
    }
    out.push_back(e.metric);
  }
  return out;
}
std::vector<std::string> Taxonomy::evidence_metric_names() const {
  std::vector<std::string> out;
  if (extra_)
    for (const auto& e : extra_->evidence) out.push_back(e.metric);
  return out;
}
double Taxonomy::tensor_core_speedup() const { return extra_ ? extra_->tensor_core_speedup : 1.0; }
double Taxonomy::tiny_grid_fraction_of_sms() const { return extra_ ? extra_->tiny_grid_fraction : 0.0; }
size_t Taxonomy::rule_count() const { return rules_ ? rules_->size() : 0; }

}  // namespace goblin::analysis
