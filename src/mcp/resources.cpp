// resources/list and resources/read: the cited rule base, the GPU spec database (each figure with
// its source) and the reports compare_runs wrote in this session.
#include "audit/knowledge.h"
#include "audit/rules.h"
#include "core/io.h"
#include "hw/gpu_specs.h"
#include "hw/knowledge.h"
#include "mcp/server.h"

namespace goblin::mcp {

namespace {
constexpr int kResourceNotFound = -32002;  // MCP's code for an unknown resource URI

Result<Json> rules_json() {
  ASSIGN_OR_RETURN(auto kn, audit::knowledge());
  Json a = Json::array();
  for (const auto& r : kn->rules.rules) a.push_back(audit::rule_to_json(r));
  return Json{{"rules", a}, {"count", a.size()}};
}

Result<Json> specs_json() {
  ASSIGN_OR_RETURN(auto db, hw::hw_knowledge()->gpu_db());
  Json a = Json::array();
  for (const auto& g : db) a.push_back(hw::gpu_spec_to_json(g));
  return Json{{"gpus", a}, {"count", a.size()}};
}
}  // namespace

Json resources_list(const Session& s) {
  Json list = Json::array({
      Json{{"uri", "goblin://kb/rules"},
           {"name", "rules"},
           {"title", "goblin rule base"},
           {"description", "every audit rule (AMD and NVIDIA) with its detect, patch, expected recovery and citation"},
           {"mimeType", "application/json"}},
      Json{{"uri", "goblin://specs/gpus"},
           {"name", "gpus"},
           {"title", "GPU spec database"},
           {"description",
            "peak FLOP/s per dtype, memory bandwidth, memory, SM/CU counts; every figure with its source"},
           {"mimeType", "application/json"}},
  });
  for (const auto& r : s.reports())
    list.push_back(Json{{"uri", r.uri},
                        {"name", r.name},
                        {"title", "audit report " + r.name},
                        {"description", "written by compare_runs in this session"},
                        {"mimeType", r.mime}});
  return Json{{"resources", list}};
}

std::optional<Json> resource_read(const Json& params, const Session& s, RpcError& err) {
  if (!params.contains("uri") || !params["uri"].is_string()) {
    err = RpcError{kInvalidParams, "resources/read needs params.uri (a string)", nullptr};
    return std::nullopt;
  }
  std::string uri = params["uri"];
  std::string text, mime = "application/json";
  if (uri == "goblin://kb/rules" || uri == "goblin://specs/gpus") {
    auto j = uri == "goblin://kb/rules" ? rules_json() : specs_json();
    if (!j) {
      err = RpcError{kInternalError, j.error().describe(), nullptr};
      return std::nullopt;
    }
    text = j->dump(1);
  } else {
    bool found = false;
    for (const auto& r : s.reports())
      if (r.uri == uri) {
        auto t = read_all(r.path);
        if (!t) {
          err = RpcError{kInternalError, t.error().describe(), nullptr};
          return std::nullopt;
        }
        text = *t;
        mime = r.mime;
        found = true;
      }
    if (!found) {
      err = RpcError{kResourceNotFound, "no resource '" + uri + "' (see resources/list)", Json{{"uri", uri}}};
      return std::nullopt;
    }
  }
  text = scrub_text(text, s.roots());
  return Json{{"contents", Json::array({Json{{"uri", uri}, {"mimeType", mime}, {"text", text}}})}};
}

}  // namespace goblin::mcp
