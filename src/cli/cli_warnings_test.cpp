// The warning catalogue end to end (issue #26): `goblin --list-warnings` prints it, the doc's
// table is exactly that output (so docs/warnings.md cannot drift), and a warning a reader emits
// on real damaged input carries its id and severity in `goblin info --json`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

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

}  // namespace
