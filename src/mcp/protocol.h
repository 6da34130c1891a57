// JSON-RPC 2.0 as MCP uses it: one message is a request (id + method), a notification (method, no
// id) or a response. parse_message turns one line of the stdio transport into a Message or the
// JSON-RPC error the peer must get back (-32700 parse error, -32600 invalid request).
#pragma once
#include <optional>
#include <string>

#include "core/json.h"

namespace goblin::mcp {

// JSON-RPC 2.0 and MCP error codes.
enum RpcCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
};

struct RpcError {
  int code = kInternalError;
  std::string message;
  Json data;  // optional detail (null: left out)
};

struct Message {
  enum Kind { Request, Notification, Response } kind = Request;
  Json id;  // string or integer (Request/Response); null for a Notification
  std::string method;
  Json params;  // object or null
};

// Nesting deeper than this is refused before parsing: nothing in MCP nests that deep, and a
// deeply nested document must not cost recursion when it is later dumped.
inline constexpr int kMaxDepth = 64;

// One message from one line. On failure: the error and the id to answer with (null when the id
// could not be read, as JSON-RPC says).
struct ParseOutcome {
  std::optional<Message> message;
  std::optional<RpcError> error;
  Json error_id;
};
ParseOutcome parse_message(const std::string& line);

Json make_response(const Json& id, Json result);
Json make_error_response(const Json& id, const RpcError& e);
Json make_notification(const std::string& method, Json params);

}  // namespace goblin::mcp
