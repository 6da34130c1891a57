// Damaged Kineto input: truncation, invalid UTF-8, NaN tokens, wrong types, gzip damage. What was
// read before the damage is kept and the error names the byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/io.h"
#include "trace/kineto/kineto.h"
#include "trace/kineto/kineto_test_util.h"
#include "trace/kineto/trace_splitter.h"
#include "trace/readers.h"

namespace goblin::trace {
namespace {

std::string doc_of(const std::vector<std::string>& events) {
  std::string d = "{\"schemaVersion\": 1, \"traceEvents\": [";
  for (size_t i = 0; i < events.size(); ++i) d += (i ? ",\n" : "") + events[i];
  return d + "], \"traceName\": \"x\"}";
}

TEST(KinetoBadInput, TruncatedInsideAnEventKeepsWhatWasRead) {
  std::string d = doc_of({kEv, kEv, kEv});
  size_t cut = d.rfind("{\"ph\"") + 20;  // inside the third event
  Timeline tl;
  Status s = read_text(std::string_view(d).substr(0, cut), tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(s.error().byte_offset, static_cast<int64_t>(d.rfind("{\"ph\"")));
  EXPECT_NE(s.error().message.find("truncated"), std::string::npos);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 2u);
  EXPECT_EQ(tl.gpu_ops.start_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)], 10500);
  EXPECT_EQ(tl.gpu_ops.dur_ns[tl.gpu_ops.nth(GpuOpKind::Kernel, 1)], 2250);
}

TEST(KinetoBadInput, TruncatedAfterLastEvent) {
  std::string d = doc_of({kEv, kEv});
  Timeline tl;
  Status s = read_text(std::string_view(d).substr(0, d.rfind("]")), tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 2u);
}

TEST(KinetoBadInput, InvalidUtf8SkipsTheEventWithOneFoldedWarning) {
  std::string bad = kEv;
  bad.replace(bad.find("\"k\""), 3, "\"k\xC3\x28\"");
  std::string d = doc_of({kEv, bad, kEv, bad});
  Timeline tl;
  ASSERT_TRUE(read_text(d, tl).ok());
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 2u);
  ASSERT_EQ(tl.warnings.size(), 1u);
  EXPECT_NE(tl.warnings[0].message.find("invalid UTF-8"), std::string::npos);
  EXPECT_EQ(tl.warnings[0].count, 2);
  EXPECT_EQ(tl.warnings[0].byte_offset, static_cast<int64_t>(d.find(bad)));
  EXPECT_EQ(tl.warnings[0].id, W::kineto_damaged_event);
}

TEST(KinetoBadInput, NanAndInfinityTokensSkipTheEvent) {
  std::string inf_bw = kEv;
  inf_bw.replace(inf_bw.find("\"correlation\": 3"), 16, "\"memory bandwidth (GB/s)\": inf");
  std::string nan_ts = kEv;
  nan_ts.replace(nan_ts.find("10.5"), 4, "NaN");
  std::string neg_inf = kEv;
  neg_inf.replace(neg_inf.find("2.25"), 4, "-Infinity");
  Timeline tl;
  ASSERT_TRUE(read_text(doc_of({kEv, inf_bw, nan_ts, neg_inf}), tl).ok());
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);
  int64_t skipped = 0;
  for (const auto& w : tl.warnings) {
    if (w.message.find("damaged") != std::string::npos) skipped += w.count;
  }
  EXPECT_EQ(skipped, 3);
}

TEST(KinetoBadInput, WrongTypesAndMissingFields) {
  std::string ts_text = kEv;
  ts_text.replace(ts_text.find("10.5"), 4, "\"abc\"");
  std::string args_list = kEv;
  args_list.replace(args_list.find("{\"stream\""), 1, "[");
  args_list.replace(args_list.rfind("}}"), 2, "]}");
  std::string no_ts = kEv;
  no_ts.replace(no_ts.find("\"ts\": 10.5, "), 12, "");
  std::string no_ph = kEv;
  no_ph.replace(no_ph.find("\"ph\": \"X\", "), 11, "");
  Timeline tl;
  ASSERT_TRUE(read_text(doc_of({ts_text, args_list, no_ts, no_ph, "42", kEv}), tl).ok());
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);
  int64_t skipped = 0;
  for (const auto& w : tl.warnings) {
    EXPECT_GE(w.byte_offset, 0);
    if (w.message.find("damaged") != std::string::npos) skipped += w.count;
  }
  EXPECT_EQ(skipped, 5);
}

TEST(KinetoBadInput, EmptyWhitespaceAndNotJson) {
  for (std::string_view text : {std::string_view(""), std::string_view("  \n"), std::string_view("hello"),
                                std::string_view("{\"traceEvents\": 5}")}) {
    SCOPED_TRACE(text);
    Timeline tl;
    Status s = read_text(text, tl);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
    EXPECT_EQ(s.error().file, "mem.json");
    EXPECT_GE(s.error().byte_offset, 0);
  }
}

TEST(KinetoBadInput, TruncatedGzipKeepsEventsBeforeTheDamage) {
  auto gz = read_all(kDir + "h100_torch211_tensorboard_handler.pt.trace.json.gz");
  ASSERT_TRUE(gz.ok());
  auto raw = read_prefix(kDir + "h100_torch211_tensorboard_handler.pt.trace.json.gz", 0);
  // Write the first half of the compressed bytes to a temp file.
  std::string path = testing::TempDir() + "/half.json.gz";
  std::string bytes;
  {
    FILE* f = std::fopen((kDir + "h100_torch211_tensorboard_handler.pt.trace.json.gz").c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
  }
  ASSERT_TRUE(write_file(path, std::string_view(bytes).substr(0, bytes.size() / 2)).ok());
  Timeline tl;
  ReadOptions opt;
  Status s = read_kineto(path, tl, opt);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_GT(s.error().byte_offset, 0);
  EXPECT_GT(tl.cpu_ops.size(), 0u);
  EXPECT_LT(tl.cpu_ops.size(), 759u);
}

// ---- two-thread read of plain files: identical to the one-thread read ----------------------

}  // namespace
}  // namespace goblin::trace
