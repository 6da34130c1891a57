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

struct OverlapRequest {
  std::string graph_off_trace, graph_on_trace;
  int64_t top = 20;
};

VerbResult overlap_verb(const OverlapRequest& rq, Context& ctx) {
  VerbResult vr;
  const std::string& mapping_path = rq.graph_off_trace;
  const std::string& formal_path = rq.graph_on_trace;
  ASSIGN_OR_RETURN(auto mapping, trace::load_trace(mapping_path, trace::kNeedKernels));
  ASSIGN_OR_RETURN(auto formal, trace::load_trace(formal_path, trace::kNeedGpuOps));
  ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
  const analysis::OverlapJoinResult joined = analysis::overlap_join(mapping.timeline, formal.timeline, *kn);
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
  const int64_t top = rq.top;
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
  if (mapping.damage)
    vr.error = mapping.damage;
  else if (formal.damage)
    vr.error = formal.damage;
  return vr;
}

struct PerfettoFixRequest {
  std::string trace, out;
};

VerbResult perfetto_fix_verb(const PerfettoFixRequest& rq, Context& ctx) {
  std::string out = rq.out;
  if (out.empty()) {  // a door that picks the place (MCP): a fresh folder of the session
    if (!ctx.output_dir) return make_error(ErrorKind::Usage, "missing --out");
    ASSIGN_OR_RETURN(const std::string d, ctx.output_dir("perfetto-fix"));
    out = (std::filesystem::path(d) / "perfetto_fixed.json.gz").string();
  }
  ASSIGN_OR_RETURN(const analysis::PerfettoFixStats s, analysis::perfetto_fix_file(rq.trace, out));
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
    typed_request<OverlapRequest>(
        v, overlap_verb,
        param(&OverlapRequest::graph_off_trace,
              positional_path("graph_off_trace", "Trace of the run with CUDA graphs off (attribution)")),
        param(&OverlapRequest::graph_on_trace,
              positional_path("graph_on_trace", "Trace of the same run with CUDA graphs on (timing)")),
        param(&OverlapRequest::top, top));
    v.result_schema = Json{{"type", "object"},
                           {"properties",
                            {{"mapping_trace", {{"description", "the graphs-off trace, as given"}}},
                             {"formal_trace", {{"description", "the graphs-on trace, as given"}}},
                             {"rows", {{"description", "one row per kernel of the graphs-on trace"}}}}}};
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
    typed_request<PerfettoFixRequest>(
        v, perfetto_fix_verb,
        param(&PerfettoFixRequest::trace, positional_path("trace", "Kineto / Chrome trace JSON (optionally .gz)")),
        param(&PerfettoFixRequest::out, o));
    v.result_schema = Json{{"type", "object"},
                           {"properties",
                            {{"out", {{"description", "the file written"}}},
                             {"moved", {{"description", "GPU events moved to an extra track"}}},
                             {"extra_tracks", {{"description", "<tid>_hackN tracks created"}}}}}};
    v.writes = true;
    out.push_back(std::move(v));
  }
}

}  // namespace goblin::app
