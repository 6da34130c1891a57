// The two audit tools bound to the MCP session: profile_run and benchmark are the profile and
// bench verbs (app/verbs_run.cpp) measuring a config through the session's runner (the --replay
// recordings, or the live runner with --allow-live), keeping a record of how each run was
// measured, which compare_runs reads (tools_registry.cpp). The other audit steps are registry
// verbs (app/verbs_audit.cpp).
#include <fmt/format.h>

#include <filesystem>
#include <iterator>
#include <set>

#include "analysis/metrics_io.h"
#include "app/verb.h"
#include "audit/compare.h"
#include "audit/patch.h"
#include "audit/report.h"
#include "audit/rules.h"
#include "config/workload_config.h"
#include "core/io.h"
#include "mcp/live_calls.h"
#include "mcp/tools.h"

namespace goblin::mcp {

namespace {

// The config dict an agent passes back: read into a WorkloadConfig; its source_file (when set)
// must lie inside the roots.
Result<config::WorkloadConfig> config_arg(const Json& a, Session& s) {
  ASSIGN_OR_RETURN(auto c, config::config_from_json(a["config"]));
  if (!c.source_file.empty()) {
    ASSIGN_OR_RETURN(auto p, s.roots().resolve(c.source_file, "config.source_file"));
    c.source_file = p;
  }
  return c;
}

std::string metrics_text(const analysis::RunMetrics& m, const RunRecord& r) {
  std::string t = fmt::format("{} {} {}: step {:.1f} ms", r.runner, r.kind, r.id, m.step_time_s * 1e3);
  if (m.tokens_per_sec) fmt::format_to(std::back_inserter(t), ", {:.0f} tokens/s", *m.tokens_per_sec);
  if (!m.gpu_name.empty()) fmt::format_to(std::back_inserter(t), " on {}", m.gpu_name);
  return t;
}

// profile_run and benchmark: the profile and bench verbs measured through the session's runner
// (Context::measure). They share everything but the runner call.
VerbResult measure(const std::string& kind, const app::Request& rq, Session& s, CallContext& ctx) {
  VerbResult o;
  auto cfg = config_arg(rq.args(), s);
  if (!cfg) {
    o.error = cfg.error();
    return o;
  }
  RunRecord rec;
  rec.id = s.next_id(kind);
  rec.kind = kind;
  rec.requested = *cfg;
  const int steps = rq.has("steps") ? static_cast<int>(rq.integer("steps")) : 0;
  if (rq.has("steps") && steps < 1) {
    o.error = make_error(ErrorKind::Usage, "steps must be at least 1");
    return o;
  }
  auto m = run_measurement(kind, *cfg, steps, s, ctx, rec);
  if (!m) {
    o.error = m.error();
    o.result = Json{{"goblin_run", {{"id", rec.id}, {"notes", rec.notes}}}};
    return o;
  }
  rec.metrics = *m;
  o.result = analysis::run_metrics_to_json(*m);
  Json gr = {{"id", rec.id}, {"runner", rec.runner}, {"notes", rec.notes}};
  if (rec.ran) gr["ran_config_differs_on"] = audit::config_differences(rec.requested, *rec.ran);
  if (!rec.step_time_samples.empty()) gr["per_run_step_time_s"] = rec.step_time_samples;
  o.result["goblin_run"] = gr;
  o.human = metrics_text(*m, rec);
  s.record_run(std::move(rec));
  return o;
}

// The verb `name` as the session-bound tool: its description, title and schemas are the ones the
// audit agent has always read (docs/mcp.md); the call goes through app::run_verb.
Tool measure_tool(const std::string& verb, const std::string& kind, const std::string& description) {
  Tool t = tool_for_verb(verb);
  t.description = description;
  t.long_running = true;
  t.writes = false;
  t.result_schema = Json();
  const app::Verb* v = app::find_verb(verb);
  t.run = [v, kind](const Json& a, Session& s, CallContext& c) {
    return call_verb_tool(*v, a, s, c, [kind, &s, &c](app::Context& ctx) {
      ctx.measure = [kind, &s, &c](const std::string&, const app::Request& rq) { return measure(kind, rq, s, c); };
    });
  };
  return t;
}

}  // namespace

void add_measure_tools(ToolRegistry& r) {
  r.add(measure_tool("profile_run", "profile",
                     "RunMetrics + additive waste budget of a short profiled run of the config: live when the "
                     "server allows live runs (goblin's own profile runner, a GPU), else from its replay "
                     "recordings, else ok=false. Never invents results."));
  r.add(measure_tool("benchmark", "bench",
                     "Unprofiled timing of the config (the original, then propose_patch's new_config): live when "
                     "the server allows live runs (goblin's own bench runner, measured anew on every call), else "
                     "from its replay recordings, else ok=false."));
}

}  // namespace goblin::mcp
