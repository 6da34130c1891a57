// goblin overlap GRAPH_OFF_TRACE GRAPH_ON_TRACE [--top N] [--json]: overlap_join
// (analysis/overlap_join.h) rendered.
#include <fmt/format.h>

#include <iterator>
#include <string_view>

#include "analysis/overlap_join.h"
#include "cli/record_options.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "trace/load.h"

namespace goblin::cli {

void register_overlap(CLI::App& app) {
  struct Opts {
    std::string mapping, formal;
    int top = 20;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto rec = std::make_shared<RecordOptions>();
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
  add_record_options(cmd, *rec, /*with_workload=*/true);
  cmd->callback([o, rec] {
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
      std::string h = fmt::format(
          "join: {} formal GPU ops attributed through the mapping trace, {} without a same-name kernel there\n",
          joined->matched, joined->unmatched);
      auto out = std::back_inserter(h);
      for (const auto& d : joined->devices)
        fmt::format_to(out, "device {}: busy {} us, 2+ streams {} us, peak concurrency {}\n", d.device,
                       d.busy_ns / 1000, d.multi_stream_ns / 1000, d.peak_concurrency);
      int n = 0;
      for (const auto& r : joined->rows) {
        if (n++ >= o->top) break;
        // Numbers right-aligned explicitly: fmt would left-align nan/inf in a width, printf did not.
        fmt::format_to(out, "{}  excl {:>3.0f}%  hid {:>3.0f}%  share {:>6.2f}%  dep {:<6} {}  {}  [{}{}]\n",
                       priority_name(r.priority), r.exclusive_pct, r.hidden_pct, r.share_pct, r.dependency_risk,
                       r.verdict, std::string_view(r.kernel).substr(0, 60), r.cpu_op.empty() ? "?" : r.cpu_op,
                       r.python_location.empty() ? "" : " @ " + r.python_location);
      }

      vr.human = h;
      if (mapping->damage)
        vr.error = mapping->damage;
      else if (formal->damage)
        vr.error = formal->damage;
      record_cli_result(*rec, "overlap", {o->mapping, o->formal}, "", vr);  // after success only
      return vr;
    });
  });
}

}  // namespace goblin::cli
