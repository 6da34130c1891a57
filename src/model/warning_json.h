// The one JSON form of a warning (model/warnings.h), used by every output that carries warnings
// (info, metrics, breakdown, roofline, triage's profile_metadata.json, parse-config):
//   {"id", "severity", "message", "file"?, "byte_offset"?, "line"?, "count"}
// `severity` comes from the catalogue; file, byte_offset and line appear only when known.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"
#include "model/warnings.h"

namespace goblin {

Json warning_to_json(const Warning& w);
Json warnings_to_json(const std::vector<Warning>& ws);
// Reads one back: an object with a catalogued "id" (severity is the catalogue's, whatever the
// object says), or a bare string that a goblin older than the ids wrote (id untyped_note).
// Malformed, naming `at`, for anything else.
Status warning_from_json(const Json& j, Warning& w, const std::string& at);

// The JSON Schema of a list of warnings in that shape (the verbs' result schemas, and through them
// the MCP outputSchemas, describe every warnings-like key with it); `description` says whose.
Json warnings_json_schema(std::string_view description);

// What the text renderers print for a warning: its message, and " (xN)" when folded N > 1 times.
std::string warning_text(const Warning& w);

namespace fields {
// The field-list codec (core/fields.h) for a Warning: `field("warnings", &M::warnings, Vec<WarningCodec>{})`.
struct WarningCodec {
  Json write(const Warning& w) const { return warning_to_json(w); }
  Status read(const Json& j, Warning& w, const std::string& at) const { return warning_from_json(j, w, at); }
};
}  // namespace fields

}  // namespace goblin
