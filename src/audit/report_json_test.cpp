// The Report's one field list: Report -> JSON -> Report -> JSON gives the same JSON, on every
// report committed under examples/ and bench/results/ and on a fresh replay audit; a malformed
// report names its file and the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "audit/audit_flow.h"
#include "audit/replay_runner.h"
#include "audit/report.h"
#include "audit/report_types.h"
#include "core/data.h"
#include "core/test_support.h"

using namespace goblin;
using namespace goblin::audit;
namespace fs = std::filesystem;

namespace {

void expect_round_trip(const Report& r, const std::string& what) {
  const Json once = report_to_json(r);
  auto back = report_from_json(once, what);
  ASSERT_TRUE(back.ok()) << what << ": " << back.error().describe();
  EXPECT_EQ(report_to_json(*back).dump(2), once.dump(2)) << what;
  // The renderers read the struct: the same struct renders the same text.
  EXPECT_EQ(report_markdown(*back), report_markdown(r)) << what;
  EXPECT_EQ(report_html(*back), report_html(r)) << what;
  EXPECT_EQ(report_text(*back), report_text(r)) << what;
}

}  // namespace

TEST(ReportJson, CommittedReportsRoundTrip) {
  int n = 0;
  for (const char* dir : {"examples", "tests/fixtures"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(GOBLIN_SOURCE_DIR) / dir)) {
      if (!e.is_regular_file() || e.path().filename() != "report.json") continue;
      auto r = load_report_file(e.path().string());
      ASSERT_TRUE(r.ok()) << r.error().describe();
      expect_round_trip(*r, e.path().string());
      ++n;
    }
  EXPECT_GE(n, 7);
}

TEST(ReportJson, ReplayAuditReportRoundTrips) {
  set_data_dir(GOBLIN_DATA_DIR);
  auto runner = ReplayRunner::open(std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_llama");
  ASSERT_TRUE(runner.ok()) << runner.error().describe();
  AuditOptions opt;
  opt.rounds = 2;
  opt.round_dir = (goblin::testing::private_tmp_dir("report_json") / "rounds").string();
  auto o = run_audit(std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_llama/config_before.yaml", *runner, opt);
  ASSERT_TRUE(o.ok() && !o->error);
  ASSERT_TRUE(o->report.rounds && o->report.trajectory);
  expect_round_trip(o->report, "replay audit");
}

TEST(ReportJson, MalformedReportNamesFileAndField) {
  auto dir = goblin::testing::private_tmp_dir("report_json_bad");
  Report r;
  r.rules.push_back(ReportRule{"precision.bf16", "t", "https://example.org", "precision_path", std::nullopt, {}});
  Json j = report_to_json(r);
  j["rules"][0]["title"] = 7;
  const std::string path = (dir / "report.json").string();
  std::ofstream(path) << j.dump();
  auto back = load_report_file(path);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(back.error().file, path);
  EXPECT_NE(back.error().message.find("rules[0].title"), std::string::npos) << back.error().message;
  EXPECT_FALSE(report_from_json(Json::array()).ok());
}

// report.md's kernel-diff lines carried raw op names (`aten::mm<script>...`): every line that
// names kernels or ops from the traces is escaped for Markdown (and for HTML in report.html).
TEST(ReportMarkdown, KernelDiffLinesAreEscaped) {
  Report r;
  KernelDiff k;
  k.available = true;
  k.story = std::vector<std::string>{"aten::mm<script>alert(1)</script> 2.1x faster",
                                     "[docs](javascript:alert(1)) ![x](http://e.x/p.png) gone"};
  r.kernel_diff = k;
  const std::string md = report_markdown(r);
  // `\[docs\](javascript:...)` is text in Markdown: no unescaped bracket opens a link or image.
  for (const char* s : {"<script>", "[docs](", "![x]("}) EXPECT_EQ(md.find(s), std::string::npos) << s << "\n" << md;
  EXPECT_NE(md.find("- aten::mm&lt;script&gt;alert(1)&lt;/script&gt; 2.1x faster"), std::string::npos) << md;
  EXPECT_NE(md.find("\\[docs\\](javascript:"), std::string::npos) << md;
  EXPECT_EQ(report_html(r).find("<script>alert"), std::string::npos);
}

TEST(ReportJson, ProfileDiffIsItsSummaryLines) {
  Report r;
  r.profile_diff = ProfileDiff{{"step time 1.20 s -> 0.95 s", "idle -0.10 s"}};
  const Json j = report_to_json(r);
  EXPECT_EQ(j["profile_diff"], (Json{{"summary", {"step time 1.20 s -> 0.95 s", "idle -0.10 s"}}}));
  expect_round_trip(r, "profile_diff");
  EXPECT_NE(report_markdown(r).find("idle -0.10 s"), std::string::npos);
  // Absent unless the hook filled it.
  EXPECT_FALSE(report_to_json(Report{}).contains("profile_diff"));
  Json bad = j;
  bad["profile_diff"]["summary"] = "one line";
  auto back = report_from_json(bad, "r.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("profile_diff.summary"), std::string::npos) << back.error().message;
}
