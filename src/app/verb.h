// The verb registry: every goblin verb is declared once here — its name, a one-line summary, a
// typed request (fields with type, default, help, limits) and a description of its result — and
// every front door (the CLI, the MCP server, the HTTP API, the Python module) is a thin adapter
// that turns its own input into a Request, calls Verb::run and prints the VerbResult its own way.
// The CLI11 options and the MCP inputSchema are generated from the same field list, so the two can
// never drift: the same request gives the same result JSON through every door (tested by
// mcp/registry_parity_test.cpp and serve/http_parity_test.cpp over the real fixtures).
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "audit/compare.h"
#include "audit/knowledge.h"
#include "core/fields.h"
#include "core/json.h"
#include "core/status.h"
#include "core/verb_result.h"

namespace goblin::store {
class StorePool;
}

namespace goblin::app {

// What a request field holds. Paths are separate kinds because each door treats them differently:
// the CLI takes them as the user typed them, the MCP server confines them to its --root
// directories (after symlinks), and an output a door does not let its caller choose is supplied by
// the door (the MCP server's session folder).
enum class FieldKind {
  String,
  Integer,
  Number,
  Boolean,
  StringList,  // CLI: repeated or comma-separated; JSON: an array of strings (a lone string is accepted)
  Object,      // JSON only: an inline object (a WorkloadConfig, RunMetrics, a patch)
  Array,       // JSON only: an array of anything
  InputPath,   // a file or directory goblin reads
  InputPaths,  // one or more of them (one per rank, or several inputs); JSON: a string or an array
  InputJson,   // a JSON document: a path to a .json file, or (JSON doors) the object inline
  OutputDir,   // a directory goblin writes into
  OutputFile,  // a file goblin writes
  WorkDir,     // a directory goblin reads and writes in place (a kernel workspace); MCP: one the
               // session made under its --out (kernel_init), the only place it may write
};

// Which front doors offer a field (a door that does not offer an output supplies it).
enum Door : unsigned {
  kCli = 1,
  kMcp = 2,
  kHttp = 4,
  kPython = 8,
  kAllDoors = 15,
  kJsonDoors = kMcp | kHttp | kPython
};

struct Field {
  std::string name;  // the JSON / MCP argument name (snake_case); the CLI option is --name-with-dashes
  FieldKind kind = FieldKind::String;
  std::string help;
  Json default_value = nullptr;  // null: no default (the field is absent unless given)
  bool required = false;
  bool positional = false;           // CLI: a positional argument (in declaration order)
  std::optional<double> min, max;    // Integer / Number limits, inclusive
  std::vector<std::string> choices;  // String: the allowed values
  std::string cli;                   // CLI11 name spec when it differs from --name (e.g. "-o,--out")
  std::vector<std::string> aliases;  // other JSON names accepted for it (older MCP spellings)
  unsigned doors = kAllDoors;
  // CLI only: --help shows the default ("--steps INT=5"), as the hand-written commands did.
  bool cli_show_default = false;
  // CLI only: accepted but not listed in --help (an older spelling kept for scripts).
  bool cli_hidden = false;
};

// A validated request: every field the caller gave, type-checked and within its limits, plus the
// defaults of those it did not. Paths are already resolved by the door.
class Request {
 public:
  Request() = default;
  explicit Request(Json args) : args_(std::move(args)) {}
  bool has(const std::string& name) const { return args_.contains(name) && !args_[name].is_null(); }
  std::string str(const std::string& name) const;
  int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;
  bool flag(const std::string& name) const;
  std::vector<std::string> strings(const std::string& name) const;
  const Json& json(const std::string& name) const;
  const Json& args() const { return args_; }
  Json& mutable_args() { return args_; }

 private:
  Json args_ = Json::object();
};

// What the door gives the verb besides the request.
struct Context {
  Door door = kCli;
  // A path named inside another argument (a config dict's source_file): the door confines it the
  // way it confines path fields (MCP: inside --root). Unset: taken as given.
  std::function<Result<std::string>(const std::string& path, const std::string& what)> resolve_input;
  // Where a verb writes when the door does not let the caller choose (MCP: a fresh folder under
  // the session's --out); `kind` names the verb's output ("triage", "report", "patch").
  std::function<Result<std::string>(const std::string& kind)> output_dir;
  // Files a verb wrote, for the door to publish (MCP: report resources).
  std::function<void(const std::string& id, const std::vector<std::string>& files)> on_written;
  // Long verbs report progress and stop when cancelled.
  std::function<void(double fraction, const std::string& message)> progress;
  const std::atomic<bool>* cancelled = nullptr;
  // The CLI without --json: where a verb whose readable output can be huge (`goblin query`'s
  // rows) streams it as it is produced instead of building `human` whole. Unset elsewhere.
  std::function<void(std::string_view)> text_out;
  // Door-specific evidence a verb may use: the MCP session's record of how its benchmark calls
  // were measured, folded into compare's options (opaque to the verb; see verbs_audit.cpp).
  std::function<void(const Json& args, audit::RunInput& before, audit::RunInput& after, audit::CompareOptions& co)>
      enrich_compare;
  // Door-specific measurement: the MCP session's runner (its --replay recordings or its live
  // runner, plus the record of each run compare_runs reads) answers profile_run and benchmark.
  // Set: the profile and bench verbs measure through it (kind "profile" | "bench") instead of
  // launching the workload themselves.
  std::function<VerbResult(const std::string& kind, const Request& rq)> measure;
  // The knowledge context (audit/knowledge.h) this call's analyses read; app::knowledge(ctx)
  // fills it on first use from the process's (audit::knowledge(): loaded once per process and
  // data directory). A door may set it beforehand to serve several calls from one.
  std::shared_ptr<const audit::Knowledge> knowledge;
  // A door that serves one run store (goblin serve) names it here: the store verbs then read and
  // write that store (through the pool's open connections when set) and never a store the request
  // names, so a caller cannot point the server at another database or file (app/store_access.h).
  std::string store_url;
  store::StorePool* store_pool = nullptr;
  // Whether the caller may hand over code for goblin to run (kernel_bench's kernel_source, which
  // the harness imports and runs). The CLI's user runs their own code; the MCP server allows it
  // only with --allow-live, so a model cannot run what it wrote on a session that did not agree.
  bool caller_code_allowed = true;
};

// The call's knowledge context: ctx.knowledge, loaded (once per process) when unset. Its error
// names the data file and line that could not be read.
Result<std::shared_ptr<const audit::Knowledge>> knowledge(Context& ctx);

struct Verb {
  std::vector<std::string> cli_path;  // {"triage"}, {"kb", "query"}: the CLI command words
  std::string tool;                   // the MCP tool name (empty: not offered over MCP)
  std::vector<std::string> tool_aliases;
  std::string title;        // a few words (MCP title)
  std::string summary;      // one line (CLI command help, MCP description's first sentence)
  std::string description;  // the rest of the MCP description (what the result holds)
  std::string examples;     // CLI help footer examples
  std::vector<Field> request;
  Json result_schema = Json::object();  // JSON Schema of the envelope's `result`
  bool audit_budget = false;            // MCP: counts against the session's audit budget
  bool writes = false;                  // writes files (MCP readOnlyHint false)
  // Changes the run store (store init, add, rm, migrate, tag): over HTTP only by POST with the
  // server's --token.
  bool writes_store = false;
  // Produces a result worth remembering: run_verb records it in the run store (--store URL or
  // $GOBLIN_STORE; docs/store.md), and the registry gives it the --store, --experiment, --trial,
  // --workload and --tag fields. Lookups (kb, specs, verbs) and the store's own verbs do not.
  bool records = true;
  // For a verb whose result lives in a folder it keeps (a kernel workspace: its iterations against
  // the Stop Condition; a profile's run directory; an audit's report directory), the folder to
  // record instead of the result JSON (store::record_from_path); empty: record the result JSON.
  std::function<std::string(const Request&, const VerbResult&)> record_folder;
  // Files the result was computed from that no path field names (the trace `goblin trace` wrote):
  // recorded and hashed with the path fields' files.
  std::function<std::vector<std::string>(const Request&, const VerbResult&)> record_inputs;
  // Which doors offer the verb (MCP also needs `tool`). A verb that launches the user's
  // programs is not offered over HTTP: the dashboard's callers must not start processes.
  unsigned doors = kAllDoors;
  // MCP: the verb reads the session's own records (compare_runs reads its benchmark calls) and so
  // runs in the server process, never in an isolated child.
  bool session_bound = false;
  // MCP: the result quotes text from the user's files (kernel names, config values), so the door
  // marks it as data and cuts long quoted strings. False for goblin's own cited data (specs, kb).
  bool quotes_user_text = true;
  // MCP: the verb's place in the audit trajectory (1 parse ... 6 compare; tools/list shows these
  // first, in that order); 0: an analysis, listed after them in registry order.
  int audit_step = 0;
  std::function<VerbResult(const Request&, Context&)> run;

  std::string cli_name() const;  // "kb query"
};

// ---- typed requests ----------------------------------------------------------------------------
// A verb's request declared once, as a struct and the fields bound to its members:
//
//   struct MemoryRequest { std::string path; std::optional<std::string> diff; int64_t top = 15; };
//   typed_request<MemoryRequest>(v, memory_verb,
//       param(&MemoryRequest::path, Field{"path", FieldKind::InputPath, "..."}),
//       param(&MemoryRequest::diff, Field{"diff", FieldKind::InputPath, "..."}),
//       param(&MemoryRequest::top, Field{"top", FieldKind::Integer, "...", 15}));
//
// sets v.request to the fields (so the CLI options, MCP schema, HTTP parameters and Python
// signature come from them, as before) and v.run to read the door's validated request into a
// MemoryRequest and call memory_verb(const MemoryRequest&, Context&) (or, for a verb that also
// hands the request on as JSON, (const MemoryRequest&, const Request&, Context&)). Nothing reads a
// field back by its name: a misspelt member does not compile. A member's type says how its value
// is read: std::string (every path kind), int64_t or another integer, double, bool,
// std::vector<std::string> (StringList, InputPaths), Json (Object, Array, InputJson), and
// std::optional of any of them for "given or not" (an absent field with no default).

template <class Req, class V>
struct Param {
  Field field;
  std::function<V&(Req&)> at;  // the member the field is read into
};

template <class Req, class V>
Param<Req, V> param(V Req::*member, Field field) {
  return {std::move(field), [member](Req& r) -> V& { return r.*member; }};
}

// A field read into a member of a member (a request struct that embeds the options struct of the
// module it drives: `param(&SlurmScriptRequest::o, &ScaleScriptOptions::partition, ...)`).
template <class Req, class S, class V>
Param<Req, V> param(S Req::*outer, V S::*inner, Field field) {
  return {std::move(field), [outer, inner](Req& r) -> V& { return (r.*outer).*inner; }};
}

// A param of a base of Req (a request that inherits fields it shares with another verb's) reads
// into that base; anything else does not compile.
// (Used as `ParamOf<Req>... Ps`: the constrained type comes first.)
template <class P, class Req>
concept ParamOf = requires(Req& r, const P& p) {
  p.at(r);
};

template <class Req, class B, class V>
Status read_param(const Json& args, const Param<B, V>& p, Req& req) {
  auto it = args.find(p.field.name);
  if (it == args.end() || it->is_null()) return Status::Ok();
  typename fields::DefaultCodec<V>::type codec{};
  return codec.read(*it, p.at(req), p.field.name);
}

// Reads a validated request into a Req through its params (what typed_request's run does; public
// for a verb that runs another verb's typed function with a request it built).
template <class Req, ParamOf<Req>... Ps>
Result<Req> read_request(const Request& rq, const Ps&... ps) {
  Req req{};
  Status st = Status::Ok();
  ((st.ok() ? (void)(st = read_param(rq.args(), ps, req)) : void()), ...);
  if (!st.ok()) return st.error();
  return req;
}

template <class Req, class Fn, ParamOf<Req>... Ps>
void typed_request(Verb& v, Fn fn, Ps... ps) {
  v.request = {ps.field...};
  v.run = [fn, ps...](const Request& rq, Context& ctx) -> VerbResult {
    auto req = read_request<Req>(rq, ps...);
    if (!req) return req.error();
    if constexpr (std::is_invocable_v<Fn, const Req&, const Request&, Context&>)
      return fn(*req, rq, ctx);
    else
      return fn(*req, ctx);
  };
}

// The verb's HTTP route when it is offered there: "/api/v1/" + its CLI words joined by '/'.
std::string http_route(const Verb& v);

// What every door calls to run a verb: Verb::run, then the one redaction layer of all output
// (config::redact_json over the result, redact_credentials over the text and the error), so a
// credential that reached a result from a trace's metadata, a recorded command line or a config
// never leaves through any door. Then, for a verb that records and succeeded, with a store named
// (the request's `store`, else $GOBLIN_STORE), the result is recorded as a run (docs/store.md);
// the result then holds `stored_run` {id, added, store}, and a store that cannot take it is the
// call's error (the result is still returned).
VerbResult run_verb(const Verb& v, const Request& rq, Context& ctx);

// Every verb, in the order `goblin --help` lists them.
const std::vector<Verb>& verbs();

// A CLI word that groups verbs ("kb", "kernel", "store"): its help line and examples.
struct VerbGroup {
  std::string word, summary, examples;
};
const std::vector<VerbGroup>& verb_groups();
const VerbGroup* find_group(std::string_view word);

// The one error every door gives for required fields the caller left out.
Error missing_fields_error(const Verb& v, const std::vector<std::string>& missing);

// The one preamble every door runs: the verb offered on `door`, the JSON arguments checked into a
// Request (make_request), missing fields refused with missing_fields_error, then run_verb. A door
// only turns its own input into `args` and sets its Context hooks.
VerbResult call(const Verb& v, const Json& args, Door door, Context& ctx);
// The same by CLI or MCP name; an unknown name is a Usage error.
VerbResult call(std::string_view name, const Json& args, Door door, Context& ctx);

// The name a door shows for itself in messages ("the command line", "MCP", "HTTP", "Python").
const char* door_name(Door d);
// By CLI name ("kb query", "parse-config") or MCP tool name or alias ("query_rocm_kb").
const Verb* find_verb(std::string_view name);

// Checks JSON arguments against the verb's fields for `door`: unknown names are ignored (as the
// audit agent's tools always did), aliases are renamed, types and limits are checked (a Usage
// error naming the field), defaults filled. Missing required fields are returned in `missing`
// instead of failing, so a door can answer the way its callers expect (the MCP audit agent wants
// ok=false naming what is missing).
Result<Request> make_request(const Verb& v, const Json& args, Door door, std::vector<std::string>* missing);

// The JSON Schema of the verb's arguments for `door` (MCP inputSchema).
Json input_schema(const Verb& v, Door door);

// The CLI option name of a field: "--target-arch".
std::string cli_flag(const Field& f);

}  // namespace goblin::app
