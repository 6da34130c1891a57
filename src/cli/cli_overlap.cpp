// goblin overlap GRAPH_OFF_TRACE GRAPH_ON_TRACE [--top N] [--json]: overlap_join
// (analysis/overlap_join.h) rendered.
#include <cstdio>

#include "analysis/overlap_join.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "trace/load.h"

namespace goblin {

void register_overlap(CLI::App& app) {
  struct Opts {
    std::string mapping, formal;
    int top = 20;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd =
      app.add_subcommand("overlap",
                         "Overlap opportunities of a CUDA-graph run: timing from a trace with graphs on, each kernel "
                         "attributed to its CPU op / Python line through a trace of the same run with graphs off "
                         "(joined by kernel name and order)");
  cmd->footer(help_footer_with_examples(
      "  goblin overlap graph_off.json.gz graph_on.json.gz             table of overlap opportunities\n"
      "  goblin overlap examples/h100_cudagraphs/graph_off_compile_default.json.gz \\\n"
      "                 examples/h100_cudagraphs/graph_on_reduce_overhead.json.gz --top 10 --json\n"));
  cmd->add_option("graph_off_trace", o->mapping, "Trace of the run with CUDA graphs off (attribution)")->required();
  cmd->add_option("graph_on_trace", o->formal, "Trace of the same run with CUDA graphs on (timing)")->required();
  cmd->add_option("--top", o->top, "Rows in the readable table")->check(CLI::Range(1, 1000));
  cmd->add_flag("--json", o->json, "Print the {ok, result, error} envelope");
  cmd->callback([o] {
    run_verb(o->json, [&]() -> VerbResult {
      VerbResult vr;
      auto mapping = load_trace(o->mapping, kNeedKernels);
      if (!mapping) {
        vr.error = mapping.error();
        return vr;
      }
      auto formal = load_trace(o->formal, kNeedGpuOps);
      if (!formal) {
        vr.error = formal.error();
        return vr;
      }
      auto joined = overlap_join(mapping->timeline, formal->timeline);
      if (!joined) {
        vr.error = joined.error();
        return vr;
      }
      Json res;
      res["mapping_trace"] = o->mapping;
      res["formal_trace"] = o->formal;
      Json joined_json = overlap_join_to_json(*joined);  // kept alive: items() only refers to it
      for (auto& [k, v] : joined_json.items()) res[k] = v;
      vr.result = std::move(res);
      std::string h = "join: " + std::to_string(joined->matched) +
                      " formal GPU ops attributed through the mapping trace, " + std::to_string(joined->unmatched) +
                      " without a same-name kernel there\n";
      for (const auto& d : joined->devices)
        h += "device " + std::to_string(d.device) + ": busy " + std::to_string(d.busy_ns / 1000) + " us, 2+ streams " +
             std::to_string(d.multi_stream_ns / 1000) + " us, peak concurrency " + std::to_string(d.peak_concurrency) +
             "\n";
      int n = 0;
      for (const auto& r : joined->rows) {
        if (n++ >= o->top) break;
        char b[256];
        std::snprintf(b, sizeof b, "%s  excl %3.0f%%  hid %3.0f%%  share %6.2f%%  dep %-6s ", priority_name(r.priority),
                      r.exclusive_pct, r.hidden_pct, r.share_pct, r.dependency_risk.c_str());
        h += b + r.verdict + "  " + r.kernel.substr(0, 60) + "  [" + (r.cpu_op.empty() ? "?" : r.cpu_op) +
             (r.python_location.empty() ? "" : " @ " + r.python_location) + "]\n";
      }
      vr.human = h;
      if (mapping->damage)
        vr.error = mapping->damage;
      else if (formal->damage)
        vr.error = formal->damage;
      return vr;
    });
  });
}

}  // namespace goblin
