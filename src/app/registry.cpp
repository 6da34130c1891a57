#include "app/registry.h"

#include <fmt/format.h>

#include "app/door_text.h"
#include "config/workload_config.h"

namespace goblin::app {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> all = [] {
    std::vector<Verb> v;
    add_trace_verbs(v);
    add_trace_tool_verbs(v);
    add_query_verbs(v);
    add_audit_verbs(v);
    add_audit_run_verbs(v);
    add_run_verbs(v);
    add_hw_verbs(v);
    add_memory_verbs(v);
    add_kernel_verbs(v);
    add_server_verbs(v);
    add_store_verbs(v);
    add_store_web_verbs(v);
    add_scale_verbs(v);
    add_meta_verbs(v);
    for (Verb& x : v) {
      // MCP offers a verb only under its tool name: without one, MCP is not among its doors.
      if (x.tool.empty()) x.doors &= ~static_cast<unsigned>(kMcp);
      if (!x.records) continue;
      for (Field& f : record_fields()) {
        // A verb whose own field already takes the name or flag (compare's --workload) keeps it.
        bool taken = false;
        for (const Field& g : x.request)
          taken = taken || g.name == f.name || g.cli.find(cli_flag(f)) != std::string::npos;
        if (!taken) x.request.push_back(std::move(f));
      }
    }
    return v;
  }();
  return all;
}

VerbResult run_verb(const Verb& v, const Request& rq, Context& ctx) {
  VerbResult r = v.run(rq, ctx);
  config::redact_json(r.result);
  r.human = config::redact_credentials(r.human);
  if (r.error) {
    r.error->message = config::redact_credentials(r.error->message);
    r.error->file = config::redact_credentials(r.error->file);  // a store URL is an error's "file" too
  }
  // HTTP reads never write: a web caller's triage is not recorded in the server's store.
  if (!r.error && v.records && ctx.door != kHttp) record_result(v, rq, r);
  return r;
}

const std::vector<VerbGroup>& verb_groups() {
  static const std::vector<VerbGroup> groups = {
      {"kb", "The cited rule base: lint, query, show, list",
       "  goblin kb query \"fp32 used on H100\" \"DataLoader num_workers=0\" --top 3\n"
       "  goblin kb show data.dataloader_workers_zero       one rule with its citation\n"
       "  goblin kb list --json                             every rule\n"
       "  goblin kb lint                                    check the rule files\n"},
      {"kernel", "Kernel optimization workspace: Step 0 roofline, bench, ncu diagnosis, record, plan, suite",
       "  goblin kernel init softmax --kernel v0.py --platform H100 --shape M=32768,N=8192 --dtype bf16\n"
       "  goblin kernel bench /tmp/kernel_opt_softmax      correctness + honest timing\n"
       "  goblin kernel profile /tmp/kernel_opt_softmax    ncu on the kernel's launches + diagnosis\n"
       "  goblin kernel record /tmp/kernel_opt_softmax --summary \"single pass, row in registers\"\n"
       "  goblin kernel plan /tmp/kernel_opt_softmax       next candidates (plans/v<N>_plan.md)\n"
       "  goblin kernel status /tmp/kernel_opt_softmax     history, best version, stop or continue\n"
       "  goblin kernel suite DIR --platform H100 -o OUT   KernelBench's metrics over a directory\n"
       "Workflow and the kernel file's contract: docs/kernel.md\n"},
      {"store", "The run store (SQLite or PostgreSQL): init, add, ls, show, rm, migrate, export, trend, calibration",
       "  goblin store init --store sqlite:///srv/goblin/runs.db\n"
       "  goblin store add out/triage out/audit --experiment exp42 --trial t3\n"
       "  goblin store ls --workload llama-8b --json\n"
       "  goblin store show 12\n"},
  };
  return groups;
}

const VerbGroup* find_group(std::string_view word) {
  for (const VerbGroup& g : verb_groups())
    if (g.word == word) return &g;
  return nullptr;
}

const char* door_name(Door d) {
  switch (d) {
    case kCli:
      return "the command line";
    case kMcp:
      return "MCP";
    case kHttp:
      return "HTTP";
    case kPython:
      return "Python";
    default:
      return "this door";
  }
}

Error missing_fields_error(const Verb& v, const std::vector<std::string>& missing) {
  std::string m;
  for (const auto& x : missing) m += (m.empty() ? "" : ", ") + x;
  return make_error(ErrorKind::Usage, fmt::format("missing required argument: {} ({}; `goblin verbs` lists its fields)",
                                                  m, v.cli_name()));
}

namespace {

VerbResult call_unworded(const Verb& v, const Json& args, Door door, Context& ctx) {
  if (!(v.doors & door))
    return VerbResult{
        nullptr,
        make_error(ErrorKind::Usage, fmt::format("'{}' is not offered through {} (goblin verbs lists its doors)",
                                                 v.cli_name(), door_name(door))),
        ""};
  std::vector<std::string> missing;
  auto rq = make_request(v, args, door, &missing);
  if (!rq) return VerbResult{nullptr, rq.error(), ""};
  // An output the caller did not name is not missing where the door picks one (MCP's session
  // folder, Python's fresh temporary directory): the verb asks ctx.output_dir for it.
  if (ctx.output_dir)
    std::erase_if(missing, [&](const std::string& name) {
      for (const Field& f : v.request)
        if (f.name == name) return f.kind == FieldKind::OutputDir || f.kind == FieldKind::OutputFile;
      return false;
    });
  if (!missing.empty()) return VerbResult{nullptr, missing_fields_error(v, missing), ""};
  ctx.door = door;
  return run_verb(v, *rq, ctx);
}

}  // namespace

VerbResult call(const Verb& v, const Json& args, Door door, Context& ctx) {
  VerbResult r = call_unworded(v, args, door, ctx);
  // A JSON door's caller passes arguments, never the CLI's flags (app/door_text.h).
  if (r.error && door != kCli) r.error->message = door_text(v, r.error->message, door);
  return r;
}

VerbResult call(std::string_view name, const Json& args, Door door, Context& ctx) {
  const Verb* v = find_verb(name);
  if (!v)
    return VerbResult{
        nullptr, make_error(ErrorKind::Usage, fmt::format("no verb named '{}' (goblin verbs lists them)", name)), ""};
  return call(*v, args, door, ctx);
}

const Verb* find_verb(std::string_view name) {
  for (const Verb& v : verbs()) {
    if (v.cli_name() == name || (!v.tool.empty() && v.tool == name)) return &v;
    for (const auto& a : v.tool_aliases)
      if (a == name) return &v;
  }
  return nullptr;
}

}  // namespace goblin::app
