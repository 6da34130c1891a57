// The verbs of many-rank jobs (docs/scale.md): summarize (the map: one compact summary per rank
// trace, read by goblin ranks in place of the trace) and slurm-script (the Slurm job array or
// Kubernetes Indexed Job that runs the map where the traces are, and the reduce after it).
#include <fmt/format.h>

#include <filesystem>

#include "analysis/summarize.h"
#include "app/analysis_context.h"
#include "app/registry.h"
#include "app/scale_scripts.h"

namespace goblin::app {

namespace {

Field make(const char* name, FieldKind k, const char* help, Json dflt = nullptr, const char* cli = "") {
  Field f;
  f.name = name;
  f.kind = k;
  f.help = help;
  f.default_value = std::move(dflt);
  f.cli = cli;
  return f;
}

Field rank_regex_field() {
  return make("rank_regex", FieldKind::String,
              "regular expression over file names whose first group is the rank (default: rank-3, rank_3, rank3)");
}

// The output directory: the caller's, else the door's (MCP: a folder of the session).
Result<std::string> out_dir(std::string out, Context& ctx, const char* kind) {
  if (out.empty() && ctx.output_dir) return ctx.output_dir(kind);
  if (out.empty()) return make_error(ErrorKind::Usage, "give an output directory with -o DIR");
  return out;
}

struct SummarizeRequest {
  std::vector<std::string> path;
  std::string out, host, rank_regex;
  bool merge = false;
};

VerbResult summarize_verb(const SummarizeRequest& rq, Context& ctx) {
  VerbResult vr;
  // The door's knowledge when it has one (MCP), else only the part reading ranks needs: the map is
  // one process per rank, and loading the rest was a few percent of it.
  ASSIGN_OR_RETURN(auto kn, ctx.knowledge ? analysis_knowledge_of(ctx) : analysis::summarize_knowledge());
  ASSIGN_OR_RETURN(const std::string dir, out_dir(rq.out, ctx, "summaries"));
  analysis::SummarizeOptions opt;
  opt.out_dir = dir;
  opt.host = rq.host;
  opt.discovery.rank_regex = rq.rank_regex;
  if (rq.merge) {
    ASSIGN_OR_RETURN(auto m, analysis::merge_summaries(rq.path, *kn, opt));
    vr.result = analysis::merged_json(m, dir);
    vr.human = analysis::merged_human(m);
    if (ctx.on_written) ctx.on_written("summaries", {m.written});
    return vr;
  }
  ASSIGN_OR_RETURN(auto r, analysis::summarize_ranks(rq.path, *kn, opt));
  vr.result = analysis::summarized_json(r, dir);
  vr.human = analysis::summarized_human(r, dir);
  std::vector<std::string> files;
  for (const auto& s : r) {
    files.push_back(s.summary);
    if (s.damage && !vr.error) vr.error = s.damage;  // the summary keeps what was read
  }
  if (ctx.on_written) ctx.on_written("summaries", files);
  return vr;
}

// The request is the scripts' options (app/scale_scripts.h) plus the traces and where to write.
struct SlurmScriptRequest {
  std::vector<std::string> path;
  std::string out;
  ScaleScriptOptions o;
};

VerbResult slurm_script_verb(const SlurmScriptRequest& rq, Context& ctx) {
  ASSIGN_OR_RETURN(const std::string dir, out_dir(rq.out, ctx, "slurm"));
  ScaleScriptOptions o = rq.o;
  o.out_dir = dir;
  ASSIGN_OR_RETURN(auto w, write_scale_scripts(rq.path, o));
  const auto* r = &w;
  VerbResult vr;
  vr.result = Json{{"out_dir", dir},
                   {"engine", o.k8s ? "kubernetes" : "slurm"},
                   {"ranks", r->traces.size()},
                   {"written", r->files},
                   {"submit", "submit.sh"}};
  vr.human = fmt::format("{} map task{} over {} rank trace{}; files in {}:\n", o.k8s ? "Kubernetes" : "Slurm",
                         r->traces.size() == 1 ? "" : "s", r->traces.size(), r->traces.size() == 1 ? "" : "s", dir);
  for (const auto& f : r->files) vr.human += "  " + f + "\n";
  vr.human += "submit with: " + r->submit + "\n";
  if (ctx.on_written) ctx.on_written("slurm", r->files);
  return vr;
}

}  // namespace

void add_scale_verbs(std::vector<Verb>& out) {
  {
    Verb v;
    v.cli_path = {"summarize"};
    v.tool = "summarize";
    v.title = "Per-rank summaries";
    v.summary =
        "One compact summary per rank trace (rank<R>.summary.json.gz: steps, collectives with sizes, times and bus "
        "bandwidth, kernel time by category, top kernels, clock): goblin ranks reads summaries in place of traces "
        "and gives the same result";
    v.description =
        "Result: {out_dir, summaries: [{rank, rank_from, source, written, source_bytes, summary_bytes, "
        "size_pct, steps, collectives, usable, damage}]}; with --merge: {out_dir, group: {written, inputs, ranks, "
        "rank_min, rank_max, damaged, input_bytes, group_bytes}}. docs/scale.md.";
    v.examples =
        "  goblin summarize rank3.pt.trace.json.gz -o summaries/     the map step of one rank\n"
        "  goblin ranks summaries/                                   the reduce over every rank's summary\n"
        "  goblin summarize --merge summaries/rank{0..63}.summary.json.gz -o groups/\n"
        "                                                            a group summary of 64 ranks (two-level reduce)\n"
        "  goblin ranks groups/                                      the reduce over the group summaries\n";
    Field paths = make("path", FieldKind::InputPaths, "Rank trace files, directories or globs of them");
    paths.required = true;
    paths.positional = true;
    Field o = make("out", FieldKind::OutputDir, "write the summaries into this directory", nullptr, "-o,--out");
    o.doors = kCli | kPython;
    using R = SummarizeRequest;
    typed_request<R>(
        v, summarize_verb, param(&R::path, paths), param(&R::out, o),
        param(&R::host, make("host", FieldKind::String, "the host the trace was recorded on (kept in the summary)")),
        param(&R::rank_regex, rank_regex_field()),
        param(&R::merge, make("merge", FieldKind::Boolean,
                              "fold the rank (or group) summaries given into one group summary, for a "
                              "two-level reduce (goblin ranks reads it in place of them)",
                              false)));
    v.result_schema = Json{
        {"type", "object"},
        {"properties",
         {{"out_dir", {{"type", "string"}}}, {"summaries", {{"type", "array"}}}, {"group", {{"type", "object"}}}}}};
    v.writes = true;
    v.records = false;
    out.push_back(std::move(v));
  }
  {
    Verb v;
    v.cli_path = {"slurm-script"};
    v.tool = "slurm_script";
    v.title = "Slurm / Kubernetes scripts for many ranks";
    v.summary =
        "Writes a Slurm job array (one goblin summarize per rank trace, where the traces are) and a reduce job that "
        "runs goblin ranks on the summaries after it; --k8s: a Kubernetes Indexed Job and a reduce Job";
    v.description =
        "Result: {out_dir, engine, ranks, written (the files), submit (the script in out_dir that "
        "submits the map and the reduce)}. docs/scale.md.";
    v.examples =
        "  goblin slurm-script /lustre/job42/traces -o job42/ && bash job42/submit.sh\n"
        "  goblin slurm-script /data/traces --k8s -o k8s/ && bash k8s/submit.sh\n"
        "  goblin slurm-script /lustre/job42/traces --group-size 64 -o job42/   map, groups of 64, reduce\n";
    Field paths = make("path", FieldKind::InputPaths, "Rank trace files, directories or globs of them");
    paths.required = true;
    paths.positional = true;
    Field o = make("out", FieldKind::OutputDir, "write the scripts and the trace list into this directory", nullptr,
                   "-o,--out");
    o.doors = kCli | kPython;
    Field par = make("parallel", FieldKind::Integer, "map tasks at once (0: as many as the scheduler gives)", 0);
    par.min = 0;
    par.max = 1e6;
    Field cpus = make("cpus", FieldKind::Integer, "cores per task (Slurm --cpus-per-task, Kubernetes cpu request)", 2);
    cpus.min = 1;
    cpus.max = 256;
    Field gsize = make("group_size", FieldKind::Integer,
                       "two-level reduce (Slurm): a job array between map and reduce folds each N rank summaries into "
                       "one group summary (summarize --merge), and the reduce reads the groups; 0: one level",
                       0);
    gsize.min = 0;
    gsize.max = 1e7;
    using S = SlurmScriptRequest;
    using O = ScaleScriptOptions;
    typed_request<S>(
        v, slurm_script_verb, param(&S::path, paths), param(&S::out, o), param(&S::o, &O::cpus, cpus),
        param(&S::o, &O::summaries,
              make("summaries", FieldKind::String, "where the summaries go (default: OUT/summaries)")),
        param(&S::o, &O::goblin,
              make("goblin", FieldKind::String, "the goblin command on the compute nodes", "goblin")),
        param(&S::o, &O::partition, make("partition", FieldKind::String, "Slurm partition (default: the cluster's)")),
        param(&S::o, &O::time, make("time", FieldKind::String, "time limit of each job (Slurm --time)", "00:30:00")),
        param(&S::o, &O::parallel, par),
        param(&S::o, &O::k8s,
              make("k8s", FieldKind::Boolean, "Kubernetes manifests (Indexed Job + reduce Job) instead of sbatch",
                   false)),
        param(&S::o, &O::image,
              make("image", FieldKind::String, "Kubernetes: the container image with goblin", "goblin:latest")),
        param(&S::o, &O::claim,
              make("claim", FieldKind::String, "Kubernetes: the PersistentVolumeClaim holding traces and summaries",
                   "goblin-data")),
        param(&S::o, &O::mount,
              make("mount", FieldKind::String, "Kubernetes: where the pods mount the claim", "/data")),
        param(&S::o, &O::rank_regex, rank_regex_field()), param(&S::o, &O::group_size, gsize),
        param(&S::o, &O::groups,
              make("groups", FieldKind::String,
                   "with --group-size: where the group summaries go (default: OUT/groups)")));
    v.result_schema = Json{{"type", "object"},
                           {"properties",
                            {{"out_dir", {{"type", "string"}}},
                             {"engine", {{"type", "string"}}},
                             {"ranks", {{"type", "integer"}}},
                             {"written", {{"type", "array"}}},
                             {"submit", {{"type", "string"}}}}}};
    v.writes = true;
    v.records = false;
    out.push_back(std::move(v));
  }
}

}  // namespace goblin::app
