// The two audit tools bound to the MCP session: profile_run and benchmark measure a config through
// the session's runner (the --replay recordings, or the live runner with --allow-live) and keep a
// record of how each run was measured, which compare_runs reads (tools_registry.cpp). The other
// audit steps are registry verbs (app/verbs_audit.cpp).
#include <fmt/format.h>

#include <filesystem>
#include <iterator>
#include <set>

#include "analysis/metrics_io.h"
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

Json config_schema() {
  return Json{{"type", "object"},
              {"description", "the FULL WorkloadConfig dict parse_config returned (or propose_patch's new_config)"}};
}

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

std::string metrics_text(const RunMetrics& m, const RunRecord& r) {
  std::string t = fmt::format("{} {} {}: step {:.1f} ms", r.runner, r.kind, r.id, m.step_time_s * 1e3);
  if (m.tokens_per_sec) fmt::format_to(std::back_inserter(t), ", {:.0f} tokens/s", *m.tokens_per_sec);
  if (!m.gpu_name.empty()) fmt::format_to(std::back_inserter(t), " on {}", m.gpu_name);
  return t;
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

}  // namespace

void add_measure_tools(ToolRegistry& r) {
  Tool profile{
      "profile_run",
      "Profile a short run",
      "RunMetrics + additive waste budget of a short profiled run of the config. Live only "
      "with --allow-live on a GPU machine (goblin's own profile runner); otherwise from the session's --replay "
      "recordings; otherwise ok=false. Never invents results.",
      {},
      object_schema({{"config", config_schema()},
                     {"steps", prop("integer", "profiled steps (live runs; default: the runner's 5)")}},
                    {"config"}),
      true,
      true,
      [](const Json& a, Session& s, CallContext& c) { return measure("profile", a, s, c); },
      false,
      Json(),
      true};
  Tool bench{"benchmark",
             "Benchmark a config",
             "Unprofiled timing of the config (the original, then propose_patch's new_config). "
             "Live only with --allow-live on a GPU machine (goblin's own bench runner); otherwise from the session's "
             "--replay recordings; otherwise ok=false.",
             {},
             object_schema({{"config", config_schema()},
                            {"steps", prop("integer", "timed steps per run (live; default: the runner's 20)")},
                            {"cache", prop("boolean", "reuse a cached bench result (default true)")}},
                           {"config"}),
             true,
             true,
             [](const Json& a, Session& s, CallContext& c) { return measure("bench", a, s, c); },
             false,
             Json(),
             true};
  // Both record their run in the session (compare_runs reads it), hence session_bound (true
  // above): they run in the server process, and a stopped call ends through the live runner's
  // process groups.
  r.add(std::move(profile));
  r.add(std::move(bench));
}

}  // namespace goblin::mcp
