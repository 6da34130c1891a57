// Hostile trace inputs through read_path (issue 14, docs/robustness.md): a FIFO read once, a run
// directory whose files do not share a clock, damaged SQLite exports (exit 5, not 4), rocprofv3
// CSVs with a BOM, a bare header or an unclosed quote.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/io.h"
#include "core/test_support.h"
#include "trace/readers.h"

using namespace goblin;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& rel) { return std::string(GOBLIN_FIXTURES) + "/" + rel; }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

bool has_warning(const Timeline& tl, const std::string& text) {
  for (const auto& w : tl.warnings)
    if (w.message.find(text) != std::string::npos) return true;
  return false;
}

TEST(HostileTrace, AFifoIsSpooledOnceAndNamedAsGiven) {
  auto dir = goblin::testing::private_tmp_dir("trace_fifo");
  const std::string fifo = (dir / "trace.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string gz = slurp(fixture("kineto/h100_llama_bf16_sdpa_w4.json.gz"));
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << gz; });
  Timeline tl;
  Status s = trace::read_path(fifo, tl);
  writer.join();
  ASSERT_TRUE(s.ok()) << s.error().describe();  // was "corrupt gzip data": the sniff ate the head
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 4036u);
  ASSERT_EQ(tl.meta.sources.size(), 1u);
  EXPECT_EQ(tl.meta.sources[0], fifo);
}

TEST(HostileTrace, RunDirectoryWithUnrelatedClocksIsRefused) {
  auto dir = goblin::testing::private_tmp_dir("unrelated_clocks");
  fs::copy_file(fixture("kineto/h100_torch211_export_chrome_trace.json"), dir / "trace.json");
  // Telemetry stamped on the wall clock of another day than the trace.
  std::ofstream(dir / "smi.csv") << "timestamp, index, utilization.gpu [%], memory.used [MiB]\n"
                                    "2020/01/02 03:04:05.000, 0, 50 %, 1000 MiB\n"
                                    "2020/01/02 03:04:06.000, 0, 60 %, 1000 MiB\n";
  Timeline tl;
  Status s = trace::read_path(dir.string(), tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_NE(s.error().message.find("do not belong to one run"), std::string::npos) << s.error().message;
  EXPECT_EQ(tl.gpu_op_count(), 0u);  // no analysis may run over the merged rows
  EXPECT_EQ(tl.meta.sources.size(), 2u);
}

TEST(HostileTrace, DamagedSqliteIsMalformedNotUnknown) {
  auto dir = goblin::testing::private_tmp_dir("sqlite_damage");
  const std::string db = slurp(fixture("nsight/nsys_2026_export.sqlite"));
  const std::string cut = (dir / "cut.sqlite").string();
  std::ofstream(cut, std::ios::binary) << db.substr(0, db.size() / 3);
  std::string page = db;
  for (size_t i = 100; i < 4096 && i < page.size(); ++i) page[i] = static_cast<char>(0xA5);
  const std::string bad = (dir / "bad.sqlite").string();
  std::ofstream(bad, std::ios::binary) << page;
  for (const auto& p : {cut, bad}) {
    Timeline tl;
    Status s = trace::read_path(p, tl);
    ASSERT_FALSE(s.ok()) << p;
    EXPECT_EQ(s.error().kind, ErrorKind::Malformed) << s.error().describe();
  }
}

TEST(HostileTrace, RocprofCsvWithBomBareHeaderOrUnclosedQuote) {
  auto dir = goblin::testing::private_tmp_dir("rocprof_variants");
  const std::string csv = slurp(fixture("rocprof/rocprofv3_kernel_trace.csv"));
  Timeline ref;
  ASSERT_TRUE(trace::read_path(fixture("rocprof/rocprofv3_kernel_trace.csv"), ref).ok());
  // A UTF-8 BOM, and the header re-saved without quotes (pandas.to_csv).
  const std::string bom = (dir / "bom.csv").string();
  std::ofstream(bom) << "\xEF\xBB\xBF" << csv;
  std::string bare_text = csv;
  const size_t nl = bare_text.find('\n');
  std::string header = bare_text.substr(0, nl);
  header.erase(std::remove(header.begin(), header.end(), '"'), header.end());
  bare_text = header + bare_text.substr(nl);
  const std::string bare = (dir / "bare.csv").string();
  std::ofstream(bare) << bare_text;
  for (const auto& p : {bom, bare}) {
    Timeline tl;
    Status s = trace::read_path(p, tl);
    ASSERT_TRUE(s.ok()) << s.error().describe();
    ASSERT_EQ(tl.meta.formats.size(), 1u);
    EXPECT_EQ(tl.meta.formats[0], Format::RocprofV3Csv);
    EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), ref.gpu_ops.count(GpuOpKind::Kernel));
  }
  // A kernel name that lost its closing quote swallows the next row: that record is skipped with a
  // warning instead of becoming a kernel with shifted columns (which stretched the span to days).
  std::string broken = csv;
  const size_t name = broken.find("\"void", nl);
  broken.erase(broken.find("\",", name + 1), 1);
  const std::string q = (dir / "quote.csv").string();
  std::ofstream(q) << broken;
  Timeline tl;
  ASSERT_TRUE(trace::read_path(q, tl).ok());
  EXPECT_TRUE(has_warning(tl, "(an unclosed quote?)"));
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), ref.gpu_ops.count(GpuOpKind::Kernel) - 2);
  EXPECT_LE(tl.span().second - tl.span().first, ref.span().second - ref.span().first);
}

}  // namespace
