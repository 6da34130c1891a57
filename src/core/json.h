// JSON output. Every `--json` result is the envelope {"ok", "result", "error"} (the audit agent's
// ToolResult) so scripts and agents handle success and failure the same way.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "core/limits.h"
#include "core/status.h"

namespace goblin {

using Json = nlohmann::ordered_json;

Json envelope_ok(Json result);
// A failure; `partial` carries whatever was computed before the error (null if nothing).
Json envelope_error(const Error& e, Json partial = nullptr);

// Error as a JSON object: {kind, message, file, byte_offset, line, exit_code}.
Json error_to_json(const Error& e);

// Parses a whole JSON document. Every failure nlohmann reports — a syntax error, and also a
// number too large for a double (out_of_range 406, which is not a parse_error) — becomes a
// Malformed error naming `file`, the byte offset and the line, with `what` ("JSON", "not valid
// JSON", ...) as the message prefix.
//
// Nesting deeper than `max_depth` is refused before parsing (Malformed, naming the byte where the
// limit was passed): a deep document would otherwise cost recursion in every later walk over it.
Result<Json> parse_json_text(const std::string& text, const std::string& file, const std::string& what = "JSON",
                             int max_depth = limits::kMaxJsonDepth);

// Byte offset of the bracket that takes `text` past `max_depth` levels of nested arrays/objects
// (strings honoured), or -1 when it stays within. One linear pass, no allocation.
int64_t json_depth_exceeded(std::string_view text, int max_depth);

// The JSON type of a value as JSON Schema names it: "string", "integer", "number", "boolean",
// "array", "object" or "null".
const char* json_type_name(const Json& v);

// Rounds to `digits` decimals for stable, readable output.
double round_to(double v, int digits);

}  // namespace goblin
