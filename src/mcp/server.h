// The MCP method dispatcher: lifecycle (initialize with version negotiation, then
// notifications/initialized), ping, tools/*, prompts/*, resources/*. It is synchronous — one
// message in, at most one response out — so the fuzzer and the unit tests drive it directly; the
// stdio transport (transport.h) adds threads for cancellation and progress around it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "mcp/protocol.h"
#include "mcp/session.h"
#include "mcp/tools.h"

namespace goblin::mcp {

// Protocol versions this server speaks, newest first: 2025-06-18 (structuredContent and
// outputSchema arrived there) and the newer one the official TypeScript SDK sends
// (LATEST_PROTOCOL_VERSION of @modelcontextprotocol/sdk 1.32: 2025-11-25).
const std::vector<std::string>& supported_protocol_versions();
// The version to answer an initialize with: the client's when supported, else our newest.
std::string negotiate_version(const std::string& requested);

class Server {
 public:
  Server(Session& s, ToolRegistry reg) : s_(s), reg_(std::move(reg)) {}

  // A request's response, or nullopt for notifications and responses.
  std::optional<Json> handle(const Message& m, CallContext& ctx);
  // parse_message + handle, for the fuzzer and tests: the JSON-RPC reply line(s) to `line`.
  std::optional<Json> handle_line(const std::string& line);

  bool initialized() const { return initialized_; }
  const std::string& protocol_version() const { return version_; }
  Session& session() { return s_; }

 private:
  Result<Json> dispatch(const Message& m, CallContext& ctx, std::optional<RpcError>& rpc);
  Json initialize(const Json& params, std::optional<RpcError>& rpc);
  Session& s_;
  ToolRegistry reg_;
  bool initialized_ = false, client_ready_ = false;
  std::string version_;
};

// prompts.cpp / resources.cpp
Json prompts_list();
std::optional<Json> prompt_get(const Json& params, const Session& s, RpcError& err);
Json resources_list(const Session& s);
std::optional<Json> resource_read(const Json& params, const Session& s, RpcError& err);

// The server's self-description for initialize's `instructions`.
std::string server_instructions(const Session& s, const ToolRegistry& reg);

}  // namespace goblin::mcp
