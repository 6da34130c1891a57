// `goblin info` end to end (runs the built binary) and format sniffing of every Kineto fixture.
// Broken inputs are generated in a temp dir: truncated JSON, truncated and corrupt gzip, empty
// file, a directory with nothing readable, an unknown format, a missing path.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/io.h"
#include "core/json.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

namespace fs = std::filesystem;
const std::string kKineto = std::string(GOBLIN_FIXTURES) + "/kineto/";
const std::string kGoblin = std::string(GOBLIN_BINARY_DIR) + "/goblin";

struct CliRun {
  int code = -1;
  std::string out;
};

CliRun run(const std::string& args) {
  CliRun r;
  std::string cmd = kGoblin + " info " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

Json run_json(const std::string& args, int expect_code) {
  CliRun r = run(args + " --json");
  EXPECT_EQ(r.code, expect_code) << r.out;
  Json j = Json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

std::string raw_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

class InfoCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kGoblin)) GTEST_SKIP() << "build the goblin binary first: " << kGoblin;
    dir_ = fs::path(testing::TempDir()) / fmt::format("goblin_info_{}", ::getpid());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string put(const std::string& name, std::string_view bytes) {
    std::string p = (dir_ / name).string();
    EXPECT_TRUE(write_file(p, bytes).ok());
    return p;
  }
  fs::path dir_;
};

TEST_F(InfoCli, JsonOnRealTrace) {
  Json j = run_json(kKineto + "h100_llama_fp32_eager_w0.json.gz", 0);
  EXPECT_EQ(j["ok"], true);
  const Json& r = j["result"];
  EXPECT_EQ(r["format"], "kineto");
  EXPECT_EQ(r["events"]["kernels"], 7582);
  EXPECT_EQ(r["events"]["memcpy"], 89);
  EXPECT_EQ(r["events"]["memset"], 239);
  EXPECT_EQ(r["events"]["runtime"], 7477);
  EXPECT_EQ(r["events"]["cpu_ops"], 28772);
  EXPECT_EQ(r["events"]["annotations"], 24);
  EXPECT_EQ(r["events"]["flows"], 21011);
  EXPECT_EQ(r["events"]["samples"], 0);
  EXPECT_EQ(r["span_ns"], 884980990);
  ASSERT_EQ(r["devices"].size(), 1u);
  EXPECT_EQ(r["devices"][0]["id"], 0);
  EXPECT_EQ(r["devices"][0]["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r["clock"]["base_ns"], 1790857026000000000);
  EXPECT_EQ(r["metadata"]["tokens_per_sec"], 39663.2852792814);
  EXPECT_TRUE(r["warnings"].is_array());
}

TEST_F(InfoCli, SeveralPathsGiveAnArrayAndHumanTextIsReadable) {
  Json j = run_json(kKineto + "cpu_only_rank-34.json.gz " + kKineto + "kineto_2021_computeProperties.json", 0);
  ASSERT_TRUE(j["result"].is_array());
  ASSERT_EQ(j["result"].size(), 2u);
  EXPECT_EQ(j["result"][0]["distributed"]["rank"], 34);
  EXPECT_EQ(j["result"][1]["events"]["kernels"], 30);
  CliRun h = run(kKineto + "mi250_rocm62_minitoy_train.json.gz");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("14 kernels"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("kineto"), std::string::npos);
}

TEST_F(InfoCli, TruncatedJsonGivesPartialResultAndExit5) {
  std::string text = raw_bytes(kKineto + "h100_torch211_export_chrome_trace.json");
  std::string p = put("cut.json", std::string_view(text).substr(0, text.size() * 2 / 3));
  Json j = run_json(p, 5);
  EXPECT_EQ(j["ok"], false);
  EXPECT_NE(j["error"].get<std::string>().find("truncated"), std::string::npos);
  EXPECT_NE(j["error"].get<std::string>().find("cut.json"), std::string::npos);
  EXPECT_GT(j["error_detail"]["byte_offset"].get<int64_t>(), 0);
  EXPECT_GT(j["result"]["events"]["cpu_ops"].get<int>(), 0);  // what was read is reported
}

TEST_F(InfoCli, TruncatedAndCorruptGzipExit5) {
  std::string gz = raw_bytes(kKineto + "h100_torch211_tensorboard_handler.pt.trace.json.gz");
  Json t = run_json(put("cut.json.gz", std::string_view(gz).substr(0, gz.size() / 2)), 5);
  EXPECT_EQ(t["ok"], false);
  EXPECT_GT(t["result"]["events"]["cpu_ops"].get<int>(), 0);
  std::string bad = gz;
  for (size_t i = bad.size() / 2; i < bad.size() / 2 + 64; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  Json c = run_json(put("bad.json.gz", bad), 5);
  EXPECT_EQ(c["ok"], false);
  EXPECT_NE(c["error"].get<std::string>().find("gzip"), std::string::npos) << c["error"];
}

TEST_F(InfoCli, EmptyUnknownMissingAndUnreadableDirectory) {
  Json e = run_json(put("empty.json", ""), 5);
  EXPECT_NE(e["error"].get<std::string>().find("empty"), std::string::npos);
  Json u = run_json(put("notes.txt", "just some notes\nnothing to see\n"), 4);
  EXPECT_EQ(u["ok"], false);
  Json m = run_json((dir_ / "does_not_exist.json").string(), 3);
  EXPECT_EQ(m["ok"], false);
  fs::create_directories(dir_ / "junk");
  put("junk/a.txt", "hello");
  Json d = run_json((dir_ / "junk").string(), 4);
  EXPECT_NE(d["error"].get<std::string>().find("no file goblin can read"), std::string::npos);
}

TEST_F(InfoCli, DamagedEventsAreWarningsWithOffsets) {
  std::string doc =
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1, "
      "\"dur\": 2, \"args\": {\"stream\": 7}},\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
      "\"ts\": NaN, \"dur\": 2}]}";
  Json j = run_json(put("nan.json", doc), 0);
  EXPECT_EQ(j["result"]["events"]["kernels"], 1);
  ASSERT_EQ(j["result"]["warnings"].size(), 1u);
  EXPECT_EQ(j["result"]["warnings"][0]["byte_offset"], static_cast<int64_t>(doc.find("},\n{") + 3));
  EXPECT_EQ(j["result"]["warnings"][0]["count"], 1);
}

// ---- sniffing -----------------------------------------------------------------------------------

TEST(KinetoSniff, EveryKinetoFixtureIsKineto) {
  for (const auto& e : fs::directory_iterator(kKineto)) {
    SCOPED_TRACE(e.path().string());
    auto prefix = read_prefix(e.path().string(), 64 * 1024);
    ASSERT_TRUE(prefix.ok());
    EXPECT_TRUE(sniff_kineto(*prefix));
    EXPECT_EQ(sniff_format(*prefix, e.path().string()), Format::Kineto);
  }
}

TEST(KinetoSniff, RejectsOtherJsonAndText) {
  EXPECT_FALSE(sniff_kineto("hello"));
  EXPECT_FALSE(sniff_kineto("{\"a\": 1}"));
  EXPECT_FALSE(sniff_kineto(""));
  EXPECT_TRUE(sniff_kineto("  {\"traceEvents\": []}"));
  EXPECT_TRUE(sniff_kineto("[{\"ph\": \"X\", \"ts\": 1}]"));
}

}  // namespace
}  // namespace goblin::trace
