// The dashboard's JSON API (api.h). Routes:
//   GET  /api/runs?workload=&gpu=&experiment=&trial=&verb=&tag=&since=&until=&limit=&offset=
//   GET  /api/runs/{id}                the run with every table, its artifacts and its trace link
//   GET  /api/experiments
//   GET  /api/trend?workload=&metric=&n=
//   GET  /api/calibration              per rule and GPU, plus every audit round (the plot)
//   GET  /api/compare?a=&b=            trust check first, then the diff verb through app::run_verb
//   GET  /api/artifacts/{sha256}       a stored artifact by content hash
//   POST /api/runs/{id}/tags           {"tags": [...]}          (needs --token)
//   POST /api/runs                     a result JSON to record   (needs --token)
#include "serve/api.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "app/verb.h"
#include "audit/knowledge.h"
#include "store/import.h"
#include "store/pool.h"
#include "store/store.h"

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
int status_of(const Error& e) {
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
ApiResponse from_error(const Error& e) { return error_response(status_of(e), e.describe()); }

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

const std::vector<std::string>& trust_fields() {
  static const std::vector<std::string> f = {"base_image", "resource_class", "gpu_device_ids", "server_flags",
                                             "benchmark_config_hash"};
  return f;
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

Json trust_differences(const Json& a, const Json& b) {
  Json out = Json::array();
  auto cmp = [&](const std::string& name, const Json& x, const Json& y) {
    if (x != y) out.push_back({{"field", name}, {"a", x}, {"b", y}});
  };
  for (const auto& f : trust_fields())
    cmp(f, a["linkage"].value(f, Json("unknown")), b["linkage"].value(f, Json("unknown")));
  for (const char* f : {"gpu", "driver", "cuda", "rocm", "pytorch"})
    cmp(f, a["environment"].value(f, Json("unknown")), b["environment"].value(f, Json("unknown")));
  return out;
}

namespace {

struct Ctx {
  const ApiOptions& o;
  const ApiRequest& rq;
  store::StorePool& pool;
};

ApiResponse list_runs(const Ctx& c) {
  store::RunFilter f;
  const std::pair<const char*, std::string*> text[] = {
      {"workload", &f.workload}, {"gpu", &f.gpu},   {"experiment", &f.experiment_id},
      {"trial", &f.trial_id},    {"verb", &f.verb}, {"tag", &f.tag}};
  for (const auto& [k, dst] : text) {
    *dst = param(c.rq, k);
    if (!valid_text(*dst))
      return error_response(400, fmt::format("{}: at most 256 characters, no control characters", k));
  }
  f.since = param(c.rq, "since");
  f.until = param(c.rq, "until");
  if (!valid_date(f.since) || !valid_date(f.until))
    return error_response(400, "since/until: an ISO 8601 date or time (2026-11-25, 2026-11-25T10:00)");
  for (const auto& [k, dst, max] :
       {std::tuple{"limit", &f.limit, int64_t{1000}}, {"offset", &f.offset, int64_t{1} << 40}}) {
    const std::string v = param(c.rq, k);
    if (v.empty()) continue;
    if (!valid_id(v) || std::stoll(v) > max)
      return error_response(400, fmt::format("{}: a whole number from 0 to {}", k, max));
    *dst = std::stoll(v);
  }
  auto lease = c.pool.acquire();
  if (!lease) return from_error(lease.error());
  store::Store* s = &**lease;
  auto runs = s->list(f);
  if (!runs) return from_error(runs.error());
  auto total = s->count(f);
  if (!total) return from_error(total.error());
  Json arr = Json::array();
  for (const auto& r : *runs) arr.push_back(store::run_to_json(r, false));
  return json_response(200, {{"total", *total}, {"limit", f.limit}, {"offset", f.offset}, {"runs", arr}});
}

// The artifact that holds a Perfetto-readable trace, if the run stored one as text.
Json trace_link(const Json& run) {
  for (const auto& a : run.value("artifacts", Json::array())) {
    const std::string n = a.value("name", "");
    if (n.ends_with(".json") && (n.find("trace") != std::string::npos || n.find("perfetto") != std::string::npos))
      return {{"artifact", n}, {"sha256", a["sha256"]}};
  }
  return nullptr;
}

ApiResponse get_run(const Ctx& c, const std::string& id) {
  if (!valid_id(id)) return error_response(400, "run id: digits only");
  auto lease = c.pool.acquire();
  if (!lease) return from_error(lease.error());
  store::Store* s = &**lease;
  auto r = s->get(std::stoll(id));
  if (!r) return from_error(r.error());
  Json j = store::run_to_json(*r, true);
  j["trace"] = trace_link(j);
  return json_response(200, j);
}

ApiResponse trend(const Ctx& c) {
  const std::string w = param(c.rq, "workload"),
                    m = param(c.rq, "metric").empty() ? "step_time_s" : param(c.rq, "metric");
  if (w.empty() || !valid_text(w)) return error_response(400, "workload: required, at most 256 characters");
  static const std::vector<std::string> metrics = {"step_time_s",  "tokens_per_sec", "mfu_pct",
                                                   "gpu_util_pct", "hbm_peak_gb",    "speedup"};
  if (std::find(metrics.begin(), metrics.end(), m) == metrics.end())
    return error_response(400,
                          "metric: one of step_time_s, tokens_per_sec, mfu_pct, gpu_util_pct, hbm_peak_gb, speedup");
  int64_t n = 1000;
  if (const std::string v = param(c.rq, "n"); !v.empty()) {
    if (!valid_id(v) || std::stoll(v) < 1 || std::stoll(v) > 100000) return error_response(400, "n: 1 to 100000");
    n = std::stoll(v);
  }
  auto lease = c.pool.acquire();
  if (!lease) return from_error(lease.error());
  store::Store* s = &**lease;
  auto pts = s->trend(w, m, n);
  if (!pts) return from_error(pts.error());
  Json arr = Json::array();
  for (const auto& p : *pts) arr.push_back({{"run_id", p.run_id}, {"created", p.created}, {"value", p.value}});
  // The newest run against its baseline, by the gate's rule (bootstrap interval and noise floor).
  Json verdict = nullptr;
  store::GateOptions go;
  go.workload = w;
  go.metric = m;
  if (auto g = store::gate(*s, go)) verdict = store::gate_to_json(*g);
  return json_response(200, {{"workload", w}, {"metric", m}, {"points", arr}, {"gate", verdict}});
}

ApiResponse calibration(const Ctx& c) {
  auto lease = c.pool.acquire();
  if (!lease) return from_error(lease.error());
  store::Store* s = &**lease;
  auto rows = s->calibration();
  if (!rows) return from_error(rows.error());
  auto rounds = s->audit_rounds();
  if (!rounds) return from_error(rounds.error());
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  // Each rule's citation from the rule base (data/rules/*.yaml), so the audit history shows where
  // a prediction came from; null for a rule this goblin does not know.
  auto kb = audit::knowledge();
  auto citation = [&](const std::string& id) -> Json {
    const audit::Rule* rule = kb ? (*kb)->rules.find(id) : nullptr;
    return rule && !rule->citation.empty() ? Json(rule->citation) : Json(nullptr);
  };
  Json cal = Json::array();
  for (const auto& r : *rows)
    cal.push_back({{"rule_id", r.rule_id},
                   {"citation", citation(r.rule_id)},
                   {"gpu", r.gpu},
                   {"audits", r.audits},
                   {"held", r.held},
                   {"exceeded", r.exceeded},
                   {"missed", r.missed},
                   {"not_predicted", r.not_predicted},
                   {"median_measured_over_mid", opt(r.median_measured_over_mid)}});
  Json rs = Json::array();
  for (const auto& p : *rounds)
    rs.push_back({{"created", p.created},
                  {"workload", p.workload},
                  {"round", p.round.round},
                  {"rules", p.round.rules},
                  {"gpu", p.round.gpu},
                  {"method", p.round.method},
                  {"held", p.round.held},
                  {"predicted_low", opt(p.round.predicted_low)},
                  {"predicted_high", opt(p.round.predicted_high)},
                  {"measured", opt(p.round.measured)},
                  {"ci_low", opt(p.round.ci_low)},
                  {"ci_high", opt(p.round.ci_high)}});
  return json_response(200, {{"calibration", cal}, {"rounds", rs}});
}

// The trace each run read, when it is still on disk with the hash the store recorded: only then
// can the diff verb re-read it. The path comes from the store, never from the request.
std::string diffable_input(const store::RunRecord& r) {
  for (const auto& in : r.inputs) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(in.path, ec)) continue;
    auto h = store::hash_file(in.path);
    if (h && h->sha256 == in.sha256) return in.path;
  }
  return "";
}

ApiResponse compare(const Ctx& c) {
  const std::string a = param(c.rq, "a"), b = param(c.rq, "b");
  if (!valid_id(a) || !valid_id(b)) return error_response(400, "a, b: run ids (digits only)");
  auto lease = c.pool.acquire();
  if (!lease) return from_error(lease.error());
  store::Store* s = &**lease;
  auto ra = s->get(std::stoll(a));
  if (!ra) return from_error(ra.error());
  auto rb = s->get(std::stoll(b));
  if (!rb) return from_error(rb.error());
  const Json ja = store::run_to_json(*ra, true), jb = store::run_to_json(*rb, true);
  Json diffs = trust_differences(ja, jb);
  Json out = {{"trusted", diffs.empty()}, {"differences", diffs}, {"a", ja}, {"b", jb}};
  const std::string pa = diffable_input(*ra), pb = diffable_input(*rb);
  const app::Verb* v = app::find_verb("diff");
  if (pa.empty() || pb.empty() || !v) {
    out["diff"] = nullptr;
    out["diff_note"] = "the diff verb needs both runs' traces on disk as recorded; compared from the stored tables";
    return json_response(200, out);
  }
  auto req = app::make_request(*v, Json{{"before", pa}, {"after", pb}}, app::kHttp, nullptr);
  if (!req) return from_error(req.error());
  req->mutable_args()["store"] = "";  // a read-only door never records the comparison as a run
  app::Context ctx;
  ctx.door = app::kHttp;
  VerbResult vr = app::run_verb(*v, *req, ctx);
  if (vr.error) {
    out["diff"] = nullptr;
    out["diff_note"] = vr.error->describe();
  } else {
    out["diff"] = vr.result;
  }
  return json_response(200, out);
}

ApiResponse artifact(const Ctx& c, const std::string& hash) {
  if (!valid_sha256(hash)) return error_response(400, "artifact: a SHA-256 in lowercase hex (64 characters)");
  auto lease = c.pool.acquire();
  if (!lease) return from_error(lease.error());
  store::Store* s = &**lease;
  auto a = s->artifact(hash);
  if (!a) return from_error(a.error());
  if (!*a)
    return error_response(404,
                          "artifact: recorded by hash only (binary or over 8 MiB); its content is not in the store");
  ApiResponse r;
  r.content_type = "application/octet-stream";
  r.body = **a;
  r.disposition = fmt::format("attachment; filename=\"{}\"", hash.substr(0, 16));
  return r;
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
  std::vector<std::string> tags;
  for (const auto& t : (*j)["tags"]) {
    if (!t.is_string() || !valid_text(t.get<std::string>()) || t.get<std::string>().empty())
      return error_response(400, "tags: non-empty strings of at most 256 characters");
    tags.push_back(t.get<std::string>());
  }
  if (tags.size() > 64) return error_response(400, "tags: at most 64");
  auto lease = c.pool.acquire();
  if (!lease) return from_error(lease.error());
  store::Store* s = &**lease;
  if (auto st = s->set_tags(std::stoll(id), tags); !st) return from_error(st.error());
  return json_response(200, {{"id", std::stoll(id)}, {"tags", tags}});
}

ApiResponse add_run(const Ctx& c) {
  auto j = body_json(c);
  if (!j) return error_response(400, j.error().describe());
  if (!j->is_object()) return error_response(400, "body: a result JSON object");
  // A --json envelope or a bare result: the result is what the store summarises.
  const Json result = j->contains("result") && (*j)["result"].is_object() ? (*j)["result"] : *j;
  store::Linkage link;
  link.experiment_id = param(c.rq, "experiment");
  link.trial_id = param(c.rq, "trial");
  link.workload = param(c.rq, "workload");
  for (const auto* t : {&link.experiment_id, &link.trial_id, &link.workload})
    if (!valid_text(*t)) return error_response(400, "experiment/trial/workload: at most 256 characters");
  const std::string verb = param(c.rq, "verb").empty() ? "json" : param(c.rq, "verb");
  if (!valid_text(verb)) return error_response(400, "verb: at most 256 characters");
  auto rec = store::record_from_result(verb, {}, result, link);
  if (!rec) return from_error(rec.error());
  rec->source = "import:http";
  // A write may create the store, so it opens its own connection (writes are few: token only).
  auto s = store::Store::open(c.o.store_url, /*create=*/true, /*migrate=*/false);
  if (!s) return from_error(s.error());
  auto out = s->add(std::move(*rec));
  if (!out) return from_error(out.error());
  return json_response(out->added ? 201 : 200, {{"id", out->run_id}, {"added", out->added}});
}

}  // namespace

Api::Api(ApiOptions o) : o_(std::move(o)), pool_(std::make_unique<store::StorePool>(o_.store_url, o_.pool_size)) {}
Api::~Api() = default;

ApiResponse Api::handle(const ApiRequest& rq) const {
  const Ctx c{o_, rq, *pool_};
  const std::string& p = rq.path;
  static const std::string kRuns = "/api/runs/", kArt = "/api/artifacts/";
  if (rq.method == "GET") {
    if (p == "/api/runs") return list_runs(c);
    if (p.starts_with(kRuns)) return get_run(c, p.substr(kRuns.size()));
    if (p == "/api/experiments") {
      auto lease = pool_->acquire();
      if (!lease) return from_error(lease.error());
      auto e = (*lease)->experiments();
      if (!e) return from_error(e.error());
      return json_response(200, {{"experiments", *e}});
    }
    if (p == "/api/trend") return trend(c);
    if (p == "/api/calibration") return calibration(c);
    if (p == "/api/compare") return compare(c);
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
