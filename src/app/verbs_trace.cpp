// The trace verbs in the registry: info, triage, breakdown, metrics, diff, ranks, critical-path. Each reads its
// input through load_trace (trace/load.h), runs one analysis and renders one VerbResult; several
// traces go through the one per-rank loop (app/per_rank.h).
#include <fmt/format.h>

#include <filesystem>

#include "analysis/memory_events.h"
#include "analysis/ranks.h"
#include "analysis/ranks_heatmap.h"
#include "analysis/ranks_scale.h"
#include "analysis/run_metrics.h"
#include "analysis/triage_artifacts.h"
#include "app/analysis_context.h"
#include "app/breakdown_run.h"
#include "app/capture_load.h"
#include "app/critical_path_run.h"
#include "app/diff_run.h"
#include "app/info_run.h"
#include "app/memory_source.h"
#include "app/metrics_text.h"
#include "app/per_rank.h"
#include "app/registry.h"
#include "app/trace_verbs.h"
#include "core/io.h"
#include "model/warning_json.h"
#include "trace/load.h"

namespace goblin::app {

namespace {

Field trace_paths(const std::string& help) {
  Field f{"path", FieldKind::InputPaths, help};
  f.required = true;
  f.positional = true;
  return f;
}
Field trace_path(const std::string& name, const std::string& help) {
  Field f{name, FieldKind::InputPath, help};
  f.required = true;
  f.positional = true;
  return f;
}
Field top_field(int64_t dflt, int64_t max, const std::string& help) {
  Field f{"top", FieldKind::Integer, help, dflt};
  f.min = 1;
  f.max = static_cast<double>(max);
  return f;
}
Json obj_schema(std::initializer_list<std::pair<const char*, const char*>> props) {
  Json p = Json::object();
  for (const auto& [k, d] : props) p[k] = {{"description", d}};
  return Json{{"type", "object"}, {"properties", p}};
}
// A result that is either one trace's, or {"ranks": [...]} when several were given.
Json per_rank_schema(Json one, const char* key) {
  return Json{{"description", std::string("one trace's result; with several traces {\"ranks\": [{rank, rank_from, "
                                          "source, ") +
                                  key + ", error}]}"},
              {"anyOf", Json::array({std::move(one), obj_schema({{"ranks", "one entry per rank"}})})}};
}

// ---- triage ---------------------------------------------------------------------------------

VerbResult triage_one(const TriageRequest& rq, const store::Linkage& link, Context& ctx, const std::string& trace,
                      const std::string& out, const Timeline** tl_out, trace::LoadedTrace* keep) {
  VerbResult vr;
  ASSIGN_OR_RETURN(auto in, trace::load_trace(trace, trace::kNeedGpuOps));
  RETURN_IF_ERROR(trace::require_gpu_activity(in.timeline, trace));
  Json capture_json;
  if (!rq.capture.empty()) {
    ASSIGN_OR_RETURN(capture_json, attach_capture(in.timeline, rq.capture));
  }
  ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
  const int top = static_cast<int>(rq.top);
  analysis::TriageOptions opt;
  opt.stage = rq.stage;
  opt.target_arch = rq.target_arch;
  std::error_code ec;
  auto abs = std::filesystem::absolute(trace, ec);
  opt.source_path = ec ? trace : abs.lexically_normal().string();
  opt.top = top;
  opt.by_module = rq.by_module;
  opt.experiment_id = link.experiment_id;
  opt.trial_id = link.trial_id;
  ASSIGN_OR_RETURN(auto rep, analysis::run_triage(in.timeline, *kn, opt));
  RETURN_IF_ERROR(analysis::write_triage_artifacts(rep, out));
  if (in.damage) vr.error = in.damage;  // partial input: artifacts written from what was read
  Json res;
  res["out_dir"] = out;
  res["artifacts"] = analysis::triage_artifact_names();
  res["metadata"] = rep.metadata;
  Json kt = analysis::kernel_table_to_json(rep.kernels, &rep.kernel_roof);
  if (kt.size() > static_cast<size_t>(top)) kt.erase(kt.begin() + top, kt.end());
  res["top_kernels"] = kt;
  Json ov = Json::array();
  for (const auto& r : rep.overlap)
    if (r.priority <= analysis::Priority::P3 && ov.size() < static_cast<size_t>(top))
      ov.push_back(analysis::overlap_row_to_json(r));
  res["top_overlap_opportunities"] = ov;
  Json fu = analysis::fuse_table_to_json(rep.fuse);
  if (fu.size() > static_cast<size_t>(top)) fu.erase(fu.begin() + top, fu.end());
  res["fuse_opportunities"] = fu;
  res["stages"] = analysis::stage_split_to_json(rep.stages);
  if (opt.by_module) {
    Json mods = analysis::module_rows_to_json(rep.modules);
    if (mods.size() > static_cast<size_t>(top)) mods.erase(mods.begin() + top, mods.end());
    res["modules"] = mods;
    res["module_attribution"] = analysis::module_attribution_to_json(rep.modules);
  }
  if (!capture_json.is_null()) res["capture"] = capture_json;
  res["gpu_op_time_us"] = round_to(rep.kernels.total_ns / 1000.0, 3);
  res["gpu_ops"] = rep.kernels.ops;
  vr.result = std::move(res);
  vr.human = analysis::triage_human_summary(rep, top, opt.by_module) + "\nartifacts written to " + out + "\n";
  if (keep) {
    *keep = std::move(in);
    *tl_out = &keep->timeline;
  }
  return vr;
}

}  // namespace

VerbResult triage(const TriageRequest& rq, const store::Linkage& link, Context& ctx) {
  std::string out = rq.out;
  if (out.empty()) {
    ASSIGN_OR_RETURN(out, ctx.output_dir("triage"));
  }
  const auto& paths = rq.path;
  if (paths.size() == 1) return triage_one(rq, link, ctx, paths[0], out, nullptr, nullptr);
  trace::LoadedTrace keep;
  VerbResult all = for_each_rank(paths, "triage", [&](const std::string& p, size_t i) {
    // Each rank's artifacts in OUT/rank<N>/, N from the file name (the result's `rank` is the
    // trace's own).
    const std::string dir = (std::filesystem::path(out) / ("rank" + fmt::to_string(rank_hint(p, i)))).string();
    RankOutcome o;
    keep = trace::LoadedTrace{};
    o.result = triage_one(rq, link, ctx, p, dir, &o.timeline, &keep);
    return o;
  });
  all.result["out_dir"] = out;
  return all;
}

namespace {

// ---- metrics --------------------------------------------------------------------------------

struct MetricsRequest {
  std::vector<std::string> path;
  std::optional<double> tokens_per_step;
  int64_t top = 10;
  std::string gpu;
  std::optional<std::string> memory;
};

VerbResult metrics_one(const MetricsRequest& rq, Context& ctx, const std::string& path, const Timeline** tl_out,
                       trace::LoadedTrace* keep) {
  VerbResult vr;
  ASSIGN_OR_RETURN(auto in, trace::load_trace(path, trace::kNeedGpuOps | trace::kNeedSamples));
  // Telemetry alone (a run directory of nvidia-smi samples) still has memory figures to give.
  if (Status st = trace::require_gpu_activity(in.timeline, path); !st.ok() && in.timeline.samples.size() == 0)
    return st.error();
  ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
  // --gpu: the GPU the trace ran on when its device description does not resolve (an unknown or
  // generic name, none at all), as the mfu_unobserved advice says. The analyses read the GPU from
  // the timeline's devices (hw::gpu_for_timeline), so the override replaces that description
  // before any of them runs; an unknown id is the error (NotFound, with the known ids).
  if (const std::string& name = rq.gpu; !name.empty()) {
    ASSIGN_OR_RETURN(const auto g, kn->gpu(name));
    auto& devs = in.timeline.meta.devices;
    if (devs.empty()) devs.push_back(DeviceInfo{0});
    for (auto& d : devs) d = DeviceInfo{d.id, g.id};
  }
  analysis::MetricsOptions opt;
  if (rq.tokens_per_step.value_or(0) > 0) opt.tokens_per_step = *rq.tokens_per_step;
  ASSIGN_OR_RETURN(auto m, analysis::compute_run_metrics(in.timeline, *kn, opt));
  // --memory: a snapshot's or profile_memory trace's measured peak against the device's memory
  // feeds the memory_headroom bucket and the batch rules (docs/memory.md § The audit's memory feed).
  if (rq.memory) {
    ASSIGN_OR_RETURN(const auto rules, memory_rules());
    ASSIGN_OR_RETURN(const auto src, read_memory_source(*rq.memory, rules));
    int64_t total = src.device_total;
    std::string name = src.device_name;
    for (const DeviceInfo& d : in.timeline.meta.devices) {
      if (total <= 0 && d.total_memory_bytes > 0) total = d.total_memory_bytes;
      if (name.empty()) name = d.name;
    }
    std::string why;
    if (auto h = analysis::memory_headroom(src.report, *kn, name, total, why))
      analysis::apply_memory_headroom(m, *h);
    else
      m.warnings.push_back(make_warning(W::memory_headroom_unobserved, "--memory " + *rq.memory + ": " + why));
  }
  // --top: RunMetrics keeps the 10 largest kernels; fewer on request (README: --top N is how many
  // rows a verb lists, issue #34).
  if (const auto top = static_cast<size_t>(rq.top); m.top_kernels.size() > top) m.top_kernels.resize(top);
  if (in.damage) {
    m.warnings.push_back(
        make_warning(W::metrics_input_damaged, "input damaged, figures cover what was read: " + in.damage->describe()));
    vr.error = in.damage;
  }
  vr.result = analysis::run_metrics_to_json(m);
  vr.human = run_metrics_text(m);
  if (keep) {
    *keep = std::move(in);
    *tl_out = &keep->timeline;
  }
  return vr;
}

VerbResult metrics_verb(const MetricsRequest& rq, Context& ctx) {
  const auto& paths = rq.path;
  if (paths.size() == 1) return metrics_one(rq, ctx, paths[0], nullptr, nullptr);
  trace::LoadedTrace keep;
  return for_each_rank(paths, "metrics", [&](const std::string& p, size_t) {
    RankOutcome o;
    keep = trace::LoadedTrace{};
    o.result = metrics_one(rq, ctx, p, &o.timeline, &keep);
    return o;
  });
}

// ---- ranks ----------------------------------------------------------------------------------

struct RanksRequest {
  std::vector<std::string> path;
  int64_t threads = 2;
  std::string rank_regex, html;
};

VerbResult ranks_verb(const RanksRequest& rq, Context& ctx) {
  VerbResult vr;
  analysis::ScaleRanksOptions opt;
  opt.threads = static_cast<int>(rq.threads);
  opt.discovery.rank_regex = rq.rank_regex;
  ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
  ASSIGN_OR_RETURN(auto r, analysis::analyse_ranks(rq.path, *kn, opt));
  vr.result = std::move(r.result);
  vr.human = std::move(r.human);
  if (const std::string& html = rq.html; !html.empty()) {
    if (Status st = write_file(html, analysis::ranks_heatmap_html(vr.result)); !st.ok()) {
      vr.error = st.error();
      return vr;  // the result stands; the page could not be written
    }
    vr.result["html"] = html;
    if (ctx.on_written) ctx.on_written("ranks", {html});
  }
  if (r.damage) vr.error = r.damage;  // a damaged rank: the others were analysed
  return vr;
}

struct InfoRequest {
  std::vector<std::string> path;
};

struct BreakdownRequest {
  std::string path, by;
};

struct DiffRequest {
  std::string before, after;
  int64_t top = 10;
};

struct CriticalPathVerbRequest {
  std::vector<std::string> path;
  std::string what_if, annotation;
  int64_t top = 5;
};

VerbResult critical_path_verb(const CriticalPathVerbRequest& rq, Context& ctx) {
  ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
  CriticalPathRequest cr;
  cr.what_if = rq.what_if;
  cr.annotation = rq.annotation;
  cr.top = static_cast<int>(rq.top);
  const auto& paths = rq.path;
  if (paths.size() == 1) {
    cr.trace = paths[0];
    return run_critical_path(*kn, cr);
  }
  // Collective kernels lined up across the ranks first (one more read of each), so each
  // rank's path splits the time its collectives waited for the others.
  std::string why;
  cr.comm_floor_ns = rank_collective_floors(*kn, paths, &why);
  VerbResult all = for_each_rank(paths, "critical_path", [&](const std::string& p, size_t) {
    cr.trace = p;
    RankOutcome o;
    o.result = run_critical_path(*kn, cr);
    return o;
  });
  all.result["collectives_across_ranks"] =
      why.empty() ? Json(fmt::format("{} collective kernels lined up by order on every rank", cr.comm_floor_ns.size()))
                  : Json(why);
  return all;
}

Verb declare_info() {
  Verb v;
  v.cli_path = {"info"};
  v.tool = "info";
  v.title = "What goblin reads from a trace";
  v.summary = "What goblin reads from traces and telemetry: format, event counts, span, devices, warnings";
  v.description =
      "Format, event counts per table, time span, devices, versions and warnings of each trace file or run "
      "directory (PyTorch/Kineto, rocprofv3, Nsight, smi telemetry); several inputs give an array.";
  v.examples =
      "  goblin info trace.json.gz                         what was read: format, event counts, span, devices\n"
      "  goblin info run_dir/ --json                       a rocprofv3 output directory as one run\n"
      "  goblin info a.json b.csv nvidia_smi.csv --json    several inputs: result is an array\n";
  typed_request<InfoRequest>(
      v, [](const InfoRequest& rq, Context&) { return info(rq.path); },
      param(&InfoRequest::path, trace_paths("Trace files or directories (format is sniffed from content)")));
  v.result_schema = obj_schema({{"format", "the format read"},
                                {"events", "event counts per table"},
                                {"span_ns", "time span of the events"},
                                {"devices", "devices the trace names"},
                                {"warnings", "what the reader noticed"}});
  v.result_schema["properties"]["warnings"] = warnings_json_schema("what the reader noticed");
  return v;
}

Verb declare_triage() {
  Verb v;
  v.cli_path = {"triage"};
  v.tool = "triage";
  v.title = "Triage a trace";
  v.summary =
      "Kernel table, overlap and fuse opportunities for a trace (or one per rank); writes the profiling artifacts "
      "(profile_summary.md, profile_metadata.json, kernel_table.json, overlap_opportunities.json, "
      "fuse_opportunities.json, module_table.json, stage_table.json) into -o DIR";
  v.description =
      "The result holds the metadata (vendor, arch, arch_match), the top kernels, overlap and fusion "
      "opportunities and the stage split; the artifact files are written to out_dir.";
  v.examples =
      "  goblin triage trace.json.gz -o out/triage         kernel table, overlap + fuse tables, summary\n"
      "  goblin triage trace.json.gz -o out/t --stage decode --target-arch gfx942\n"
      "  goblin triage serving.json.gz -o out/t --by-module   GPU time by nn.Module first\n"
      "  goblin triage rank0.json.gz rank1.json.gz -o out/t  one artifact set per rank: out/t/rank0/, out/t/rank1/\n";
  Field o{"out", FieldKind::OutputDir, "Output directory for the artifacts"};
  o.required = true;
  o.cli = "-o,--out";
  o.doors = kCli | kPython;
  Field stage{"stage", FieldKind::String,
              "Profile stage (prefill, decode, train, ...); if absent, from the trace's stage annotations or "
              "attention op names, else the file name"};
  Field arch{"target_arch", FieldKind::String,
             "Architecture the results are for (sm_90, gfx942, gfx950): sets arch_match"};
  Field bym{"by_module", FieldKind::Boolean,
            "Lead the summary with GPU time by nn.Module (module_table.json is always written); adds `modules`", false};
  using T = TriageRequest;
  typed_request<T>(
      v, [](const T& rq, const Request& whole, Context& ctx) { return triage(rq, request_linkage(whole), ctx); },
      param(&T::path,
            trace_paths("Trace file or run directory (Kineto, rocprofv3, Nsight, ...); several: one per rank")),
      param(&T::out, o), param(&T::stage, stage), param(&T::target_arch, arch),
      param(&T::top, top_field(15, 1000, "Rows in the summary tables")), param(&T::by_module, bym),
      param(&T::capture, Field{"capture", FieldKind::InputPath,
                               "A trace recorded during CUDA-graph capture: graph-replayed kernels get the op that "
                               "launched them at capture (kernel table, roofline)"}));
  Json one = obj_schema({{"out_dir", "where the artifacts were written"},
                         {"artifacts", "the artifact file names"},
                         {"metadata", "profile_metadata.json"},
                         {"top_kernels", "the kernel table's first rows"},
                         {"top_overlap_opportunities", "P0-P3 overlap rows"},
                         {"fuse_opportunities", "fusion candidates"},
                         {"stages", "prefill/decode split"},
                         {"gpu_op_time_us", "summed GPU-op time"}});
  one["properties"]["metadata"]["properties"]["warnings"] =
      warnings_json_schema("the reader's warnings, then triage's own");
  v.result_schema = per_rank_schema(std::move(one), "triage");
  v.writes = true;
  return v;
}

Verb declare_breakdown() {
  Verb v;
  v.cli_path = {"breakdown"};
  v.tool = "breakdown";
  v.title = "GPU time by category";
  v.summary =
      "GPU time by kernel category and library family (share of summed op time; busy union given too), and per "
      "step: busy/idle, compute/communication/memcpy, exposed communication, idle attribution, launch statistics";
  v.description = "by=module adds GPU time per nn.Module, by=stage the prefill/decode split.";
  v.examples =
      "  goblin breakdown trace.json.gz                    GPU time per category and library, per step\n"
      "  goblin breakdown rocprof_run_dir/ --json          a rocprofv3 output directory\n";
  Field by{"by", FieldKind::String,
           "category (default): time by kernel category and family; module: also GPU time per nn.Module "
           "(with_stack traces); stage: also the serving stage split (prefill/decode/mixed tables)",
           "category"};
  by.choices = {"category", "module", "stage"};
  typed_request<BreakdownRequest>(
      v,
      [](const BreakdownRequest& rq, Context& ctx) -> VerbResult {
        ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
        return run_breakdown(*kn, rq.path, rq.by);
      },
      param(&BreakdownRequest::path, trace_path("path", "Trace file or run directory")),
      param(&BreakdownRequest::by, by));
  v.result_schema =
      obj_schema({{"categories", "GPU time per category and family"},
                  {"steps", "per-step busy/idle/exposed communication"},
                  {"by", "the grouping asked for"},
                  {"module_attribution", "--by module: share of GPU time named a module, forward and backward apart"}});
  v.result_schema["properties"]["warnings"] = warnings_json_schema("what the reader noticed");
  return v;
}

Verb declare_metrics() {
  Verb v;
  v.cli_path = {"metrics"};
  v.tool = "metrics";
  v.title = "RunMetrics of a trace";
  v.summary =
      "RunMetrics of a trace or run directory: steps, step time, GPU utilisation, additive waste budget (s/step), "
      "top kernels, tokens/s, HBM from telemetry, attention backend";
  v.description = "Several traces: one RunMetrics per rank, each naming its rank.";
  v.examples =
      "  goblin metrics trace.json.gz                      RunMetrics and the waste budget per step\n"
      "  goblin metrics run_dir/ --json                    trace + telemetry (HBM, telemetry utilisation)\n"
      "  goblin metrics trace.json.gz --tokens-per-step 8192\n"
      "  goblin metrics rank0.json.gz rank1.json.gz        one RunMetrics per rank, each naming its rank\n";
  Field tps{"tokens_per_step", FieldKind::Number,
            "Tokens processed per step (tokens/s = this / step time when the trace does not carry tokens_per_sec)"};
  tps.min = 0;
  using M = MetricsRequest;
  typed_request<M>(
      v, metrics_verb,
      param(&M::path,
            trace_paths("Trace file or run directory (trace + telemetry); several: one per rank of a distributed job")),
      param(&M::tokens_per_step, tps),
      param(&M::top, top_field(10, 10, "Top kernels listed (RunMetrics keeps the 10 largest)")),
      param(&M::gpu, Field{"gpu", FieldKind::String,
                           "GPU id or name (H100-SXM, MI300X, ...) when the trace's device description does not "
                           "resolve (MFU's peak)"}),
      param(&M::memory, Field{"memory", FieldKind::InputPath,
                              "A PyTorch memory snapshot or profile_memory trace of the run: its measured peak "
                              "against the device's memory gives the memory headroom and how much larger a batch "
                              "fits (batch_scale_fits)"}));
  Json one = obj_schema({{"step_time_s", "mean wall of the complete steps measured on the trace (docs/metrics.md)"},
                         {"workload_step_time_s", "the step time the workload timed itself, when the trace carries it"},
                         {"waste_budget", "additive buckets summing to the step time"},
                         {"top_kernels", "kernels by share of time"}});
  one["properties"]["warnings"] = warnings_json_schema("what limits the figures, and the reader's warnings");
  v.result_schema = per_rank_schema(std::move(one), "metrics");
  return v;
}

Verb declare_diff() {
  Verb v;
  v.cli_path = {"diff"};
  v.tool = "diff";
  v.title = "What got faster and slower";
  v.summary =
      "What got faster and slower between two runs of one workload: step time, busy/idle, GPU time per category "
      "and per kernel (matched by normalised name + launching op; faster/slower/new/gone), each with its "
      "contribution to the step-time change (the contributions sum to it). Across vendors: categories only";
  v.examples =
      "  goblin diff before.json.gz after.json.gz          decomposition, categories, top kernels per status\n"
      "  goblin diff run_before/ run_after/ --json         every kernel row\n";
  typed_request<DiffRequest>(
      v,
      [](const DiffRequest& rq, Context& ctx) -> VerbResult {
        ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
        return run_diff(*kn, rq.before, rq.after, static_cast<int>(rq.top));
      },
      param(&DiffRequest::before, trace_path("before", "Trace file or run directory of the BEFORE run")),
      param(&DiffRequest::after, trace_path("after", "Trace file or run directory of the AFTER run")),
      param(&DiffRequest::top, top_field(10, 10000, "Rows per status in the readable report")));
  v.result_schema = obj_schema({{"step_time", "before, after and the change"},
                                {"decomposition", "contributions summing to the step-time change"},
                                {"kernels", "per kernel: faster / slower / new / gone"}});
  return v;
}

Verb declare_ranks() {
  Verb v;
  v.cli_path = {"ranks"};
  v.tool = "ranks";
  v.title = "One distributed job's ranks";
  v.summary =
      "Per-rank traces of one distributed job (Kineto with distributedInfo, rocprofv3 per-process files, nsys "
      "per-rank files; files or directories): steps matched across ranks; per step and rank compute, "
      "exposed/hidden communication, idle and time waiting inside collectives; which rank arrives last to the "
      "collectives, by how much and why; skew tables (step time, kernel time by category, collective "
      "algbw/busbw)";
  v.examples =
      "  goblin ranks traces/                               every trace in the directory is one rank\n"
      "  goblin ranks rank0.json.gz rank1.json.gz --json    the straggler verdict and tables as JSON\n";
  Field th{"threads", FieldKind::Integer,
           "Threads: above 1, small ranks are read two at once; a large rank's blocks are parsed on this many", 2};
  th.min = 1;
  th.max = 64;
  Field rx{"rank_regex", FieldKind::String,
           "regular expression over file names whose first group is the rank (default: rank-3, rank_3, rank3)"};
  Field html{"html", FieldKind::OutputFile, "write the skew heatmaps (rank x step) as an HTML page to this file"};
  html.doors = kCli | kPython;
  typed_request<RanksRequest>(
      v, ranks_verb,
      param(&RanksRequest::path,
            trace_paths("Rank trace files, rank summaries (goblin summarize), directories or globs of them")),
      param(&RanksRequest::threads, th), param(&RanksRequest::rank_regex, rx), param(&RanksRequest::html, html));
  v.result_schema = obj_schema({{"ranks", "per-rank figures"}, {"straggler", "the rank that arrives last, and why"}});
  return v;
}

Verb declare_critical_path() {
  Verb v;
  v.cli_path = {"critical-path"};
  v.tool = "critical_path";
  v.title = "The critical path of every step";
  v.summary =
      "The critical path of every step: the chain of dependent work (CPU calls, launches, GPU ops per stream, "
      "cross-stream waits, synchronisations, collectives, graph replays) that sets the step's length, its time "
      "attributed along it (CPU launch/runtime/Python/data loading, GPU compute by category, communication, "
      "synchronisation, idle), and a what-if recomputed on the graph";
  v.description =
      "what_if CATEGORY=k or KERNEL=k (a taxonomy category, else a kernel-name substring, k× faster) adds per "
      "step the step time recomputed on the dependency graph (what_if_s) beside plain subtraction along the path "
      "(subtract_s). Several traces: one result per rank, each collective kernel's wait for the other ranks "
      "(communication_wait) split from its transfer.";
  v.examples =
      "  goblin critical-path trace.json.gz                 per step: the path and where its time goes\n"
      "  goblin critical-path trace.json.gz --what-if gemm=2  the step time if GEMMs were 2x faster\n"
      "  goblin critical-path trace.json.gz --what-if flash_fwd=1.5 --json\n";
  Field wi{"what_if", FieldKind::String,
           "CATEGORY=k or KERNEL=k: GPU ops of that taxonomy category (or whose name contains KERNEL) k times "
           "faster; each step recomputed on the graph"};
  Field an{"annotation", FieldKind::String,
           "Windows: every CPU annotation (or op) of this exact name instead of the steps"};
  using C = CriticalPathVerbRequest;
  typed_request<C>(v, critical_path_verb,
                   param(&C::path, trace_paths("Trace file or run directory; several: one per rank")),
                   param(&C::what_if, wi), param(&C::annotation, an),
                   param(&C::top, top_field(5, 1000, "Longest path segments listed per step")));
  Json one = obj_schema({{"steps",
                          "per step: step_s, length_s, attribution (s per bucket), gpu_by_category, "
                          "longest segments, what_if_s, subtract_s"},
                         {"graph", "the dependency graph's events and edges"},
                         {"what_if", "the what-if asked for, or null"},
                         {"method", "how the steps were found"}});
  one["properties"]["warnings"] = warnings_json_schema("what the reader noticed");
  v.result_schema = per_rank_schema(std::move(one), "critical_path");
  return v;
}

}  // namespace

void add_trace_verbs(std::vector<Verb>& out) {
  out.push_back(declare_info());
  out.push_back(declare_triage());
  out.push_back(declare_breakdown());
  out.push_back(declare_metrics());
  out.push_back(declare_diff());
  out.push_back(declare_ranks());
  out.push_back(declare_critical_path());
}

}  // namespace goblin::app
