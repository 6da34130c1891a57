// --store, once for every verb (app::run_verb): a verb's result is recorded as a run with its
// inputs hashed and its summary tables, a second identical call adds nothing, the store verbs
// read it back, and goblin gate exits non-zero on a regression.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "app/registry.h"
#include "app/verb.h"
#include "core/test_support.h"
#include "store/store.h"

namespace goblin::app {
namespace {

VerbResult call(const char* name, const Json& args) {
  const Verb* v = find_verb(name);
  EXPECT_NE(v, nullptr) << name;
  auto rq = make_request(*v, args, kCli, nullptr);
  EXPECT_TRUE(rq.ok()) << name;
  Context ctx;
  return run_verb(*v, *rq, ctx);
}

TEST(StoreRecording, EveryRecordingVerbHasTheStoreFields) {
  for (const char* name : {"metrics", "triage", "breakdown", "ranks", "diff", "roofline"}) {
    const Verb* v = find_verb(name);
    ASSERT_NE(v, nullptr);
    bool store = false, experiment = false;
    for (const Field& f : v->request) store |= f.name == "store", experiment |= f.name == "experiment";
    EXPECT_TRUE(store && experiment) << name;
  }
  for (const char* name : {"kb query", "specs", "verbs", "store ls", "gate"}) {
    const Verb* v = find_verb(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_FALSE(v->records) << name;
  }
}

// kernel bench and kernel record record the workspace (Verb::record_folder): its iterations
// against the Stop Condition. The recording step alone, on a committed workspace (the bench itself
// needs a GPU and torch).
TEST(StoreRecording, KernelVerbsRecordTheWorkspace) {
  const auto dir = testing::private_tmp_dir("store_kernel");
  const std::string url = "sqlite://" + (dir / "runs.db").string();
  const std::string ws = (dir / "softmax").string();
  std::filesystem::copy(std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/kernel_opt/softmax", ws,
                        std::filesystem::copy_options::recursive);
  for (const char* name :
       {"kernel bench", "kernel record", "kernel profile", "kernel status", "kernel mask", "kernel unmask"}) {
    const Verb* v = find_verb(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_TRUE(v->records) << name;
    ASSERT_TRUE(v->record_folder) << name;
    bool store = false;
    for (const Field& f : v->request) store |= f.name == "store";
    EXPECT_TRUE(store) << name;
  }
  const Verb* v = find_verb("kernel record");
  auto rq =
      make_request(*v, {{"workspace", ws}, {"summary", "x"}, {"store", url}, {"experiment", "exp-k"}}, kCli, nullptr);
  ASSERT_TRUE(rq.ok());
  VerbResult r;
  r.result = Json{{"version", 3}};  // what the record verb returned
  record_result(*v, *rq, r);
  ASSERT_FALSE(r.error) << r.error->describe();
  ASSERT_TRUE(r.result.contains("stored_run"));
  VerbResult show = call("store show", {{"store", url}, {"run", r.result["stored_run"]["id"].dump()}});
  ASSERT_FALSE(show.error) << show.error->describe();
  EXPECT_EQ(show.result["verb"], "kernel");
  EXPECT_EQ(show.result["experiment_id"], "exp-k");
  EXPECT_FALSE(show.result["kernel_iterations"].empty());
  // The same workspace state recorded again (kernel bench after record) is the same run.
  VerbResult again;
  again.result = Json::object();
  record_result(*find_verb("kernel bench"), *rq, again);
  ASSERT_FALSE(again.error) << again.error->describe();
  EXPECT_FALSE(again.result["stored_run"]["added"].get<bool>());
}

// kernel status reports a workspace's progress and records it like bench and record do: on the
// same workspace state, one run however often it is asked. The recording step alone (status itself
// needs the workspace's git history, which the committed copy does not carry).
TEST(StoreRecording, KernelStatusRecordsTheWorkspaceProgressOnce) {
  const auto dir = testing::private_tmp_dir("store_kernel_status");
  const std::string url = "sqlite://" + (dir / "runs.db").string();
  const std::string ws = (dir / "softmax").string();
  std::filesystem::copy(std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/kernel_opt/softmax", ws,
                        std::filesystem::copy_options::recursive);
  const Verb* v = find_verb("kernel status");
  ASSERT_NE(v, nullptr);
  auto rq = make_request(*v, {{"workspace", ws}, {"store", url}, {"workload", "softmax"}}, kCli, nullptr);
  ASSERT_TRUE(rq.ok());
  VerbResult a;
  a.result = Json{{"iterations", 3}};  // what the status verb returned
  record_result(*v, *rq, a);
  ASSERT_FALSE(a.error) << a.error->describe();
  ASSERT_TRUE(a.result.contains("stored_run")) << a.result.dump();
  EXPECT_TRUE(a.result["stored_run"]["added"].get<bool>());
  VerbResult b;
  b.result = Json::object();
  record_result(*v, *rq, b);
  ASSERT_FALSE(b.error) << b.error->describe();
  EXPECT_FALSE(b.result["stored_run"]["added"].get<bool>());
  VerbResult show = call("store show", {{"store", url}, {"run", a.result["stored_run"]["id"].dump()}});
  ASSERT_FALSE(show.error) << show.error->describe();
  EXPECT_EQ(show.result["verb"], "kernel");
  EXPECT_EQ(show.result["workload"], "softmax");
  EXPECT_FALSE(show.result["kernel_iterations"].empty());
}

// The dashboard's store verbs through the CLI door: experiments, tag, artifact, compare.
TEST(StoreRecording, DashboardStoreVerbsFromTheCli) {
  const auto dir = testing::private_tmp_dir("store_web_verbs");
  const std::string url = "sqlite://" + (dir / "runs.db").string();
  const std::string trace = std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz";
  VerbResult m = call("metrics", {{"path", trace}, {"store", url}, {"experiment", "e1"}, {"trial", "t1"}});
  ASSERT_FALSE(m.error) << m.error->describe();
  VerbResult k = call("store add", {{"store", url},
                                    {"path", std::string(GOBLIN_SOURCE_DIR) + "/tests/fixtures/kernel_opt/softmax"},
                                    {"experiment", "e2"}});
  ASSERT_FALSE(k.error) << k.error->describe();
  const Json kid = k.result["runs"][0]["run_id"];

  VerbResult ex = call("store experiments", {{"store", url}});
  ASSERT_FALSE(ex.error) << ex.error->describe();
  EXPECT_EQ(ex.result["experiments"].size(), 2u);

  VerbResult tag = call("store tag", {{"store", url}, {"run", "1"}, {"tag", {"golden", "x'; DROP TABLE runs; --"}}});
  ASSERT_FALSE(tag.error) << tag.error->describe();
  EXPECT_EQ(call("store ls", {{"store", url}, {"tag", "golden"}}).result["total"], 1);
  VerbResult bad = call("store tag", {{"store", url}, {"run", "1"}, {"tag", {"a\nb"}}});
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->kind, ErrorKind::Usage);
  for (const char* id : {"1 OR 1=1", "-1", "0x10", "99999999999999999999", ""})
    EXPECT_EQ(call("store show", {{"store", url}, {"run", id}}).error->kind, ErrorKind::Usage) << id;

  VerbResult show = call("store show", {{"store", url}, {"run", kid.dump()}});
  ASSERT_FALSE(show.error) << show.error->describe();
  ASSERT_FALSE(show.result["artifacts"].empty());
  std::string sha;  // the first artifact whose text the store keeps (binary ones are hashes only)
  VerbResult art;
  for (const auto& a : show.result["artifacts"]) {
    art = call("store artifact", {{"store", url}, {"sha256", a["sha256"]}});
    if (!art.error) {
      sha = a["sha256"];
      break;
    }
    EXPECT_EQ(art.error->kind, ErrorKind::NotFound);
  }
  ASSERT_FALSE(sha.empty());
  EXPECT_EQ(art.result["sha256"], sha);
  EXPECT_EQ(art.result["bytes"].get<size_t>(), art.result["content"].get<std::string>().size());
  EXPECT_EQ(store::sha256_hex(art.result["content"].get<std::string>()), sha);
  const std::string out = (dir / "artifact.bin").string();
  VerbResult written = call("store artifact", {{"store", url}, {"sha256", sha}, {"out", out}});
  ASSERT_FALSE(written.error) << written.error->describe();
  EXPECT_EQ(std::filesystem::file_size(out), art.result["bytes"].get<size_t>());
  EXPECT_EQ(call("store artifact", {{"store", url}, {"sha256", "../../etc/passwd"}}).error->kind, ErrorKind::Usage);

  // Two runs of different verbs and environments: untrusted; no common trace, so no diff.
  VerbResult cmp = call("store compare", {{"store", url}, {"a", "1"}, {"b", kid.dump()}});
  ASSERT_FALSE(cmp.error) << cmp.error->describe();
  EXPECT_FALSE(cmp.result["trusted"].get<bool>());
  EXPECT_TRUE(cmp.result["diff"].is_null());
  EXPECT_TRUE(cmp.result["diff_note"].is_string());
}

TEST(StoreRecording, MetricsResultBecomesARunOnce) {
  const std::string url = "sqlite://" + (testing::private_tmp_dir("store_record") / "runs.db").string();
  const std::string trace = std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz";
  const Json args = {{"path", trace}, {"store", url},        {"experiment", "exp'; DROP TABLE runs; --"},
                     {"trial", "t1"}, {"workload", "llama"}, {"tag", {"nightly"}}};
  VerbResult a = call("metrics", args);
  ASSERT_FALSE(a.error) << a.error->describe();
  ASSERT_TRUE(a.result.contains("stored_run"));
  EXPECT_TRUE(a.result["stored_run"]["added"].get<bool>());
  VerbResult b = call("metrics", args);
  ASSERT_FALSE(b.error);
  EXPECT_FALSE(b.result["stored_run"]["added"].get<bool>());
  EXPECT_EQ(a.result["stored_run"]["id"], b.result["stored_run"]["id"]);

  VerbResult ls = call("store ls", {{"store", url}, {"experiment", "exp'; DROP TABLE runs; --"}});
  ASSERT_FALSE(ls.error) << ls.error->describe();
  ASSERT_EQ(ls.result["total"], 1);
  const Json& run = ls.result["runs"][0];
  EXPECT_EQ(run["workload"], "llama");
  EXPECT_EQ(run["environment"]["gpu"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run["linkage"]["base_image"], "unknown");
  EXPECT_GT(run["metrics"]["step_time_s"].get<double>(), 0.0);

  VerbResult show = call("store show", {{"store", url}, {"run", run["id"].dump()}});
  ASSERT_FALSE(show.error) << show.error->describe();
  EXPECT_EQ(show.result["inputs"][0]["path"], trace);
  EXPECT_EQ(show.result["inputs"][0]["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(show.result["top_kernels"].size(), 10u);
  EXPECT_FALSE(show.result["steps"].empty());
  EXPECT_FALSE(show.result["waste_budget"].empty());
}

// A triage run records the step time and each step's busy time the metrics verb measures on the
// same trace, live and when its artifact folder is imported, so it trends and gates like any run.
TEST(StoreRecording, TriageRunRecordsStepTimeAndSteps) {
  const auto dir = testing::private_tmp_dir("store_record_triage");
  const std::string url = "sqlite://" + (dir / "runs.db").string();
  const std::string trace = std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz";
  VerbResult m = call("metrics", {{"path", trace}});
  ASSERT_FALSE(m.error) << m.error->describe();
  const std::string out = (dir / "tri").string();
  VerbResult t = call("triage", {{"path", trace}, {"out", out}, {"store", url}, {"workload", "llama"}});
  ASSERT_FALSE(t.error) << t.error->describe();
  VerbResult a = call("store add", {{"store", url}, {"path", {out}}, {"workload", "llama-import"}});
  ASSERT_FALSE(a.error) << a.error->describe();
  VerbResult ls = call("store ls", {{"store", url}});
  ASSERT_FALSE(ls.error) << ls.error->describe();
  ASSERT_EQ(ls.result["total"], 2);
  for (const Json& run : ls.result["runs"]) {
    SCOPED_TRACE(run["workload"].get<std::string>());
    EXPECT_EQ(run["verb"], "triage");
    EXPECT_DOUBLE_EQ(run["metrics"]["step_time_s"].get<double>(), m.result["step_time_s"].get<double>());
    VerbResult show = call("store show", {{"store", url}, {"run", run["id"].dump()}});
    ASSERT_FALSE(show.error) << show.error->describe();
    ASSERT_EQ(show.result["steps"].size(), m.result["steps"].size());
    EXPECT_DOUBLE_EQ(show.result["steps"][0]["busy_s"].get<double>(), m.result["steps"][0]["busy_s"].get<double>());
  }
}

TEST(StoreRecording, GateFailsOnARegression) {
  const std::string url = "sqlite://" + (testing::private_tmp_dir("store_gate") / "runs.db").string();
  auto s = store::Store::open(url, true);
  ASSERT_TRUE(s.ok());
  const double steps[] = {1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.6};
  for (int i = 0; i < 7; ++i) {
    store::RunRecord r;
    r.content_key = store::sha256_hex(fmt::format("gate{}", i));
    r.verb = "metrics", r.workload = "w";
    r.metrics["step_time_s"] = steps[i];
    ASSERT_TRUE(s->add(r).ok());
  }
  VerbResult g = call("gate", {{"store", url}, {"workload", "w"}, {"metric", "step_time"}});
  ASSERT_TRUE(g.error);
  EXPECT_EQ(g.error->kind, ErrorKind::Workload);
  EXPECT_EQ(g.result["verdict"], "regression");
  VerbResult base = call("gate", {{"store", url}, {"workload", "w"}, {"baseline", "1"}});
  EXPECT_EQ(base.result["verdict"], "regression");
  EXPECT_EQ(base.result["baseline_runs"], Json::array({1}));
}

TEST(StoreRecording, UnwritableStoreIsTheCallsErrorWithTheResultKept) {
  const std::string trace = std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_fp32_eager_w0.json.gz";
  VerbResult r = call("info", {{"path", Json::array({trace})},
                               {"store", "postgresql://bob:s3cretpw@/x?host=/nonexistent_goblin_sock"}});
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.error->message.find("not recorded"), std::string::npos);
  EXPECT_EQ(r.error->describe().find("s3cretpw"), std::string::npos) << r.error->describe();
  EXPECT_FALSE(r.result.is_null());
}

}  // namespace
}  // namespace goblin::app
