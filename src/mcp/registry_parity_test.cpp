// Every verb gives the same `result` for the same request through every door that offers it.
// CLI and MCP: the test walks the registry, builds one JSON request per verb on real fixtures, sends
// it through the MCP door (call_tool, as a client would) and — turned into a command line from
// the same field list — through the CLI (`goblin <verb> ... --json`, run as a user would), and
// compares the two results byte for byte.
//
// Three differences are the doors' own, by design, and are taken out before comparing: where a verb
// wrote its files (the CLI writes where -o says; the MCP server picks a folder under its --out, so
// `out_dir`, `written`, `written_to` differ); paths under the server's root, which the MCP door
// shows relative to the root (the same display is applied to the CLI's result); and one-line strings
// quoted from user files, which the MCP door cuts at 512 bytes in analysis results (the same cut
// is applied to the CLI's result). A verb added to
// the registry with an MCP name and no case here fails the test.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "app/verb.h"
#include "core/test_support.h"
#include "mcp/server.h"
#include "mcp/tools.h"
#include "mcp/untrusted.h"
#include "serve/api.h"

namespace fs = std::filesystem;
using goblin::Json;
using namespace goblin::mcp;
namespace app = goblin::app;

namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The command line the CLI door needs for `args`: positional fields in declaration order, then
// one option per other field, each spelled as the CLI spells it (its first long name).
std::string command_line(const app::Verb& v, const Json& args) {
  std::string cmd;
  for (const auto& w : v.cli_path) cmd += " " + w;
  auto values = [](const Json& x) {
    std::vector<std::string> out;
    if (x.is_array())
      for (const auto& e : x) out.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    else
      out.push_back(x.is_string() ? x.get<std::string>() : x.dump());
    return out;
  };
  for (const app::Field& f : v.request)
    if (f.positional && args.contains(f.name))
      for (const auto& x : values(args[f.name])) cmd += " " + shell_quote(x);
  for (const app::Field& f : v.request) {
    if (f.positional || !args.contains(f.name) || !(f.doors & app::kCli)) continue;
    std::string flag = app::cli_flag(f);
    if (!f.cli.empty()) {  // "-o,--out,--output": the first long name
      for (size_t at = 0; at < f.cli.size();) {
        size_t end = f.cli.find(',', at);
        std::string n = f.cli.substr(at, end == std::string::npos ? std::string::npos : end - at);
        if (n.rfind("--", 0) == 0) {
          flag = n;
          break;
        }
        at = end == std::string::npos ? f.cli.size() : end + 1;
      }
    }
    if (f.kind == app::FieldKind::Boolean) {
      if (args[f.name].get<bool>()) cmd += " " + flag;
      continue;
    }
    for (const auto& x : values(args[f.name])) cmd += " " + flag + " " + shell_quote(x);
  }
  return cmd;
}

// The envelope `goblin ... --json` prints, run in `cwd`.
Json run_cli(const std::string& cwd, const std::string& args) {
  const std::string cmd =
      "cd " + shell_quote(cwd) + " && " + shell_quote(GOBLIN_BINARY_DIR "/goblin") + args + " --json 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[65536];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (p) pclose(p);
  try {
    return Json::parse(out);
  } catch (...) {
    ADD_FAILURE() << "not JSON from `goblin" << args << " --json`:\n" << out.substr(0, 2000);
    return Json();
  }
}

// The SHA-256 of a file (a stored artifact's content key), as sha256sum prints it.
std::string sha256_of(const fs::path& p) {
  FILE* f = popen(("sha256sum " + shell_quote(p.string())).c_str(), "r");
  char buf[65] = {0};
  if (f) {
    if (fread(buf, 1, 64, f) != 64) buf[0] = 0;
    pclose(f);
  }
  return buf;
}

// Where each door wrote (its own choice) and how long this call's read took (a measurement of the
// call, not of the input) are the only fields allowed to differ; for the kernel tools also the
// workspace each door made, when it was made, the hours since then and the dated plan text.
void drop_output_locations(Json& j) {
  if (j.is_object()) {
    // summarize: a summary records its trace's path as the door spells it, so its size does too.
    for (const char* k : {"out_dir", "out", "written", "written_to", "workspace", "created_at", "hours_used",
                          "markdown", "summary_bytes", "size_pct"})
      j.erase(k);
    if (j.contains("read") && j["read"].is_object())
      for (const char* k : {"seconds", "mb_per_s_on_disk"}) j["read"].erase(k);
    for (auto& [k, v] : j.items()) drop_output_locations(v);
  } else if (j.is_array()) {
    for (auto& e : j) drop_output_locations(e);
  }
}

struct Case {
  Json args;                       // the request, as an MCP client sends it
  Json cli_only = Json::object();  // fields only the CLI door takes (where to write)
  // A call that fails the same way through both doors (the kernel tools that need a GPU, on this
  // CPU machine): the error kinds are compared instead of the results.
  bool fails = false;
};

class RegistryParity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / fmt::format("goblin_parity_{}", ::getpid());
    fs::remove_all(root_);
    fs::create_directories(root_);
    const fs::path fx = GOBLIN_FIXTURES;
    const fs::path src = GOBLIN_SOURCE_DIR;
    fs::copy_file(src / "examples/h100_llama/h100_llama_fp32_eager_w0.json.gz", root_ / "before.json.gz");
    fs::copy_file(src / "examples/h100_llama/h100_llama_bf16_sdpa_w4.json.gz", root_ / "after.json.gz");
    fs::copy_file(fx / "kineto/nccl_sampled_rank-0.json.gz", root_ / "rank0.json.gz");
    fs::copy_file(fx / "kineto/nccl_sampled_rank-1.json.gz", root_ / "rank1.json.gz");
    fs::copy_file(fx / "nsight/ncu_raw_h100_selected_metrics.csv", root_ / "ncu.csv");
    fs::copy_file(src / "examples/h100_llama/config_before.yaml", root_ / "config.yaml");
    fs::copy_file(src / "examples/h100_cudagraphs/graph_off_compile_default.json.gz", root_ / "graph_off.json.gz");
    fs::copy_file(src / "examples/h100_cudagraphs/graph_on_reduce_overhead.json.gz", root_ / "graph_on.json.gz");
    fs::copy_file(src / "tests/fixtures/memory/snapshot_b8.pickle", root_ / "snapshot_b8.pickle");
    fs::copy_file(src / "tests/fixtures/memory/snapshot_b32.pickle", root_ / "snapshot_b32.pickle");
    // Inputs of compare: what a user would have from earlier verbs.
    auto save = [](const std::string& args, const std::string& file) {
      Json env = run_cli(root_.string(), args);
      std::ofstream(root_ / file) << env.dump();
    };
    save(" metrics before.json.gz", "metrics_before.json");
    save(" metrics after.json.gz", "metrics_after.json");
    save(" patch config.yaml --rules all --metrics metrics_before.json", "patch.json");
    // A run store holding those two results: the store tools read it as the server's store.
    save(" store add metrics_before.json metrics_after.json --workload llama --store " + store_url(), "store_add.json");
    // A kernel workspace under the MCP server's --out (the only place its kernel tools write),
    // with two recorded iterations: what kernel_init and two benches would have left.
    const fs::path kt = src / "src/kernel/testdata";
    fs::copy_file(src / "examples/kernel/softmax/v0.py", root_ / "softmax_v0.py");
    fs::copy_file(kt / "bench_softmax_wrong.json", root_ / "bench_wrong.json");
    const std::string h = " --harness " + shell_quote((src / "tools/kernel_harness.py").string());
    save(" kernel init sm --kernel softmax_v0.py --platform H100 --shape M=32768,N=8192 --workspace mcp_out/kws" + h,
         "kws_init.json");
    save(" kernel record mcp_out/kws --summary naive --bench " + shell_quote((kt / "bench_softmax_v0.json").string()),
         "kws_v0.json");
    save(" kernel record mcp_out/kws --summary 'single pass' --bench " +
             shell_quote((kt / "bench_softmax_v1.json").string()),
         "kws_v1.json");
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  static std::string store_url() { return "sqlite://" + (root_ / "runs.db").string(); }
  static fs::path root_;
};
fs::path RegistryParity::root_;

// The store tools read the server's store ($GOBLIN_STORE); set only around their calls, since
// with it every other verb would record its result in it.
bool reads_store(const std::string& tool) { return tool == "store_ls" || tool == "store_show" || tool == "gate"; }

std::map<std::string, Case> cases() {
  return {
      {"info", {{{"path", "after.json.gz"}}}},
      {"triage", {{{"path", "after.json.gz"}, {"top", 5}, {"target_arch", "sm_90"}}, {{"out", "cli_out/triage"}}}},
      {"breakdown", {{{"path", "after.json.gz"}, {"by", "module"}}}},
      {"overlap", {{{"graph_off_trace", "graph_off.json.gz"}, {"graph_on_trace", "graph_on.json.gz"}, {"top", 5}}}},
      {"perfetto_fix", {{{"trace", "graph_on.json.gz"}}, {{"out", "cli_fixed.json.gz"}}}},
      {"metrics", {{{"path", Json::array({"rank0.json.gz", "rank1.json.gz"})}}}},
      {"diff", {{{"before", "before.json.gz"}, {"after", "after.json.gz"}, {"top", 5}}}},
      {"ranks", {{{"path", Json::array({"rank0.json.gz", "rank1.json.gz"})}}}},
      {"summarize", {{{"path", Json::array({"rank0.json.gz"})}}, {{"out", "cli_out/summaries"}}}},
      {"slurm_script", {{{"path", Json::array({"rank0.json.gz", "rank1.json.gz"})}}, {{"out", "cli_out/slurm"}}}},
      {"critical_path", {{{"path", "after.json.gz"}, {"what_if", "gemm=2"}, {"top", 3}}}},
      {"parse_config", {{{"file_path", "config.yaml"}}}},
      {"query_kb", {{{"symptoms", Json::array({"fp32 used on H100", "DataLoader num_workers=0"})}, {"top", 3}}}},
      {"propose_patch",
       {{{"config", "config.yaml"}, {"rule_ids", Json::array({"all"})}, {"metrics", "metrics_before.json"}}}},
      {"compare_runs",
       {{{"before", "metrics_before.json"},
         {"after", "metrics_after.json"},
         {"patch", "patch.json"},
         {"workload_name", "llama"}}}},
      {"specs", {{{"gpu", "h100_sxm"}}}},
      {"memory", {{{"path", "snapshot_b8.pickle"}, {"diff", "snapshot_b32.pickle"}, {"top", 3}}}},
      {"roofline", {{{"path", "ncu.csv"}, {"top", 5}}}},
      {"diagnose", {{{"ncu_csv", "ncu.csv"}}}},
      {"query",
       {{{"path", "after.json.gz"}, {"sql", "SELECT category, count(*) AS n FROM gpu_ops GROUP BY 1 ORDER BY 1"}}}},
      {"export", {{{"path", "after.json.gz"}, {"from", 0}, {"to", 50}}, {{"out", "cli_out/slice.json.gz"}}}},
      {"kernel_init",
       {{{"name", "sm"}, {"kernel", "softmax_v0.py"}, {"platform", "H100"}, {"shape", "M=32768,N=8192"}},
        {{"workspace", "cli_out/kws_init"}}}},
      {"kernel_status", {{{"workspace", "mcp_out/kws"}}}},
      {"kernel_plan", {{{"workspace", "mcp_out/kws"}}}},
      // Needs a GPU (bench: torch; profile: ncu): both doors fail the same way here.
      {"kernel_bench", {{{"workspace", "mcp_out/kws"}, {"rep_ms", 10}}, {}, true}},
      {"kernel_profile", {{{"workspace", "mcp_out/kws"}}, {}, true}},
      // The measuring tools answer from the session's runner; the CLI runs the workload itself. With
      // neither a GPU here nor --allow-live/--replay in the session, both refuse for the environment.
      {"profile_run", {{{"config", {{"model_name", "llama"}}}, {"steps", 3}}, {{"config", "config.yaml"}}, true}},
      {"benchmark", {{{"config", {{"model_name", "llama"}}}, {"steps", 3}}, {{"config", "config.yaml"}}, true}},
      // A wrong result is refused by both doors, and nothing is recorded.
      {"kernel_record",
       {{{"workspace", "mcp_out/kws"}, {"summary", "broken"}, {"bench", "bench_wrong.json"}}, {}, true}},
      {"store_ls", {{{"workload", "llama"}}}},
      {"store_show", {{{"run", "1"}}}},
      {"gate", {{{"workload", "llama"}, {"metric", "step_time"}}}},
  };
}

}  // namespace

TEST_F(RegistryParity, EveryVerbGivesTheSameResultThroughCliAndMcp) {
  ServerOptions o;
  o.roots = {root_.string()};
  o.out_dir = (root_ / "mcp_out").string();
  o.budget = 1000;
  auto roots = Roots::make(o.roots);
  ASSERT_TRUE(roots.ok());
  Session session(o, *roots);
  const ToolRegistry reg = make_registry();
  const auto all = cases();
  size_t compared = 0;
  // Every warning either door returns names a catalogue entry (issue #26): checked on every
  // verb's result, generically, so a new verb's warnings are covered by its parity case.
  const Json catalogue = run_cli(root_.string(), " --list-warnings")["result"]["warnings"];
  ASSERT_TRUE(catalogue.is_array() && !catalogue.empty());
  size_t warnings_checked = 0;
  for (const app::Verb& v : app::verbs()) {
    if (v.tool.empty()) continue;
    auto c = all.find(v.tool);
    ASSERT_NE(c, all.end()) << "verb '" << v.cli_name() << "' is offered over MCP as '" << v.tool
                            << "' but has no parity case here";
    SCOPED_TRACE(v.tool);
    if (reads_store(v.tool)) ::setenv("GOBLIN_STORE", store_url().c_str(), 1);
    struct Unset {
      ~Unset() { ::unsetenv("GOBLIN_STORE"); }
    } unset;
    CallContext ctx;
    CallResult mcp = call_tool(reg, Json{{"name", v.tool}, {"arguments", c->second.args}}, session, ctx);
    ASSERT_TRUE(mcp.result.has_value());
    Json m = (*mcp.result)["structuredContent"];

    Json cli_args = c->second.args;
    for (const auto& [k, x] : c->second.cli_only.items()) cli_args[k] = x;
    Json cl = run_cli(root_.string(), command_line(v, cli_args));
    ASSERT_TRUE(cl.is_object());
    EXPECT_EQ(cl["ok"], m["ok"]) << "cli error: " << cl["error"].dump() << "\nmcp error: " << m["error"].dump();
    if (c->second.fails) {
      EXPECT_FALSE(m["ok"].get<bool>());
      EXPECT_EQ(cl["error_detail"]["kind"], m["error_detail"]["kind"]) << cl["error"] << "\n" << m["error"];
      ++compared;
      continue;
    }
    EXPECT_TRUE(m["ok"].get<bool>()) << m["error"].dump();
    Json a = cl["result"], b = m["result"];
    scrub(a, *roots);  // the MCP door shows paths relative to its root
    // ... and cuts one-line strings quoted from user files in analysis results (untrusted.h).
    const Tool* tool = reg.find(v.tool);
    ASSERT_NE(tool, nullptr);
    if (cuts_quoted_text(*tool)) cut_quoted_strings(a);
    drop_output_locations(a);
    drop_output_locations(b);
    EXPECT_FALSE(b.is_null());
    EXPECT_EQ(a.dump(), b.dump());
    for (const Json* r : {&cl, &m})
      for (const auto& bad : goblin::testing::uncatalogued_warnings(*r, catalogue, warnings_checked))
        ADD_FAILURE() << bad;
    ++compared;
  }
  EXPECT_EQ(compared, all.size());
  EXPECT_GT(warnings_checked, 0u) << "no verb gave a warning to check";
}

TEST(Registry, SchemasComeFromTheFieldList) {
  for (const app::Verb& v : app::verbs()) {
    if (v.tool.empty()) continue;
    const Json s = app::input_schema(v, app::kMcp);
    for (const app::Field& f : v.request) {
      if (!(f.doors & app::kMcp)) {
        // A name may have another field over MCP (profile's config: a path on the CLI, a dict over MCP).
        bool other = false;
        for (const app::Field& g : v.request) other = other || (g.name == f.name && (g.doors & app::kMcp));
        if (!other)
          EXPECT_FALSE(s["properties"].contains(f.name)) << v.tool << "." << f.name << " is not offered over MCP";
        continue;
      }
      ASSERT_TRUE(s["properties"].contains(f.name)) << v.tool << "." << f.name;
      EXPECT_FALSE(s["properties"][f.name]["description"].get<std::string>().empty());
    }
  }
  // A value out of a field's limits is refused the same way by every door.
  const app::Verb* triage = app::find_verb("triage");
  ASSERT_NE(triage, nullptr);
  auto bad = app::make_request(*triage, Json{{"path", "x"}, {"top", 0}}, app::kMcp, nullptr);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("top must be between 1 and 1000"), std::string::npos) << bad.error().message;
  auto wrong = app::make_request(*triage, Json{{"path", 3}}, app::kMcp, nullptr);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("path must be a string or an array of strings"), std::string::npos);
  // Aliases: the audit agent's older spellings still reach the field.
  const app::Verb* kb = app::find_verb("query_rocm_kb");
  ASSERT_NE(kb, nullptr);
  std::vector<std::string> missing;
  auto q = app::make_request(*kb, Json{{"symptom", "eager attention"}, {"top_k", 2}}, app::kMcp, &missing);
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(missing.empty());
  EXPECT_EQ(q->strings("symptoms"), std::vector<std::string>{"eager attention"});
  EXPECT_EQ(q->integer("top"), 2);
}

// When each door's store recorded a run (to the second): the two stores recorded the same runs a
// moment apart, so the time is the one field of a stored run allowed to differ.
namespace {
void drop_record_times(Json& j) {
  if (j.is_object()) {
    j.erase("created");
    for (auto& [k, v] : j.items()) drop_record_times(v);
  } else if (j.is_array()) {
    for (auto& e : j) drop_record_times(e);
  }
}
}  // namespace

// The HTTP door (/api/v1/<verb>, serve/verb_route.h) against the CLI: every verb offered over HTTP,
// one request each as a JSON POST body, on a server whose --root is the fixtures' folder and whose
// store is its own copy of the CLI's (the same runs, recorded in the same order). The doors' own
// differences taken out: where outputs went (the server's request folder), paths shown relative to
// the root, and the store's URL (never shown over HTTP).
TEST_F(RegistryParity, EveryVerbGivesTheSameResultThroughCliAndHttp) {
  auto all = cases();
  const std::string cli_store = "sqlite://" + (root_ / "cli_store.db").string();
  const std::string http_store = "sqlite://" + (root_ / "http_store.db").string();
  // The verbs only HTTP and the CLI offer (no MCP name): the registry's own lookups and the store's.
  const std::map<std::string, Json> http_only = {
      {"kb lint", Json::object()},
      {"kb show", {{"rule_id", "data.dataloader_workers_zero"}}},
      {"kb list", Json::object()},
      {"verbs", Json::object()},
      {"store init", Json::object()},
      {"store add", {{"path", Json::array({"metrics_before.json", "metrics_after.json"})}, {"workload", "llama"}}},
      {"store ls", Json::object()},
      {"store show", {{"run", "1"}}},
      {"store experiments", Json::object()},
      {"store trend", {{"workload", "llama"}, {"metric", "step_time_s"}}},
      {"store calibration", Json::object()},
      {"store export", Json::object()},
      {"store compare", {{"a", "1"}, {"b", "2"}}},
      {"store tag", {{"run", "1"}, {"tag", Json::array({"baseline"})}}},
      {"store artifact", {{"sha256", sha256_of(root_ / "metrics_before.json")}}},
      {"gate", {{"workload", "llama"}, {"metric", "step_time_s"}}},
      {"store migrate", Json::object()},
      {"store rm", {{"run", Json::array({"2"})}}},
  };
  goblin::serve::Api api(goblin::serve::ApiOptions{http_store, "t0ken", 2, {root_.string()}});
  auto roots = Roots::make({root_.string()});
  ASSERT_TRUE(roots.ok());
  size_t compared = 0;
  for (const app::Verb& v : app::verbs()) {
    if (!(v.doors & app::kHttp)) continue;
    SCOPED_TRACE(v.cli_name());
    Json args, cli_args;
    bool fails = false;
    if (auto c = all.find(v.tool); !v.tool.empty() && c != all.end()) {
      args = c->second.args;
      cli_args = c->second.args;
      for (const auto& [k, x] : c->second.cli_only.items()) cli_args[k] = x;
      fails = c->second.fails;
    } else if (auto h = http_only.find(v.cli_name()); h != http_only.end()) {
      args = cli_args = h->second;
    } else {
      ADD_FAILURE() << "verb '" << v.cli_name() << "' is offered over HTTP but has no parity case here";
      continue;
    }
    bool uses_store = v.writes_store || v.cli_path.front() == "store" || v.cli_name() == "gate";
    std::string line = command_line(v, cli_args);
    if (uses_store) line += " --store " + shell_quote(cli_store);
    Json cl = run_cli(root_.string(), line);
    goblin::serve::ApiRequest rq;
    rq.method = "POST";
    rq.path = app::http_route(v);
    rq.body = args.dump();
    rq.authorization = "Bearer t0ken";
    const goblin::serve::ApiResponse resp = api.handle(rq);
    Json h = Json::parse(resp.body, nullptr, false);
    ASSERT_TRUE(h.is_object()) << resp.body.substr(0, 500);
    EXPECT_EQ(cl["ok"], h["ok"]) << "cli error: " << cl["error"].dump() << "\nhttp error: " << h["error"].dump();
    if (h["ok"].get<bool>())
      EXPECT_EQ(resp.status, 200);
    else
      EXPECT_GE(resp.status, 400) << resp.body;
    if (fails || !h["ok"].get<bool>()) {
      EXPECT_EQ(cl["error_detail"]["kind"], h["error_detail"]["kind"]);
      ++compared;
      continue;
    }
    Json a = cl["result"], b = h["result"];
    scrub(a, *roots);
    drop_output_locations(a);
    drop_output_locations(b);
    for (Json* x : {&a, &b}) {
      if (x->is_object()) x->erase("store");
      drop_record_times(*x);
    }
    EXPECT_EQ(a.dump(), b.dump());
    ++compared;
  }
  EXPECT_GE(compared, all.size() - 8);  // the MCP cases less the GPU and workspace verbs HTTP does not offer
}
