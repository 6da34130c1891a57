// Unit tests of the MCP server: framing and JSON-RPC errors, lifecycle and version negotiation,
// tools/list schemas, the budget, the root guard (symlinks included), redaction, prompts and
// resources, and the audit trajectory on the bundled H100 replay through the dispatcher.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>

#include "mcp/protocol.h"
#include "mcp/server.h"
#include "mcp/transport.h"

namespace fs = std::filesystem;
using goblin::Json;
using namespace goblin::mcp;

namespace {

struct Fixture {
  fs::path tmp;
  std::unique_ptr<Session> session;
  std::unique_ptr<Server> server;
  int next_id = 1;
  explicit Fixture(bool with_replay = true, int budget = 8, bool allow_live = false) {
    tmp =
        fs::temp_directory_path() / fmt::format("goblin_mcp_test_{}_{}", ::getpid(), reinterpret_cast<uintptr_t>(this));
    fs::create_directories(tmp);
    ServerOptions o;
    o.roots = {GOBLIN_SOURCE_DIR};
    o.budget = budget;
    o.allow_live = allow_live;
    o.out_dir = (tmp / "out").string();
    if (with_replay) o.replay_dir = std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_llama";
    auto roots = Roots::make(o.roots);
    EXPECT_TRUE(roots.ok());
    session = std::make_unique<Session>(o, *roots);
    server = std::make_unique<Server>(*session, make_registry());
  }
  ~Fixture() {
    std::error_code ec;
    fs::remove_all(tmp, ec);
  }
  Json request(const std::string& method, Json params = Json::object()) {
    Json m = {{"jsonrpc", "2.0"}, {"id", next_id++}, {"method", method}, {"params", params}};
    auto r = server->handle_line(m.dump());
    EXPECT_TRUE(r.has_value());
    return r ? *r : Json();
  }
  void init() {
    Json r = request("initialize", {{"protocolVersion", "2025-06-18"},
                                    {"capabilities", Json::object()},
                                    {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    ASSERT_TRUE(r.contains("result"));
    server->handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }
  Json call(const std::string& tool, Json args) {
    Json r = request("tools/call", {{"name", tool}, {"arguments", args}});
    EXPECT_TRUE(r.contains("result")) << r.dump();
    return r.contains("result") ? r["result"] : Json();
  }
};

int error_code(const Json& r) { return r.contains("error") ? r["error"]["code"].get<int>() : 0; }

}  // namespace

TEST(McpProtocol, ParseErrorsAndInvalidRequests) {
  Fixture f;
  auto r = f.server->handle_line("{not json");
  EXPECT_EQ((*r)["error"]["code"], kParseError);
  EXPECT_TRUE((*r)["id"].is_null());
  EXPECT_EQ((*f.server->handle_line("[1,2]"))["error"]["code"], kInvalidRequest);
  EXPECT_EQ((*f.server->handle_line("42"))["error"]["code"], kInvalidRequest);
  EXPECT_EQ((*f.server->handle_line(R"({"jsonrpc":"1.0","id":1,"method":"ping"})"))["error"]["code"], kInvalidRequest);
  auto bad_id = f.server->handle_line(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})");
  EXPECT_EQ((*bad_id)["error"]["code"], kInvalidRequest);
  auto bad_params = f.server->handle_line(R"({"jsonrpc":"2.0","id":7,"method":"ping","params":[1]})");
  EXPECT_EQ((*bad_params)["error"]["code"], kInvalidRequest);
  EXPECT_EQ((*bad_params)["id"], 7);  // the id is echoed when it could be read
  std::string deep(100, '[');
  EXPECT_EQ((*f.server->handle_line(deep))["error"]["code"], kParseError);
}

TEST(McpLifecycle, RequestsBeforeInitializeAndNegotiation) {
  Fixture f;
  EXPECT_EQ(error_code(f.request("tools/list")), kInvalidRequest);
  EXPECT_TRUE(f.request("ping").contains("result"));  // ping is allowed any time
  Json bad = f.request("initialize", {{"protocolVersion", 20250618}});
  EXPECT_EQ(error_code(bad), kInvalidParams);
  Json r = f.request("initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", Json::object()}});
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "goblin");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  EXPECT_EQ(error_code(f.request("initialize", {{"protocolVersion", "2025-06-18"}})), kInvalidRequest);
  EXPECT_EQ(error_code(f.request("no/such/method")), kMethodNotFound);
  EXPECT_EQ(negotiate_version("2025-06-18"), "2025-06-18");
  EXPECT_EQ(negotiate_version("2024-11-05"), "2025-11-25");  // unsupported: our newest
}

TEST(McpTools, ListHasSchemasAndAliases) {
  Fixture f;
  f.init();
  Json r = f.request("tools/list")["result"]["tools"];
  std::set<std::string> names;
  for (const auto& t : r) {
    names.insert(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
    EXPECT_EQ(t["outputSchema"]["required"], Json::array({"ok", "result", "error"}));
  }
  for (const char* n : {"parse_config", "profile_run", "query_kb", "query_rocm_kb", "propose_patch", "benchmark",
                        "compare_runs", "info", "triage", "breakdown", "metrics", "specs", "roofline", "diagnose"})
    EXPECT_TRUE(names.count(n)) << n;
}

TEST(McpTools, WrongTypesAreInvalidParamsMissingArgumentsAreToolErrors) {
  Fixture f;
  f.init();
  Json r = f.request("tools/call", {{"name", "parse_config"}, {"arguments", {{"file_path", 12}}}});
  EXPECT_EQ(error_code(r), kInvalidParams);
  EXPECT_EQ(error_code(f.request("tools/call", {{"name", "nope"}})), kInvalidParams);
  Json m = f.call("parse_config", Json::object());
  EXPECT_TRUE(m["isError"].get<bool>());
  EXPECT_FALSE(m["structuredContent"]["ok"].get<bool>());
  EXPECT_NE(m["structuredContent"]["error"].get<std::string>().find("missing required argument: file_path"),
            std::string::npos);
}

TEST(McpSafety, PathsOutsideTheRootAreRefusedEvenThroughSymlinks) {
  Fixture f(true, 100);
  f.init();
  Json r = f.call("parse_config", {{"file_path", "/etc/passwd"}});
  EXPECT_FALSE(r["structuredContent"]["ok"].get<bool>());
  EXPECT_NE(r["structuredContent"]["error"].get<std::string>().find("outside"), std::string::npos);
  r = f.call("parse_config", {{"file_path", "../../../../../../etc/hostname"}});
  EXPECT_FALSE(r["structuredContent"]["ok"].get<bool>());
  // A symlink inside a root that points outside is refused too.
  auto roots = Roots::make({f.tmp.string()});
  ASSERT_TRUE(roots.ok());
  fs::create_symlink("/etc/hostname", f.tmp / "link.yaml");
  auto res = roots->resolve("link.yaml", "file_path");
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.error().message.find("after symlinks"), std::string::npos);
  std::ofstream(f.tmp / "ok.yaml") << "model_name: x\n";
  EXPECT_TRUE(roots->resolve("ok.yaml", "file_path").ok());
  // A named pipe inside the root would block the server on its first read: refused at once.
  ASSERT_EQ(::mkfifo((f.tmp / "pipe.json").c_str(), 0600), 0);
  auto fifo = roots->resolve("pipe.json", "path");
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("not a regular file"), std::string::npos) << fifo.error().message;
}

TEST(McpSafety, ResultsAreScrubbed) {
  auto roots = Roots::make({GOBLIN_SOURCE_DIR});
  ASSERT_TRUE(roots.ok());
  Json j = {{"a", std::string(GOBLIN_SOURCE_DIR) + "/examples/x.yaml"},
            {"b", Json::array({"token hf_abcdefghijklmnopqrstuvwxyz0123"})},
            {"c", "/home/alice/data"}};
  scrub(j, *roots);
  EXPECT_EQ(j["a"], "examples/x.yaml");
  EXPECT_EQ(j["b"][0], "token hf_<redacted>");
  EXPECT_EQ(j["c"], "/home/<user>/data");
  std::string long_text(100000, 'a');
  long_text += " s3://bucket/key";
  EXPECT_NE(scrub_text(long_text, *roots).find("s3://<redacted>"), std::string::npos);
}

TEST(McpTools, NoLiveAndNoReplayRefusesToInvent) {
  Fixture f(false);
  f.init();
  Json c = f.call("parse_config", {{"file_path", "examples/h100_llama/config_before.yaml"}});
  ASSERT_TRUE(c["structuredContent"]["ok"].get<bool>()) << c.dump();
  Json p = f.call("profile_run", {{"config", c["structuredContent"]["result"]}});
  EXPECT_FALSE(p["structuredContent"]["ok"].get<bool>());
  const std::string e = p["structuredContent"]["error"];
  EXPECT_NE(e.find("allows no live runs and has no replay recordings"), std::string::npos) << e;
  EXPECT_EQ(e.find("--"), std::string::npos) << e;  // what a caller can do, never a CLI flag
}

// The whole audit trajectory (docs/mcp.md) on the bundled H100 replay, as an agent would call it; the report
// must carry the same measured speedup as `goblin audit ... --replay examples/h100_llama`.
TEST(McpAudit, ReplayTrajectoryBudgetAndResources) {
  Fixture f;
  f.init();
  auto ok = [](const Json& r) { return r["structuredContent"]["ok"].get<bool>(); };
  Json c = f.call("parse_config", {{"file_path", "examples/h100_llama/config_before.yaml"}});
  ASSERT_TRUE(ok(c)) << c.dump();
  Json cfg = c["structuredContent"]["result"];
  EXPECT_EQ(cfg["source_file"], "examples/h100_llama/config_before.yaml");  // relative to the root
  Json prof = f.call("profile_run", {{"config", cfg}, {"steps", 10}});
  ASSERT_TRUE(ok(prof)) << prof.dump();
  Json metrics = prof["structuredContent"]["result"];
  EXPECT_EQ(metrics["goblin_run"]["runner"], "replay");
  Json q = f.call("query_rocm_kb",
                  {{"symptoms",
                    {"fp32 training precision used on NVIDIA H100 instead of bf16 mixed precision",
                     "naive eager attention on NVIDIA H100", "DataLoader num_workers=0 starves GPU",
                     "DataLoader pin_memory=False", "Adam/AdamW optimizer not fused", "torch.compile disabled",
                     "precision_path: fp32 SIMT GEMM kernels, tensor cores unused",
                     "host_gap: GPU idle between kernel launches, launch-bound host overhead"}}});
  ASSERT_TRUE(ok(q)) << q.dump();
  Json ids = q["structuredContent"]["result"]["rule_ids"];
  ASSERT_FALSE(ids.empty());
  Json patch = f.call("propose_patch", {{"config", cfg}, {"rule_ids", ids}, {"metrics", metrics}});
  ASSERT_TRUE(ok(patch)) << patch.dump();
  Json pr = patch["structuredContent"]["result"];
  Json before = f.call("benchmark", {{"config", cfg}});
  Json after = f.call("benchmark", {{"config", pr["new_config"]}});
  ASSERT_TRUE(ok(before) && ok(after));
  Json rep = f.call("compare_runs", {{"workload_name", "llama-8l-h1024 training"},
                                     {"before", before["structuredContent"]["result"]},
                                     {"after", after["structuredContent"]["result"]},
                                     {"patch", pr}});
  ASSERT_TRUE(ok(rep)) << rep.dump();
  Json report = rep["structuredContent"]["result"];
  EXPECT_NEAR(report["speedup_actual"].get<double>(), 4.77, 0.005) << report["summary_line"];
  EXPECT_NE(report["summary_line"].get<std::string>().find("4.77x faster"), std::string::npos);
  EXPECT_EQ(report["validity_footer"]["measured_by"], "replay");
  EXPECT_NE(report["validity_footer"]["text"].get<std::string>().find("Valid only for the observed workload"),
            std::string::npos);
  // Call 8 is allowed, call 9 is refused by the budget.
  Json eighth = f.call("query_kb", {{"symptom", "host_gap"}});
  EXPECT_TRUE(ok(eighth));
  Json ninth = f.call("query_kb", {{"symptom", "host_gap"}});
  EXPECT_FALSE(ok(ninth));
  EXPECT_NE(ninth["structuredContent"]["error"].get<std::string>().find("budget"), std::string::npos);
  // Analysis tools do not count against it.
  EXPECT_TRUE(ok(f.call("specs", {{"gpu", "h100_sxm"}})));
  // The report is a resource now.
  Json list = f.request("resources/list")["result"]["resources"];
  std::string md;
  for (const auto& r : list)
    if (r["uri"].get<std::string>().find("report.md") != std::string::npos) md = r["uri"];
  ASSERT_FALSE(md.empty()) << list.dump();
  Json read = f.request("resources/read", {{"uri", md}});
  EXPECT_NE(read["result"]["contents"][0]["text"].get<std::string>().find("4.77"), std::string::npos);
  EXPECT_EQ(error_code(f.request("resources/read", {{"uri", "goblin://nope"}})), -32002);
}

TEST(McpPrompts, AuditPromptCarriesGuardrailsForBothVendors) {
  Fixture f;
  f.init();
  Json l = f.request("prompts/list")["result"]["prompts"];
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0]["name"], "gpu_goblin_audit");
  EXPECT_EQ(l[1]["name"], "gpu_kernel_optimize");
  Json g = f.request("prompts/get", {{"name", "gpu_goblin_audit"}, {"arguments", {{"vendor", "amd"}}}});
  std::string t = g["result"]["messages"][0]["content"]["text"];
  for (const char* s : {"ROCPROFSYS_", "bitsandbytes", "validity", "evidence_coverage x rule_consistency",
                        "AT MOST 8 tool calls", "NVIDIA", "AMD"})
    EXPECT_NE(t.find(s), std::string::npos) << s;
  EXPECT_EQ(t.find("{{"), std::string::npos);
  EXPECT_EQ(error_code(f.request("prompts/get", {{"name", "other"}})), kInvalidParams);
  Json rules = f.request("resources/read", {{"uri", "goblin://kb/rules"}});
  EXPECT_NE(rules["result"]["contents"][0]["text"].get<std::string>().find("citation"), std::string::npos);
}

// The kernel loop's tools on the paths a machine without a GPU can take: init, plan, record of a
// bench measured elsewhere, status (stop/continue), the refusals (a workspace outside --out, a
// wrong result, the budget), kernel_bench's submitted source, and the prompt that teaches the loop.
TEST(McpKernel, TheLoopsToolsOnCpuPaths) {
  Fixture f(false, 2);
  f.init();
  std::set<std::string> names;
  const Json list = f.request("tools/list");  // kept: a range-for over a temporary's member dangles
  for (const auto& t : list["result"]["tools"]) {
    names.insert(t["name"]);
    if (t["name"] == "kernel_init" || t["name"] == "kernel_bench")  // the programs run are not the caller's
      for (const char* n : {"python", "harness", "workspace"})
        if (t["name"] == "kernel_init" || std::string(n) != "workspace")
          EXPECT_FALSE(t["inputSchema"]["properties"].contains(n)) << t["name"] << " offers " << n;
  }
  for (const char* n :
       {"kernel_init", "kernel_bench", "kernel_profile", "kernel_plan", "kernel_record", "kernel_status"})
    EXPECT_TRUE(names.count(n)) << n;
  auto ok = [](const Json& r) { return r.is_object() && !r.value("isError", true); };
  auto err = [](const Json& r) { return r["structuredContent"].value("error", std::string()); };

  Json in = f.call("kernel_init", {{"name", "sm"},
                                   {"kernel", "examples/kernel/softmax/v0.py"},
                                   {"platform", "H100"},
                                   {"shape", "M=32768,N=8192"},
                                   {"max_iterations", 3}});
  ASSERT_TRUE(ok(in)) << in.dump();
  const std::string ws = in["structuredContent"]["result"]["workspace"];
  EXPECT_TRUE(fs::exists(fs::path(ws) / "workspace.json")) << ws;
  EXPECT_EQ(fs::path(ws).parent_path(), f.tmp / "out");

  Json st = f.call("kernel_status", {{"workspace", ws}});
  ASSERT_TRUE(ok(st)) << st.dump();
  EXPECT_EQ(st["structuredContent"]["result"]["next"]["action"], "continue");
  EXPECT_NE(err(f.call("kernel_status", Json::object())).find("workspace"), std::string::npos);
  // A directory that is not a workspace this session made: refused before anything reads it.
  EXPECT_NE(err(f.call("kernel_status", {{"workspace", "examples/kernel"}})).find("not a workspace this server made"),
            std::string::npos);

  const std::string td = "src/kernel/testdata/";
  Json rec =
      f.call("kernel_record", {{"workspace", ws}, {"summary", "naive"}, {"bench", td + "bench_softmax_v0.json"}});
  ASSERT_TRUE(ok(rec)) << rec.dump();
  EXPECT_EQ(rec["structuredContent"]["result"]["version"], 0);
  Json wrong =
      f.call("kernel_record", {{"workspace", ws}, {"summary", "broken"}, {"bench", td + "bench_softmax_wrong.json"}});
  EXPECT_NE(err(wrong).find("correctness failed"), std::string::npos) << wrong.dump();
  EXPECT_FALSE(fs::exists(fs::path(ws) / "memory/v1.json"));
  Json plan = f.call("kernel_plan", {{"workspace", ws}});
  ASSERT_TRUE(ok(plan)) << plan.dump();
  EXPECT_TRUE(fs::exists(fs::path(ws) / "plans/v1_plan.md"));

  // Without --allow-live the submitted source is refused before kernel.py is touched: nothing the
  // model wrote is imported or run. Bench and profile count against the budget of 2.
  std::ifstream k0(fs::path(ws) / "kernel.py");
  const std::string before(std::istreambuf_iterator<char>(k0), {});
  Json b = f.call(
      "kernel_bench",
      {{"workspace", ws}, {"kernel_source", "import os\nos.system('touch /tmp/goblin_pwned')\n"}, {"rep_ms", 5}});
  EXPECT_TRUE(b["isError"].get<bool>());
  EXPECT_NE(err(b).find("call kernel_bench without kernel_source"), std::string::npos) << b.dump();
  EXPECT_EQ(err(b).find("--"), std::string::npos) << b.dump();
  std::ifstream k(fs::path(ws) / "kernel.py");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(k), {}), before);
  f.call("kernel_profile", {{"workspace", ws}});
  EXPECT_NE(err(f.call("kernel_bench", {{"workspace", ws}})).find("budget"), std::string::npos);

  Json g = f.request("prompts/get",
                     {{"name", "gpu_kernel_optimize"}, {"arguments", {{"kernel_file", "k.py"}, {"platform", "H100"}}}});
  std::string t = g["result"]["messages"][0]["content"]["text"];
  for (const char* s : {"Step 0 first", "ONE change per iteration", "Record only correct versions",
                        "starts from the best recorded version", "\"stop\"", "budget of 2", "on k.py for the H100"})
    EXPECT_NE(t.find(s), std::string::npos) << s;
  EXPECT_EQ(t.find("{{"), std::string::npos);
}

// With --allow-live, kernel_bench measures the submitted source: kernel.py is replaced, then the
// harness runs (and fails here, with no torch or GPU).
TEST(McpKernel, SubmittedSourceIsMeasuredOnlyWithAllowLive) {
  Fixture f(false, 4, true);
  f.init();
  Json in = f.call(
      "kernel_init",
      {{"name", "sm"}, {"kernel", "examples/kernel/softmax/v0.py"}, {"platform", "H100"}, {"shape", "M=32768,N=8192"}});
  ASSERT_FALSE(in.value("isError", true)) << in.dump();
  const std::string ws = in["structuredContent"]["result"]["workspace"];
  Json b = f.call("kernel_bench", {{"workspace", ws}, {"kernel_source", "# submitted v1\n"}, {"rep_ms", 5}});
  EXPECT_TRUE(b["isError"].get<bool>());
  std::ifstream k(fs::path(ws) / "kernel.py");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(k), {}), "# submitted v1\n");
}

// The stdio loop over pipes: oversized lines answered with -32600 and skipped, a blank line
// ignored, EOF ends the loop cleanly.
TEST(McpTransport, OversizedLinesAndEof) {
  Fixture f;
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  std::string big(5u << 20, 'x');
  std::string msgs = big + "\n\n" +
                     R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})" +
                     "\n" + R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\n";
  std::thread writer([&] {
    size_t off = 0;
    while (off < msgs.size()) {
      ssize_t w = write(in[1], msgs.data() + off, msgs.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(in[1]);
  });
  int rc = serve_stdio(*f.server, in[0], out[1]);
  writer.join();
  close(out[1]);
  EXPECT_EQ(rc, 0);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  close(out[0]);
  close(in[0]);
  std::vector<Json> lines;
  for (size_t a = 0, b; (b = got.find('\n', a)) != std::string::npos; a = b + 1)
    lines.push_back(Json::parse(got.substr(a, b - a)));
  ASSERT_EQ(lines.size(), 3u) << got;
  EXPECT_EQ(lines[0]["error"]["code"], kInvalidRequest);
  EXPECT_NE(lines[0]["error"]["message"].get<std::string>().find("limit"), std::string::npos);
  bool saw_init = false, saw_ping = false;
  for (const auto& l : lines) {
    if (l["id"] == 1) saw_init = l["result"]["protocolVersion"] == "2025-06-18";
    if (l["id"] == 2) saw_ping = l.contains("result");
  }
  EXPECT_TRUE(saw_init && saw_ping);
}

// The analysis and hardware tools on real fixtures: each returns the verb's own result (the same
// library call), so the figures match `goblin <verb> --json`.
TEST(McpAnalysis, ToolsOnRealFixtures) {
  Fixture f;
  ServerOptions o = f.session->options();
  o.roots = {GOBLIN_FIXTURES};
  auto roots = Roots::make(o.roots);
  ASSERT_TRUE(roots.ok());
  Session s(o, *roots);
  f.server = std::make_unique<Server>(s, make_registry());
  f.init();
  auto ok = [](const Json& r) { return r["structuredContent"]["ok"].get<bool>(); };
  const std::string tr = "kineto/h100_llama_fp32_eager_w0.json.gz";
  Json info = f.call("info", {{"path", tr}});
  ASSERT_TRUE(ok(info)) << info.dump().substr(0, 500);
  EXPECT_GT(info["structuredContent"]["result"]["events"]["kernels"].get<int64_t>(), 0)
      << info["structuredContent"]["result"].dump().substr(0, 500);
  Json m = f.call("metrics", {{"path", tr}});
  ASSERT_TRUE(ok(m));
  EXPECT_GT(m["structuredContent"]["result"]["step_time_s"].get<double>(), 0);
  Json b = f.call("breakdown", {{"path", tr}});
  ASSERT_TRUE(ok(b));
  EXPECT_FALSE(b["structuredContent"]["result"]["categories"].empty());
  Json t = f.call("triage", {{"path", tr}, {"top", 5}});
  ASSERT_TRUE(ok(t)) << t.dump().substr(0, 500);
  EXPECT_EQ(t["structuredContent"]["result"]["top_kernels"].size(), 5u);
  Json r = f.call("roofline", {{"path", tr}, {"gpu", "h100_sxm"}});
  ASSERT_TRUE(ok(r)) << r.dump().substr(0, 500);
  Json d = f.call("diagnose", {{"ncu_csv", "nsight/ncu_raw_h100_full.csv"}});
  ASSERT_TRUE(ok(d)) << d.dump().substr(0, 500);
  EXPECT_FALSE(d["structuredContent"]["result"]["kernels"].empty());
  Json jp = f.call("diagnose", {{"ncu_csv", "nsight/ncu_raw_h100_full.csv"}, {"judge_prompt", true}});
  ASSERT_TRUE(ok(jp));
  EXPECT_FALSE(jp["structuredContent"]["result"]["system_prompt"].get<std::string>().empty());
  // Outside the fixtures root: refused.
  EXPECT_FALSE(ok(f.call("metrics", {{"path", std::string(GOBLIN_SOURCE_DIR) + "/README.md"}})));
}

// Secrets stay redacted in every result: a short secret-named env value (no token pattern) in the
// user's config appears in neither parse_config's nor propose_patch's result (diff, patched file).
TEST(McpSafety, SecretsNeverLeaveThroughTheAuditTools) {
  Fixture f;
  std::ofstream(f.tmp / "cfg.yaml") << "model_name: m\nprecision: fp32\nenv:\n  WANDB_API_KEY: abcd1234secretvalue\n"
                                       "attention_impl: eager\ndataloader_workers: 0\n";
  ServerOptions o = f.session->options();
  o.roots = {f.tmp.string()};
  auto roots = Roots::make(o.roots);
  ASSERT_TRUE(roots.ok());
  Session s(o, *roots);
  f.server = std::make_unique<Server>(s, make_registry());
  f.init();
  Json c = f.call("parse_config", {{"file_path", "cfg.yaml"}});
  ASSERT_TRUE(c["structuredContent"]["ok"].get<bool>());
  Json p = f.call("propose_patch", {{"config", c["structuredContent"]["result"]}, {"rule_ids", {"all"}}});
  ASSERT_TRUE(p["structuredContent"]["ok"].get<bool>()) << p.dump().substr(0, 400);
  EXPECT_NE(p["structuredContent"]["result"]["diff"].get<std::string>().find("precision: bf16"), std::string::npos);
  for (const Json& r : {c, p}) EXPECT_EQ(r.dump().find("abcd1234secretvalue"), std::string::npos) << r.dump();
}

// What a directory holds is confined too, at every depth: a symlink to a trace outside the root,
// inside a directory the caller names, is not read through; a FIFO inside it does not block.
TEST(McpSafety, ADirectoryInsideTheRootCannotReadOutThroughItsLinks) {
  const fs::path tmp = fs::temp_directory_path() / fmt::format("goblin_mcp_depth_{}", ::getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp / "root" / "run");
  fs::create_directories(tmp / "root" / "fifo_run");
  fs::create_symlink(std::string(GOBLIN_FIXTURES) + "/kineto/h100_llama_bf16_sdpa_w4.json.gz",
                     tmp / "root" / "run" / "trace.json.gz");
  ASSERT_EQ(::mkfifo((tmp / "root" / "fifo_run" / "trace.json").c_str(), 0600), 0);
  ServerOptions o;
  o.roots = {(tmp / "root").string()};
  o.out_dir = (tmp / "out").string();
  o.budget = 100;
  auto roots = Roots::make(o.roots);
  ASSERT_TRUE(roots.ok());
  goblin::ConfinementScope confined(confinement_of(o, *roots));
  Session session(o, *roots);
  Server server(session, make_registry());
  server.handle_line(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  server.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  int id = 2;
  auto call = [&](const std::string& tool, const Json& args) {
    Json m = {
        {"jsonrpc", "2.0"}, {"id", id++}, {"method", "tools/call"}, {"params", {{"name", tool}, {"arguments", args}}}};
    auto r = server.handle_line(m.dump());
    return r ? (*r)["result"]["structuredContent"] : Json();
  };
  for (const char* tool : {"triage", "metrics", "info"}) {
    SCOPED_TRACE(tool);
    Json r = call(tool, {{"path", "run"}});
    const std::string all = r.dump();
    EXPECT_EQ(all.find("\"kernels\":4036"), std::string::npos)
        << "read the trace outside the root: " << all.substr(0, 400);
    EXPECT_NE(all.find("symbolic link"), std::string::npos) << all.substr(0, 600);
    const auto t0 = std::chrono::steady_clock::now();
    Json f = call(tool, {{"path", "fifo_run"}});
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
    EXPECT_FALSE(f["ok"].get<bool>()) << f.dump().substr(0, 600);
  }
  fs::remove_all(tmp);
}

// A result past the size limit is cut (long strings) or refused with its size, never sent whole.
TEST(McpSafety, ResultsPastTheSizeLimitAreCutOrRefused) {
  Json env = goblin::envelope_ok({{"names", Json::array({std::string(5000, 'k'), std::string(5000, 'v')})}});
  std::string text(100000, 't');
  bound_response(env, text, 8000);
  EXPECT_TRUE(env["ok"].get<bool>());
  ASSERT_TRUE(env.contains("truncated"));
  EXPECT_GT(env["truncated"]["bytes_cut"].get<size_t>(), 7000u);
  EXPECT_LT(env.dump().size(), 8000u);
  EXPECT_LT(text.size(), 2100u);
  Json many = Json::array();
  for (int i = 0; i < 2000; ++i) many.push_back(i);
  Json big = goblin::envelope_ok({{"rows", many}});
  std::string t2 = "x";
  bound_response(big, t2, 4000);
  EXPECT_FALSE(big["ok"].get<bool>());
  EXPECT_NE(big["error"].get<std::string>().find("over this server's limit of 4000 bytes"), std::string::npos);
}
