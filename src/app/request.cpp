// Requests from JSON arguments and the JSON Schema of a verb's arguments, both from the verb's one
// field list (app/verb.h).
#include <cmath>

#include "app/analysis_context.h"
#include "app/verb.h"
#include "core/text.h"

namespace goblin::app {

std::string Request::str(const std::string& name) const {
  return has(name) && args_[name].is_string() ? args_[name].get<std::string>() : std::string();
}
int64_t Request::integer(const std::string& name) const {
  return has(name) && args_[name].is_number() ? static_cast<int64_t>(args_[name].get<double>()) : 0;
}
double Request::number(const std::string& name) const {
  return has(name) && args_[name].is_number() ? args_[name].get<double>() : 0.0;
}
bool Request::flag(const std::string& name) const {
  return has(name) && args_[name].is_boolean() && args_[name].get<bool>();
}
std::vector<std::string> Request::strings(const std::string& name) const {
  std::vector<std::string> out;
  if (!has(name)) return out;
  const Json& v = args_[name];
  if (v.is_string()) out.push_back(v.get<std::string>());
  if (v.is_array())
    for (const auto& e : v)
      if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}
const Json& Request::json(const std::string& name) const {
  static const Json kNull;
  return has(name) ? args_[name] : kNull;
}

std::string Verb::cli_name() const {
  std::string s;
  for (const auto& w : cli_path) s += (s.empty() ? "" : " ") + w;
  return s;
}

std::string http_route(const Verb& v) {
  std::string s = "/api/v1";
  for (const auto& w : v.cli_path) s += "/" + w;
  return s;
}

std::string cli_flag(const Field& f) {
  std::string s = "--" + f.name;
  for (auto& c : s)
    if (c == '_') c = '-';
  return s;
}

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

const char* json_type(FieldKind k) {
  switch (k) {
    case FieldKind::Integer:
      return "integer";
    case FieldKind::Number:
      return "number";
    case FieldKind::Boolean:
      return "boolean";
    case FieldKind::Object:
      return "object";
    case FieldKind::Array:
      return "array";
    default:
      return "string";
  }
}

// "a string", "an integer", "null": for messages.
std::string type_of(const Json& v) {
  const std::string t = json_type_name(v);
  if (t == "null") return t;
  return (t[0] == 'a' || t[0] == 'i' || t[0] == 'o' ? "an " : "a ") + t;
}

bool is_whole(const Json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15;
}

bool all_strings(const Json& v) {
  if (!v.is_array()) return false;
  for (const auto& e : v)
    if (!e.is_string()) return false;
  return true;
}

// Checks one value; on success it may be normalised (a lone string becomes a list).
std::optional<std::string> check_value(const Field& f, Json& v) {
  switch (f.kind) {
    case FieldKind::String:
    case FieldKind::InputPath:
    case FieldKind::OutputDir:
    case FieldKind::OutputFile:
    case FieldKind::WorkDir:
      if (!v.is_string()) return "must be a string, got " + type_of(v);
      if (!f.choices.empty()) {
        const std::string s = v.get<std::string>();
        bool ok = false;
        for (const auto& c : f.choices) ok = ok || c == s;
        if (!ok) return "must be one of " + join(f.choices, ", ") + " (got '" + s + "')";
      }
      return std::nullopt;
    case FieldKind::Integer:
    case FieldKind::Number: {
      if (!v.is_number())
        return "must be " + std::string(f.kind == FieldKind::Integer ? "an integer" : "a number") + ", got " +
               type_of(v);
      if (f.kind == FieldKind::Integer && !is_whole(v)) return "must be an integer, got " + v.dump();
      const double d = v.get<double>();
      if (!std::isfinite(d)) return "must be a finite number";
      if ((f.min && d < *f.min) || (f.max && d > *f.max))
        return "must be between " + format_sig(f.min.value_or(-1e300), 15) + " and " +
               format_sig(f.max.value_or(1e300), 15) + " (got " + v.dump() + ")";
      return std::nullopt;
    }
    case FieldKind::Boolean:
      if (!v.is_boolean()) return "must be a boolean, got " + type_of(v);
      return std::nullopt;
    case FieldKind::StringList:
    case FieldKind::InputPaths:
      if (v.is_string()) v = Json::array({v});
      if (!all_strings(v)) return "must be a string or an array of strings, got " + type_of(v);
      if (v.empty()) return "must not be empty";
      return std::nullopt;
    case FieldKind::Object:
      if (!v.is_object()) return "must be an object, got " + type_of(v);
      return std::nullopt;
    case FieldKind::Array:
      if (!v.is_array()) return "must be an array, got " + type_of(v);
      return std::nullopt;
    case FieldKind::InputJson:
      if (!v.is_object() && !v.is_string()) return "must be an object or a path to a JSON file, got " + type_of(v);
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

Result<Request> make_request(const Verb& v, const Json& args, Door door, std::vector<std::string>* missing) {
  if (!args.is_object()) return make_error(ErrorKind::Usage, "the arguments must be a JSON object");
  Json out = Json::object();
  for (const Field& f : v.request) {
    if (!(f.doors & door)) continue;
    const Json* given = nullptr;
    if (args.contains(f.name) && !args[f.name].is_null()) given = &args[f.name];
    for (const auto& a : f.aliases)
      if (!given && args.contains(a) && !args[a].is_null()) given = &args[a];
    if (!given) {
      if (!f.default_value.is_null())
        out[f.name] = f.default_value;
      else if (f.required && missing)
        missing->push_back(f.name);
      continue;
    }
    Json value = *given;
    if (auto why = check_value(f, value)) {
      const std::string name = door == kCli ? (f.positional ? f.name : cli_flag(f)) : f.name;
      return make_error(ErrorKind::Usage, name + " " + *why);
    }
    out[f.name] = std::move(value);
  }
  return Request(std::move(out));
}

Json input_schema(const Verb& v, Door door) {
  Json props = Json::object();
  Json required = Json::array();
  for (const Field& f : v.request) {
    if (!(f.doors & door)) continue;
    Json p = Json::object();
    switch (f.kind) {
      case FieldKind::StringList:
      case FieldKind::InputPaths:
        p["type"] = Json::array({"string", "array"});
        p["items"] = {{"type", "string"}};
        break;
      case FieldKind::InputJson:
        p["type"] = Json::array({"object", "string"});
        break;
      default:
        p["type"] = json_type(f.kind);
    }
    std::string help = f.help;
    if (f.kind == FieldKind::InputPath || f.kind == FieldKind::InputPaths)
      help += door == kMcp ? " (inside the server's roots)" : "";
    if (f.kind == FieldKind::WorkDir && door == kMcp) help += " (one kernel_init returned)";
    if (f.kind == FieldKind::InputJson) help += " (the object, or a path to a JSON file)";
    p["description"] = help;
    if (!f.default_value.is_null()) p["default"] = f.default_value;
    if (f.min) p["minimum"] = *f.min;
    if (f.max) p["maximum"] = *f.max;
    if (!f.choices.empty()) p["enum"] = f.choices;
    props[f.name] = std::move(p);
    for (const auto& a : f.aliases) props[a] = {{"type", props[f.name]["type"]}, {"description", "same as " + f.name}};
    // A field with other spellings is required as "one of them", which `required` cannot say:
    // make_request reports it missing instead.
    if (f.required && f.aliases.empty()) required.push_back(f.name);
  }
  Json s = {{"type", "object"}, {"properties", std::move(props)}};
  if (!required.empty()) s["required"] = std::move(required);
  return s;
}

Result<std::shared_ptr<const analysis::AnalysisKnowledge>> analysis_knowledge_of(Context& ctx) {
  if (ctx.knowledge) return ctx.knowledge->analysis_ptr;
  return analysis::analysis_knowledge();
}

std::shared_ptr<const hw::HwKnowledge> hw_knowledge_of(Context& ctx) {
  if (ctx.knowledge) return ctx.knowledge->analysis_ptr;
  return hw::hw_knowledge();
}

Result<std::shared_ptr<const kernel::Knowledge>> kernel_knowledge_of(Context& ctx) {
  ASSIGN_OR_RETURN(auto k, kernel::knowledge());
  if (!ctx.knowledge) return k;
  // The door's hardware part with the process's kernel files (a small copy: templates and tables).
  auto own = std::make_shared<kernel::Knowledge>(*k);
  own->hw_ptr = ctx.knowledge->analysis_ptr;
  return std::shared_ptr<const kernel::Knowledge>(std::move(own));
}

Result<std::shared_ptr<const audit::Knowledge>> knowledge(Context& ctx) {
  if (!ctx.knowledge) {
    ASSIGN_OR_RETURN(ctx.knowledge, audit::knowledge());
  }
  return ctx.knowledge;
}

}  // namespace goblin::app
