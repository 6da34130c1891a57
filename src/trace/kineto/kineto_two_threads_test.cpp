// The two-thread read (the file cut in two halves, parsed in parallel, appended) and the block
// read (blocks cut at event boundaries, parsed on two workers, merged in order) give the same
// Timeline, the same errors and the same rows as one thread, on every fixture and damaged copies.
#include <fmt/format.h>
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

std::filesystem::path tt_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / fmt::format("goblin_kineto2t_{}", ::getpid()) / name;
  std::filesystem::create_directories(d);
  return d;
}

void expect_same(const Timeline& a, const Timeline& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (size_t i = 0; i < a.strings.size(); ++i) ASSERT_EQ(a.str(StrId(i)), b.str(StrId(i))) << i;
  auto gpu = [](const GpuOpTable& x, const GpuOpTable& y) {
    EXPECT_EQ(x.start_ns, y.start_ns);
    EXPECT_EQ(x.dur_ns, y.dur_ns);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.stream, y.stream);
    EXPECT_EQ(x.correlation, y.correlation);
    EXPECT_EQ(x.external_id, y.external_id);
    EXPECT_EQ(x.kind, y.kind);
  };
  gpu(a.gpu_ops, b.gpu_ops);
  EXPECT_EQ(a.gpu_ops.grid, b.gpu_ops.grid);
  EXPECT_EQ(a.gpu_ops.block, b.gpu_ops.block);
  EXPECT_EQ(a.gpu_ops.registers_per_thread, b.gpu_ops.registers_per_thread);
  EXPECT_EQ(a.gpu_ops.shared_mem_bytes, b.gpu_ops.shared_mem_bytes);
  EXPECT_EQ(a.gpu_ops.graph_id, b.gpu_ops.graph_id);
  EXPECT_EQ(a.gpu_ops.bytes, b.gpu_ops.bytes);
  EXPECT_EQ(a.gpu_ops.copy_kind, b.gpu_ops.copy_kind);
  const auto &r = a.runtime, &r2 = b.runtime;
  EXPECT_EQ(r.start_ns, r2.start_ns);
  EXPECT_EQ(r.dur_ns, r2.dur_ns);
  EXPECT_EQ(r.name, r2.name);
  EXPECT_EQ(r.pid, r2.pid);
  EXPECT_EQ(r.tid, r2.tid);
  EXPECT_EQ(r.correlation, r2.correlation);
  EXPECT_EQ(r.external_id, r2.external_id);
  EXPECT_EQ(r.cbid, r2.cbid);
  EXPECT_EQ(r.is_driver, r2.is_driver);
  EXPECT_EQ(r.is_sync, r2.is_sync);
  const auto &c = a.cpu_ops, &c2 = b.cpu_ops;
  EXPECT_EQ(c.start_ns, c2.start_ns);
  EXPECT_EQ(c.dur_ns, c2.dur_ns);
  EXPECT_EQ(c.name, c2.name);
  EXPECT_EQ(c.pid, c2.pid);
  EXPECT_EQ(c.tid, c2.tid);
  EXPECT_EQ(c.external_id, c2.external_id);
  EXPECT_EQ(c.sequence_number, c2.sequence_number);
  EXPECT_EQ(c.kind, c2.kind);
  EXPECT_EQ(c.input_dims, c2.input_dims);
  EXPECT_EQ(c.input_types, c2.input_types);
  EXPECT_EQ(c.concrete_inputs, c2.concrete_inputs);
  EXPECT_EQ(a.python_frames.cpu_op, b.python_frames.cpu_op);
  EXPECT_EQ(a.python_frames.python_id, b.python_frames.python_id);
  EXPECT_EQ(a.python_frames.python_parent_id, b.python_frames.python_parent_id);
  const auto &n = a.annotations, &n2 = b.annotations;
  EXPECT_EQ(n.start_ns, n2.start_ns);
  EXPECT_EQ(n.dur_ns, n2.dur_ns);
  EXPECT_EQ(n.name, n2.name);
  EXPECT_EQ(n.on_gpu, n2.on_gpu);
  EXPECT_EQ(n.pid, n2.pid);
  EXPECT_EQ(n.tid, n2.tid);
  EXPECT_EQ(n.device, n2.device);
  EXPECT_EQ(n.stream, n2.stream);
  EXPECT_EQ(n.external_id, n2.external_id);
  EXPECT_EQ(a.flows.id, b.flows.id);
  EXPECT_EQ(a.flows.category, b.flows.category);
  EXPECT_EQ(a.flows.is_start, b.flows.is_start);
  EXPECT_EQ(a.flows.ts_ns, b.flows.ts_ns);
  EXPECT_EQ(a.flows.pid, b.flows.pid);
  EXPECT_EQ(a.flows.tid, b.flows.tid);
  ASSERT_EQ(a.warnings.size(), b.warnings.size());
  for (size_t i = 0; i < a.warnings.size(); ++i) {
    EXPECT_EQ(a.warnings[i].message, b.warnings[i].message);
    EXPECT_EQ(a.warnings[i].file, b.warnings[i].file);
    EXPECT_EQ(a.warnings[i].byte_offset, b.warnings[i].byte_offset) << a.warnings[i].message;
    EXPECT_EQ(a.warnings[i].count, b.warnings[i].count) << a.warnings[i].message;
  }
  EXPECT_EQ(a.meta.devices.size(), b.meta.devices.size());
  EXPECT_EQ(a.meta.versions, b.meta.versions);
  EXPECT_EQ(a.meta.extra, b.meta.extra);
  EXPECT_EQ(a.meta.clock_base_ns, b.meta.clock_base_ns);
  EXPECT_EQ(a.meta.clock_is_epoch, b.meta.clock_is_epoch);
  EXPECT_EQ(a.meta.launch_flows, b.meta.launch_flows);
  EXPECT_EQ(a.meta.distributed.rank, b.meta.distributed.rank);
}

void expect_same_status(const Status& a, const Status& b) {
  ASSERT_EQ(a.ok(), b.ok()) << (a.ok() ? b.error().describe() : a.error().describe());
  if (a.ok()) return;
  EXPECT_EQ(a.error().kind, b.error().kind);
  EXPECT_EQ(a.error().message, b.error().message);
  EXPECT_EQ(a.error().byte_offset, b.error().byte_offset);
}

// Reads `text` written to a file both ways; returns whether the two-thread read kept its
// second half (false: no cut found or the cut was rejected, which must still give the same).
bool check_two_threads(const std::string& text, const std::string& name) {
  auto dir = tt_dir("two_threads");
  const std::string path = (dir / name).string();
  EXPECT_TRUE(write_file(path, text).ok());
  ReadOptions one;
  one.parallel_min_bytes = UINT64_MAX;
  one.chunk_bytes = 64u << 10;
  Timeline t1, t2;
  Status s1 = read_kineto(path, t1, one);
  bool kept = false;
  auto s2 = kineto::read_plain_two_threads(path, text.size(), t2, one, &kept);
  if (!s2) return false;
  expect_same_status(s1, *s2);
  expect_same(t1, t2);
  // And through read_kineto with the threshold lowered.
  ReadOptions two = one;
  two.parallel_min_bytes = 0;
  Timeline t3;
  expect_same_status(s1, read_kineto(path, t3, two));
  expect_same(t1, t3);
  return kept;
}

TEST(KinetoTwoThreads, IdenticalToOneThreadOnEveryFixture) {
  int kept = 0;
  for (const auto& g : kGolden) {
    SCOPED_TRACE(g.file);
    auto text = read_all(kDir + g.file);
    ASSERT_TRUE(text.ok());
    if (check_two_threads(*text, "fixture.json")) ++kept;
  }
  // Most fixtures are one event per line, so the cut must be found and kept on them.
  EXPECT_GE(kept, 8);
}

TEST(KinetoTwoThreads, DamageInEitherHalfGivesTheSameErrorAndRows) {
  auto text = read_all(kDir + "h100_llama_bf16_sdpa_w4.json.gz");
  ASSERT_TRUE(text.ok());
  const std::string& t = *text;
  // Truncated at 1/4 (first half), 3/4 (second half), just before the end.
  for (double f : {0.25, 0.75, 0.999}) {
    SCOPED_TRACE(f);
    check_two_threads(t.substr(0, static_cast<size_t>(static_cast<double>(t.size()) * f)), "trunc.json");
  }
  // A damaged event (NaN, invalid UTF-8, wrong type) in each half, the same warning in both.
  std::string d = t;
  for (double f : {0.3, 0.8}) {
    size_t at = d.find("\"dur\": ", static_cast<size_t>(static_cast<double>(d.size()) * f));
    ASSERT_NE(at, std::string::npos);
    d.replace(at, 7, "\"dur\": NaN, \"x\": ");
  }
  size_t u = d.find("\"name\": \"", static_cast<size_t>(static_cast<double>(d.size()) * 0.9));
  ASSERT_NE(u, std::string::npos);
  d[u + 9] = static_cast<char>(0xff);
  EXPECT_TRUE(check_two_threads(d, "damaged.json"));
  // A structural error in the second half.
  std::string e = t;
  size_t b = e.find("},\n  {", e.size() * 2 / 3);
  ASSERT_NE(b, std::string::npos);
  e.replace(b, 6, "},\n  }");
  EXPECT_TRUE(check_two_threads(e, "structural.json"));
  // Trailing garbage after the document.
  EXPECT_TRUE(check_two_threads(t + "\n garbage", "trailing.json"));
  // A bare array of the same events.
  size_t open = t.find("\"traceEvents\": [");
  size_t close = t.rfind(']');
  ASSERT_NE(open, std::string::npos);
  EXPECT_TRUE(check_two_threads(t.substr(open + 15, close - open - 14), "bare.json"));
}

TEST(KinetoTwoThreads, WrongCutGuessFallsBackToOneThread) {
  // Every line ends in ',' and the next starts with '{' inside a string-free nested object that
  // is not an event: the guessed cut lands inside args, so it must be rejected.
  std::string t =
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1, "
      "\"args\": {\"a\": [";
  for (int i = 0; i < 2000; ++i) t += "{},\n";
  t += "{}]}}]}";
  check_two_threads(t, "nested.json");
  Timeline tl;
  ReadOptions two;
  two.parallel_min_bytes = 0;
  auto tmp = tt_dir("nested");
  ASSERT_TRUE(write_file((tmp / "n.json").string(), t).ok());
  bool kept = true;
  auto s = kineto::read_plain_two_threads((tmp / "n.json").string(), t.size(), tl, two, &kept);
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->ok());
  EXPECT_FALSE(kept);
  EXPECT_EQ(tl.gpu_ops.count(GpuOpKind::Kernel), 1u);
}

// ---- the block reader -----------------------------------------------------------------------

// Reads `text` from memory with read_source and with read_blocks (several block sizes, one and two
// threads, tiny reads), and as a gzip file through read_kineto; all must agree.
void check_blocks(const std::string& text, const std::string& name) {
  ReadOptions one;
  one.chunk_bytes = 64u << 10;
  Timeline t1;
  auto m1 = kineto::memory_source(name, text);
  Status s1 = kineto::read_source(*m1, t1, one);
  for (size_t block : {size_t{1} << 10, size_t{16} << 10, size_t{1} << 20}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(fmt::format("block {} threads {}", block, threads));
      ReadOptions b = one;
      b.block_bytes = block;
      b.threads = threads;
      Timeline t2;
      auto m2 = kineto::memory_source(name, text, 4099);
      expect_same_status(s1, kineto::read_blocks(*m2, t2, b));
      expect_same(t1, t2);
      // The same from a file, read() into the blocks (the default) and with the blocks as views
      // of the mapped file (map_plain_files).
      auto dir = tt_dir("blocks");
      const std::string path = (dir / name).string();
      ASSERT_TRUE(write_file(path, text).ok());
      ReadOptions seq = one;
      seq.parallel_min_bytes = UINT64_MAX;
      Timeline t4;
      Status s4 = read_kineto(path, t4, seq);
      b.parallel_min_bytes = 0;
      Timeline t3;
      Status s3 = read_kineto(path, t3, b);
      expect_same_status(s4, s3);
      expect_same(t4, t3);
      ReadOptions mapped = b;
      mapped.map_plain_files = true;
      Timeline t5;
      expect_same_status(s4, read_kineto(path, t5, mapped));
      expect_same(t4, t5);
    }
  }
}

TEST(KinetoBlocks, IdenticalToOneThreadOnEveryFixture) {
  for (const auto& g : kGolden) {
    SCOPED_TRACE(g.file);
    auto text = read_all(kDir + g.file);
    ASSERT_TRUE(text.ok());
    check_blocks(*text, "fixture.json");
  }
}

TEST(KinetoBlocks, DamageAndOddShapesGiveTheSameErrorAndRows) {
  auto text = read_all(kDir + "h100_llama_bf16_sdpa_w4.json.gz");
  ASSERT_TRUE(text.ok());
  const std::string& t = *text;
  for (double f : {0.25, 0.75, 0.999}) {
    SCOPED_TRACE(f);
    check_blocks(t.substr(0, static_cast<size_t>(static_cast<double>(t.size()) * f)), "trunc.json");
  }
  std::string d = t;
  for (double f : {0.3, 0.8}) {
    size_t at = d.find("\"dur\": ", static_cast<size_t>(static_cast<double>(d.size()) * f));
    ASSERT_NE(at, std::string::npos);
    d.replace(at, 7, "\"dur\": NaN, \"x\": ");
  }
  size_t u = d.find("\"name\": \"", static_cast<size_t>(static_cast<double>(d.size()) * 0.9));
  ASSERT_NE(u, std::string::npos);
  d[u + 9] = static_cast<char>(0xff);
  check_blocks(d, "damaged.json");
  std::string e = t;
  size_t b = e.find("},\n  {", e.size() * 2 / 3);
  ASSERT_NE(b, std::string::npos);
  e.replace(b, 6, "},\n  }");
  check_blocks(e, "structural.json");
  check_blocks(t + "\n garbage", "trailing.json");
  size_t open = t.find("\"traceEvents\": [");
  size_t close = t.rfind(']');
  ASSERT_NE(open, std::string::npos);
  check_blocks(t.substr(open + 15, close - open - 14), "bare.json");
  // One line, no newlines at all (minified), and top-level keys after traceEvents.
  std::string flat;
  for (char c : t)
    if (c != '\n') flat.push_back(c);
  check_blocks(flat, "flat.json");
  // Cuts that land inside an event (nested objects separated like events): the reader must fall
  // back to reading on sequentially.
  std::string n =
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 1, "
      "\"args\": {\"a\": [";
  for (int i = 0; i < 3000; ++i) n += "{},\n";
  n += "{}]}}, " + kEv + "], \"after\": 1}";
  check_blocks(n, "nested.json");
}

// The event parser's fast path reads exactly what the simdjson path reads.
void check_fast_path(const std::string& text, const std::string& name) {
  ReadOptions one;
  Timeline fast, slow;
  auto m1 = kineto::memory_source(name, text);
  Status s1 = kineto::read_source(*m1, fast, one);
  kineto::set_fast_path_enabled(false);
  auto m2 = kineto::memory_source(name, text);
  Status s2 = kineto::read_source(*m2, slow, one);
  kineto::set_fast_path_enabled(true);
  expect_same_status(s2, s1);
  expect_same(slow, fast);
}

TEST(KinetoFastPath, SameRowsAsSimdjsonOnEveryFixtureAndDamage) {
  for (const auto& g : kGolden) {
    SCOPED_TRACE(g.file);
    auto text = read_all(kDir + g.file);
    ASSERT_TRUE(text.ok());
    check_fast_path(*text, "fixture.json");
  }
  for (const char* f : {"../../../examples/ddp_h200/straggler_data/rank0.pt.trace.json.gz"}) {
    auto text = read_all(std::string(GOBLIN_SOURCE_DIR) + "/examples/ddp_h200/straggler_data/rank0.pt.trace.json.gz");
    ASSERT_TRUE(text.ok()) << f;
    check_fast_path(*text, "ddp.json");
  }
  // Values the fast path must hand to simdjson: escapes, UTF-8, NaN, odd types, numbers in
  // strings, bad numbers, literals where numbers are expected, nested junk in unread args.
  const std::string head = "{\"traceEvents\": [";
  const char* events[] = {
      R"j({"ph": "X", "cat": "kernel", "name": "a\"b", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {}})j",
      R"j({"ph": "X", "cat": "kernel", "name": "\u00e9t\u00e9", "pid": 0, "tid": 7, "ts": 1, "dur": 2})j",
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"caf\xc3\xa9\", \"pid\": 0, \"ts\": 1, \"dur\": 2}",
      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad\xff\", \"pid\": 0, \"ts\": 1, \"dur\": 2}",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "ts": NaN, "dur": 2})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "ts": "12.5", "dur": "3", "args": {"stream": "stream 7"}})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 01, "ts": 1, "dur": 2})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "pid": 1.5e3, "ts": 1e2, "dur": 2.})j",
      R"j({"ph": "X", "cat": "kernel", "name": 5, "pid": null, "tid": true, "ts": 1, "dur": 2})j",
      R"j({"ph": 1, "cat": "kernel", "name": "k", "ts": 1, "dur": 2})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": []})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"grid": [1, -2, 3], "block": [4]}})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"grid": "g(1)", "block": [1, 2, 3, 4]}})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"x": [1, {"y": [true, null]}], "z": inf}})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"x": [1 2]}})j",
      R"j({"ph": "X", "cat": "cpu_op", "name": "op", "ts": 1, "dur": 2, "args": {"Input Dims": [[1, 2], []], "Input type": "float", "Concrete Inputs": ["", "3"]}})j",
      R"j({"ph": "X", "cat": "kernel", "name": "nccl", "ts": 1, "dur": 2, "args": {"Collective name": "allreduce", "In msg nelems": 10, "dtype": "Float", "Group size": 2, "Process Group Name": "0", "Seq": "4"}})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "ts": 5, "args": {"stream": 3, "stream": 4}})j",
      R"j({"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "extra": "ctl	tab"})j",
      R"j({"ph": "s", "cat": "ac2g", "name": "launch", "id": 9, "pid": 1, "tid": 2, "ts": 3, "bp": "e"})j",
      R"j({ "ph" : "X" , "cat" : "kernel" , "name" : "k" , "ts" : 1 , "dur" : 2 , "args" : { } })j",
  };
  for (const char* e : events) {
    SCOPED_TRACE(e);
    check_fast_path(head + e + "]}", "odd.json");
  }
}

TEST(KinetoBlocks, GzipFilesThroughReadKineto) {
  // The fixture's .json.gz read with blocks (threshold lowered) equals the one-thread read.
  for (const char* f : {"h100_llama_fp32_eager_w0.json.gz", "nccl_sampled_rank-0.json.gz"}) {
    SCOPED_TRACE(f);
    ReadOptions one;
    one.parallel_min_bytes = UINT64_MAX;
    ReadOptions b;
    b.parallel_min_bytes = 0;
    b.block_bytes = 256u << 10;
    Timeline t1, t2;
    Status s1 = read_kineto(kDir + f, t1, one);
    Status s2 = read_kineto(kDir + f, t2, b);
    expect_same_status(s1, s2);
    expect_same(t1, t2);
  }
}

}  // namespace
}  // namespace goblin::trace
