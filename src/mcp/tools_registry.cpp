// The MCP door of the verb registry (app/verb.h): each verb with an MCP name becomes a tool whose
// inputSchema is generated from its request fields. Its handler confines every path argument to
// the server's --root directories, gives the verb the session's output folder for what it
// writes, and returns the verb's VerbResult — the same result JSON `goblin <verb> --json` prints
// for the same request (app/registry_parity_test.cpp).
#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "app/verb.h"
#include "core/confine.h"
#include "core/random_tag.h"
#include "mcp/tools.h"
#include "mcp/verb_outcome.h"

namespace goblin::mcp {

namespace {

using app::FieldKind;

// A workspace the kernel tools read and write in place: it must lie under the session's --out
// (the only place the server writes), given relative to it, or as a path inside the roots.
Result<std::string> confine_workdir(const std::string& arg, const std::string& what, const Roots& roots,
                                    const std::string& out_dir) {
  ASSIGN_OR_RETURN(auto out, Roots::make({out_dir}));
  auto p = out.resolve(arg, what);
  if (!p.ok()) p = roots.resolve(arg, what);
  if (p.ok() && path_beneath(*p, out.dirs().front())) return *p;
  return make_error(ErrorKind::Usage,
                    what + " '" + arg + "' is not a workspace under the server's --out (create one with kernel_init)",
                    arg);
}

// Path arguments resolved inside the roots (a JSON document given inline is left alone).
Result<Json> confine_paths(const app::Verb& v, const Json& args, const Roots& roots, const std::string& out_dir) {
  Json a = args;
  for (const app::Field& f : v.request) {
    if (!a.contains(f.name) || a[f.name].is_null()) continue;
    Json& x = a[f.name];
    if (f.kind == FieldKind::WorkDir && x.is_string()) {
      ASSIGN_OR_RETURN(auto p, confine_workdir(x.get<std::string>(), f.name, roots, out_dir));
      x = p;
      continue;
    }
    const bool path_kind = f.kind == FieldKind::InputPath || f.kind == FieldKind::InputPaths ||
                           (f.kind == FieldKind::InputJson && x.is_string());
    if (!path_kind) continue;
    if (x.is_string()) {
      ASSIGN_OR_RETURN(auto p, roots.resolve(x.get<std::string>(), f.name));
      x = p;
    } else if (x.is_array()) {
      for (auto& e : x) {
        if (!e.is_string()) continue;  // make_request names the wrong type
        ASSIGN_OR_RETURN(auto p, roots.resolve(e.get<std::string>(), f.name));
        e = p;
      }
    }
  }
  return a;
}

// A benchmark's record, found through the goblin_run.id this server put in its result.
const RunRecord* record_of(const Json& metrics, const Session& s) {
  if (!metrics.is_object() || !metrics.contains("goblin_run") || !metrics["goblin_run"].is_object()) return nullptr;
  const Json& id = metrics["goblin_run"]["id"];
  return id.is_string() ? s.find_run(id.get<std::string>()) : nullptr;
}

// compare_runs over MCP knows how its before and after were measured: the session's benchmark
// calls recorded their per-run samples, the config each really ran and the runner's notes.
void enrich_compare(Session& s, const Json& args, audit::RunInput& b, audit::RunInput& a, audit::CompareOptions& co) {
  const RunRecord* rb = record_of(args.value("before", Json()), s);
  const RunRecord* ra = record_of(args.value("after", Json()), s);
  std::set<std::string> seen;
  auto note = [&](const std::string& n) {
    if (seen.insert(n).second) co.notes.push_back(n);
  };
  for (const RunRecord* r : {rb, ra})
    if (r)
      for (const auto& n : r->notes) note(n);
  if (rb && ra) {
    co.runner_kind = rb->runner == ra->runner ? rb->runner : "";
    b.bench.step_time_s = rb->step_time_samples;
    b.bench.tokens_per_sec = rb->tokens_samples;
    a.bench.step_time_s = ra->step_time_samples;
    a.bench.tokens_per_sec = ra->tokens_samples;
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
  }
  // Neither side from this session's benchmark: nothing to add, so the report is the one
  // `goblin compare` gives for the same files (its inputs note already says they were read as given).
}

// A new folder under the session's --out for one call's files. Its name carries a random part and
// it is created with mkdir, which fails on anything already there — a directory or a symlink
// planted under a predictable name — so a call never writes into a place it did not just make.
Result<std::string> fresh_output_dir(Session& s, const std::string& kind) {
  std::error_code ec;
  std::filesystem::create_directories(s.options().out_dir, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create the output folder: " + ec.message(), s.options().out_dir);
  const std::string dir = s.options().out_dir + "/" + s.next_id(kind) + "-" + random_hex_tag(8);
  if (::mkdir(dir.c_str(), 0755) != 0)
    return make_error(ErrorKind::Io, std::string("cannot create a fresh output folder: ") + std::strerror(errno), dir);
  return dir;
}

}  // namespace

ToolOutcome call_verb_tool(const app::Verb& v, const Json& args, Session& s, CallContext& cc,
                           const std::function<void(app::Context&)>& hooks) {
  auto confined = confine_paths(v, args, s.roots(), s.options().out_dir);
  if (!confined) return ToolOutcome{nullptr, confined.error(), ""};
  std::vector<std::string> missing;
  auto rq = app::make_request(v, *confined, app::kMcp, &missing);
  if (!rq) return ToolOutcome{nullptr, rq.error(), ""};
  if (!missing.empty()) {
    std::string m;
    for (const auto& x : missing) m += (m.empty() ? "" : ", ") + x;
    return ToolOutcome{
        nullptr, make_error(ErrorKind::Usage, "missing required argument: " + m + " (" + v.tool + "'s inputSchema)"),
        ""};
  }
  app::Context ctx;
  ctx.door = app::kMcp;
  ctx.resolve_input = [&s](const std::string& p, const std::string& what) { return s.roots().resolve(p, what); };
  ctx.output_dir = [&s](const std::string& kind) { return fresh_output_dir(s, kind); };
  ctx.on_written = [&s](const std::string& id, const std::vector<std::string>& files) {
    for (const auto& w : files) {
      const std::string fname = std::filesystem::path(w).filename().string();
      const std::string ext = std::filesystem::path(w).extension().string();
      const std::string mime = ext == ".json" ? "application/json" : ext == ".html" ? "text/html" : "text/markdown";
      s.add_report({"goblin://reports/" + id + "/" + fname, id + "/" + fname, w, mime});
    }
  };
  ctx.enrich_compare = [&s](const Json& a, audit::RunInput& b, audit::RunInput& af, audit::CompareOptions& co) {
    enrich_compare(s, a, b, af, co);
  };
  ctx.progress = cc.progress;
  ctx.cancelled = cc.cancelled;
  if (hooks) hooks(ctx);
  return from_verb(app::run_verb(v, *rq, ctx));
}

Tool tool_for_verb(const std::string& name) {
  const app::Verb* v = app::find_verb(name);
  Tool t;
  t.name = v->tool;
  t.title = v->title;
  t.description =
      v->summary + (v->description.empty() ? "" : ". " + v->description) + " Same as `goblin " + v->cli_name() + "`.";
  t.aliases = v->tool_aliases;
  t.input_schema = app::input_schema(*v, app::kMcp);
  t.audit = v->audit_budget;
  t.writes = v->writes;
  t.result_schema = v->result_schema;
  t.run = [v](const Json& a, Session& s, CallContext& c) { return call_verb_tool(*v, a, s, c, {}); };
  // compare_runs reads the session's benchmark records and publishes its reports as resources:
  // it runs in the server process. The other verbs only read files and write under --out.
  t.session_bound = v->tool == "compare_runs";
  // The spec database and the rule base are goblin's own cited data, not the user's files.
  t.quotes_user_text = v->tool != "specs" && v->tool != "query_kb";
  return t;
}

ToolRegistry make_registry() {
  ToolRegistry r;
  ToolRegistry measure;
  add_measure_tools(measure);
  // The audit trajectory's order first (parse, profile, query, patch, benchmark, compare), then
  // the analyses.
  r.add(tool_for_verb("parse_config"));
  r.add(*measure.find("profile_run"));
  r.add(tool_for_verb("query_kb"));
  r.add(tool_for_verb("propose_patch"));
  r.add(*measure.find("benchmark"));
  r.add(tool_for_verb("compare_runs"));
  for (const char* n :
       {"info", "triage", "breakdown", "overlap", "perfetto_fix", "metrics", "diff", "ranks", "summarize",
        "slurm_script", "critical_path", "query", "export", "specs", "roofline", "diagnose", "memory"})
    r.add(tool_for_verb(n));
  // The kernel optimization loop (docs/kernel.md; the gpu_kernel_optimize prompt teaches it).
  for (const char* n :
       {"kernel_init", "kernel_bench", "kernel_profile", "kernel_plan", "kernel_record", "kernel_status"})
    r.add(tool_for_verb(n));
  return r;
}

}  // namespace goblin::mcp
