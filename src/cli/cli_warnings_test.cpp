// The warning catalogue end to end (issue #26): `goblin --list-warnings` prints it, the doc's
// table is exactly that output (so docs/warnings.md cannot drift), and a warning a reader emits
// on real damaged input carries its id and severity in `goblin info --json`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/test_support.h"
#include "model/warnings.h"

namespace fs = std::filesystem;

namespace {

std::string goblin_bin() { return std::string(GOBLIN_BINARY_DIR) + "/goblin"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ListWarnings, JsonIsTheCatalogue) {
  auto r = goblin::testing::run_command(goblin_bin() + " --list-warnings --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = goblin::Json::parse(r.out);
  ASSERT_TRUE(j["ok"].get<bool>());
  ASSERT_TRUE(j["error"].is_null());
  const auto& ws = j["result"]["warnings"];
  const auto cat = goblin::warning_catalogue();
  ASSERT_EQ(ws.size(), cat.size());
  for (size_t i = 0; i < cat.size(); ++i) {
    EXPECT_EQ(ws[i]["id"], std::string(cat[i].id));
    EXPECT_EQ(ws[i]["severity"], std::string(goblin::severity_name(cat[i].severity)));
    EXPECT_EQ(ws[i]["description"], std::string(cat[i].description));
  }
}

TEST(ListWarnings, DocTableIsTheCliOutput) {
  auto r = goblin::testing::run_command(goblin_bin() + " --list-warnings");
  ASSERT_EQ(r.code, 0);
  const std::string doc = slurp(fs::path(GOBLIN_SOURCE_DIR) / "docs/warnings.md");
  const std::string begin = "<!-- catalogue: goblin --list-warnings -->\n", end = "<!-- end catalogue -->";
  const size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << "docs/warnings.md lost its catalogue markers";
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), r.out)
      << "docs/warnings.md is out of date: replace the table between the markers with the output of "
         "`build/goblin --list-warnings`";
}

// A truncated nvidia-smi CSV (its last row cut mid-field, as when nvidia-smi is killed mid-write):
// the reader's warning names its catalogue entry in info --json.
TEST(ListWarnings, DamagedInputWarningCarriesItsId) {
  const fs::path src = fs::path(GOBLIN_FIXTURES) / "telemetry/nvidia_smi_query.csv";
  ASSERT_TRUE(fs::exists(src)) << src;
  std::string text = slurp(src);
  ASSERT_GT(text.size(), 60u);
  text.resize(text.size() - 60);
  const fs::path dir = goblin::testing::private_tmp_dir("warn_ids");
  const fs::path cut = dir / "nvidia_smi_query_cut.csv";
  std::ofstream(cut, std::ios::binary) << text;
  auto r = goblin::testing::run_command(goblin_bin() + " info " + cut.string() + " --json");
  auto j = goblin::Json::parse(r.out);
  ASSERT_TRUE(j["result"].is_object()) << r.out;
  bool found = false;
  for (const auto& w : j["result"]["warnings"]) {
    ASSERT_TRUE(w.contains("id")) << w.dump();
    ASSERT_TRUE(w.contains("severity")) << w.dump();
    if (w["id"] == "telemetry_row_short") {
      found = true;
      EXPECT_EQ(w["severity"], "data_loss");
      EXPECT_NE(w["message"].get<std::string>().find("truncated"), std::string::npos) << w.dump();
    }
  }
  EXPECT_TRUE(found) << r.out;
  fs::remove_all(dir);
}

// Every warnings-like array of every verb's --json output (info, breakdown, metrics, triage and its
// profile_metadata.json, roofline, parse-config, diff, ranks) holds catalogue objects
// {id, severity, message}, on real fixtures made to warn: a CPU-only trace (no GPU activity), a
// truncated telemetry CSV, an Nsight Compute CSV with a damaged row, a YAML file with two
// documents and an env file with stray lines. The walk is generic (core/test_support.h), so a key
// renamed or added is covered without naming it here.
TEST(ListWarnings, EveryVerbsWarningsAreCatalogueObjects) {
  const auto cat = goblin::Json::parse(goblin::testing::run_command(goblin_bin() + " --list-warnings --json").out);
  const goblin::Json& catalogue = cat["result"]["warnings"];
  ASSERT_FALSE(catalogue.empty());
  const fs::path fx = GOBLIN_FIXTURES;
  const fs::path dir = goblin::testing::private_tmp_dir("warn_every_verb");
  std::string smi = slurp(fx / "telemetry/nvidia_smi_query.csv");
  ASSERT_GT(smi.size(), 60u);
  smi.resize(smi.size() - 60);
  std::ofstream(dir / "smi_cut.csv", std::ios::binary) << smi;
  std::ofstream(dir / "ncu_damaged.csv", std::ios::binary)
      << slurp(fx / "nsight/ncu_raw_h100_selected_metrics.csv") << "\"not-a-kernel\",\"1\"\n";
  std::ofstream(dir / "two_docs.yaml") << "batch_size: 8\nbf16: true\n---\nbatch_size: 16\n";
  std::ofstream(dir / "train.env") << "BATCH_SIZE=8\nthis is not an assignment\n";
  const std::string cpu = (fx / "kineto/cpu_only_rank-34.json.gz").string();
  const std::string gpu = (fx / "kineto/h100_llama_bf16_sdpa_w4.json.gz").string();
  const std::string d = dir.string();
  const std::vector<std::string> commands = {
      "info " + d + "/smi_cut.csv " + cpu,
      "breakdown " + cpu,
      "metrics " + cpu,
      "metrics " + cpu + " " + gpu,
      "triage " + gpu + " -o " + d + "/triage",
      "roofline " + d + "/ncu_damaged.csv",
      "parse-config " + d + "/two_docs.yaml",
      "parse-config " + d + "/train.env",
      "diff " + cpu + " " + gpu,
      "ranks " + cpu + " " + gpu,
  };
  size_t checked = 0;
  std::set<std::string> seen;
  auto walk = [&](const goblin::Json& j, const std::string& what) {
    for (const auto& bad : goblin::testing::uncatalogued_warnings(j, catalogue, checked))
      ADD_FAILURE() << what << ": " << bad;
  };
  for (const auto& c : commands) {
    auto r = goblin::testing::run_command(goblin_bin() + " " + c + " --json 2>/dev/null");
    goblin::Json j = goblin::Json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << c << ":\n" << r.out.substr(0, 2000);
    walk(j, c);
    const std::string text = j.dump();
    for (const auto& w : catalogue)
      if (text.find("\"id\":" + w["id"].dump()) != std::string::npos) seen.insert(w["id"].get<std::string>());
  }
  const goblin::Json meta = goblin::Json::parse(slurp(dir / "triage/profile_metadata.json"), nullptr, false);
  ASSERT_TRUE(meta.is_object()) << "triage wrote no profile_metadata.json";
  walk(meta, "profile_metadata.json");
  for (const auto& w : meta["warnings"]) seen.insert(w.value("id", ""));
  EXPECT_GE(checked, 10u);
  // One of each source, so none of them can fall back to bare strings unnoticed. (A trace with no
  // GPU activity is refused with exit 9 since issue #34, so no_gpu_activity and triage_no_gpu_ops
  // no longer come from a verb's result: the refusal is checked below.)
  for (const char* id : {"telemetry_row_short", "tokens_per_sec_disagrees", "triage_no_python_frames",
                         "config_several_yaml_documents", "config_env_line_ignored"})
    EXPECT_TRUE(seen.count(id)) << id << " not seen; seen: " << goblin::Json(seen).dump();
  for (const char* verb : {"metrics ", "breakdown "}) {
    auto r = goblin::testing::run_command(goblin_bin() + " " + verb + cpu + " --json 2>/dev/null");
    EXPECT_EQ(r.code, 9) << verb;
    EXPECT_NE(r.out.find("no GPU activity"), std::string::npos) << verb << r.out;
  }
}

}  // namespace
