// Seed 000's six audit tools with the audit agent's input shapes (docs/audit.md). Each calls the library function
// behind the CLI verb of the same job: parse_config_file (goblin parse-config), the Runner's profile and bench (goblin
// audit's ReplayRunner, or the live runner `goblin audit` gets from src/run), kb_query (goblin kb query), make_patch
// (goblin patch), compare_runs (goblin compare).
#include <filesystem>
#include <set>
#include <sstream>

#include "analysis/metrics_io.h"
#include "audit/compare.h"
#include "audit/patch.h"
#include "audit/report.h"
#include "audit/rules.h"
#include "config/workload_config.h"
#include "core/io.h"
#include "core/text.h"
#include "mcp/live_calls.h"
#include "mcp/tools.h"

namespace goblin::mcp {

namespace {

Json config_schema() {
  return Json{{"type", "object"},
              {"description", "the FULL WorkloadConfig dict parse_config returned (or propose_patch's new_config)"}};
}

// The config dict an agent passes back: read into a WorkloadConfig; its source_file (when set)
// must lie inside the roots.
Result<config::WorkloadConfig> config_arg(const Json& a, Session& s) {
  auto c = config::config_from_json(a["config"]);
  if (!c) return c.error();
  if (!c->source_file.empty()) {
    auto p = s.roots().resolve(c->source_file, "config.source_file");
    if (!p) return p.error();
    c->source_file = *p;
  }
  return *c;
}

ToolOutcome parse_config_tool(const Json& a, Session& s, CallContext&) {
  ToolOutcome o;
  auto p = s.roots().resolve(a["file_path"].get<std::string>(), "file_path");
  if (!p) {
    o.error = p.error();
    return o;
  }
  auto c = config::parse_config_file(*p);
  if (!c) {
    o.error = c.error();
    return o;
  }
  o.result = config::config_to_json(*c);
  std::ostringstream t;
  t << "WorkloadConfig of " << s.roots().display(*p) << ": model " << c->get("model_name").dump() << ", precision "
    << c->get("precision").dump() << ", attention " << c->get("attention_impl").dump() << ", " << c->redactions.size()
    << " secret(s) redacted";
  o.text = t.str();
  return o;
}

std::string metrics_text(const RunMetrics& m, const RunRecord& r) {
  std::ostringstream t;
  t << r.runner << " " << r.kind << " " << r.id << ": step " << format_fixed(m.step_time_s * 1e3, 1) << " ms";
  if (m.tokens_per_sec) t << ", " << format_fixed(*m.tokens_per_sec, 0) << " tokens/s";
  if (!m.gpu_name.empty()) t << " on " << m.gpu_name;
  return t.str();
}

// profile_run and benchmark share everything but the runner call.
ToolOutcome measure(const std::string& kind, const Json& a, Session& s, CallContext& ctx) {
  ToolOutcome o;
  auto cfg = config_arg(a, s);
  if (!cfg) {
    o.error = cfg.error();
    return o;
  }
  RunRecord rec;
  rec.id = s.next_id(kind);
  rec.kind = kind;
  rec.requested = *cfg;
  int steps = arg_int(a, "steps", 0);
  if (a.contains("steps") && steps < 1) {
    o.error = make_error(ErrorKind::Usage, "steps must be at least 1");
    return o;
  }
  bool cache = arg_bool(a, "cache", true);
  auto m = run_measurement(kind, *cfg, steps, cache, s, ctx, rec);
  if (!m) {
    o.error = m.error();
    o.result = Json{{"goblin_run", {{"id", rec.id}, {"notes", rec.notes}}}};
    return o;
  }
  rec.metrics = *m;
  o.result = run_metrics_to_json(*m);
  Json gr = {{"id", rec.id}, {"runner", rec.runner}, {"notes", rec.notes}};
  if (rec.ran) gr["ran_config_differs_on"] = audit::config_differences(rec.requested, *rec.ran);
  if (!rec.step_time_samples.empty()) gr["per_run_step_time_s"] = rec.step_time_samples;
  o.result["goblin_run"] = gr;
  o.text = metrics_text(*m, rec);
  s.record_run(std::move(rec));
  return o;
}

ToolOutcome query_kb_tool(const Json& a, Session&, CallContext&) {
  ToolOutcome o;
  std::vector<std::string> q;
  if (a.contains("symptoms"))
    for (const auto& x : a["symptoms"]) q.push_back(x.get<std::string>());
  if (a.contains("symptom")) q.push_back(a["symptom"].get<std::string>());
  if (q.empty()) {
    o.error = make_error(ErrorKind::Usage, "missing required argument: symptom (a string) or symptoms (a list)");
    return o;
  }
  // `top` as in the CLI's --top; `top_k` (the audit agent's name) still works.
  int top_k = a.contains("top") ? arg_int(a, "top", 5) : arg_int(a, "top_k", 5);
  if (top_k < 1 || top_k > 1000) {
    o.error = make_error(ErrorKind::Usage, "top_k must be between 1 and 1000");
    return o;
  }
  auto base = audit::load_rule_base();
  if (!base) {
    o.error = base.error();
    return o;
  }
  auto hits = audit::kb_query(*base, q, top_k);
  o.result["queries"] = q;
  o.result["hits"] = Json::array();
  std::vector<std::string> ids;
  for (const auto& h : hits) {
    o.result["hits"].push_back(audit::kb_hit_to_json(h));
    ids.push_back(h.rule->id);
  }
  o.result["rule_ids"] = ids;
  o.text = std::to_string(hits.size()) + " rule(s) for " + std::to_string(q.size()) + " symptom(s)";
  if (hits.empty()) o.text += "; try other words";
  return o;
}

ToolOutcome propose_patch_tool(const Json& a, Session& s, CallContext&) {
  ToolOutcome o;
  auto cfg = config_arg(a, s);
  if (!cfg) {
    o.error = cfg.error();
    return o;
  }
  if (cfg->source_file.empty()) {
    o.error = make_error(ErrorKind::Usage,
                         "config.source_file is missing: pass the full dict parse_config returned (the patch is "
                         "written into the user's own file)");
    return o;
  }
  audit::PatchOptions po;
  if (a.contains("rule_ids"))
    for (const auto& x : a["rule_ids"]) po.rule_ids.push_back(x.get<std::string>());
  if (a.contains("rules"))  // the audit agent's older shape: full Rule objects; only their ids are used
    for (const auto& x : a["rules"])
      if (x.is_object() && x.contains("id") && x["id"].is_string()) po.rule_ids.push_back(x["id"]);
  if (po.rule_ids.empty()) {
    o.error = make_error(ErrorKind::Usage, "rule_ids is empty: call query_kb first and pass the rule ids it returned");
    return o;
  }
  std::optional<RunMetrics> m;
  if (a.contains("metrics") && !a["metrics"].is_null()) {
    Json mj = a["metrics"];
    auto mm = metrics_from_json(mj, "metrics");
    if (!mm) {
      o.error = mm.error();
      return o;
    }
    m = *mm;
  }
  po.metrics = m ? &*m : nullptr;
  po.vendor = arg_string(a, "vendor");
  po.display_path = s.roots().display(cfg->source_file);  // diff headers relative to the root
  auto kb = audit::load_rule_base();
  if (!kb) {
    o.error = kb.error();
    return o;
  }
  auto p = audit::make_patch(cfg->source_file, po, *kb);
  if (!p) {
    o.error = p.error();
    return o;
  }
  o.result = p->result;
  if (p->unsafe) {  // the edit would damage the user's file: nothing is written
    o.error = *p->unsafe;
    return o;
  }
  // The patched file beside the session's reports, so a user can diff and apply it.
  std::string dir = s.options().out_dir + "/" + s.next_id("patch");
  std::string file = dir + "/patched_" + std::filesystem::path(cfg->source_file).filename().string();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec && write_file(file, p->patched_text).ok()) o.result["patched_file_path"] = file;
  std::ostringstream t;
  t << o.result["rationale"].size() << " rule(s) applied";
  if (o.result["expected_speedup_low"].is_number())
    t << ", predicted " << format_fixed(o.result["expected_speedup_low"].get<double>(), 2) << "-"
      << format_fixed(o.result["expected_speedup_high"].get<double>(), 2) << "x";
  t << ", confidence " << o.result["confidence"].dump();
  o.text = t.str();
  return o;
}

// A benchmark's record, found through the goblin_run.id this server put in its result.
const RunRecord* record_of(const Json& metrics, const Session& s) {
  if (!metrics.is_object() || !metrics.contains("goblin_run") || !metrics["goblin_run"].is_object()) return nullptr;
  const Json& id = metrics["goblin_run"]["id"];
  return id.is_string() ? s.find_run(id.get<std::string>()) : nullptr;
}

ToolOutcome compare_runs_tool(const Json& a, Session& s, CallContext&) {
  ToolOutcome o;
  auto b = audit::run_input_from_json(a["before"], "before");
  if (!b) {
    o.error = b.error();
    return o;
  }
  auto af = audit::run_input_from_json(a["after"], "after");
  if (!af) {
    o.error = af.error();
    return o;
  }
  auto kb = audit::load_rule_base();
  if (!kb) {
    o.error = kb.error();
    return o;
  }
  audit::CompareOptions co;
  co.workload_name = arg_string(a, "workload_name");
  co.kb = &*kb;
  const RunRecord* rb = record_of(a["before"], s);
  const RunRecord* ra = record_of(a["after"], s);
  std::set<std::string> seen;
  auto note = [&](const std::string& n) {
    if (seen.insert(n).second) co.notes.push_back(n);
  };
  for (const RunRecord* r : {rb, ra})
    if (r)
      for (const auto& n : r->notes) note(n);
  if (rb && ra) {
    co.runner_kind = rb->runner == ra->runner ? rb->runner : "";
    b->bench.step_time_s = rb->step_time_samples;
    b->bench.tokens_per_sec = rb->tokens_samples;
    af->bench.step_time_s = ra->step_time_samples;
    af->bench.tokens_per_sec = ra->tokens_samples;
    co.after_run_config = ra->ran;
    co.interleaved = false;  // two benchmark calls: before, then after
    note(std::string("before and after benchmarked in blocks (one ") + ra->runner +
         " benchmark call per side, before first)" +
         (rb->step_time_samples.empty() ? "; no per-run samples, so no interval" : ""));
    if (rb->ran) {
      std::string f;
      for (const auto& x : audit::config_differences(rb->requested, *rb->ran)) f += (f.empty() ? "" : ", ") + x;
      note("the measured BEFORE run is not exactly the given config (differs on " + f + ")");
    }
    if (const RunRecord* p = s.last_profile_of(rb->requested)) co.profiled_before = p->metrics;
  } else {
    note("before/after were not both measured by this session's benchmark tool: the report takes them as given");
  }
  auto rep = audit::compare_runs(*b, *af, a["patch"], co);
  if (!rep) {
    o.error = rep.error();
    return o;
  }
  o.result = *rep;
  std::string id = s.next_id("report");
  std::string dir = s.options().out_dir + "/" + id;
  std::vector<std::string> written;
  if (Status st = audit::write_report_files(*rep, dir, &written); !st.ok()) {
    o.error = st.error();
    return o;
  }
  o.result["written"] = written;
  for (const auto& w : written) {
    std::string fname = std::filesystem::path(w).filename().string();
    std::string ext = std::filesystem::path(w).extension().string();
    std::string mime = ext == ".json" ? "application/json" : ext == ".html" ? "text/html" : "text/markdown";
    s.add_report({"goblin://reports/" + id + "/" + fname, id + "/" + fname, w, mime});
  }
  o.text = rep->value("summary_line", std::string("report written"));
  return o;
}

}  // namespace

void add_audit_tools(ToolRegistry& r) {
  r.add({"parse_config",
         "Parse a workload config",
         "Seed 000's parse_config: read a workload config (HF-style YAML/JSON, Python training script, env file) "
         "into a WorkloadConfig with every field, its origin and redacted secrets. Same as `goblin parse-config`.",
         {},
         object_schema({{"file_path", prop("string", "config file inside the server's --root directories")}},
                       {"file_path"}),
         true,
         false,
         parse_config_tool});
  r.add({"profile_run",
         "Profile a short run",
         "Seed 000's profile_run: RunMetrics + additive waste budget of a short profiled run of the config. Live only "
         "with --allow-live on a GPU machine (goblin's own profile runner); otherwise from the session's --replay "
         "recordings; otherwise ok=false. Never invents results.",
         {},
         object_schema({{"config", config_schema()},
                        {"steps", prop("integer", "profiled steps (live runs; default: the runner's 5)")}},
                       {"config"}),
         true,
         true,
         [](const Json& a, Session& s, CallContext& c) { return measure("profile", a, s, c); }});
  r.add({"query_kb",
         "Search the cited rule base",
         "Seed 000's query_rocm_kb: offline BM25 search over the cited rule base (AMD and NVIDIA rules). Pass "
         "`symptom` or a batch of `symptoms` (deduplicated union of the top_k hits of each). Derive symptoms from "
         "BOTH the config and the waste budget.",
         {"query_rocm_kb"},
         object_schema(
             {{"symptom", prop("string", "one symptom")},
              {"symptoms",
               {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "several symptoms in one call"}}},
              {"top_k", prop("integer", "hits per symptom, 1-1000 (default 5)")},
              {"top", prop("integer", "the same as top_k (the CLI spells it --top)")}}),
         true,
         false,
         query_kb_tool});
  r.add(
      {"propose_patch",
       "Patch the config with rules",
       "Seed 000's propose_patch: apply the rules (ids from query_kb) whose detect holds to the config, in the "
       "user's own file format, with a diff, a predicted speedup range from the metrics' waste budget and an "
       "honest confidence (evidence_coverage x rule_consistency). Same as `goblin patch`.",
       {},
       object_schema({{"config", config_schema()},
                      {"rule_ids",
                       {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "rule ids from query_kb"}}},
                      {"rules", {{"type", "array"}, {"description", "older shape: Rule objects (their ids are used)"}}},
                      {"metrics", {{"type", "object"}, {"description", "RunMetrics from profile_run"}}},
                      {"vendor", prop("string", "amd | nvidia, when the metrics do not say")}},
                     {"config"}),
       true,
       false,
       propose_patch_tool});
  r.add({"benchmark",
         "Benchmark a config",
         "Seed 000's benchmark: unprofiled timing of the config (the original, then propose_patch's new_config). "
         "Live only with --allow-live on a GPU machine (goblin's own bench runner); otherwise from the session's "
         "--replay recordings; otherwise ok=false.",
         {},
         object_schema({{"config", config_schema()},
                        {"steps", prop("integer", "timed steps per run (live; default: the runner's 20)")},
                        {"cache", prop("boolean", "reuse a cached bench result (default true)")}},
                       {"config"}),
         true,
         true,
         [](const Json& a, Session& s, CallContext& c) { return measure("bench", a, s, c); }});
  r.add({"compare_runs",
         "The final Report",
         "Seed 000's compare_runs: the final Report from the before and after benchmark results and the patch: "
         "speedup actual vs predicted, waste budgets, findings (footguns, bitsandbytes on ROCm), validity footer. "
         "Writes report.json/.md/.html (also served as resources). Same as `goblin compare`.",
         {},
         object_schema({{"workload_name", prop("string", "name for the report")},
                        {"before", {{"type", "object"}, {"description", "benchmark result of the original config"}}},
                        {"after", {{"type", "object"}, {"description", "benchmark result of the patched config"}}},
                        {"patch", {{"type", "object"}, {"description", "propose_patch's result"}}}},
                       {"before", "after", "patch"}),
         true,
         false,
         compare_runs_tool});
}

}  // namespace goblin::mcp
