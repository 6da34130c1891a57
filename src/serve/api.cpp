// The dashboard's JSON API (api.h). Each route is a registry verb (app/verbs_store*.cpp) called
// through app::run_verb with door kHttp, so the CLI, Python and the dashboard read the same result:
//   GET  /api/runs?workload=&gpu=&experiment=&trial=&verb=&tag=&since=&until=&limit=&offset=
//                                      store ls
//   GET  /api/runs/{id}                store show (every table, the artifacts, the trace link)
//   GET  /api/experiments              store experiments
//   GET  /api/trend?workload=&metric=&n=  store trend (with the gate's verdict on the newest run)
//   GET  /api/calibration              store calibration (per rule and GPU, and every audit round)
//   GET  /api/compare?a=&b=            store compare (trust check first, then the diff verb)
//   GET  /api/artifacts/{sha256}       store artifact (its content, by content hash)
//   POST /api/runs/{id}/tags           store tag: {"tags": [...]}            (needs --token)
//   POST /api/runs                     store add: a result JSON to record     (needs --token)
//   GET|POST /api/v1/<verb words>      any verb offered over HTTP (verb_route.h)
// What stays here is HTTP's: the routes, query strings checked for their form (lengths, control
// characters, digits), the token, and status codes from error kinds.
#include "serve/api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "app/verb.h"
#include "serve/verb_route.h"
#include "store/pool.h"

namespace goblin::serve {
namespace {

ApiResponse json_response(int status, const Json& j) {
  ApiResponse r;
  r.status = status;
  r.body = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  return r;
}
ApiResponse error_response(int status, const std::string& message) {
  return json_response(status, Json{{"error", message}});
}
}  // namespace

int http_status_of(const Error& e) {
  switch (e.kind) {
    case ErrorKind::NotFound:
      return 404;
    case ErrorKind::Usage:
      return 400;
    case ErrorKind::Malformed:
    case ErrorKind::UnknownFormat:
      return 400;
    case ErrorKind::NoGpuActivity:  // the trace was read; it has nothing to measure
      return 422;
    case ErrorKind::Environment:  // every store connection busy: try again
      return 503;
    default:
      return 500;
  }
}
namespace {

ApiResponse from_error(const Error& e) { return error_response(http_status_of(e), e.describe()); }

bool all_of(const std::string& s, int (*pred)(int)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](unsigned char c) { return pred(c) != 0; });
}
// A run id: 1-18 decimal digits (no sign, no spaces), so it always fits an int64.
bool valid_id(const std::string& s) { return s.size() <= 18 && all_of(s, ::isdigit); }
bool valid_sha256(const std::string& s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) || (c >= 'a' && c <= 'f'); });
}
// Free-text filters (workload, GPU names, tags) are bound parameters, so any text is safe for the
// SQL; they are only bounded in length and refused with control characters.
bool valid_text(const std::string& s) {
  return s.size() <= 256 && std::none_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}
// Dates: an ISO 8601 prefix (digits, '-', ':', 'T', 'Z', '.').
bool valid_date(const std::string& s) {
  return s.size() <= 32 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
           return std::isdigit(c) || c == '-' || c == ':' || c == 'T' || c == 'Z' || c == '.';
         });
}

std::string param(const ApiRequest& rq, const std::string& k) {
  auto it = rq.query.find(k);
  return it == rq.query.end() ? std::string() : it->second;
}

}  // namespace

bool equal_secret(const std::string& a, const std::string& b) {
  // Every byte of the longer string is visited whatever the content, so the time depends only on
  // the lengths.
  const size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

namespace {

struct Ctx {
  const ApiOptions& o;
  const ApiRequest& rq;
  store::StorePool& pool;
};

// The one way a route reads or writes the store: the registry verb `name` through app::run_verb
// with door kHttp, on the server's own store and connection pool (Context::store_url/store_pool:
// a request never names a store). `args` are what the route took from the request, already
// checked for their HTTP form; the verb checks them again as it does for every door.
Result<Json> call_verb(const Ctx& c, const char* name, const Json& args) {
  app::Context ctx;
  ctx.store_url = c.o.store_url;
  ctx.store_pool = &c.pool;
  VerbResult r = app::call(name, args, app::kHttp, ctx);
  if (r.error) return *r.error;
  if (r.result.is_object()) r.result.erase("store");  // where the server's store lives is not the caller's business
  return std::move(r.result);
}

ApiResponse verb_response(const Ctx& c, const char* name, const Json& args) {
  auto r = call_verb(c, name, args);
  if (!r) return from_error(r.error());
  return json_response(200, *r);
}

ApiResponse list_runs(const Ctx& c) {
  Json args = Json::object();
  for (const char* k : {"workload", "gpu", "experiment", "trial", "verb", "tag"}) {
    const std::string v = param(c.rq, k);
    if (!valid_text(v)) return error_response(400, fmt::format("{}: at most 256 characters, no control characters", k));
    if (!v.empty()) args[k] = v;
  }
  for (const char* k : {"since", "until"}) {
    const std::string v = param(c.rq, k);
    if (!valid_date(v))
      return error_response(400, "since/until: an ISO 8601 date or time (2026-11-25, 2026-11-25T10:00)");
    if (!v.empty()) args[k] = v;
  }
  for (const auto& [k, max] : {std::pair{"limit", int64_t{1000}}, {"offset", int64_t{1} << 40}}) {
    const std::string v = param(c.rq, k);
    if (v.empty()) continue;
    if (!valid_id(v) || std::stoll(v) > max)
      return error_response(400, fmt::format("{}: a whole number from 0 to {}", k, max));
    args[k] = std::stoll(v);
  }
  return verb_response(c, "store ls", args);
}

ApiResponse trend(const Ctx& c) {
  const std::string w = param(c.rq, "workload"),
                    m = param(c.rq, "metric").empty() ? "step_time_s" : param(c.rq, "metric");
  if (w.empty() || !valid_text(w)) return error_response(400, "workload: required, at most 256 characters");
  // The dashboard's charts: the verb takes any stored metric name, the page only these.
  static const std::vector<std::string> metrics = {"step_time_s",          "tokens_per_sec", "mfu_pct",
                                                   "gpu_util_pct",         "hbm_peak_gb",    "speedup",
                                                   "max_rank_step_time_s", "rank_skew_pct"};
  if (std::find(metrics.begin(), metrics.end(), m) == metrics.end())
    return error_response(400,
                          "metric: one of step_time_s, tokens_per_sec, mfu_pct, gpu_util_pct, hbm_peak_gb, speedup, "
                          "max_rank_step_time_s, rank_skew_pct");
  Json args = {{"workload", w}, {"metric", m}, {"limit", 1000}};
  if (const std::string v = param(c.rq, "n"); !v.empty()) {
    if (!valid_id(v) || std::stoll(v) < 1 || std::stoll(v) > 100000) return error_response(400, "n: 1 to 100000");
    args["limit"] = std::stoll(v);
  }
  return verb_response(c, "store trend", args);
}

// What an artifact is served as, by the name the run gave it (`?name=`): stored text shown in the
// browser, with HTML and SVG sandboxed (CSP sandbox: no script, an opaque origin), anything else
// a download.
struct ArtifactType {
  const char* ext;
  const char* content_type;
  bool sandboxed;
};
constexpr ArtifactType kArtifactTypes[] = {
    {".html", "text/html; charset=utf-8", true},         {".svg", "image/svg+xml", true},
    {".json", "application/json; charset=utf-8", false}, {".md", "text/markdown; charset=utf-8", false},
    {".txt", "text/plain; charset=utf-8", false},        {".yaml", "text/plain; charset=utf-8", false},
    {".yml", "text/plain; charset=utf-8", false},        {".csv", "text/csv; charset=utf-8", false},
    {".diff", "text/plain; charset=utf-8", false},       {".patch", "text/plain; charset=utf-8", false},
    {".py", "text/plain; charset=utf-8", false},         {".log", "text/plain; charset=utf-8", false}};
constexpr const char* kSandboxCsp =
    "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'self'";

ApiResponse artifact(const Ctx& c, const std::string& hash) {
  if (!valid_sha256(hash)) return error_response(400, "artifact: a SHA-256 in lowercase hex (64 characters)");
  const std::string name = param(c.rq, "name");
  if (!valid_text(name)) return error_response(400, "name: at most 256 characters, no control characters");
  auto r = call_verb(c, "store artifact", {{"sha256", hash}});
  if (!r) return from_error(r.error());
  ApiResponse out;
  out.content_type = "application/octet-stream";
  out.body = (*r)["content"].get<std::string>();
  out.disposition = fmt::format("attachment; filename=\"{}\"", hash.substr(0, 16));
  for (const auto& t : kArtifactTypes) {
    if (!name.ends_with(t.ext)) continue;
    out.content_type = t.content_type;
    if (t.sandboxed) out.csp = kSandboxCsp;
    // A download keeps the name's ending; the name itself is the run's, so only safe characters pass.
    std::string safe;
    for (unsigned char ch : name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1))
      safe += std::isalnum(ch) || ch == '.' || ch == '_' || ch == '-' ? static_cast<char>(ch) : '_';
    out.disposition = param(c.rq, "download") == "1" ? fmt::format("attachment; filename=\"{}\"", safe) : "inline";
    break;
  }
  return out;
}

bool authorised(const Ctx& c) {
  if (c.o.token.empty()) return false;
  static const std::string kBearer = "Bearer ";
  if (!c.rq.authorization.starts_with(kBearer)) return false;
  return equal_secret(c.rq.authorization.substr(kBearer.size()), c.o.token);
}

Result<Json> body_json(const Ctx& c) {
  if (c.rq.body.empty()) return make_error(ErrorKind::Usage, "a JSON body is required");
  return parse_json_text(c.rq.body, "request body");
}

ApiResponse set_tags(const Ctx& c, const std::string& id) {
  if (!valid_id(id)) return error_response(400, "run id: digits only");
  auto j = body_json(c);
  if (!j) return error_response(400, j.error().describe());
  if (!j->is_object() || !(*j)["tags"].is_array()) return error_response(400, "body: {\"tags\": [\"...\"]}");
  Json args = {{"run", id}};
  if (!(*j)["tags"].empty()) args["tag"] = (*j)["tags"];  // none: the run's tags are removed
  return verb_response(c, "store tag", args);
}

ApiResponse add_run(const Ctx& c) {
  auto j = body_json(c);
  if (!j) return error_response(400, j.error().describe());
  if (!j->is_object()) return error_response(400, "body: a result JSON object");
  Json args = {{"result", *j}};
  for (const char* k : {"experiment", "trial", "workload", "verb"}) {
    const std::string v = param(c.rq, k);
    if (!valid_text(v)) return error_response(400, "experiment/trial/workload/verb: at most 256 characters");
    if (!v.empty()) args[k] = v;
  }
  auto r = call_verb(c, "store add", args);
  if (!r) return from_error(r.error());
  const Json& run = (*r)["runs"].at(0);
  const bool added = run["added"].get<bool>();
  return json_response(added ? 201 : 200, {{"id", run["run_id"]}, {"added", added}});
}

}  // namespace

Api::Api(ApiOptions o) : o_(std::move(o)), pool_(std::make_unique<store::StorePool>(o_.store_url, o_.pool_size)) {}
Api::~Api() = default;

ApiResponse Api::handle(const ApiRequest& rq) const {
  const Ctx c{o_, rq, *pool_};
  const std::string& p = rq.path;
  static const std::string kRuns = "/api/runs/", kArt = "/api/artifacts/";
  if (p.starts_with(kVerbRoutePrefix)) return verb_route(o_, *pool_, rq, authorised(c));
  if (rq.method == "GET") {
    if (p == "/api/runs") return list_runs(c);
    if (p.starts_with(kRuns)) return verb_response(c, "store show", {{"run", p.substr(kRuns.size())}});
    if (p == "/api/experiments") return verb_response(c, "store experiments", Json::object());
    if (p == "/api/trend") return trend(c);
    if (p == "/api/calibration") return verb_response(c, "store calibration", Json::object());
    if (p == "/api/compare") return verb_response(c, "store compare", {{"a", param(rq, "a")}, {"b", param(rq, "b")}});
    if (p.starts_with(kArt)) {
      ApiResponse r = artifact(c, p.substr(kArt.size()));
      r.allow_origin = kPerfettoOrigin;  // its errors too: Perfetto UI then shows why, not a CORS failure
      return r;
    }
    if (p == "/api/health") return json_response(200, {{"ok", true}, {"writes", !o_.token.empty()}});
    return error_response(404, "no such API route");
  }
  if (rq.method == "POST") {
    const bool tags = p.starts_with(kRuns) && p.ends_with("/tags");
    if (p != "/api/runs" && !tags) return error_response(404, "no such API route");
    if (o_.token.empty()) return error_response(403, "read-only: goblin serve was started without --token");
    if (!authorised(c)) return error_response(401, "Authorization: Bearer <token> required");
    if (tags) return set_tags(c, p.substr(kRuns.size(), p.size() - kRuns.size() - 5));
    return add_run(c);
  }
  return error_response(405, "GET, or POST for writes");
}

}  // namespace goblin::serve
