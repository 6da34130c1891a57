// The audit's verbs in the registry: parse-config, kb lint|query|show|list, patch, compare — the
// steps of the audit trajectory an agent drives one call at a time (docs/audit.md) and a user
// runs from the shell.
#include <fmt/format.h>

#include <filesystem>

#include "analysis/metrics_io.h"
#include "app/registry.h"
#include "audit/compare.h"
#include "audit/patch.h"
#include "audit/report.h"
#include "audit/rules.h"
#include "config/workload_config.h"
#include "core/io.h"
#include "core/text.h"
#include "model/warning_json.h"

namespace goblin::app {

namespace {

VerbResult fail(Error e) { return VerbResult{nullptr, std::move(e), ""}; }

Field field(const char* name, FieldKind k, const char* help, const char* cli = "", unsigned doors = kAllDoors) {
  Field f{name, k, help};
  f.cli = cli;
  f.doors = doors;
  return f;
}
Field positional(Field f) {
  f.positional = true;
  f.required = true;
  return f;
}

Result<audit::RunInput> run_input_arg(const Json& v, const std::string& name) {
  if (v.is_string()) return audit::load_run_input(v.get<std::string>());
  return audit::run_input_from_json(v, name);
}

// ---- parse-config ---------------------------------------------------------------------------

struct ParseConfigRequest {
  std::string file_path;
};

VerbResult parse_config_verb(const ParseConfigRequest& rq, Context&) {
  ASSIGN_OR_RETURN(const auto c, config::parse_config_file(rq.file_path));
  return VerbResult{config::config_to_json(c), std::nullopt, config::config_to_text(c)};
}

// ---- kb -------------------------------------------------------------------------------------

VerbResult with_rule_base(Context& ctx, const std::function<void(const audit::RuleBase&, VerbResult&)>& body) {
  VerbResult r;
  auto kn = knowledge(ctx);
  if (!kn) return fail(kn.error());
  body((*kn)->rules, r);
  return r;
}

struct KbQueryRequest {
  std::vector<std::string> symptoms;
  int64_t top = 5;
};

VerbResult kb_query_verb(const KbQueryRequest& rq, Context& ctx) {
  return with_rule_base(ctx, [&](const audit::RuleBase& base, VerbResult& r) {
    const auto& symptoms = rq.symptoms;
    auto hits = audit::kb_query(base, symptoms, static_cast<int>(rq.top));
    r.result["queries"] = symptoms;
    r.result["hits"] = Json::array();
    std::vector<std::string> ids;
    std::string os;
    for (const auto& h : hits) {
      r.result["hits"].push_back(audit::kb_hit_to_json(h));
      ids.push_back(h.rule->id);
      // {:g}: the stream's default (%g) this line was first written with.
      fmt::format_to(std::back_inserter(os), "{:g}  {}  {}\n      {}\n", round_to(h.score, 3), h.rule->id,
                     h.rule->title, h.rule->citation);
    }
    r.result["rule_ids"] = ids;
    if (hits.empty()) os += "no rule matches; try other words\n";
    r.human = std::move(os);
  });
}

VerbResult kb_lint_verb(const Request&, Context& ctx) {
  return with_rule_base(ctx, [](const audit::RuleBase& base, VerbResult& r) {
    auto problems = audit::lint_rules(base);
    r.result["rules"] = base.rules.size();
    r.result["problems"] = Json::array();
    std::string os;
    for (const auto& p : problems) {
      r.result["problems"].push_back(error_to_json(p));
      os += p.describe() + "\n";
    }
    fmt::format_to(std::back_inserter(os), "{} rules, {} problems\n", base.rules.size(), problems.size());
    r.human = std::move(os);
    if (!problems.empty()) r.error = make_error(ErrorKind::Malformed, fmt::format("{} rule problems", problems.size()));
  });
}

struct KbShowRequest {
  std::string id;
};

VerbResult kb_show_verb(const KbShowRequest& rq, Context& ctx) {
  return with_rule_base(ctx, [&](const audit::RuleBase& base, VerbResult& r) {
    const audit::Rule* rule = base.find(rq.id);
    if (!rule) {
      r.error = make_error(ErrorKind::NotFound, "no rule '" + rq.id + "' (see `goblin kb list`)");
      return;
    }
    r.result = audit::rule_to_json(*rule);
    r.human = r.result.dump(2);
  });
}

VerbResult kb_list_verb(const Request&, Context& ctx) {
  return with_rule_base(ctx, [](const audit::RuleBase& base, VerbResult& r) {
    std::string os;
    r.result = Json::array();
    for (const auto& rule : base.rules) {
      r.result.push_back(
          {{"id", rule.id}, {"vendor", rule.vendor}, {"category", rule.category}, {"title", rule.title}});
      fmt::format_to(std::back_inserter(os), "{}  [{}, {}]  {}\n", rule.id, rule.vendor, rule.category, rule.title);
    }
    r.human = std::move(os);
  });
}

// ---- patch ----------------------------------------------------------------------------------

std::string patch_text(const audit::Patch& p) {
  // Figures as JSON writes them (null when unknown), so the text and --json agree.
  auto num = [](std::optional<double> v) { return v ? Json(*v).dump() : std::string("null"); };
  std::string os = p.diff;
  auto out = std::back_inserter(os);
  for (const auto& x : p.rationale)
    fmt::format_to(out, "applied {} -> {}  {}\n", x.rule_id, x.targets_bucket, x.citation);
  for (const auto& x : p.skipped) fmt::format_to(out, "skipped {}: {}\n", x.rule_id, x.reason);
  for (const auto& x : p.findings) fmt::format_to(out, "finding {}: {}\n", x.rule_id, x.title);
  fmt::format_to(out, "expected speedup: {} .. {}   confidence {} = coverage {} x consistency {}\n",
                 num(p.expected_speedup_low), num(p.expected_speedup_high), num(p.confidence), num(p.evidence_coverage),
                 num(p.rule_consistency));
  return os;
}

struct PatchRequest {
  Json config;  // a path, or the WorkloadConfig dict parse_config returned
  std::vector<std::string> rule_ids;
  Json rules;    // query_kb's hits or Rule objects
  Json metrics;  // RunMetrics, or a path to them; null when not given
  std::string vendor, out;
};

VerbResult patch_verb(const PatchRequest& rq, Context& ctx) {
  VerbResult r;
  // The config: a file, or the WorkloadConfig dict parse_config returned (its source_file is the
  // file the patch is written into, confined like any other path the caller names).
  std::string file;
  const Json& c = rq.config;
  if (c.is_string()) {
    file = c.get<std::string>();
  } else {
    auto wc = config::config_from_json(c);
    if (!wc) return fail(wc.error());
    if (wc->source_file.empty())
      return fail(make_error(ErrorKind::Usage,
                             "config.source_file is missing: pass the full dict parse_config returned (the patch is "
                             "written into the user's own file), or the config file's path"));
    auto p = ctx.resolve_input ? ctx.resolve_input(wc->source_file, "config.source_file") : Result(wc->source_file);
    if (!p) return fail(p.error());
    file = *p;
  }
  audit::PatchOptions po;
  po.rule_ids = rq.rule_ids;
  // Rule objects (the audit agent's older shape, `kb show`'s: `id`) or query_kb's hits (`rule_id`):
  // only their ids are used. An object with neither is refused rather than skipped in silence.
  for (const auto& x : rq.rules) {
    const char* key = x.is_object() && x.contains("id") ? "id" : "rule_id";
    if (!x.is_object() || !x.contains(key) || !x[key].is_string())
      return fail(make_error(ErrorKind::Usage,
                             "each of rules must be an object with its rule id (`id` or `rule_id`, "
                             "as query_kb's hits have)"));
    po.rule_ids.push_back(x[key]);
  }
  if (po.rule_ids.empty())
    return fail(make_error(ErrorKind::Usage,
                           "no rules given: query the rule base first (kb query / query_kb) and pass the rule "
                           "ids it returned (rule_ids, or its Rule objects as rules), or `all`"));
  std::optional<analysis::RunMetrics> m;
  if (!rq.metrics.is_null()) {
    const Json& mv = rq.metrics;
    auto mm = mv.is_string() ? analysis::load_metrics_file(mv.get<std::string>())
                             : analysis::metrics_from_json(mv, "metrics");
    if (!mm) return fail(mm.error());
    m = *mm;
  }
  po.metrics = m ? &*m : nullptr;
  po.vendor = rq.vendor;
  auto kb = knowledge(ctx);
  if (!kb) return fail(kb.error());
  auto p = audit::make_patch(file, po, **kb);
  if (!p) return fail(p.error());
  r.result = audit::patch_to_json(p->result);
  if (p->unsafe) {
    // The edit would damage the file: show what it would be, write nothing, exit non-zero.
    r.error = *p->unsafe;
    r.human = p->result.diff;
    return r;
  }
  std::string out = rq.out;
  if (out.empty() && ctx.output_dir) {  // a door that picks the place: beside the session's reports
    auto d = ctx.output_dir("patch");
    if (!d) return fail(d.error());
    out = (std::filesystem::path(*d) / ("patched_" + std::filesystem::path(file).filename().string())).string();
  }
  if (!out.empty()) {
    if (Status s = write_file(out, p->patched_text); !s) {
      r.error = s.error();
      return r;
    }
    r.result["written_to"] = out;
  }
  r.human = patch_text(p->result);
  return r;
}

// ---- compare --------------------------------------------------------------------------------

struct CompareRequest {
  Json before, after, patch, profiled_before;  // each an object or a path to one; null when not given
  std::string workload_name, out;
};

VerbResult compare_verb(const CompareRequest& rq, const Request& whole, Context& ctx) {
  VerbResult r;
  auto b = run_input_arg(rq.before, "before");
  if (!b) return fail(b.error());
  auto a = run_input_arg(rq.after, "after");
  if (!a) return fail(a.error());
  auto p =
      rq.patch.is_string() ? audit::load_patch_file(rq.patch.get<std::string>()) : audit::patch_from_json(rq.patch);
  if (!p) return fail(p.error());
  ASSIGN_OR_RETURN(auto kb, knowledge(ctx));
  audit::CompareOptions opt;
  opt.workload_name = rq.workload_name;
  opt.kb = &kb->rules;
  if (!rq.profiled_before.is_null()) {
    ASSIGN_OR_RETURN(const auto pm, run_input_arg(rq.profiled_before, "profiled_before"));
    opt.profiled_before = pm.metrics;
  }
  if (ctx.enrich_compare) ctx.enrich_compare(whole.args(), *b, *a, opt);
  auto rep = audit::compare_runs(*b, *a, *p, opt);
  if (!rep) return fail(rep.error());
  r.result = audit::report_to_json(*rep);
  r.human = audit::report_text(*rep);
  std::string out = rq.out;
  if (out.empty() && ctx.output_dir) {
    auto d = ctx.output_dir("report");
    if (!d) return fail(d.error());
    out = *d;
  }
  if (!out.empty()) {
    std::vector<std::string> written;
    if (Status s = audit::write_report_files(*rep, out, &written); !s) {
      r.error = s.error();
      return r;
    }
    r.result["written"] = written;
    for (const auto& w : written) r.human += "wrote " + w + "\n";
    if (ctx.on_written) ctx.on_written(std::filesystem::path(out).filename().string(), written);
  }
  return r;
}

}  // namespace

void add_audit_verbs(std::vector<Verb>& out) {
  {
    Verb v;
    v.cli_path = {"parse-config"};
    v.tool = "parse_config";
    v.audit_step = 1;
    v.title = "Parse a workload config";
    v.summary = "Read a workload config (HF-style YAML/JSON, Python training script, env file) into a WorkloadConfig";
    v.description = "Every field with its origin (file and line); secrets redacted.";
    v.examples =
        "  goblin parse-config train.yaml                    every field with the line it came from\n"
        "  goblin parse-config train.py --json               a training script; secrets redacted\n";
    typed_request<ParseConfigRequest>(
        v, parse_config_verb,
        param(&ParseConfigRequest::file_path,
              positional(field("file_path", FieldKind::InputPath, "config file: .yaml/.yml, .json, .py, .env/.sh"))));
    v.result_schema = Json{{"type", "object"},
                           {"description", "the WorkloadConfig: fields, origins, redactions"},
                           {"properties", {{"warnings", warnings_json_schema("what the config scanners noticed")}}}};
    v.audit_budget = true;
    out.push_back(std::move(v));
  }
  {
    Verb v;
    v.cli_path = {"kb", "query"};
    v.records = false;  // a lookup, not a result to remember
    v.tool = "query_kb";
    v.audit_step = 3;
    v.quotes_user_text = false;  // goblin's own cited rules, not the user's files
    v.tool_aliases = {"query_rocm_kb"};
    v.title = "Search the cited rule base";
    v.summary = "Search the rules by symptom words (offline); several symptoms: the union of hits";
    v.description =
        "Offline BM25 search over the cited rule base (AMD and NVIDIA rules): the deduplicated union of the top hits "
        "of each symptom. Derive symptoms from BOTH the config and the waste budget.";
    v.examples = "  goblin kb query \"eager attention\" \"low GPU utilisation\" --top 3\n";
    Field sym = positional(field("symptoms", FieldKind::StringList, "symptom strings"));
    sym.aliases = {"symptom"};
    Field top = field("top", FieldKind::Integer, "hits per symptom, 1-1000 (default 5)", "--top,--top-k");
    top.default_value = 5;
    top.min = 1;
    top.max = 1000;
    top.aliases = {"top_k"};
    typed_request<KbQueryRequest>(v, kb_query_verb, param(&KbQueryRequest::symptoms, sym),
                                  param(&KbQueryRequest::top, top));
    v.result_schema = Json{{"type", "object"},
                           {"properties",
                            {{"queries", {{"description", "the symptoms searched"}}},
                             {"hits", {{"description", "rules with score and citation"}}},
                             {"rule_ids", {{"description", "the hits' ids, for patch / propose_patch"}}}}}};
    v.audit_budget = true;
    out.push_back(std::move(v));
  }
  for (const char* sub : {"lint", "show", "list"}) {
    Verb v;
    v.cli_path = {"kb", sub};
    v.records = false;  // a lookup, not a result to remember
    const std::string s = sub;
    v.title = "The cited rule base";
    if (s == "lint") {
      v.summary = "Check every rule (schema, citations, fields, detect not always-true)";
      v.examples = "  goblin kb lint --json\n";
      v.run = kb_lint_verb;
    } else if (s == "show") {
      v.summary = "Print one rule";
      v.examples = "  goblin kb show precision.bf16_amp_over_fp32\n";
      typed_request<KbShowRequest>(v, kb_show_verb,
                                   param(&KbShowRequest::id, positional(field("id", FieldKind::String, "rule id"))));
    } else {
      v.summary = "List every rule";
      v.examples = "  goblin kb list --json\n";
      v.run = kb_list_verb;
    }
    out.push_back(std::move(v));
  }
  {
    Verb v;
    v.cli_path = {"patch"};
    v.tool = "propose_patch";
    v.audit_step = 4;
    v.title = "Patch the config with rules";
    v.summary = "Apply rules to a config, in the user's own file format, with a diff";
    v.description =
        "The rules (ids from the rule base) whose detect holds, applied to the config in its own format, with a "
        "diff, a predicted speedup range from the metrics' waste budget and an honest confidence (evidence_coverage "
        "x rule_consistency). Nothing is written when the edit would not parse back.";
    v.examples =
        "  goblin patch cfg.yaml --rules all --metrics prof/metrics.json    patch + predicted speedup\n"
        "  goblin patch train.py --rules precision.bf16_amp_over_fp32 -o patched.py\n";
    Field cfg = positional(field("config", FieldKind::InputJson,
                                 "config file (YAML, JSON, Python, env), or the WorkloadConfig dict parse_config "
                                 "returned"));
    Field rules = field("rule_ids", FieldKind::StringList, "rule ids (comma-separated), or `all`", "--rules");
    rules.required = true;
    rules.doors = kCli;
    // The JSON doors take the ids or the Rule objects query_kb returned (`rules`): one of the two,
    // which a schema's `required` cannot say, so the verb checks it (patch_verb).
    Field json_rules = field("rule_ids", FieldKind::StringList, "rule ids query_kb returned, or `all` (or pass rules)",
                             "--rules", kJsonDoors);
    Field vendor = field("vendor", FieldKind::String, "amd | nvidia, when no metrics say it");
    vendor.choices = {"amd", "nvidia"};
    using P = PatchRequest;
    typed_request<P>(
        v, patch_verb, param(&P::config, cfg), param(&P::rule_ids, rules), param(&P::rule_ids, json_rules),
        param(&P::rules, field("rules", FieldKind::Array,
                               "query_kb's hits or Rule objects (their `rule_id` or `id` is used), instead of rule_ids",
                               "", kJsonDoors)),
        param(&P::metrics,
              field("metrics", FieldKind::InputJson,
                    "RunMetrics (goblin metrics --json, or profile_run's result) for evidence and the speedup range")),
        param(&P::vendor, vendor),
        param(&P::out, field("out", FieldKind::OutputFile,
                             "write the patched file here (nothing is written if it would not parse back)",
                             "-o,--out,--output", kCli | kPython)));
    v.result_schema = Json{{"type", "object"},
                           {"description",
                            "the Patch: new_config, diff, rationale, skipped, findings, predicted "
                            "speedup range, confidence, written_to"}};
    v.audit_budget = true;
    v.writes = true;
    out.push_back(std::move(v));
  }
  {
    Verb v;
    v.cli_path = {"compare"};
    v.tool = "compare_runs";
    v.audit_step = 6;
    // It reads the MCP session's benchmark records and publishes its reports as resources.
    v.session_bound = true;
    v.title = "The final Report";
    v.summary =
        "The final Report: speedup actual vs predicted, metric deltas, waste budgets, findings, validity footer";
    v.description =
        "From the before and after benchmark results and the patch: speedup actual vs predicted, waste budgets, "
        "findings (footguns, bitsandbytes on ROCm), validity footer; report.json/.md/.html are written.";
    v.examples =
        "  goblin compare before.json after.json --patch patch.json -o out/report\n"
        "  goblin compare bench_before.json bench_after.json --patch patch.json --profiled-before metrics.json "
        "--json\n";
    Field patch = field("patch", FieldKind::InputJson, "the patch (goblin patch --json, or propose_patch's result)");
    patch.required = true;
    using C = CompareRequest;
    typed_request<C>(
        v, compare_verb,
        param(&C::before, positional(field("before", FieldKind::InputJson,
                                           "RunMetrics of the baseline (goblin metrics --json, goblin bench --json, or "
                                           "benchmark's result)"))),
        param(&C::after,
              positional(field("after", FieldKind::InputJson, "RunMetrics of the patched run (same shapes)"))),
        param(&C::patch, patch),
        param(&C::profiled_before,
              field("profiled_before", FieldKind::InputJson,
                    "RunMetrics of a profiled run of the BEFORE config: gives the report BEFORE's waste budget when "
                    "BEFORE is an unprofiled bench, and the profiler perturbation")),
        param(&C::workload_name,
              field("workload_name", FieldKind::String,
                    "workload name for the report (default: the config's model_name)", "--workload")),
        param(&C::out,
              field("out", FieldKind::OutputDir, "write report.json, report.md, report.html into this directory",
                    "-o,--out,--output", kCli | kPython)));
    v.result_schema = Json{{"type", "object"},
                           {"description",
                            "the Report: speedup actual vs predicted, deltas, waste budgets, "
                            "findings, validity footer, written"}};
    v.audit_budget = true;
    v.writes = true;
    out.push_back(std::move(v));
  }
}

}  // namespace goblin::app
