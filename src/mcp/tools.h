// The tool registry: each tool has a name (and aliases, e.g. query_rocm_kb), an inputSchema, the
// common outputSchema (the audit agent's ToolResult envelope {ok, result, error}) and a handler that
// calls the same library functions as the CLI verb of the same name.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/verb.h"
#include "core/json.h"
#include "core/status.h"
#include "mcp/protocol.h"
#include "mcp/session.h"

namespace goblin::mcp {

struct ToolOutcome {
  Json result;                 // the envelope's result (partial when error is set)
  std::optional<Error> error;  // ok=false
  std::string text;            // one short line for models that read text
};

struct Tool {
  std::string name, title, description;
  std::vector<std::string> aliases;
  Json input_schema;
  bool audit = false;         // counts against the session's budget (the audit's six)
  bool long_running = false;  // sends progress notifications
  std::function<ToolOutcome(const Json& args, Session& s, CallContext& ctx)> run;
  bool writes = false;  // writes files (readOnlyHint false)
  Json result_schema;   // the envelope's `result` (null: any object)
  // Reads or changes the session's state (its runs, its reports): runs in the server process,
  // stopped through its live runners. Every other tool runs in a child process (isolate.h).
  bool session_bound = false;
  // Its result quotes text from the user's files (names, config values): marked and cut (untrusted.h).
  bool quotes_user_text = true;
};

// Analysis tools cut one-line strings quoted from user files (untrusted.h); the audit tools do
// not, since the config dicts they return are passed back whole to the next tool.
inline bool cuts_quoted_text(const Tool& t) { return t.quotes_user_text && !t.audit; }

class ToolRegistry {
 public:
  void add(Tool t) { tools_.push_back(std::move(t)); }
  const Tool* find(const std::string& name) const;
  Json list_json() const;  // tools/list result
  const std::vector<Tool>& all() const { return tools_; }
  // A goblin tool this server does not offer (its group was not chosen), with its group: a call
  // to it is refused naming the group instead of "unknown tool".
  void hold_back(const std::string& name, const std::string& group) { held_back_.push_back({name, group}); }
  std::string held_back_group(const std::string& name) const;
  const std::vector<std::string>& groups() const { return groups_; }
  void set_groups(std::vector<std::string> g) { groups_ = std::move(g); }

 private:
  std::vector<Tool> tools_;
  std::vector<std::pair<std::string, std::string>> held_back_;
  std::vector<std::string> groups_;  // the groups offered (empty: every tool, no grouping asked)
};

// Every goblin tool: the registry's verbs offered over MCP (tools_registry.cpp) and the two
// session-bound measurement tools, profile_run and benchmark (tools_audit.cpp).
ToolRegistry make_registry();
// The tools of the groups `tools_spec` names (`goblin mcp --tools`: "" the default groups, "all",
// or "audit,triage"; tool_groups.h); an unknown group is a Usage error listing the groups.
Result<ToolRegistry> make_registry(const std::string& tools_spec);
// A tool's listing as tools/list gives it (compact schemas: docs/mcp.md § Tool groups).
Json tool_listing(const Tool& t, const std::string& name, const std::string& description);
void add_measure_tools(ToolRegistry& r);
// The registry verb whose MCP name is `name`, as a tool.
Tool tool_for_verb(const std::string& name);
// A registry verb called through the MCP door: path arguments confined to the roots, the request
// validated, the session's Context hooks set — and `hooks` adds a tool's own (profile_run and
// benchmark: the session's runner as Context::measure) — then app::run_verb.
ToolOutcome call_verb_tool(const app::Verb& v, const Json& args, Session& s, CallContext& cc,
                           const std::function<void(app::Context&)>& hooks);

// Keeps one tool result under `max_bytes` (long strings cut with a note, else an error that says
// how large it was); the text block under a quarter of it.
void bound_response(Json& env, std::string& text, size_t max_bytes);

// The envelope's JSON Schema, every tool's outputSchema; `result` described by `result_schema`,
// cut to its first level (compact_result_schema).
Json envelope_output_schema(const Json& result_schema = nullptr);
// A result schema as tools/list shows it: its type, description and its properties' names, types
// and descriptions; deeper levels (nested properties, items, enums) are left out. Leaving out a
// constraint only widens what validates, so a client that checks structuredContent against it
// accepts every result the full schema accepts.
Json compact_result_schema(const Json& schema);

// Checks `args` against a tool's inputSchema: wrong JSON types are a -32602 error (returned);
// missing required arguments are not — the audit agent (docs/mcp.md) wants those as ok=false naming what is missing,
// so they come back in `missing`.
std::optional<RpcError> check_arguments(const Json& schema, const Json& args, std::vector<std::string>* missing);

// tools/call: runs the tool (budget, safety scrub) and builds the CallToolResult, or the
// JSON-RPC error for an unknown tool / wrong argument types.
struct CallResult {
  std::optional<Json> result;
  std::optional<RpcError> error;
};
CallResult call_tool(const ToolRegistry& reg, const Json& params, Session& s, CallContext& ctx);

}  // namespace goblin::mcp
