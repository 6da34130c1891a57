#include "serve/verb_route.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <charconv>
#include <cmath>
#include <filesystem>

#include "app/path_roots.h"
#include "app/registry.h"
#include "core/temp_dir.h"

namespace goblin::serve {

namespace {

using app::Field;
using app::FieldKind;

ApiResponse envelope_response(int status, const Json& envelope) {
  ApiResponse r;
  r.status = status;
  r.body = envelope.dump(-1, ' ', false, Json::error_handler_t::replace);
  return r;
}

ApiResponse refuse(int status, const std::string& message) {
  return envelope_response(status, envelope_error(make_error(ErrorKind::Usage, message), nullptr));
}

// The verb at /api/v1/<words>: its CLI words joined by '/'.
const app::Verb* verb_at(const std::string& words) {
  for (const app::Verb& v : app::verbs()) {
    if (!(v.doors & app::kHttp)) continue;
    if (app::http_route(v) == std::string(kVerbRoutePrefix) + words) return &v;
  }
  return nullptr;
}

const Field* field_named(const app::Verb& v, const std::string& name) {
  for (const Field& f : v.request) {
    if (!(f.doors & app::kHttp)) continue;
    if (f.name == name) return &f;
    for (const auto& a : f.aliases)
      if (a == name) return &f;
  }
  return nullptr;
}

bool is_output(const Field& f) {
  return f.kind == FieldKind::OutputDir || f.kind == FieldKind::OutputFile || f.kind == FieldKind::WorkDir;
}

bool is_input_path(const Field& f) {
  return f.kind == FieldKind::InputPath || f.kind == FieldKind::InputPaths || f.kind == FieldKind::InputJson;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    const size_t c = s.find(',', at);
    out.push_back(s.substr(at, c == std::string::npos ? std::string::npos : c - at));
    if (c == std::string::npos) break;
    at = c + 1;
  }
  return out;
}

// One query parameter as the JSON value its field takes; the verb checks limits and choices.
Result<Json> from_query(const Field& f, const std::string& text) {
  auto bad = [&](const char* what) {
    return make_error(ErrorKind::Usage, fmt::format("{}: {} (got '{}')", f.name, what, text.substr(0, 64)));
  };
  switch (f.kind) {
    case FieldKind::Boolean:
      if (text.empty() || text == "true" || text == "1") return Json(true);
      if (text == "false" || text == "0") return Json(false);
      return bad("true or false");
    case FieldKind::Integer: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size()) return bad("a whole number");
      return Json(v);
    }
    case FieldKind::Number: {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) return bad("a finite number");
      return Json(v);
    }
    case FieldKind::StringList:
    case FieldKind::InputPaths:
      return Json(split_commas(text));
    case FieldKind::Object:
    case FieldKind::Array:
      return parse_json_text(text, f.name);
    case FieldKind::InputJson:
      if (!text.empty() && text.front() == '{') return parse_json_text(text, f.name);
      return Json(text);
    default:
      return Json(text);
  }
}

// The request's arguments: GET from the query string, POST from a JSON object body. Unknown names
// are refused here (a web caller's typo should not pass silently), outputs too.
Result<Json> arguments(const app::Verb& v, const ApiRequest& rq) {
  Json args = Json::object();
  if (rq.method == "POST" && !rq.body.empty()) {
    ASSIGN_OR_RETURN(args, parse_json_text(rq.body, "request body"));
    if (!args.is_object()) return make_error(ErrorKind::Usage, "body: a JSON object of the verb's fields");
  } else {
    for (const auto& [k, text] : rq.query) {
      if (text.size() > 65536 || std::any_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x20; }))
        return make_error(ErrorKind::Usage, fmt::format("{}: at most 64 KiB, no control characters", k));
      const Field* f = field_named(v, k);
      if (!f) {
        args[k] = text;  // named below as unknown
        continue;
      }
      ASSIGN_OR_RETURN(args[k], from_query(*f, text));
    }
  }
  for (const auto& [k, _] : args.items()) {
    const Field* f = field_named(v, k);
    // An output the door supplies (triage's out is not an HTTP field) is refused for what it is.
    if (!f)
      for (const Field& g : v.request)
        if (g.name == k && is_output(g)) f = &g;
    if (!f)
      return make_error(ErrorKind::Usage, fmt::format("unknown field '{}' of {} (GET /api/v1/verbs lists its fields)",
                                                      k.substr(0, 64), v.cli_name()));
    if (is_output(*f))
      return make_error(ErrorKind::Usage,
                        fmt::format("{}: the server chooses where it writes; the result names what was written", k));
  }
  return args;
}

bool names_a_path(const app::Verb& v, const Json& args) {
  for (const auto& [k, x] : args.items()) {
    const Field* f = field_named(v, k);
    if (f && is_input_path(*f) && !(f->kind == FieldKind::InputJson && x.is_object())) return true;
  }
  return false;
}

// A folder of the server's for one request's outputs, removed when the request ends.
class RequestFolder {
 public:
  static Result<RequestFolder> make() {
    ASSIGN_OR_RETURN(std::string dir, make_temp_dir("goblin-serve-"));
    RequestFolder f;
    f.dir_ = std::move(dir);
    return f;
  }
  RequestFolder() = default;
  RequestFolder(RequestFolder&& o) noexcept : dir_(std::move(o.dir_)) { o.dir_.clear(); }
  RequestFolder& operator=(RequestFolder&&) = delete;
  ~RequestFolder() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }
  Result<std::string> sub(const std::string& kind) {
    const std::string d = fmt::format("{}/{}-{}", dir_, kind, ++n_);
    std::error_code ec;
    if (!std::filesystem::create_directory(d, ec)) return make_error(ErrorKind::Io, "cannot create " + kind, d);
    return d;
  }

 private:
  std::string dir_;
  int n_ = 0;
};

}  // namespace

ApiResponse verb_route(const ApiOptions& o, store::StorePool& pool, const ApiRequest& rq, bool authorised) {
  const std::string words = rq.path.substr(std::string(kVerbRoutePrefix).size());
  const app::Verb* v = verb_at(words);
  if (!v)
    return refuse(404, fmt::format("no verb at {}{} (GET /api/v1/verbs lists the verbs served over HTTP)",
                                   kVerbRoutePrefix, words.substr(0, 64)));
  if (rq.method != "GET" && rq.method != "POST") return refuse(405, "GET or POST");
  if (v->writes_store) {
    if (rq.method != "POST") return refuse(405, fmt::format("{} changes the store: POST", v->cli_name()));
    if (o.token.empty()) return refuse(403, "read-only: goblin serve was started without --token");
    if (!authorised) return refuse(401, "Authorization: Bearer <token> required");
  }
  auto args = arguments(*v, rq);
  if (!args) return refuse(400, args.error().describe());
  // A statement's own time limit (query: 600 s by default) is the server's at most: a worker
  // is not held longer than a request may take. (profile-server's timeout is a wait on another
  // server, which its caller chooses.)
  if (const Field* t = field_named(*v, "timeout"); t && t->kind == FieldKind::Number && v->cli_name() == "query") {
    auto& given = (*args)["timeout"];
    if (!given.is_number() || given.get<double>() > o.max_verb_timeout_s) given = o.max_verb_timeout_s;
  }
  if (o.roots.empty() && names_a_path(*v, *args))
    return refuse(403,
                  "this server reads no files: start goblin serve with --root DIR to let callers name files in it");
  auto folder = RequestFolder::make();
  if (!folder) return envelope_response(500, envelope_error(folder.error(), nullptr));
  std::vector<std::string> root_dirs = o.roots;
  root_dirs.push_back(folder->dir());
  auto roots = app::Roots::make(root_dirs);
  if (!roots) return envelope_response(500, envelope_error(roots.error(), nullptr));
  auto confined = app::confine_path_args(*v, *args, *roots, folder->dir());
  if (!confined) return refuse(403, confined.error().describe());

  app::Context ctx;
  ctx.store_url = o.store_url;
  ctx.store_pool = &pool;
  ctx.resolve_input = [&roots](const std::string& p, const std::string& what) { return roots->resolve(p, what); };
  ctx.output_dir = [&folder](const std::string& kind) { return folder->sub(kind); };
  VerbResult r = app::call(*v, *confined, app::kHttp, ctx);
  if (r.result.is_object()) r.result.erase("store");  // where the server's store lives is not the caller's business
  Json env = r.error ? envelope_error(*r.error, std::move(r.result)) : envelope_ok(std::move(r.result));
  app::scrub(env, *roots);  // paths relative to their root, secrets redacted
  return envelope_response(r.error ? http_status_of(*r.error) : 200, env);
}

}  // namespace goblin::serve
