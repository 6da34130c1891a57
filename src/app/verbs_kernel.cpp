// The kernel optimization workspace's verbs (docs/kernel.md): kernel init|bench|profile|plan|
// record|status|mask|unmask|suite. Each parses its request, calls one function of src/kernel and
// renders the result; the MCP server offers the loop's six as kernel_* tools (the
// gpu_kernel_optimize prompt teaches them). Over MCP a workspace is one kernel_init made under the
// session's --out, and the interpreter, harness and profiler programs are not the caller's to pick.
#include <fmt/format.h>

#include <filesystem>

#include "app/analysis_context.h"
#include "app/registry.h"
#include "core/io.h"
#include "kernel/loop.h"
#include "kernel/memory.h"
#include "kernel/suite.h"
#include "kernel/workspace.h"

namespace goblin::app {

namespace {

// A field with its default (null: none); the rest of Field keeps its defaults.
Field field(std::string name, FieldKind kind, std::string help, Json default_value = nullptr) {
  Field f;
  f.name = std::move(name);
  f.kind = kind;
  f.help = std::move(help);
  f.default_value = std::move(default_value);
  return f;
}

// The largest kernel.py an agent may submit through kernel_bench's kernel_source.
constexpr size_t kMaxKernelSource = 1 << 20;

template <class T>
VerbResult from(Result<T> r, const std::function<std::string(const Json&)>& human) {
  VerbResult v;
  if (!r.ok()) {
    v.error = r.error();
    return v;
  }
  v.result = *r;
  v.human = human(v.result);
  return v;
}

Field workspace_field() {
  Field f = field("workspace", FieldKind::WorkDir, "workspace directory (CLI default: the current directory)");
  f.positional = true;
  return f;
}

// The workspace a request names; the CLI's default is the current directory, the JSON doors must
// name one (a default there would be the server's own working directory).
Result<std::string> workspace_of(const Request& rq, const Context& ctx) {
  if (rq.has("workspace")) return rq.str("workspace");
  if (ctx.door == kCli) return std::string(".");
  return make_error(ErrorKind::Usage, "missing required argument: workspace (the path kernel_init returned)");
}

// The interpreter, harness and profiler programs: the CLI user's choice; other doors run the
// defaults (a caller that picks the program goblin runs could run anything).
std::vector<Field> program_fields(bool profilers) {
  std::vector<Field> f = {
      field("python", FieldKind::String, "python interpreter with torch (default python3)", "python3"),
      field("harness", FieldKind::String, "path of tools/kernel_harness.py (default: found beside goblin)"),
      field("timeout", FieldKind::Number, "seconds before the run is killed (default 900)", 900.0)};
  if (profilers) {
    f.push_back(field("ncu", FieldKind::String, "ncu executable (default ncu)", "ncu"));
    f.push_back(field("rocprof", FieldKind::String, "rocprofv3 executable (default rocprofv3)", "rocprofv3"));
  }
  for (auto& x : f) x.doors = kCli;
  f[2].min = 1;
  f[2].max = 86400;
  return f;
}

kernel::RunOptions run_options(const Request& rq) {
  kernel::RunOptions o;
  if (rq.has("python")) o.python = rq.str("python");
  if (rq.has("harness")) o.harness = rq.str("harness");
  if (rq.has("timeout")) o.timeout_s = rq.number("timeout");
  if (rq.has("rep_ms")) o.rep_ms = rq.number("rep_ms");
  if (rq.has("warmup_ms")) o.warmup_ms = rq.number("warmup_ms");
  if (rq.has("launches")) o.launches = static_cast<int>(rq.integer("launches"));
  if (rq.has("kernel_regex")) o.kernel_regex = rq.str("kernel_regex");
  if (rq.has("ncu")) o.ncu = rq.str("ncu");
  if (rq.has("rocprof")) o.rocprof = rq.str("rocprof");
  o.prompt = rq.has("prompt") && rq.flag("prompt");
  return o;
}

void append(std::vector<Field>& to, std::vector<Field> more) {
  for (auto& f : more) to.push_back(std::move(f));
}

Json object_schema(const std::string& what) { return Json{{"type", "object"}, {"description", what}}; }

Verb base(const std::string& word, const std::string& tool, const std::string& title, const std::string& summary) {
  Verb v;
  v.cli_path = {"kernel", word};
  v.tool = tool;
  v.title = title;
  v.summary = summary;
  v.records = false;
  v.writes = true;
  // Not over HTTP: the workspace verbs run the user's kernel file and a profiler, and keep a
  // workspace folder that an HTTP request (whose outputs last as long as the request) cannot hold.
  v.doors = kCli | kMcp | kPython;
  return v;
}

// The verbs that measure or change a workspace's progress (bench, profile, record, status,
// mask/unmask) produce results worth remembering: with --store (or $GOBLIN_STORE) the workspace is
// recorded as a run (its iterations against the Stop Condition, masked ones marked, its files as
// artifacts), as `goblin store add WORKSPACE` would; the same state twice is one run, so a status
// after a record adds nothing. init (nothing measured yet), plan (a proposal, not a result) and
// suite (a directory of kernels, not one workspace) do not record.
void recorded_as_workspace(Verb& v) {
  v.records = true;
  v.record_folder = [](const Request& rq, const VerbResult&) {
    return rq.has("workspace") ? rq.str("workspace") : std::string(".");
  };
}

VerbResult init_verb(const Request& rq, Context& ctx) {
  kernel::InitOptions o;
  o.name = rq.str("name");
  o.kernel_file = rq.str("kernel");
  o.platform = rq.str("platform");
  o.framework = rq.str("framework");
  o.dtype = rq.str("dtype");
  o.rtol = rq.number("rtol");
  o.max_iterations = static_cast<int>(rq.integer("max_iterations"));
  o.max_hours = rq.number("max_hours");
  if (rq.has("shape")) o.shape = rq.str("shape");
  if (rq.has("notes")) o.notes = rq.str("notes");
  if (rq.has("python")) o.python = rq.str("python");
  if (rq.has("harness")) o.harness = rq.str("harness");
  VerbResult v;
  if (rq.has("workspace")) {
    o.workspace = rq.str("workspace");
  } else if (ctx.output_dir) {  // MCP: a fresh folder under the session's --out
    auto d = ctx.output_dir("kernel");
    if (!d.ok()) {
      v.error = d.error();
      return v;
    }
    o.workspace = *d;
  }
  auto kk = kernel_knowledge_of(ctx);
  if (!kk.ok()) {
    v.error = kk.error();
    return v;
  }
  auto c = kernel::init_workspace(**kk, o);
  if (!c.ok()) {
    v.error = c.error();
    return v;
  }
  v.result = kernel::config_to_json(*c);
  v.result["workspace"] = c->dir;
  v.human = fmt::format(
      "workspace {} (git initialised, first commit made)\n{}Stop Condition: {} >= {:.1f} (90 % of {:.6g} <- {})\n",
      c->dir, c->roof.text, c->roof.target_metric, c->roof.target, c->roof.ceiling, c->roof.ceiling_source);
  for (auto& p : c->pitfalls) v.human += "note: " + p + "\n";
  return v;
}

VerbResult bench_verb(const Request& rq, Context& ctx) {
  VerbResult v;
  auto ws = workspace_of(rq, ctx);
  if (!ws.ok()) {
    v.error = ws.error();
    return v;
  }
  // An agent's new version: written over kernel.py, then measured by the harness like any other.
  if (rq.has("kernel_source")) {
    // Checked before the workspace is touched: kernel.py is not replaced, so nothing the caller
    // wrote is ever imported.
    if (!ctx.caller_code_allowed) {
      v.error = make_error(ErrorKind::Usage,
                           "kernel_source is code to import and run, and this server does not run code a caller "
                           "sends (its operator did not allow live runs): call kernel_bench without kernel_source "
                           "to measure the workspace's kernel.py as it is");
      return v;
    }
    const std::string src = rq.str("kernel_source");
    if (src.size() > kMaxKernelSource) {
      v.error = make_error(ErrorKind::Usage, fmt::format("kernel_source is {} bytes; at most {} are accepted",
                                                         src.size(), kMaxKernelSource));
      return v;
    }
    if (auto cfg = kernel::load_config(*ws); !cfg.ok()) {
      v.error = cfg.error();
      return v;
    }
    if (auto s = write_file((std::filesystem::path(*ws) / "kernel.py").string(), src); !s.ok()) {
      v.error = s.error();
      return v;
    }
  }
  auto kk = kernel_knowledge_of(ctx);
  if (!kk.ok()) {
    v.error = kk.error();
    return v;
  }
  auto r = kernel::run_bench(**kk, *ws, run_options(rq));
  if (!r.ok()) {
    v.error = r.error();
    return v;
  }
  auto cfg = kernel::load_config(*ws);
  v.result = *r;
  v.human = cfg.ok() ? kernel::bench_human(*r, *cfg) : r->dump(2);
  v.human += "saved: " + (*r)["bench_file"].get<std::string>() + "\n";
  if (!(*r)["correctness"]["passed"].get<bool>())
    v.error = make_error(ErrorKind::Workload, "correctness failed: this version cannot be recorded", *ws);
  return v;
}

// Runs fn on the request's workspace with the kernel knowledge context.
VerbResult with_ws(const Request& rq, Context& ctx,
                   const std::function<VerbResult(const kernel::Knowledge&, const std::string&)>& fn) {
  auto ws = workspace_of(rq, ctx);
  if (!ws.ok()) return VerbResult{nullptr, ws.error(), ""};
  auto kk = kernel_knowledge_of(ctx);
  if (!kk.ok()) return VerbResult{nullptr, kk.error(), ""};
  return fn(**kk, *ws);
}

std::string record_human(const Json& j) {
  std::string h = fmt::format("recorded v{} -> {} (commit {})\n", j["version"].get<int>(),
                              j["memory_file"].get<std::string>(), j["commit"].get<std::string>());
  if (j.value("restored_from", Json()).is_number())
    h += fmt::format("slower than the best: kernel.py restored from v{} (commit {}); the next iteration starts there\n",
                     j["restored_from"].get<int>(), j["restore_commit"].get<std::string>());
  if (j.value("kept_slower", false)) h += "slower than the best: kernel.py kept as it is (--keep)\n";
  return h;
}

}  // namespace

void add_kernel_verbs(std::vector<Verb>& out) {
  {
    Verb v = base("init", "kernel_init", "Create a kernel optimization workspace",
                  "Create a workspace: kernel.py, memory/, plans/, profiles/, README.md (Step 0 roofline and "
                  "Stop Condition), workspace.json, git");
    v.description =
        "The kernel file defines make_inputs(**shape), kernel(*inputs), reference(*inputs) and PROBLEM (or "
        "flops/bytes_moved). Over MCP the workspace is a fresh folder under the server's --out; pass the returned "
        "workspace to the other kernel_* tools.";
    v.examples =
        "  goblin kernel init mm --kernel mm_v0.py --platform H100 --shape M=8192,N=8192,K=8192\n"
        "  goblin kernel init sm --kernel softmax.py --platform MI300X --workspace ./ws --rtol 2e-2\n";
    Field name = field("name", FieldKind::String, "workspace name (default directory /tmp/kernel_opt_NAME)");
    name.positional = name.required = true;
    Field kern = field("kernel", FieldKind::InputPath,
                       "kernel file: make_inputs, kernel, reference, PROBLEM or flops/bytes_moved");
    kern.required = true;
    Field plat = field("platform", FieldKind::String, "GPU id (goblin specs --list): H100, H200, MI300X, MI355X, ...");
    plat.required = true;
    Field fw = field("framework", FieldKind::String, "triton | cuda | cutedsl | torch (default triton)", "triton");
    fw.choices = {"triton", "cuda", "cutedsl", "torch"};
    Field rtol = field("rtol", FieldKind::Number, "correctness threshold: max relative error (default 0.01)", 0.01);
    rtol.min = 0;
    Field ws = field("workspace", FieldKind::OutputDir, "workspace directory (default /tmp/kernel_opt_NAME)");
    ws.doors = kCli;
    Field iters = field("max_iterations", FieldKind::Integer,
                        "iteration budget: status says stop once this many iterations are recorded (0: none)", 20);
    iters.min = 0;
    iters.max = 10000;
    Field hours = field("max_hours", FieldKind::Number, "time budget in hours from init (0: none)", 0.0);
    hours.min = 0;
    v.request = {name,
                 kern,
                 plat,
                 fw,
                 field("shape", FieldKind::String,
                       "problem shape passed to make_inputs, e.g. M=8192,N=8192,K=8192 (default: its defaults)"),
                 field("dtype", FieldKind::String, "element type (default bf16)", "bf16"),
                 rtol,
                 ws,
                 field("notes", FieldKind::String, "free text for the Task Context"),
                 iters,
                 hours};
    auto pf = program_fields(false);
    pf[0].help = "python3 for the contract check (torch not needed)";
    pf.pop_back();  // no timeout: the contract check has its own
    append(v.request, pf);
    v.result_schema = object_schema("workspace.json's facts (roofline, target, budget) and the workspace path");
    v.run = init_verb;
    out.push_back(std::move(v));
  }
  {
    Verb v = base("bench", "kernel_bench", "Check and time the kernel",
                  "Check correctness and time the kernel on the GPU (rotating unseen inputs, every output checked, "
                  "held-out shapes, physical limits)");
    v.description =
        "kernel_source, when given, replaces kernel.py first: the version to measure. A result that fails a check "
        "is an error and cannot be recorded.";
    v.examples = "  goblin kernel bench /tmp/kernel_opt_mm --rep-ms 1000\n";
    v.audit_budget = true;
    Field rep = field("rep_ms", FieldKind::Number, "timing budget per kernel in ms (default 500)", 500.0);
    rep.min = 1;
    rep.max = 60000;
    Field warm = field("warmup_ms", FieldKind::Number, "warm-up budget in ms (default 50)", 50.0);
    warm.min = 0;
    warm.max = 60000;
    Field src = field("kernel_source", FieldKind::String, "the new kernel.py text to measure (replaces kernel.py)");
    src.doors = kJsonDoors;
    v.request = {workspace_field(), rep, warm, src};
    append(v.request, program_fields(false));
    v.result_schema = object_schema("correctness, integrity, held_out, performance (median latency, CI, % of target)");
    recorded_as_workspace(v);
    v.run = bench_verb;
    out.push_back(std::move(v));
  }
  {
    Verb v = base("profile", "kernel_profile", "Profile and diagnose the kernel",
                  "Profile the kernel's launches (ncu / rocprofv3) and diagnose two bottlenecks");
    v.examples = "  goblin kernel profile /tmp/kernel_opt_mm --prompt     also write the LLM judge prompts\n";
    v.audit_budget = true;
    Field l = field("launches", FieldKind::Integer, "kernel launches to profile (default 1)", 1);
    l.min = 1;
    l.max = 100;
    v.request = {workspace_field(), l,
                 field("kernel_regex", FieldKind::String, "only kernels whose name matches (ncu -k regex:)"),
                 field("prompt", FieldKind::Boolean, "write the LLM-judge prompts beside the CSV", false)};
    append(v.request, program_fields(true));
    v.result_schema = object_schema("per kernel the classification and two bottlenecks, the work-done check");
    recorded_as_workspace(v);
    v.run = [](const Request& rq, Context& ctx) {
      return with_ws(rq, ctx, [&](const kernel::Knowledge& kk, const std::string& ws) {
        return from(kernel::run_profile(kk, ws, run_options(rq)), [](const Json& j) {
          return kernel::diagnosis_human(j) + "saved: " + j["profile"].get<std::string>() + "\n";
        });
      });
    };
    out.push_back(std::move(v));
  }
  {
    Verb v = base("plan", "kernel_plan", "Plan the next iteration",
                  "Write plans/v<N>_plan.md: last diagnosis, roofline gap, candidate optimizations");
    v.examples = "  goblin kernel plan /tmp/kernel_opt_mm\n";
    v.request = {workspace_field()};
    v.result_schema = object_schema("path, next_version, bound, candidates (id, title, tried_in), markdown");
    v.run = [](const Request& rq, Context& ctx) {
      return with_ws(rq, ctx, [](const kernel::Knowledge& kk, const std::string& ws) {
        return from(kernel::write_plan(kk, ws), [](const Json& j) {
          return j["markdown"].get<std::string>() + "\nwritten: " + j["path"].get<std::string>() + "\n";
        });
      });
    };
    out.push_back(std::move(v));
  }
  {
    Verb v = base("record", "kernel_record", "Record the iteration",
                  "Write memory/v<N>.json from the latest bench + profile and commit the iteration");
    v.description =
        "Only a correct bench that passed every check is recorded. An iteration slower than the best stays in the "
        "history, and kernel.py is restored from the best iteration (keep: leave it).";
    v.examples =
        "  goblin kernel record ws --summary \"grouped ordering\" --hypothesis \"L2 reuse\" --tags grouped_ordering\n"
        "  goblin kernel record ws --summary \"v3\" --bench bench.json --profile ncu.csv   measured elsewhere\n";
    Field sum = field("summary", FieldKind::String, "what this iteration changed");
    sum.required = true;
    v.request = {
        workspace_field(),
        sum,
        field("hypothesis", FieldKind::String, "why it should help"),
        field("tags", FieldKind::StringList,
              "ids from data/kernel/optimizations.yaml this iteration tried (comma-separated)"),
        field("bench", FieldKind::InputPath, "a bench JSON (kernel_harness.py bench output) measured elsewhere"),
        field("profile", FieldKind::InputPath, "an ncu --csv --page raw file measured elsewhere"),
        field("keep", FieldKind::Boolean,
              "keep kernel.py even when this iteration is slower than the best (no restore)", false)};
    v.result_schema = object_schema("version, memory_file, commit, record, restored_from (the best version or null)");
    recorded_as_workspace(v);
    v.run = [](const Request& rq, Context& ctx) {
      return with_ws(rq, ctx, [&](const kernel::Knowledge& kk, const std::string& ws) {
        kernel::RecordOptions o;
        o.summary = rq.str("summary");
        if (rq.has("hypothesis")) o.hypothesis = rq.str("hypothesis");
        if (rq.has("tags"))
          for (auto& t : rq.strings("tags"))
            if (!t.empty()) o.tags.push_back(t);
        if (rq.has("bench")) o.bench_file = rq.str("bench");
        if (rq.has("profile")) o.profile_file = rq.str("profile");
        o.keep = rq.has("keep") && rq.flag("keep");
        return from(kernel::record_iteration(kk, ws, o), record_human);
      });
    };
    out.push_back(std::move(v));
  }
  {
    Verb v = base("status", "kernel_status", "Workspace status and whether to stop",
                  "The unmasked history, the best version, the Stop Condition and the budget: next says stop or "
                  "continue");
    v.examples = "  goblin kernel status /tmp/kernel_opt_mm --json\n";
    v.writes = false;
    v.request = {workspace_field()};
    v.result_schema = object_schema("iterations, masked, best, stop_condition_met, next {action, reason, budget}");
    recorded_as_workspace(v);
    v.run = [](const Request& rq, Context& ctx) {
      return with_ws(rq, ctx, [](const kernel::Knowledge& kk, const std::string& ws) {
        VerbResult v;
        auto r = kernel::workspace_status(kk, ws);
        if (!r.ok()) {
          v.error = r.error();
          return v;
        }
        v.result = r->json;
        v.human = r->human;
        return v;
      });
    };
    out.push_back(std::move(v));
  }
  for (bool masked : {true, false}) {
    Verb v = base(masked ? "mask" : "unmask", "", masked ? "Mask an iteration" : "Unmask an iteration",
                  masked ? "Hide iteration N from every read (status, best, plan)" : "Make iteration N visible again");
    v.examples =
        masked ? "  goblin kernel mask 3 /tmp/kernel_opt_mm\n" : "  goblin kernel unmask 3 /tmp/kernel_opt_mm\n";
    Field ver = field("version", FieldKind::Integer, "iteration number N (memory/vN.json)");
    ver.positional = ver.required = true;
    ver.min = 0;
    v.request = {ver, workspace_field()};
    v.result_schema = object_schema("version, masked, changed, commit");
    recorded_as_workspace(v);
    v.run = [masked](const Request& rq, Context& ctx) {
      return with_ws(rq, ctx, [&](const kernel::Knowledge& kk, const std::string& ws) {
        return from(kernel::set_masked(kk, ws, static_cast<int>(rq.integer("version")), masked), [](const Json& j) {
          return fmt::format("{} v{}{}\n", j["masked"].get<bool>() ? "masked" : "unmasked", j["version"].get<int>(),
                             j["changed"].get<bool>() ? "" : " (already)");
        });
      });
    };
    out.push_back(std::move(v));
  }
  {
    Verb v = base("suite", "", "Score a directory of kernels",
                  "Run every kernel file of a directory through the harness and score it with KernelBench's "
                  "metrics: correctness rate, fast_1 / fast_1.5 vs eager and torch.compile, geometric-mean speedup, "
                  "% of roofline");
    v.examples =
        "  goblin kernel suite examples/kernel/suite --platform H100 --out /tmp/suite     run on this GPU\n"
        "  goblin kernel suite examples/kernel/suite --platform H100 --results /tmp/suite/raw\n"
        "  goblin kernel suite examples/kernel --platform H100 --tasks rmsnorm,matmul/v3 -o /tmp/suite\n";
    Field dir =
        field("dir", FieldKind::InputPath, "directory of kernel files (*.py; names starting with _ are skipped)");
    dir.positional = dir.required = true;
    Field plat = field("platform", FieldKind::String, "GPU id of the spec database (goblin specs --list)");
    plat.required = true;
    Field rtol = field("rtol", FieldKind::Number, "correctness threshold: max relative error (default 0.01)", 0.01);
    rtol.min = 0;
    Field rep = field("rep_ms", FieldKind::Number, "timing budget per kernel and reference in ms (default 500)", 500.0);
    rep.min = 1;
    rep.max = 60000;
    Field warm = field("warmup_ms", FieldKind::Number, "warm-up budget in ms (default 50)", 50.0);
    warm.min = 0;
    warm.max = 60000;
    Field out_dir = field("out", FieldKind::OutputDir, "where the raw results, suite.json and suite.md go");
    out_dir.cli = "-o,--out";
    v.request = {dir,
                 plat,
                 field("results", FieldKind::InputPath,
                       "score recorded raw results (<file stem>.json each) instead of running the harness"),
                 out_dir,
                 field("dtype", FieldKind::String, "element type (default bf16)", "bf16"),
                 rtol,
                 rep,
                 warm,
                 field("tasks", FieldKind::StringList,
                       "only these problem folders (matmul) or files (matmul/v2), comma-separated (default: all)")};
    append(v.request, program_fields(false));
    v.result_schema = object_schema(
        "metrics (correctness_rate, fast_p, geomean speedups), one row per task, and per problem its best correct "
        "version with the same metrics");
    v.run = [](const Request& rq, Context& ctx) {
      kernel::SuiteOptions o;
      o.dir = rq.str("dir");
      o.platform = rq.str("platform");
      if (rq.has("results")) o.results = rq.str("results");
      if (rq.has("out")) o.out = rq.str("out");
      if (rq.has("tasks"))
        for (auto& t : rq.strings("tasks"))
          if (!t.empty()) o.tasks.push_back(t);
      o.dtype = rq.str("dtype");
      o.rtol = rq.number("rtol");
      o.run = run_options(rq);
      auto kk = kernel_knowledge_of(ctx);
      if (!kk.ok()) return VerbResult{nullptr, kk.error(), ""};
      return from(kernel::run_suite(**kk, o), [](const Json& j) { return kernel::suite_markdown(j); });
    };
    out.push_back(std::move(v));
  }
}

}  // namespace goblin::app
