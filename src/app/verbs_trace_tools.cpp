// Two verbs over Kineto traces that are not one trace's analysis: overlap (a CUDA-graph run's
// overlap opportunities, attributed through a second trace of the same run with graphs off) and
// perfetto-fix (a trace rewritten so Perfetto draws overlapping kernels). Both only read traces
// and write one file at most, so every door offers them.
#include <fmt/format.h>

#include <filesystem>
#include <iterator>
#include <string_view>

#include "analysis/overlap_join.h"
#include "analysis/perfetto_fix.h"
#include "app/analysis_context.h"
#include "app/registry.h"
#include "trace/load.h"

namespace goblin::app {

namespace {

VerbResult overlap_verb(const Request& rq, Context& ctx) {
  VerbResult vr;
  const std::string mapping_path = rq.str("graph_off_trace"), formal_path = rq.str("graph_on_trace");
  auto mapping = trace::load_trace(mapping_path, trace::kNeedKernels);
  if (!mapping) return VerbResult{nullptr, mapping.error(), ""};
  auto formal = trace::load_trace(formal_path, trace::kNeedGpuOps);
  if (!formal) return VerbResult{nullptr, formal.error(), ""};
  auto kn = analysis_knowledge_of(ctx);
  if (!kn) return VerbResult{nullptr, kn.error(), ""};
  const analysis::OverlapJoinResult joined = analysis::overlap_join(mapping->timeline, formal->timeline, **kn);
  Json res;
  res["mapping_trace"] = mapping_path;
  res["formal_trace"] = formal_path;
  Json joined_json = analysis::overlap_join_to_json(joined);  // kept alive: items() only refers to it
  for (auto& [k, v] : joined_json.items()) res[k] = v;
  vr.result = std::move(res);
  std::string h =
      fmt::format("join: {} formal GPU ops attributed through the mapping trace, {} without a same-name kernel there\n",
                  joined.matched, joined.unmatched);
  auto out = std::back_inserter(h);
  for (const auto& d : joined.devices)
    fmt::format_to(out, "device {}: busy {} us, 2+ streams {} us, peak concurrency {}\n", d.device, d.busy_ns / 1000,
                   d.multi_stream_ns / 1000, d.peak_concurrency);
  const int64_t top = rq.integer("top");
  int64_t n = 0;
  for (const auto& r : joined.rows) {
    if (n++ >= top) break;
    // Numbers right-aligned explicitly: fmt would left-align nan/inf in a width, printf did not.
    fmt::format_to(out, "{}  excl {:>3.0f}%  hid {:>3.0f}%  share {:>6.2f}%  dep {:<6} {}  {}  [{}{}]\n",
                   analysis::priority_name(r.priority), r.exclusive_pct, r.hidden_pct, r.share_pct, r.dependency_risk,
                   r.verdict, std::string_view(r.kernel).substr(0, 60), r.cpu_op.empty() ? "?" : r.cpu_op,
                   r.python_location.empty() ? "" : " @ " + r.python_location);
  }
  vr.human = h;
  // Damage in either trace: the result stands and the error says what was lost.
  if (mapping->damage)
    vr.error = mapping->damage;
  else if (formal->damage)
    vr.error = formal->damage;
  return vr;
}

VerbResult perfetto_fix_verb(const Request& rq, Context& ctx) {
  std::string out = rq.str("out");
  if (out.empty()) {  // a door that picks the place (MCP): a fresh folder of the session
    if (!ctx.output_dir) return VerbResult{nullptr, make_error(ErrorKind::Usage, "missing --out"), ""};
    auto d = ctx.output_dir("perfetto-fix");
    if (!d) return VerbResult{nullptr, d.error(), ""};
    out = (std::filesystem::path(*d) / "perfetto_fixed.json.gz").string();
  }
  auto st = analysis::perfetto_fix_file(rq.str("trace"), out);
  if (!st) return VerbResult{nullptr, st.error(), ""};
  const analysis::PerfettoFixStats& s = *st;
  VerbResult vr;
  vr.result = {{"out", out},
               {"events", s.events},
               {"gpu_events", s.gpu_events},
               {"moved", s.moved},
               {"tracks_split", s.tracks_split},
               {"extra_tracks", s.extra_tracks},
               {"flows_moved", s.flows_moved},
               {"unmovable", s.unmovable}};
  vr.human = fmt::format(
      "perfetto-fix: {} GPU events, {} moved to {} extra track(s) on {} track(s), {} flow event(s) re-pointed "
      "-> {}\n",
      s.gpu_events, s.moved, s.extra_tracks, s.tracks_split, s.flows_moved, out);
  if (s.unmovable)
    fmt::format_to(std::back_inserter(vr.human), "{} overlapping event(s) had no tid field and stayed in place\n",
                   s.unmovable);
  return vr;
}

Field positional_path(const char* name, const char* help) {
  Field f{name, FieldKind::InputPath, help};
  f.positional = true;
  f.required = true;
  return f;
}

}  // namespace

void add_trace_tool_verbs(std::vector<Verb>& out) {
  {
    Verb v;
    v.cli_path = {"overlap"};
    v.tool = "overlap";
    v.title = "Overlap opportunities of a CUDA-graph run";
    v.summary =
        "Overlap opportunities of a CUDA-graph run: timing from a trace with graphs on, each kernel attributed to its "
        "CPU op / Python line through a trace of the same run with graphs off (joined by kernel name and order)";
    v.description =
        "The result holds the join's counts (matched, unmatched), per device the busy time, the time two or more "
        "streams ran and the peak concurrency, and one row per kernel with its priority, exclusive and hidden "
        "shares, dependency risk, verdict, CPU op and Python location.";
    v.examples =
        "  goblin overlap graph_off.json.gz graph_on.json.gz             table of overlap opportunities\n"
        "  goblin overlap examples/h100_cudagraphs/graph_off_compile_default.json.gz \\\n"
        "                 examples/h100_cudagraphs/graph_on_reduce_overhead.json.gz --top 10 --json\n";
    Field top{"top", FieldKind::Integer, "Rows in the readable table", 20};
    top.min = 1;
    top.max = 1000;
    v.request = {positional_path("graph_off_trace", "Trace of the run with CUDA graphs off (attribution)"),
                 positional_path("graph_on_trace", "Trace of the same run with CUDA graphs on (timing)"), top};
    v.result_schema = Json{{"type", "object"},
                           {"properties",
                            {{"mapping_trace", {{"description", "the graphs-off trace, as given"}}},
                             {"formal_trace", {{"description", "the graphs-on trace, as given"}}},
                             {"rows", {{"description", "one row per kernel of the graphs-on trace"}}}}}};
    v.run = overlap_verb;
    out.push_back(std::move(v));
  }
  {
    Verb v;
    v.cli_path = {"perfetto-fix"};
    v.tool = "perfetto_fix";
    v.title = "Make a trace open cleanly in Perfetto";
    v.summary =
        "Rewrite a Kineto/Chrome trace so kernels overlapping on one track move to extra tracks (<tid>_hack1, ...) "
        "with flows kept; the result opens cleanly in Perfetto";
    v.description =
        "The result names the file written and counts the events moved, the tracks added and the flows "
        "re-pointed.";
    v.examples = "  goblin perfetto-fix trace.json.gz -o fixed.json.gz   open fixed.json.gz in ui.perfetto.dev\n";
    Field o{"out", FieldKind::OutputFile, "Output file (gzip when it ends in .gz)"};
    o.required = true;
    o.cli = "-o,--out";
    o.doors = kCli | kPython;  // MCP: a file in a fresh folder of the session
    v.request = {positional_path("trace", "Kineto / Chrome trace JSON (optionally .gz)"), o};
    v.result_schema = Json{{"type", "object"},
                           {"properties",
                            {{"out", {{"description", "the file written"}}},
                             {"moved", {{"description", "GPU events moved to an extra track"}}},
                             {"extra_tracks", {{"description", "<tid>_hackN tracks created"}}}}}};
    v.writes = true;
    v.run = perfetto_fix_verb;
    out.push_back(std::move(v));
  }
}

}  // namespace goblin::app
