// The MCP door of the verb registry (app/verb.h): each verb with an MCP name becomes a tool whose
// inputSchema is generated from its request fields. Its handler confines every path argument to
// the server's --root directories, gives the verb the session's output folder for what it
// writes, and returns the verb's VerbResult — the same result JSON `goblin <verb> --json` prints
// for the same request (app/registry_parity_test.cpp).
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "app/path_roots.h"
#include "app/verb.h"
#include "core/confine.h"
#include "core/random_tag.h"
#include "mcp/tool_groups.h"
#include "mcp/tools.h"
#include "mcp/verb_outcome.h"

namespace goblin::mcp {

namespace {

using app::FieldKind;

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
  auto confined = app::confine_path_args(v, args, s.roots(), s.options().out_dir);
  if (!confined) return ToolOutcome{nullptr, confined.error(), ""};
  app::Context ctx;
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
  ctx.caller_code_allowed = s.options().allow_live;
  if (hooks) hooks(ctx);
  return from_verb(app::call(v, *confined, app::kMcp, ctx));
}

Tool tool_for_verb(const std::string& name) {
  const app::Verb* v = app::find_verb(name);
  Tool t;
  t.name = v->tool;
  t.title = v->title;
  std::string d = v->summary + (v->description.empty() ? "" : ". " + v->description);
  if (!d.empty() && d.back() != '.') d += '.';
  t.description = d + " Same as `goblin " + v->cli_name() + "`.";
  t.aliases = v->tool_aliases;
  t.input_schema = app::input_schema(*v, app::kMcp);
  t.audit = v->audit_budget;
  t.writes = v->writes;
  t.result_schema = v->result_schema;
  t.run = [v](const Json& a, Session& s, CallContext& c) { return call_verb_tool(*v, a, s, c, {}); };
  t.session_bound = v->session_bound;
  t.quotes_user_text = v->quotes_user_text;
  return t;
}

ToolRegistry make_registry() {
  ToolRegistry r;
  // profile_run and benchmark measure through the session's runner (tools_audit.cpp): their tools
  // wrap the registry verb with that hook.
  ToolRegistry measure;
  add_measure_tools(measure);
  std::vector<const app::Verb*> offered;
  for (const app::Verb& v : app::verbs())
    if ((v.doors & app::kMcp) && !v.tool.empty()) offered.push_back(&v);
  // The audit trajectory's order first (parse, profile, query, patch, benchmark, compare), then
  // the analyses and the kernel loop in the registry's order.
  std::stable_sort(offered.begin(), offered.end(), [](const app::Verb* a, const app::Verb* b) {
    const int x = a->audit_step > 0 ? a->audit_step : 1000, y = b->audit_step > 0 ? b->audit_step : 1000;
    return x < y;
  });
  for (const app::Verb* v : offered) {
    if (const Tool* m = measure.find(v->tool))
      r.add(*m);
    else
      r.add(tool_for_verb(v->cli_name()));
  }
  return r;
}

Result<ToolRegistry> make_registry(const std::string& tools_spec) {
  ASSIGN_OR_RETURN(auto chosen, select_groups(tools_spec));
  ASSIGN_OR_RETURN(auto groups, tool_groups());
  ToolRegistry all = make_registry();
  ToolRegistry r;
  for (const Tool& t : all.all()) {
    const std::string g = groups->group_of(t.name);
    if (std::find(chosen.begin(), chosen.end(), g) != chosen.end()) {
      r.add(t);
      continue;
    }
    r.hold_back(t.name, g);
    for (const auto& a : t.aliases) r.hold_back(a, g);
  }
  r.set_groups(std::move(chosen));
  return r;
}

}  // namespace goblin::mcp
