#include "model/warning_json.h"

#include <fmt/format.h>

namespace goblin {

Json warning_to_json(const Warning& w) {
  Json j = {
      {"id", warning_id_name(w.id)}, {"severity", severity_name(warning_info(w.id).severity)}, {"message", w.message}};
  if (!w.file.empty()) j["file"] = w.file;
  if (w.byte_offset >= 0) j["byte_offset"] = w.byte_offset;
  if (w.line >= 0) j["line"] = w.line;
  j["count"] = w.count;
  return j;
}

Json warnings_to_json(const std::vector<Warning>& ws) {
  Json a = Json::array();
  for (const Warning& w : ws) a.push_back(warning_to_json(w));
  return a;
}

Status warning_from_json(const Json& j, Warning& w, const std::string& at) {
  w = Warning{};
  if (j.is_string()) {  // written before warnings carried ids
    w.id = W::untyped_note;
    w.message = j.get<std::string>();
    return Status::Ok();
  }
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || !j.contains("message") ||
      !j["message"].is_string())
    return make_error(ErrorKind::Malformed, fmt::format("{}: expected a warning {{id, severity, message}}", at));
  const auto id = warning_id_from_name(j["id"].get<std::string>());
  if (!id)
    return make_error(
        ErrorKind::Malformed,
        fmt::format("{}.id: {} is not in goblin's warning catalogue (goblin --list-warnings)", at, j["id"].dump()));
  w.id = *id;
  w.message = j["message"].get<std::string>();
  if (j.contains("file") && j["file"].is_string()) w.file = j["file"].get<std::string>();
  if (j.contains("byte_offset") && j["byte_offset"].is_number_integer())
    w.byte_offset = j["byte_offset"].get<int64_t>();
  if (j.contains("line") && j["line"].is_number_integer()) w.line = j["line"].get<int64_t>();
  if (j.contains("count") && j["count"].is_number_integer() && j["count"].get<int64_t>() > 0)
    w.count = j["count"].get<int64_t>();
  return Status::Ok();
}

Json warnings_json_schema(std::string_view description) {
  Json ids = Json::array();
  for (const WarningInfo& w : warning_catalogue()) ids.push_back(w.id);
  Json item = {
      {"type", "object"},
      {"properties",
       {{"id", {{"type", "string"}, {"enum", ids}, {"description", "catalogue entry (goblin --list-warnings)"}}},
        {"severity", {{"type", "string"}, {"enum", {"info", "warning", "data_loss"}}}},
        {"message", {{"type", "string"}, {"description", "what a person reads"}}},
        {"file", {{"type", "string"}}},
        {"byte_offset", {{"type", "integer"}, {"description", "first occurrence"}}},
        {"line", {{"type", "integer"}, {"description", "first occurrence"}}},
        {"count", {{"type", "integer"}, {"description", "identical warnings folded into this one"}}}}},
      {"required", {"id", "severity", "message", "count"}}};
  return {{"type", "array"}, {"description", description}, {"items", std::move(item)}};
}

std::string warning_text(const Warning& w) {
  return w.count > 1 ? fmt::format("{} (x{})", w.message, w.count) : w.message;
}

}  // namespace goblin
