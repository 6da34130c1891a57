// The dashboard's JSON API (serve/api.h) on a store seeded from real results: two H100 llama
// traces measured through app::run_verb (so their inputs are on disk for the diff verb), four
// example audit folders and two kernel workspaces imported, and a copy of one run that differs
// only in base_image (seed 002's trust check). Then hostile requests: injection strings in every
// filter, bad ids, path traversal in downloads, writes without or with a wrong token, malformed
// JSON; and over HTTP a 100 MB body and many connections at once. Nothing hostile writes.
#include "serve/api.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/resource.h>

#include <atomic>
#include <iostream>
#include <latch>
#include <mutex>
#include <thread>
#include <vector>

#include "app/verb.h"
#include "core/test_support.h"
#include "serve/server.h"
#include "store/import.h"
#include "store/store.h"

namespace goblin::serve {
namespace {

const std::string kSrc = GOBLIN_SOURCE_DIR;

class ServeApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    url_ = fmt::format("sqlite://{}/runs.db", testing::private_tmp_dir("serve_api").string());
    for (const char* w : {"fp32_eager_w0", "bf16_sdpa_w4"}) {
      const app::Verb* v = app::find_verb("metrics");
      auto rq = app::make_request(*v,
                                  {{"path", fmt::format("{}/examples/h100_llama/h100_llama_{}.json.gz", kSrc, w)},
                                   {"store", url_},
                                   {"experiment", "exp-llama"},
                                   {"trial", w},
                                   {"workload", "llama-8b"},
                                   {"tag", {"nightly"}}},
                                  app::kCli, nullptr);
      ASSERT_TRUE(rq.ok());
      app::Context ctx;
      VerbResult r = app::run_verb(*v, *rq, ctx);
      ASSERT_FALSE(r.error) << r.error->describe();
    }
    auto s = store::Store::open(url_);
    ASSERT_TRUE(s.ok());
    for (const char* d : {"tests/fixtures/h100_audit_rounds/base", "tests/fixtures/h100_audit_rounds/base_workers",
                          "tests/fixtures/h100_live/audit_base", "tests/fixtures/kernel_opt/softmax"}) {
      store::Linkage l;
      l.experiment_id = "exp-audit";
      auto rec = store::record_from_path(fmt::format("{}/{}", kSrc, d), l);
      ASSERT_TRUE(rec.ok()) << rec.error().describe();
      ASSERT_TRUE(s->add(std::move(*rec)).ok());
    }
    // Run 1 again, as if profiled in another container image.
    auto one = s->get(1);
    ASSERT_TRUE(one.ok());
    store::RunRecord copy = *one;
    copy.linkage["base_image"] = "nvcr.io/nvidia/pytorch:24.05-py3";
    copy.linkage["trial_id"] = "other-image";
    copy.content_key = "other-image-copy";
    auto added = s->add(std::move(copy));
    ASSERT_TRUE(added.ok());
    other_ = added->run_id;
  }
  static Json get(const std::string& path, std::map<std::string, std::string> q = {}, int want = 200) {
    Api api({url_, ""});
    ApiRequest rq;
    rq.path = path;
    rq.query = std::move(q);
    ApiResponse r = api.handle(rq);
    EXPECT_EQ(r.status, want) << path << ": " << r.body;
    return Json::parse(r.body, nullptr, false);
  }
  static int64_t total() { return get("/api/runs")["total"].get<int64_t>(); }
  static inline std::string url_;
  static inline int64_t other_ = 0;
};

TEST_F(ServeApi, RunsListHasLinkageFieldsFiltersAndPaging) {
  Json all = get("/api/runs");
  EXPECT_EQ(all["total"], 7);
  const Json& r = all["runs"][0];
  for (const char* f : {"experiment_id", "trial_id", "arch_match", "hardware_relevance_reason", "base_image",
                        "resource_class", "gpu_device_ids", "server_flags", "benchmark_config_hash"})
    EXPECT_TRUE(r["linkage"].contains(f)) << f;
  EXPECT_EQ(get("/api/runs", {{"workload", "llama-8b"}})["total"], 3);
  EXPECT_EQ(get("/api/runs", {{"tag", "nightly"}})["total"], 3);  // the two measured runs and the copy
  EXPECT_EQ(get("/api/runs", {{"gpu", "NVIDIA H100 80GB HBM3"}})["total"].get<int>() >= 3, true);
  EXPECT_EQ(get("/api/runs", {{"since", "2999-01-01"}})["total"], 0);
  Json page = get("/api/runs", {{"limit", "2"}, {"offset", "2"}});
  EXPECT_EQ(page["runs"].size(), 2u);
  EXPECT_EQ(page["runs"][0]["id"], all["runs"][2]["id"]);
  EXPECT_EQ(get("/api/experiments")["experiments"].size(), 2u);
}

// Each route is a registry verb called through app::run_verb: the JSON a page reads is the
// verb's result as the CLI (`goblin store ... --json`) and Python get it, less the store's URL.
TEST_F(ServeApi, EveryReadRouteIsTheStoreVerbsResult) {
  auto cli = [](const char* name, Json args) {
    const app::Verb* v = app::find_verb(name);
    EXPECT_NE(v, nullptr) << name;
    args["store"] = url_;
    auto rq = app::make_request(*v, args, app::kCli, nullptr);
    EXPECT_TRUE(rq.ok()) << name;
    app::Context ctx;
    VerbResult r = app::run_verb(*v, *rq, ctx);
    EXPECT_FALSE(r.error) << name << ": " << r.error->describe();
    r.result.erase("store");
    return r.result;
  };
  EXPECT_EQ(get("/api/runs", {{"workload", "llama-8b"}, {"limit", "2"}}),
            cli("store ls", {{"workload", "llama-8b"}, {"limit", 2}}));
  EXPECT_EQ(get("/api/runs/3"), cli("store show", {{"run", "3"}}));
  EXPECT_EQ(get("/api/experiments"), cli("store experiments", Json::object()));
  EXPECT_EQ(get("/api/calibration"), cli("store calibration", Json::object()));
  EXPECT_EQ(get("/api/trend", {{"workload", "llama-8b"}, {"n", "5"}}),
            cli("store trend", {{"workload", "llama-8b"}, {"limit", 5}}));
  const Json cmp = cli("store compare", {{"a", "1"}, {"b", fmt::format("{}", other_)}});
  EXPECT_FALSE(cmp["trusted"].get<bool>());
  EXPECT_EQ(get("/api/compare", {{"a", "1"}, {"b", fmt::format("{}", other_)}})["differences"], cmp["differences"]);
  // An HTTP caller cannot name another store: the verbs' `store` field is not the HTTP door's.
  EXPECT_EQ(get("/api/runs", {{"store", "sqlite:///tmp/elsewhere.db"}})["total"], 7);
}

TEST_F(ServeApi, OneRunWithItsTables) {
  Json audit = get("/api/runs/3");
  EXPECT_EQ(audit["verb"], "audit");
  EXPECT_FALSE(audit["audit_rounds"].empty());
  EXPECT_FALSE(audit["artifacts"].empty());
  Json kernel = get("/api/runs/6");
  EXPECT_FALSE(kernel["kernel_iterations"].empty());
  get("/api/runs/999", {}, 404);
}

TEST_F(ServeApi, TrendAndCalibration) {
  Json t = get("/api/trend", {{"workload", "llama-8b"}, {"metric", "step_time_s"}});
  EXPECT_GE(t["points"].size(), 2u);
  EXPECT_TRUE(t["gate"].is_object());
  Json c = get("/api/calibration");
  EXPECT_FALSE(c["rules"].empty());
  EXPECT_GE(c["rounds"].size(), 4u);
  // Each known rule carries its citation from the rule base (data/rules).
  int cited = 0;
  for (const auto& row : c["rules"]) cited += row["citation"].is_string() ? 1 : 0;
  EXPECT_GT(cited, 0) << c["rules"].dump();
  get("/api/trend", {{"workload", "llama-8b"}, {"metric", "step_time_s; DROP TABLE runs"}}, 400);
}

TEST_F(ServeApi, CompareMarksDifferentBaseImagesUntrustedAndDiffsThroughTheVerb) {
  Json bad = get("/api/compare", {{"a", "1"}, {"b", fmt::format("{}", other_)}});
  EXPECT_FALSE(bad["trusted"].get<bool>());
  ASSERT_EQ(bad["differences"].size(), 1u);
  EXPECT_EQ(bad["differences"][0]["field"], "base_image");
  Json ok = get("/api/compare", {{"a", "1"}, {"b", "2"}});
  EXPECT_TRUE(ok["trusted"].get<bool>()) << ok["differences"].dump();
  ASSERT_TRUE(ok["diff"].is_object()) << ok.value("diff_note", "");
  EXPECT_TRUE(ok["diff"].contains("speedup"));
  EXPECT_EQ(total(), 7);  // the comparison was not recorded as a run
}

// report.html answered a JSON 404 ("recorded by hash only") and every artifact was
// application/octet-stream: HTML is stored now and served as text/html under a CSP sandbox, by
// the name the run gave it; fields unknown on either side of a comparison are "not checked".
TEST_F(ServeApi, ArtifactsAreServedByTheirTypeAndHtmlSandboxed) {
  Json run = get("/api/runs/5");  // tests/fixtures/h100_live/audit_base
  std::string html, md;
  for (const auto& a : run["artifacts"]) {
    if (a["name"] == "report.html") html = a["sha256"];
    if (a["name"] == "report.md") md = a["sha256"];
  }
  ASSERT_FALSE(html.empty()) << run["artifacts"].dump();
  Api api({url_, ""});
  ApiRequest rq;
  rq.path = "/api/artifacts/" + html;
  rq.query = {{"name", "report.html"}};
  ApiResponse r = api.handle(rq);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_TRUE(r.csp.starts_with("sandbox;")) << r.csp;
  EXPECT_EQ(r.disposition, "inline");
  EXPECT_NE(r.body.find("<html"), std::string::npos);
  rq.query = {{"name", "report.html"}, {"download", "1"}};
  EXPECT_EQ(api.handle(rq).disposition, "attachment; filename=\"report.html\"");
  rq.query.clear();  // no name: a download of unknown type, as before
  EXPECT_EQ(api.handle(rq).content_type, "application/octet-stream");
  if (!md.empty()) {
    rq.path = "/api/artifacts/" + md;
    rq.query = {{"name", "report.md"}};
    r = api.handle(rq);
    EXPECT_EQ(r.content_type, "text/markdown; charset=utf-8");
    EXPECT_TRUE(r.csp.empty());
  }
  Json cmp = get("/api/compare", {{"a", "1"}, {"b", "2"}});
  std::vector<std::string> unchecked;
  for (const auto& d : cmp["not_checked"]) unchecked.push_back(d["field"]);
  EXPECT_NE(std::find(unchecked.begin(), unchecked.end(), "base_image"), unchecked.end()) << cmp["not_checked"].dump();
}

TEST_F(ServeApi, HostileFiltersAndIdsAreRefusedOrMatchNothing) {
  const char* injections[] = {"x' OR '1'='1", "'; DROP TABLE runs; --", "\" OR 1=1 --",
                              "%' UNION SELECT * FROM blobs --"};
  for (const char* s : injections) {
    for (const char* f : {"workload", "gpu", "experiment", "trial", "verb", "tag"})
      EXPECT_EQ(get("/api/runs", {{f, s}})["total"], 0) << f << "=" << s;
    get("/api/runs", {{"since", s}}, 400);
    get("/api/runs", {{"limit", s}}, 400);
    get("/api/compare", {{"a", s}, {"b", "1"}}, 400);
    get("/api/trend", {{"workload", s}}, 200);
  }
  for (const char* id : {"1 OR 1=1", "-1", "1.5", "0x10", "99999999999999999999", "../1", ""})
    get(fmt::format("/api/runs/{}", id), {}, 400);
  get("/api/runs", {{"workload", std::string("a\nb")}}, 400);
  get("/api/runs", {{"limit", "100000"}}, 400);
  EXPECT_EQ(total(), 7);
}

TEST_F(ServeApi, ArtifactsOnlyByContentHash) {
  Json run = get("/api/runs/5");  // tests/fixtures/h100_live/audit_base
  const std::string hash = run["artifacts"][0]["sha256"];
  Api api({url_, ""});
  ApiRequest rq;
  rq.path = "/api/artifacts/" + hash;
  ApiResponse r = api.handle(rq);
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(r.body.empty());
  // Perfetto UI fetches the trace across sites: its origin, and only its, may read artifacts; no
  // other route is readable cross-site.
  EXPECT_EQ(r.allow_origin, "https://ui.perfetto.dev");
  for (const char* route : {"/api/runs", "/api/runs/3", "/api/experiments", "/api/calibration"}) {
    ApiRequest other;
    other.path = route;
    EXPECT_EQ(api.handle(other).allow_origin, "") << route;
  }
  for (const char* p : {"../../../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "/etc/passwd", "report.json",
                        "0000000000000000000000000000000000000000000000000000000000000000/../x"}) {
    rq.path = fmt::format("/api/artifacts/{}", p);
    EXPECT_EQ(api.handle(rq).status, 400) << p;
  }
  rq.path = "/api/artifacts/" + std::string(64, 'a');
  EXPECT_EQ(api.handle(rq).status, 404);
}

TEST_F(ServeApi, WritesNeedTheTokenAndMalformedJsonIs400) {
  ApiRequest rq;
  rq.method = "POST";
  rq.path = "/api/runs/1/tags";
  rq.body = R"({"tags": ["golden"]})";
  EXPECT_EQ(Api({url_, ""}).handle(rq).status, 403);  // read-only server
  Api w({url_, "s3cret-token"});
  EXPECT_EQ(w.handle(rq).status, 401);
  rq.authorization = "Bearer s3cret-tokeN";
  EXPECT_EQ(w.handle(rq).status, 401);
  rq.authorization = "Bearer s3cret-token";
  for (const char* body : {"{", "[1,2", "{\"tags\": 5}", "{\"tags\": [1]}", "", "\xff\xfe"}) {
    rq.body = body;
    EXPECT_EQ(w.handle(rq).status, 400) << body;
  }
  EXPECT_TRUE(get("/api/runs/1")["tags"] == Json({"nightly"}));  // nothing written so far
  rq.body = R"({"tags": ["golden", "x'; DROP TABLE runs; --"]})";
  EXPECT_EQ(w.handle(rq).status, 200);
  EXPECT_EQ(get("/api/runs/1")["tags"].size(), 2u);
  EXPECT_TRUE(equal_secret("abc", "abc"));
  EXPECT_FALSE(equal_secret("abc", "abd"));
  EXPECT_FALSE(equal_secret("abc", "abcd"));
  EXPECT_FALSE(equal_secret("", "x"));
}

// Over a real socket: a body over the cap, many connections at once; the server stays up.
TEST_F(ServeApi, HttpServerRefusesFloodsAndStaysUp) {
  // 1,000 connections at once (the issue's flood). Each holds a descriptor on both ends, so this
  // process needs over 2,000: the soft limit is raised to the hard one (Server::run does the same
  // for goblin serve); without room for the flood the test says so instead of failing on the
  // machine's limit.
  constexpr int kFlood = 1000;
  rlimit lim{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &lim), 0);
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
  }
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < 2 * kFlood + 256)
    GTEST_SKIP() << "the descriptor limit (" << lim.rlim_cur << ") leaves no room for " << kFlood << " connections";
  ServeOptions o;
  o.store_url = url_;
  o.port = 0;
  o.token = "t0k";
  o.max_body_bytes = 1 << 20;
  Server server(o);
  std::atomic<int> port{0};
  std::thread th([&] { (void)server.run([&](int p) { port = p; }); });
  for (int i = 0; i < 200 && port == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  ASSERT_NE(port.load(), 0);
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(30, 0);
  auto health = [&] {
    auto r = cli.Get("/api/health");
    return r && r->status == 200;
  };
  ASSERT_TRUE(health());
  {
    // The CORS header Perfetto UI's ?url= fetch needs, on the artifact route only.
    const std::string hash = get("/api/runs/3")["artifacts"][0]["sha256"];
    auto art = cli.Get(("/api/artifacts/" + hash).c_str(), {{"Origin", "https://ui.perfetto.dev"}});
    ASSERT_TRUE(art);
    EXPECT_EQ(art->status, 200);
    EXPECT_EQ(art->get_header_value("Access-Control-Allow-Origin"), "https://ui.perfetto.dev");
    auto pre = cli.Options(("/api/artifacts/" + hash).c_str(), {{"Origin", "https://ui.perfetto.dev"},
                                                                {"Access-Control-Request-Method", "GET"},
                                                                {"Access-Control-Request-Private-Network", "true"}});
    ASSERT_TRUE(pre);
    EXPECT_EQ(pre->status, 204);
    EXPECT_EQ(pre->get_header_value("Access-Control-Allow-Origin"), "https://ui.perfetto.dev");
    EXPECT_EQ(pre->get_header_value("Access-Control-Allow-Private-Network"), "true");
    auto runs = cli.Get("/api/runs", {{"Origin", "https://ui.perfetto.dev"}});
    ASSERT_TRUE(runs);
    EXPECT_FALSE(runs->has_header("Access-Control-Allow-Origin"));
  }
  {
    httplib::Headers h = {{"Authorization", "Bearer t0k"}};
    auto r = cli.Post("/api/runs", h, std::string(100u << 20, '{'), "application/json");
    if (r) EXPECT_EQ(r->status, 413);  // else the server closed the connection: also a refusal
  }
  {
    auto r = cli.Post("/api/runs", {{"Authorization", "Bearer t0k"}}, "{\"metrics\": [", "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400);
  }
  EXPECT_TRUE(health());
  std::atomic<int> ok{0}, busy{0}, other{0};
  std::mutex mu;
  std::vector<std::string> seen;
  std::vector<std::thread> clients;
  std::latch start(1);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kFlood; ++i)
    clients.emplace_back([&] {
      httplib::Client c("127.0.0.1", port);
      c.set_connection_timeout(60, 0);
      c.set_read_timeout(60, 0);
      start.wait();
      auto r = c.Get("/api/runs?workload=llama-8b");
      if (r && r->status == 200)
        ++ok;
      else if (r && r->status == 503)
        ++busy;
      else {
        ++other;
        std::lock_guard<std::mutex> lk(mu);
        if (r)
          seen.push_back(fmt::format("HTTP {} {}", r->status, r->body.substr(0, 200)));
        else
          seen.push_back(fmt::format("error {}", static_cast<int>(r.error())));
      }
    });
  start.count_down();  // every client connects at the same moment
  for (auto& t : clients) t.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Every connection gets an HTTP answer: a 200, or a clean 503 past the queue (the listen backlog
  // holds the whole burst, so none waits in the kernel's SYN retries); never another status.
  for (const auto& s : seen) ADD_FAILURE() << s;
  std::cerr << fmt::format("{} connections: {} answered, {} refused with 503, {} unanswered ({:.1f} s)\n", kFlood,
                           ok.load(), busy.load(), other.load(), secs);
  EXPECT_EQ(ok.load() + busy.load(), kFlood);
  EXPECT_GT(ok.load(), 0);
  EXPECT_TRUE(health());
  EXPECT_EQ(total(), 7);
  server.stop();
  th.join();
}

}  // namespace
}  // namespace goblin::serve
