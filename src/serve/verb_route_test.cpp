// The HTTP door of the registry (/api/v1/<verb>, serve/verb_route.h): GET query strings become the
// verb's typed fields, files are read only under --root, outputs never name a server path, store
// writes need POST and the token, and every refusal is the {ok: false, error} envelope with a 4xx.
// (The results themselves equal the CLI's for every verb: mcp/registry_parity_test.cpp.)
#include "serve/verb_route.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/test_support.h"

namespace goblin::serve {
namespace {

namespace fs = std::filesystem;

class VerbRoute : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = testing::private_tmp_dir("verb_route");
    fs::copy_file(fs::path(GOBLIN_FIXTURES) / "kineto/a100_alexnet_cuda_sync.json.gz", root_ / "alexnet.json.gz");
    outside_ = testing::private_tmp_dir("verb_route_outside");
    fs::copy_file(fs::path(GOBLIN_FIXTURES) / "kineto/a100_alexnet_cuda_sync.json.gz", outside_ / "secret.json.gz");
  }
  static ApiResponse call(const Api& api, const std::string& method, const std::string& target,
                          const std::string& body = "", const std::string& auth = "") {
    ApiRequest rq;
    rq.method = method;
    const size_t q = target.find('?');
    rq.path = target.substr(0, q);
    if (q != std::string::npos) {
      std::string rest = target.substr(q + 1);
      size_t at = 0;
      while (at <= rest.size()) {
        size_t amp = rest.find('&', at);
        std::string kv = rest.substr(at, amp == std::string::npos ? std::string::npos : amp - at);
        size_t eq = kv.find('=');
        rq.query[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
        if (amp == std::string::npos) break;
        at = amp + 1;
      }
    }
    rq.body = body;
    rq.authorization = auth;
    return api.handle(rq);
  }
  static Json envelope(const ApiResponse& r) {
    Json j = Json::parse(r.body, nullptr, false);
    EXPECT_TRUE(j.is_object() && j.contains("ok")) << r.body.substr(0, 300);
    return j;
  }
  static ApiOptions options(bool with_root, const std::string& token = "") {
    ApiOptions o;
    o.store_url = fmt::format("sqlite://{}/runs.db", root_.string());
    o.token = token;
    o.pool_size = 1;
    if (with_root) o.roots = {root_.string()};
    return o;
  }
  static fs::path root_, outside_;
};
fs::path VerbRoute::root_, VerbRoute::outside_;

TEST_F(VerbRoute, GetQueryStringIsTheVerbsFieldsAndAnswersItsEnvelope) {
  Api api(options(true));
  auto r = call(api, "GET", "/api/v1/metrics?path=alexnet.json.gz");
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 500);
  Json j = envelope(r);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_TRUE(j["result"].contains("step_time_s") || j["result"].contains("steps")) << r.body.substr(0, 300);
  // Typed: an integer field from its text, a wrong one refused naming the field.
  auto t = call(api, "GET", "/api/v1/triage?path=alexnet.json.gz&top=3");
  EXPECT_EQ(t.status, 200) << t.body.substr(0, 300);
  EXPECT_TRUE(envelope(t)["ok"].get<bool>());
  auto bad = call(api, "GET", "/api/v1/triage?path=alexnet.json.gz&top=three");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(envelope(bad)["error"].get<std::string>().find("top"), std::string::npos);
  // The verb's own limits apply as through every door.
  auto out_of_range = call(api, "GET", "/api/v1/triage?path=alexnet.json.gz&top=0");
  EXPECT_EQ(out_of_range.status, 400);
  // The registry describes itself over HTTP too.
  auto v = call(api, "GET", "/api/v1/verbs");
  ASSERT_EQ(v.status, 200);
  bool triage_routed = false;
  const Json listed = envelope(v);
  for (const auto& x : listed["result"]["verbs"])
    triage_routed = triage_routed || (x["name"] == "triage" && x["http_route"] == "/api/v1/triage");
  EXPECT_TRUE(triage_routed);
}

TEST_F(VerbRoute, OutputsAreTheServersAndLastOnlyForTheRequest) {
  Api api(options(true));
  auto r = call(api, "POST", "/api/v1/triage", R"({"path": "alexnet.json.gz"})");
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 500);
  // The result names what was written relative to the request's folder, not a server path.
  EXPECT_EQ(r.body.find(fs::temp_directory_path().string() + "/goblin-serve-"), std::string::npos);
  auto named = call(api, "POST", "/api/v1/triage", R"({"path": "alexnet.json.gz", "out": "/tmp/x"})");
  EXPECT_EQ(named.status, 400);
  EXPECT_NE(envelope(named)["error"].get<std::string>().find("the server chooses where it writes"), std::string::npos);
}

TEST_F(VerbRoute, FilesOnlyUnderTheRoots) {
  Api closed(options(false));
  auto none = call(closed, "GET", "/api/v1/metrics?path=alexnet.json.gz");
  EXPECT_EQ(none.status, 403);
  EXPECT_NE(envelope(none)["error"].get<std::string>().find("--root"), std::string::npos);
  Api api(options(true));
  for (const std::string& p :
       {(outside_ / "secret.json.gz").string(), std::string("../") + outside_.filename().string() + "/secret.json.gz",
        std::string("/etc/passwd")}) {
    auto r = call(api, "GET", "/api/v1/metrics?path=" + p);
    EXPECT_EQ(r.status, 403) << p << ": " << r.body.substr(0, 300);
    EXPECT_FALSE(envelope(r)["ok"].get<bool>());
  }
  // A symlink inside the root that leads out of it is outside.
  std::error_code ec;
  fs::create_symlink(outside_ / "secret.json.gz", root_ / "link.json.gz", ec);
  auto l = call(api, "GET", "/api/v1/metrics?path=link.json.gz");
  EXPECT_EQ(l.status, 403) << l.body.substr(0, 300);
}

TEST_F(VerbRoute, StoreWritesNeedPostAndTheToken) {
  Api ro(options(true));
  EXPECT_EQ(call(ro, "GET", "/api/v1/store/init").status, 405);
  EXPECT_EQ(call(ro, "POST", "/api/v1/store/init", "{}").status, 403);
  Api rw(options(true, "s3cret"));
  EXPECT_EQ(call(rw, "POST", "/api/v1/store/init", "{}", "Bearer wrong").status, 401);
  auto ok = call(rw, "POST", "/api/v1/store/init", "{}", "Bearer s3cret");
  EXPECT_EQ(ok.status, 200) << ok.body.substr(0, 300);
  // Reads need no token, and a read never records itself in the server's store.
  EXPECT_EQ(call(rw, "GET", "/api/v1/metrics?path=alexnet.json.gz").status, 200);
  auto ls = call(rw, "GET", "/api/v1/store/ls");
  ASSERT_EQ(ls.status, 200) << ls.body.substr(0, 300);
  EXPECT_EQ(envelope(ls)["result"]["total"], 0);
  EXPECT_FALSE(envelope(ls)["result"].contains("store"));  // where the store lives is not the caller's business
}

TEST_F(VerbRoute, UnknownVerbsFieldsAndMethodsAreRefused) {
  Api api(options(true));
  EXPECT_EQ(call(api, "GET", "/api/v1/no-such-verb").status, 404);
  // Verbs that launch programs or need a GPU are not served.
  for (const char* v : {"profile", "bench", "audit", "trace", "profile-server", "kernel/init", "kernel/bench"})
    EXPECT_EQ(call(api, "POST", std::string("/api/v1/") + v, "{}").status, 404) << v;
  auto unknown = call(api, "GET", "/api/v1/metrics?path=alexnet.json.gz&no_such=1");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(envelope(unknown)["error"].get<std::string>().find("no_such"), std::string::npos);
  EXPECT_EQ(call(api, "POST", "/api/v1/metrics", "[1,2]").status, 400);
  EXPECT_EQ(call(api, "POST", "/api/v1/metrics", "{not json").status, 400);
  auto missing = call(api, "GET", "/api/v1/metrics");
  EXPECT_EQ(missing.status, 400);
  EXPECT_NE(envelope(missing)["error"].get<std::string>().find("missing required argument: path"), std::string::npos);
  EXPECT_EQ(call(api, "DELETE", "/api/v1/metrics").status, 405);
  auto ctl = call(api, "GET", "/api/v1/metrics?path=a%0b\x01");
  EXPECT_EQ(ctl.status, 400);
}

}  // namespace
}  // namespace goblin::serve
