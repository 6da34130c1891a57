#include "mcp/protocol.h"

#include <fmt/format.h>

namespace goblin::mcp {

namespace {

// Bracket depth outside strings; true when it stays within kMaxDepth.
bool depth_ok(const std::string& s) {
  int depth = 0;
  bool in_str = false, esc = false;
  for (char c : s) {
    if (in_str) {
      if (esc)
        esc = false;
      else if (c == '\\')
        esc = true;
      else if (c == '"')
        in_str = false;
      continue;
    }
    if (c == '"')
      in_str = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

bool valid_id(const Json& id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }

}  // namespace

ParseOutcome parse_message(const std::string& line) {
  ParseOutcome out;
  out.error_id = nullptr;
  if (!depth_ok(line)) {
    out.error = RpcError{kParseError, fmt::format("message nests deeper than {} levels", kMaxDepth), nullptr};

    return out;
  }
  Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    out.error = RpcError{kParseError, "not valid JSON", nullptr};
    return out;
  }
  if (j.is_array()) {
    // JSON-RPC batches were removed from MCP in 2025-06-18.
    out.error = RpcError{kInvalidRequest, "batches are not supported (MCP 2025-06-18 removed them)", nullptr};
    return out;
  }
  if (!j.is_object()) {
    out.error = RpcError{kInvalidRequest, "a JSON-RPC message must be an object", nullptr};
    return out;
  }
  if (j.contains("id") && valid_id(j["id"])) out.error_id = j["id"];
  auto bad = [&](const std::string& why) {
    out.error = RpcError{kInvalidRequest, why, nullptr};
    return out;
  };
  if (!j.contains("jsonrpc") || j["jsonrpc"] != "2.0") return bad("\"jsonrpc\" must be \"2.0\"");
  Message m;
  if (j.contains("method")) {
    if (!j["method"].is_string()) return bad("\"method\" must be a string");
    m.method = j["method"].get<std::string>();
    if (j.contains("params")) {
      if (!j["params"].is_object() && !j["params"].is_null())
        return bad("\"params\" must be an object (MCP uses named parameters)");
      m.params = j["params"];
    }
    if (j.contains("id")) {
      if (!valid_id(j["id"])) return bad("\"id\" must be a string or an integer");
      m.kind = Message::Request;
      m.id = j["id"];
    } else {
      m.kind = Message::Notification;
    }
  } else if (j.contains("result") || j.contains("error")) {
    if (!j.contains("id")) return bad("a response needs an \"id\"");
    m.kind = Message::Response;
    m.id = j["id"];
  } else {
    return bad("neither a request (\"method\") nor a response (\"result\"/\"error\")");
  }
  out.message = std::move(m);
  return out;
}

Json make_response(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

Json make_error_response(const Json& id, const RpcError& e) {
  Json err = {{"code", e.code}, {"message", e.message}};
  if (!e.data.is_null()) err["data"] = e.data;
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", err}};
}

Json make_notification(const std::string& method, Json params) {
  return Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

}  // namespace goblin::mcp
