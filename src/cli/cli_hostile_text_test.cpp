// What the binary prints to a terminal and writes beside it, from a trace whose kernel and op names
// carry escape sequences and spreadsheet formulas: every human output shows the control characters
// escaped (core/escape.h terminal_text), profile_summary.md holds none, and CSV cells that would
// start a formula are written as text (CWE-1236).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/io.h"
#include "core/script_text.h"
#include "core/test_support.h"

namespace {

namespace fs = std::filesystem;

std::string g() { return std::string(GOBLIN_BINARY_DIR) + "/goblin"; }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The Triton example trace with its kernel renamed to carry an OSC title sequence, a screen clear
// and a C1 CSI, and its cpu op named as a spreadsheet formula.
fs::path hostile_trace() {
  const fs::path d = goblin::testing::private_tmp_dir("hostile_text");
  auto text = goblin::read_all(std::string(GOBLIN_FIXTURES) + "/kineto/triton_example.json.gz");
  EXPECT_TRUE(text.ok());
  std::string t = replace_all(*text, "\"triton_poi_fused_add_cos_sin_0\"",
                              "\"\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31mtriton_poi_fused_add_cos_sin_0\"");
  t = replace_all(t, "\"Torch-Compiled Region: 0/0\"", "\"=HYPERLINK(\\\"http://e.x\\\",\\\"x\\\")\"");
  const fs::path p = d / "hostile.json";
  std::ofstream(p) << t;
  return p;
}

bool has_control(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) <= 0x9F)
      return true;
  }
  return false;
}

TEST(CliHostileText, EveryHumanOutputShowsControlCharactersEscaped) {
  const fs::path trace = hostile_trace();
  const std::string t = goblin::sh_word(trace.string());
  const fs::path out = trace.parent_path() / "triage";
  for (const std::string& args :
       {"metrics " + t, "critical-path " + t, "roofline " + t + " --gpu H100", "triage " + t + " -o " + out.string(),
        "query " + t + " \"SELECT name FROM gpu_ops\"", "breakdown " + t}) {
    auto r = goblin::testing::run_command(g() + " " + args + " 2>&1");
    EXPECT_FALSE(has_control(r.out)) << args << "\n" << r.out;
    // critical-path and breakdown name categories and steps, not this trace's one kernel.
    if (args.rfind("critical-path", 0) != 0 && args.rfind("breakdown", 0) != 0) {
      EXPECT_NE(r.out.find("pwned"), std::string::npos) << args << " does not show the name\n" << r.out;
    }
  }
  auto q = goblin::testing::run_command(g() + " query " + t + " \"SELECT name FROM gpu_ops\"");
  EXPECT_NE(q.out.find("\\x1b]0;pwned\\x07\\x1b[2J\\u009b31mtriton_poi"), std::string::npos) << q.out;
  auto md = goblin::read_all((out / "profile_summary.md").string());
  ASSERT_TRUE(md.ok());
  EXPECT_FALSE(has_control(*md)) << *md;
  EXPECT_NE(md->find("pwned"), std::string::npos);
}

TEST(CliHostileText, CsvCellsThatStartAFormulaAreText) {
  const fs::path trace = hostile_trace();
  const std::string t = goblin::sh_word(trace.string());
  auto r = goblin::testing::run_command(g() + " query " + t +
                                        " \"SELECT name FROM cpu_ops WHERE name LIKE '=%'\" --format csv");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\"'=HYPERLINK("), std::string::npos) << r.out;
  const fs::path dir = trace.parent_path() / "csv";
  auto e = goblin::testing::run_command(g() + " export " + t + " --format csv -o " + dir.string() + " 2>&1");
  ASSERT_EQ(e.code, 0) << e.out;
  bool found = false;
  for (const auto& f : fs::directory_iterator(dir)) {
    auto text = goblin::read_all(f.path().string());
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(text->find(",=HYPERLINK"), std::string::npos) << f.path();
    EXPECT_EQ(text->find("\n=HYPERLINK"), std::string::npos) << f.path();
    EXPECT_EQ(text->find(",\"=HYPERLINK"), std::string::npos) << f.path();
    EXPECT_EQ(text->find("\n\"=HYPERLINK"), std::string::npos) << f.path();
    found |= text->find("'=HYPERLINK") != std::string::npos;
  }
  EXPECT_TRUE(found);
}

}  // namespace
