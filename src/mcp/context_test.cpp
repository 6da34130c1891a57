// The MCP server in an agent's context: tools/list by default under 30 KB (tool groups, compact
// schemas), every tool in one group, an unknown group refused with the list, the store tools on a
// store built here, refusals that name arguments and tools instead of CLI flags, and propose_patch
// with rule ids or rule objects (docs/mcp.md § Tool groups).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "app/door_text.h"
#include "app/verb.h"
#include "mcp/server.h"
#include "mcp/tool_groups.h"

namespace fs = std::filesystem;
using goblin::Json;
using namespace goblin::mcp;
namespace app = goblin::app;

namespace {

// A server over `reg` with the repository as its root.
struct Srv {
  fs::path tmp;
  std::unique_ptr<Session> session;
  std::unique_ptr<Server> server;
  int next_id = 1;
  Json init;  // the initialize response
  explicit Srv(ToolRegistry reg, int budget = 8) {
    tmp =
        fs::temp_directory_path() / fmt::format("goblin_mcp_ctx_{}_{}", ::getpid(), reinterpret_cast<uintptr_t>(this));
    fs::create_directories(tmp);
    ServerOptions o;
    o.roots = {GOBLIN_SOURCE_DIR};
    o.out_dir = (tmp / "out").string();
    o.budget = budget;
    auto roots = Roots::make(o.roots);
    EXPECT_TRUE(roots.ok());
    session = std::make_unique<Session>(o, *roots);
    server = std::make_unique<Server>(*session, std::move(reg));
    init = request("initialize", {{"protocolVersion", "2025-06-18"}, {"capabilities", Json::object()}});
  }
  ~Srv() {
    std::error_code ec;
    fs::remove_all(tmp, ec);
  }
  Json request(const std::string& method, Json params = Json::object()) {
    Json m = {{"jsonrpc", "2.0"}, {"id", next_id++}, {"method", method}, {"params", params}};
    auto r = server->handle_line(m.dump());
    return r ? *r : Json();
  }
  // The bytes of the tools/list response line as the stdio transport writes it (without "\n").
  size_t list_bytes() { return request("tools/list").dump(-1, ' ', false, Json::error_handler_t::replace).size(); }
  Json call(const std::string& tool, Json args) {
    Json r = request("tools/call", {{"name", tool}, {"arguments", args}});
    EXPECT_TRUE(r.contains("result")) << r.dump();
    return r.contains("result") ? r["result"]["structuredContent"] : Json();
  }
};

ToolRegistry registry(const std::string& spec) {
  auto r = make_registry(spec);
  EXPECT_TRUE(r.ok()) << r.error().describe();
  return r.ok() ? std::move(*r) : ToolRegistry();
}

// A CLI flag in a message: "--name" not inside a word.
bool names_a_flag(const std::string& s) {
  static const std::regex flag("(^|[^A-Za-z0-9-])--[a-z]");
  return std::regex_search(s, flag);
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

}  // namespace

TEST(McpContext, DefaultToolsListFitsInThirtyKilobytes) {
  Srv def(registry(""));
  const size_t def_bytes = def.list_bytes();
  EXPECT_LT(def_bytes, 30u * 1024) << "the default tools/list is " << def_bytes << " bytes";
  Srv all(registry("all"));
  const Json tools = all.request("tools/list")["result"]["tools"];
  EXPECT_GT(all.list_bytes(), def_bytes);
  // `all` lists every tool the registry offers, aliases included.
  size_t offered = 0;
  for (const Tool& t : make_registry().all()) offered += 1 + t.aliases.size();
  EXPECT_EQ(tools.size(), offered);
  // Compact, not silent: every argument of every tool is still described.
  for (const auto& t : tools) {
    EXPECT_FALSE(t["description"].get<std::string>().empty()) << t["name"];
    for (const auto& [arg, schema] : t["inputSchema"]["properties"].items())
      EXPECT_FALSE(schema.value("description", std::string()).empty()) << t["name"] << "." << arg;
    EXPECT_EQ(t["outputSchema"]["required"], Json::array({"ok", "result", "error"})) << t["name"];
  }
}

TEST(McpContext, EveryToolIsInExactlyOneGroup) {
  auto g = tool_groups();
  ASSERT_TRUE(g.ok()) << g.error().describe();
  std::map<std::string, int> seen;
  for (const auto& grp : (*g)->groups)
    for (const auto& t : grp.tools) ++seen[t];
  const ToolRegistry all = make_registry();
  for (const Tool& t : all.all()) EXPECT_EQ(seen[t.name], 1) << t.name << " must be in exactly one group";
  for (const auto& [name, n] : seen) EXPECT_NE(all.find(name), nullptr) << "group names unknown tool " << name;
  // Each group alone lists its tools and nothing else.
  for (const auto& grp : (*g)->groups) {
    const ToolRegistry r = registry(grp.name);
    std::set<std::string> names;
    for (const Tool& t : r.all()) names.insert(t.name);
    EXPECT_EQ(names, std::set<std::string>(grp.tools.begin(), grp.tools.end())) << grp.name;
  }
  EXPECT_EQ(registry("audit, store").all().size(), (*g)->find("audit")->tools.size() + 3);
}

TEST(McpContext, AnUnknownGroupIsAUsageErrorListingTheGroups) {
  auto r = make_registry("triage,gpus");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, goblin::ErrorKind::Usage);
  for (const char* s : {"'gpus'", "audit", "triage", "store", "kernel", "hardware", "all"})
    EXPECT_NE(r.error().message.find(s), std::string::npos) << s << " in: " << r.error().message;
}

TEST(McpContext, AToolOfAGroupNotOfferedIsRefusedNamingItsGroup) {
  Srv s(registry("triage"));
  Json r = s.request("tools/call", {{"name", "kernel_init"}, {"arguments", Json::object()}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  const std::string m = r["error"]["message"];
  EXPECT_NE(m.find("tool group 'kernel'"), std::string::npos) << m;
  EXPECT_NE(m.find("offers triage"), std::string::npos) << m;
  EXPECT_FALSE(names_a_flag(m)) << m;
  Json unknown = s.request("tools/call", {{"name", "no_such_tool"}, {"arguments", Json::object()}});
  EXPECT_NE(unknown["error"]["message"].get<std::string>().find("unknown tool"), std::string::npos);
  // The server says which groups it offers.
  const std::string instr = s.init["result"]["instructions"];
  EXPECT_NE(instr.find("Tool groups offered: triage"), std::string::npos) << instr;
}

// Refusals reached through MCP name an argument or a tool, never a CLI flag: through the one
// rewrite in app::call (app/door_text.h) and in the texts the MCP door writes itself.
TEST(McpRefusals, NameArgumentsAndToolsNeverCliFlags) {
  Srv s(registry("all"), 100);
  const std::string trace = "examples/h100_llama/h100_llama_bf16_sdpa_w4.json.gz";
  struct Probe {
    std::string tool;
    Json args;
    std::string says;
  };
  const std::vector<Probe> probes = {
      {"critical_path", {{"path", trace}, {"what_if", "gemm"}}, "`what_if` wants"},
      {"export", {{"path", trace}, {"steps", "1"}, {"from", 0}, {"to", 5}}, "give `steps` or `from`/`to`"},
      {"kernel_init",
       {{"name", "k"}, {"kernel", "examples/kernel/softmax/v0.py"}, {"platform", "H100"}, {"shape", "M"}},
       "`shape` wants"},
      {"parse_config", Json::object(), "tools/list gives its arguments"},
      {"profile_run", {{"config", {{"model_name", "x"}}}}, "allows no live runs"},
      {"propose_patch", {{"config", "examples/h100_llama/config_before.yaml"}}, "no rules given"},
      {"kernel_status", {{"workspace", "examples"}}, "create one with kernel_init"},
      {"parse_config", {{"file_path", "/etc/hostname"}}, "pass a path inside them"},
      {"store_ls", Json::object(), "has no run store"},
  };
  ASSERT_EQ(std::getenv("GOBLIN_STORE"), nullptr);
  for (const auto& p : probes) {
    SCOPED_TRACE(p.tool + " " + p.args.dump());
    Json r = s.call(p.tool, p.args);
    ASSERT_FALSE(r.value("ok", true)) << r.dump();
    const std::string e = r["error"];
    EXPECT_NE(e.find(p.says), std::string::npos) << e;
    EXPECT_FALSE(names_a_flag(e)) << e;
  }
  // The rewrite itself: a verb's flag becomes its argument, the CLI keeps its words, another
  // program's flag is left as written.
  const app::Verb* roofline = app::find_verb("roofline");
  ASSERT_NE(roofline, nullptr);
  EXPECT_EQ(app::door_text(*roofline, "unknown GPU: pass --gpu ID.", app::kMcp), "unknown GPU: pass `gpu`.");
  EXPECT_EQ(app::door_text(*roofline, "pass --gpu ID", app::kCli), "pass --gpu ID");
  EXPECT_EQ(app::door_text(*roofline, "an ncu --csv file", app::kMcp), "an ncu --csv file");
  EXPECT_EQ(app::door_text(*roofline, "no --allow-live here", app::kMcp),
            "no live runs (this server's operator allows them) here");
}

TEST(McpPatch, ProposePatchTakesRuleIdsOrRuleObjects) {
  Srv s(registry(""));
  Json cfg = s.call("parse_config", {{"file_path", "examples/h100_llama/config_before.yaml"}});
  ASSERT_TRUE(cfg["ok"].get<bool>()) << cfg.dump();
  Json kb =
      s.call("query_kb",
             {{"symptoms", {"fp32 training precision used on NVIDIA H100", "DataLoader num_workers=0"}}, {"top", 2}});
  ASSERT_TRUE(kb["ok"].get<bool>()) << kb.dump();
  const Json hits = kb["result"]["hits"];
  ASSERT_FALSE(hits.empty());
  Json by_ids = s.call("propose_patch", {{"config", cfg["result"]}, {"rule_ids", kb["result"]["rule_ids"]}});
  ASSERT_TRUE(by_ids["ok"].get<bool>()) << by_ids.dump();
  // query_kb's hits as they came back (rule_id), and Rule objects (id), as the schema advertises.
  Json rules = Json::array();
  for (const auto& h : hits) rules.push_back({{"id", h["rule_id"]}, {"title", h["title"]}});
  for (const Json& given : {hits, rules}) {
    Json by_rules = s.call("propose_patch", {{"config", cfg["result"]}, {"rules", given}});
    ASSERT_TRUE(by_rules["ok"].get<bool>()) << by_rules.dump();
    EXPECT_EQ(by_rules["result"]["diff"], by_ids["result"]["diff"]);
    EXPECT_EQ(by_rules["result"]["new_config"], by_ids["result"]["new_config"]);
  }
  // The schema offers both and requires neither (one of them is needed, which the verb checks).
  const Json list = s.request("tools/list")["result"]["tools"];
  for (const auto& t : list)
    if (t["name"] == "propose_patch") {
      EXPECT_TRUE(t["inputSchema"]["properties"].contains("rules"));
      EXPECT_EQ(t["inputSchema"]["required"], Json::array({"config"}));
    }
}

TEST(McpTools, BenchmarkOffersNoCacheItCannotUse) {
  const ToolRegistry all = make_registry();
  const Tool* b = all.find("benchmark");
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->input_schema["properties"].contains("cache")) << b->input_schema.dump();
  EXPECT_TRUE(b->input_schema["properties"].contains("steps"));
}

// store_ls, store_show and gate read the server's store ($GOBLIN_STORE) through the same verbs as
// `goblin store ls`, `store show` and `gate`; a caller cannot name another store, and nothing is
// written.
TEST(McpStore, LsShowAndGateReadTheServersStore) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("goblin_mcp_store_{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string url = "sqlite://" + (dir / "runs.db").string();
  // A run of a real trace: metrics through the CLI door, its result recorded in a new store.
  app::Context c;
  auto m = app::call(
      "metrics", {{"path", std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_llama/h100_llama_bf16_sdpa_w4.json.gz"}},
      app::kCli, c);
  ASSERT_FALSE(m.error) << m.error->describe();
  app::Context ci;
  ASSERT_FALSE(app::call("store init", {{"store", url}}, app::kCli, ci).error);
  app::Context ca;
  auto add = app::call("store add", {{"store", url}, {"result", m.result}, {"verb", "metrics"}, {"workload", "llama"}},
                       app::kPython, ca);
  ASSERT_FALSE(add.error) << add.error->describe();
  const int64_t id = add.result["runs"][0]["run_id"];

  ScopedEnv env("GOBLIN_STORE", url);
  Srv s(registry(""));
  const Json list = s.request("tools/list")["result"]["tools"];
  std::set<std::string> store_tools;
  for (const auto& t : list) {
    const std::string n = t["name"];
    if (n == "store_ls" || n == "store_show" || n == "gate") {
      store_tools.insert(n);
      EXPECT_TRUE(t["annotations"]["readOnlyHint"].get<bool>()) << n;
      EXPECT_FALSE(t["inputSchema"]["properties"].contains("store")) << n;  // the operator's, not the caller's
    }
  }
  EXPECT_EQ(store_tools.size(), 3u);

  Json ls = s.call("store_ls", {{"workload", "llama"}, {"store", "sqlite:///" + (dir / "other.db").string()}});
  ASSERT_TRUE(ls["ok"].get<bool>()) << ls.dump();
  EXPECT_EQ(ls["result"]["total"], 1);
  EXPECT_EQ(ls["result"]["runs"][0]["id"], id);
  EXPECT_FALSE(fs::exists(dir / "other.db"));  // a caller's `store` is not an argument here
  app::Context cl;
  auto cli_ls = app::call("store ls", {{"workload", "llama"}, {"store", url}}, app::kCli, cl);
  ASSERT_FALSE(cli_ls.error);
  EXPECT_EQ(ls["result"]["runs"], cli_ls.result["runs"]);  // the same verb as `goblin store ls`

  Json show = s.call("store_show", {{"run", fmt::format("{}", id)}});
  ASSERT_TRUE(show["ok"].get<bool>()) << show.dump();
  EXPECT_EQ(show["result"]["id"], id);
  EXPECT_EQ(show["result"]["verb"], "metrics");
  Json missing = s.call("store_show", {{"run", "999"}});
  EXPECT_FALSE(missing["ok"].get<bool>());

  Json gate = s.call("gate", {{"workload", "llama"}});
  ASSERT_TRUE(gate["result"].is_object()) << gate.dump();
  EXPECT_EQ(gate["result"]["verdict"], "insufficient_data") << gate.dump();
  Json bad = s.call("gate", {{"workload", "llama"}, {"baseline", "x"}});
  EXPECT_FALSE(bad["ok"].get<bool>());
  EXPECT_FALSE(names_a_flag(bad["error"])) << bad.dump();
  EXPECT_NE(bad["error"].get<std::string>().find("`baseline`"), std::string::npos) << bad.dump();

  // Read-only: still one run.
  app::Context cl2;
  EXPECT_EQ(app::call("store ls", {{"store", url}}, app::kCli, cl2).result["total"], 1);
  std::error_code ec;
  fs::remove_all(dir, ec);
}
