// Kineto reader tests: golden counts on every real fixture (counted independently with Python's
// json module: X events by category, s/f flows of cat ac2g/fwdbwd/async, ProfilerStep cpu_ops
// counted once more as annotations), hand-checked records, chunk boundaries, and damaged input.
#include "trace/kineto/kineto.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/io.h"
#include "trace/kineto/trace_splitter.h"
#include "trace/readers.h"

namespace goblin {
namespace {

const std::string kDir = std::string(GOBLIN_FIXTURES) + "/kineto/";

struct Golden {
  const char* file;
  size_t kernels, memcpy, memset, runtime, cpu_ops, annotations, flows;
  int64_t span_ns, gpu_span_ns;
};

// python3 script in the test header comment; spans in exact ns from the decimal text.
const Golden kGolden[] = {
    {"a100_alexnet_cuda_sync.json.gz", 79, 16, 3, 402, 359, 8, 500, 43425365000, 12920244000},
    {"cpu_only_rank-34.json.gz", 0, 0, 0, 0, 4, 11, 0, 1283027080, 0},
    {"gpu_user_annotation_steps.json.gz", 130, 10, 0, 180, 643, 20, 320, 9990000, 7737000},
    {"h100_llama_bf16_sdpa_w4.json.gz", 4036, 76, 276, 4817, 21724, 24, 14021, 254368078, 253528317},
    {"h100_llama_fp32_eager_w0.json.gz", 7582, 89, 239, 7477, 28772, 24, 21011, 884980990, 884906600},
    {"h100_qwen05b_inference_stack.json.gz", 1465, 1, 241, 1922, 8448, 2, 3629, 49779532, 49652832},
    {"h100_torch211_export_chrome_trace.json", 40, 6, 2, 63, 196, 10, 139, 7489522, 4882859},
    {"h100_torch211_tensorboard_handler.pt.trace.json.gz", 40, 6, 2, 63, 759, 12, 139, 6754169, 5081410},
    {"kineto_2021_computeProperties.json", 30, 2, 0, 42, 179, 1, 64, 13681000, 11946000},
    {"kineto_2021_legacy_resnet50.json.gz", 9329, 338, 466, 15754, 33535, 0, 20266, 5295420000, 5243667000},
    {"kineto_2026_occupancy_cuda_sync.json", 1, 0, 0, 3, 4, 0, 4, 130, 20},
    {"large_integer_rank-70.json.gz", 1, 0, 0, 0, 1, 0, 0, 200000, 50000},
    {"mi250_rocm62_minitoy_train.json.gz", 14, 2, 0, 21, 70, 5, 45, 9583086, 8911887},
    {"nccl_sampled_rank-0.json.gz", 1154, 40, 10, 1204, 2329, 73, 0, 1230289000, 1222847000},
    {"nccl_sampled_rank-1.json.gz", 1104, 40, 10, 1154, 2302, 65, 0, 1238593000, 1231186000},
    {"triton_example.json.gz", 1, 0, 0, 2, 3, 1, 3, 13336315805, 1760},
};

Status read(const std::string& file, Timeline& tl, size_t chunk = 8u << 20) {
  ReadOptions opt;
  opt.chunk_bytes = chunk;
  return read_kineto(kDir + file, tl, opt);
}

Status read_text(std::string_view text, Timeline& tl, size_t max_read = SIZE_MAX, size_t chunk = 8u << 20) {
  auto src = kineto::memory_source("mem.json", text, max_read);
  ReadOptions opt;
  opt.chunk_bytes = chunk;
  return kineto::read_source(*src, tl, opt);
}

TEST(KinetoGolden, CountsAndSpansOnEveryFixture) {
  for (const auto& g : kGolden) {
    SCOPED_TRACE(g.file);
    Timeline tl;
    Status s = read(g.file, tl);
    ASSERT_TRUE(s.ok()) << s.error().describe();
    EXPECT_EQ(tl.kernels.size(), g.kernels);
    EXPECT_EQ(tl.memcpys.size(), g.memcpy);
    EXPECT_EQ(tl.memsets.size(), g.memset);
    EXPECT_EQ(tl.runtime.size(), g.runtime);
    EXPECT_EQ(tl.cpu_ops.size(), g.cpu_ops);
    EXPECT_EQ(tl.annotations.size(), g.annotations);
    EXPECT_EQ(tl.flows.size(), g.flows);
    auto [s0, s1] = tl.span();
    EXPECT_EQ(s1 - s0, g.span_ns);
    auto [g0, g1] = tl.gpu_span();
    EXPECT_EQ(g1 - g0, g.gpu_span_ns);
    for (const auto& w : tl.warnings) {
      EXPECT_EQ(w.message.find("damaged"), std::string::npos) << w.message;
    }
  }
}

TEST(KinetoRecords, CurrentSchemaKernelMemcpyAndMetadata) {
  Timeline tl;
  ASSERT_TRUE(read("h100_llama_fp32_eager_w0.json.gz", tl).ok());
  // First kernel in file order: ts 4470243504710.984 dur 85.058, pid 0 tid 7, stream 7,
  // correlation 17004, grid [32000,1,1], block [128,1,1], 32 registers, 0 shared memory.
  EXPECT_TRUE(tl.str(tl.kernels.name[0])
                  .starts_with("void at::native::vectorized_elementwise_kernel<4, "
                               "at::native::AUnaryFunctor<float, float, float,"));
  EXPECT_EQ(tl.kernels.start_ns[0], 4470243504710984);
  EXPECT_EQ(tl.kernels.dur_ns[0], 85058);
  EXPECT_EQ(tl.kernels.device[0], 0);
  EXPECT_EQ(tl.kernels.stream[0], 7);
  EXPECT_EQ(tl.kernels.correlation[0], 17004);
  EXPECT_EQ(tl.kernels.external_id[0], kNone);  // this kernel's args carry no External id
  EXPECT_EQ(tl.kernels.grid[0], (std::array<uint32_t, 3>{32000, 1, 1}));
  EXPECT_EQ(tl.kernels.block[0], (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(tl.kernels.registers_per_thread[0], 32);
  EXPECT_EQ(tl.kernels.shared_mem_bytes[0], 0);
  // First memcpy: HtoD 65536 bytes, External id 180, correlation 21815.
  EXPECT_EQ(tl.memcpys.kind[0], CopyKind::HtoD);
  EXPECT_EQ(tl.memcpys.bytes[0], 65536);
  EXPECT_EQ(tl.memcpys.external_id[0], 180);
  EXPECT_EQ(tl.memcpys.correlation[0], 21815);
  EXPECT_EQ(tl.memcpys.start_ns[0], 4470243509890182);
  // Metadata: clock base, versions, devices, verbatim workload values.
  EXPECT_EQ(tl.meta.clock_base_ns, 1790857026000000000);
  EXPECT_TRUE(tl.meta.clock_is_epoch);
  ASSERT_EQ(tl.meta.devices.size(), 1u);
  EXPECT_EQ(tl.meta.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(tl.meta.devices[0].arch, "sm_90");
  EXPECT_EQ(tl.meta.devices[0].num_sms, 132);
  EXPECT_EQ(tl.meta.devices[0].total_memory_bytes, 85017493504);
  EXPECT_EQ(tl.meta.versions.at("cuda_driver"), "13000");
  EXPECT_TRUE(tl.meta.versions.count("cupti"));
  EXPECT_EQ(tl.meta.extra.at("tokens_per_sec"), "39663.2852792814");
  EXPECT_TRUE(tl.meta.extra.count("traceName"));  // written after traceEvents
  EXPECT_TRUE(tl.meta.extra.count("step_time_seconds"));
  // Flows: ac2g and fwdbwd categories.
  size_t fwdbwd = 0;
  for (auto c : tl.flows.category) fwdbwd += tl.str(c) == "fwdbwd";
  EXPECT_EQ(fwdbwd, 2u * 2812u);
  // record_shapes: Input Dims kept as raw JSON text.
  size_t with_dims = 0;
  for (auto d : tl.cpu_ops.input_dims) with_dims += d != kNoStr;
  EXPECT_GT(with_dims, 0u);
}

TEST(KinetoRecords, Schema2021StreamTidsAndIntegerEpoch) {
  Timeline tl;
  ASSERT_TRUE(read("kineto_2021_legacy_resnet50.json.gz", tl).ok());
  // First kernel: ts 1610366388630527 µs (integer epoch), dur 1009, tid "stream 7",
  // correlation 627, "external id" 883, grid [12544,2,1], block [8,8,1], 80 regs, 2304 B shared.
  EXPECT_TRUE(tl.str(tl.kernels.name[0]).starts_with("void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3"));
  EXPECT_EQ(tl.kernels.start_ns[0], 1610366388630527000);
  EXPECT_EQ(tl.kernels.dur_ns[0], 1009000);
  EXPECT_EQ(tl.kernels.stream[0], 7);
  EXPECT_EQ(tl.kernels.correlation[0], 627);
  EXPECT_EQ(tl.kernels.external_id[0], 883);
  EXPECT_EQ(tl.kernels.grid[0], (std::array<uint32_t, 3>{12544, 2, 1}));
  EXPECT_EQ(tl.kernels.block[0], (std::array<uint32_t, 3>{8, 8, 1}));
  EXPECT_EQ(tl.kernels.registers_per_thread[0], 80);
  EXPECT_EQ(tl.kernels.shared_mem_bytes[0], 2304);
  EXPECT_TRUE(tl.meta.clock_is_epoch);  // no baseTimeNanoseconds, but epoch µs
  EXPECT_EQ(tl.meta.clock_base_ns, 0);
  // Runtime tid is the string "1441273664".
  EXPECT_EQ(tl.runtime.tid[0], 1441273664);
  // "async"/"launch" flows are stored as ac2g.
  ASSERT_GT(tl.flows.size(), 0u);
  EXPECT_EQ(tl.str(tl.flows.category[0]), "ac2g");
  // Operator args "Input dims" (2021 spelling).
  EXPECT_EQ(tl.str(tl.cpu_ops.input_dims[0]), "[[], [], [], [], [], []]");
}

TEST(KinetoRecords, ComputePropertiesAndProfilerStepCpuOp) {
  Timeline tl;
  ASSERT_TRUE(read("kineto_2021_computeProperties.json", tl).ok());
  ASSERT_FALSE(tl.meta.devices.empty());
  EXPECT_EQ(tl.meta.devices[0].name, "Tesla V100-DGXS-32GB");
  EXPECT_EQ(tl.meta.devices[0].arch, "sm_70");
  ASSERT_EQ(tl.annotations.size(), 1u);  // ProfilerStep#N written as an Operator
  EXPECT_TRUE(tl.str(tl.annotations.name[0]).starts_with("ProfilerStep#"));
  EXPECT_FALSE(tl.annotations.on_gpu[0]);
}

TEST(KinetoRecords, RocmKernelsAndMemcpyKind) {
  Timeline tl;
  ASSERT_TRUE(read("mi250_rocm62_minitoy_train.json.gz", tl).ok());
  EXPECT_EQ(tl.kernels.start_ns[0], 4203669603771648);
  EXPECT_EQ(tl.kernels.dur_ns[0], 6880);
  EXPECT_EQ(tl.kernels.device[0], 2);
  EXPECT_EQ(tl.kernels.stream[0], 0);
  EXPECT_EQ(tl.kernels.correlation[0], 118);
  EXPECT_EQ(tl.kernels.external_id[0], 13);
  EXPECT_EQ(tl.kernels.grid[0], (std::array<uint32_t, 3>{0, 0, 0}));  // ROCm GPU events carry no grid
  EXPECT_EQ(tl.memcpys.kind[0], CopyKind::HtoD);
  bool hip = false;
  for (auto n : tl.runtime.name) hip |= tl.str(n) == "hipLaunchKernel";
  EXPECT_TRUE(hip);
  size_t gpu_ann = 0;
  for (size_t i = 0; i < tl.annotations.size(); ++i) {
    if (tl.annotations.on_gpu[i]) {
      ++gpu_ann;
      EXPECT_EQ(tl.annotations.device[i], 2);
    }
  }
  EXPECT_EQ(gpu_ann, 2u);
}

TEST(KinetoRecords, SyncGraphIdAndDistributed) {
  Timeline tl;
  ASSERT_TRUE(read("kineto_2026_occupancy_cuda_sync.json", tl).ok());
  EXPECT_EQ(tl.kernels.graph_id[0], 0);
  EXPECT_EQ(tl.kernels.dur_ns[0], 20);
  size_t sync = 0;
  for (auto s : tl.runtime.is_sync) sync += s;
  EXPECT_EQ(sync, 2u);

  Timeline d;
  ASSERT_TRUE(read("cpu_only_rank-34.json.gz", d).ok());
  EXPECT_EQ(d.meta.distributed.rank, 34);
  EXPECT_EQ(d.meta.distributed.world_size, 300);
  EXPECT_EQ(d.meta.distributed.backend, "gloo");
}

TEST(KinetoRecords, NumbersBeyondInt64KeepTheEvent) {
  Timeline tl;
  ASSERT_TRUE(read("large_integer_rank-70.json.gz", tl).ok());
  ASSERT_EQ(tl.cpu_ops.size(), 1u);
  EXPECT_EQ(tl.str(tl.cpu_ops.name[0]), "record_param_comms");
  EXPECT_EQ(tl.cpu_ops.start_ns[0], 200000);
}

TEST(KinetoRecords, PythonFunctionsAndMemoryEvents) {
  Timeline tl;
  ASSERT_TRUE(read("h100_qwen05b_inference_stack.json.gz", tl).ok());
  size_t py = 0, root = 0;
  for (size_t i = 0; i < tl.cpu_ops.size(); ++i) {
    if (tl.cpu_ops.kind[i] != CpuOpKind::PythonFunction) continue;
    ++py;
    root += tl.cpu_ops.python_parent_id[i] == kNone;  // "Python parent id": null
  }
  EXPECT_EQ(py, 4262u);
  EXPECT_GT(root, 0u);
  bool noted = false;
  for (const auto& w : tl.warnings) {
    if (w.message.find("[memory]") != std::string::npos) {
      noted = true;
      EXPECT_EQ(w.count, 2450);
    }
  }
  EXPECT_TRUE(noted);
}

// The same file read through reads of 1, 7, 61 and 4096 bytes gives the same timeline.
TEST(KinetoChunks, TinyReadsGiveIdenticalResults) {
  auto text = read_all(kDir + "h100_torch211_export_chrome_trace.json");
  ASSERT_TRUE(text.ok());
  Timeline ref;
  ASSERT_TRUE(read_text(*text, ref).ok());
  ASSERT_EQ(ref.kernels.size(), 40u);
  for (size_t step : {size_t{1}, size_t{7}, size_t{61}, size_t{4096}}) {
    SCOPED_TRACE(step);
    Timeline tl;
    ASSERT_TRUE(read_text(*text, tl, step, step).ok());
    EXPECT_EQ(tl.kernels.start_ns, ref.kernels.start_ns);
    EXPECT_EQ(tl.kernels.dur_ns, ref.kernels.dur_ns);
    EXPECT_EQ(tl.cpu_ops.size(), ref.cpu_ops.size());
    EXPECT_EQ(tl.flows.id, ref.flows.id);
    EXPECT_EQ(tl.meta.extra, ref.meta.extra);
  }
}

// ---- splitter unit tests ----------------------------------------------------------------------

struct Collect : kineto::TraceSplitter::Handler {
  std::vector<std::string> events, keys, values, notes;
  void on_event(std::string_view j, uint64_t) override { events.emplace_back(j); }
  void on_top_level(std::string_view k, std::string_view v, uint64_t) override {
    keys.emplace_back(k);
    values.emplace_back(v);
  }
  void on_note(std::string m, uint64_t) override { notes.push_back(std::move(m)); }
};

Status split(std::string_view text, Collect& c, size_t step) {
  kineto::TraceSplitter sp(c, "t.json");
  for (size_t i = 0; i < text.size(); i += step) {
    Status s = sp.feed(text.data() + i, std::min(step, text.size() - i));
    if (!s.ok()) return s;
  }
  return sp.finish();
}

TEST(KinetoSplitter, EscapedQuotesAndBracketsInStrings) {
  const std::string doc =
      "\xEF\xBB\xBF {\"a\": \"x}\\\"]\", \"traceEvents\": [ {\"name\": \"q\\\"}{[\\\\\", \"args\": {\"v\": [1, {\"w\": "
      "\"]\"}]}} ,{\"name\":\"\\\\\"}\n], \"traceName\": \"t\\\\\", \"n\": -1.5e3}  \n";
  for (size_t step : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{1000}}) {
    SCOPED_TRACE(step);
    Collect c;
    Status st = split(doc, c, step);
    ASSERT_TRUE(st.ok()) << st.error().describe();
    ASSERT_EQ(c.events.size(), 2u);
    EXPECT_EQ(c.events[0], "{\"name\": \"q\\\"}{[\\\\\", \"args\": {\"v\": [1, {\"w\": \"]\"}]}}");
    EXPECT_EQ(c.events[1], "{\"name\":\"\\\\\"}");
    ASSERT_EQ(c.keys, (std::vector<std::string>{"a", "traceName", "n"}));
    EXPECT_EQ(c.values[0], "\"x}\\\"]\"");
    EXPECT_EQ(c.values[1], "\"t\\\\\"");
    EXPECT_EQ(c.values[2], "-1.5e3");
    EXPECT_TRUE(c.notes.empty());
  }
}

TEST(KinetoSplitter, BareArrayAndTrailingGarbage) {
  Collect c;
  ASSERT_TRUE(split("[{\"ph\":\"X\"},{\"ph\":\"M\"}] xyz", c, 4).ok());
  EXPECT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.notes.size(), 1u);
}

TEST(KinetoSplitter, StructuralErrorsAreMalformed) {
  Collect c;
  Status s = split("{\"traceEvents\": [{\"a\":1}], 5}", c, 3);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(s.error().byte_offset, 27);  // the stray 5
  EXPECT_EQ(c.events.size(), 1u);
  Collect d;
  EXPECT_FALSE(split("{\"schemaVersion\": 1}", d, 100).ok());  // no traceEvents at all
  // A stray '}' where an event should start (found by the fuzzer: it used to loop forever).
  for (std::string_view bad : {"{\"traceEvents\": [}", "{\"traceEvents\": [{}, 1 }", "[ : ]"}) {
    Collect e;
    Status st = split(bad, e, 2);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.error().kind, ErrorKind::Malformed);
  }
}

// ---- damaged input -----------------------------------------------------------------------------

const std::string kEv =
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 10.5, \"dur\": 2.25, "
    "\"args\": {\"stream\": 7, \"correlation\": 3, \"grid\": [1, 2, 3]}}";

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
  EXPECT_EQ(tl.kernels.size(), 2u);
  EXPECT_EQ(tl.kernels.start_ns[1], 10500);
  EXPECT_EQ(tl.kernels.dur_ns[1], 2250);
}

TEST(KinetoBadInput, TruncatedAfterLastEvent) {
  std::string d = doc_of({kEv, kEv});
  Timeline tl;
  Status s = read_text(std::string_view(d).substr(0, d.rfind("]")), tl);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(tl.kernels.size(), 2u);
}

TEST(KinetoBadInput, InvalidUtf8SkipsTheEventWithOneFoldedWarning) {
  std::string bad = kEv;
  bad.replace(bad.find("\"k\""), 3, "\"k\xC3\x28\"");
  std::string d = doc_of({kEv, bad, kEv, bad});
  Timeline tl;
  ASSERT_TRUE(read_text(d, tl).ok());
  EXPECT_EQ(tl.kernels.size(), 2u);
  ASSERT_EQ(tl.warnings.size(), 1u);
  EXPECT_NE(tl.warnings[0].message.find("invalid UTF-8"), std::string::npos);
  EXPECT_EQ(tl.warnings[0].count, 2);
  EXPECT_EQ(tl.warnings[0].byte_offset, static_cast<int64_t>(d.find(bad)));
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
  EXPECT_EQ(tl.kernels.size(), 1u);
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
  EXPECT_EQ(tl.kernels.size(), 1u);
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

std::filesystem::path tt_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("goblin_kineto2t_" + std::to_string(::getpid())) / name;
  std::filesystem::create_directories(d);
  return d;
}

void expect_same(const Timeline& a, const Timeline& b) {
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (size_t i = 0; i < a.strings.size(); ++i) ASSERT_EQ(a.str(StrId(i)), b.str(StrId(i))) << i;
  auto gpu = [](const GpuOpColumns& x, const GpuOpColumns& y) {
    EXPECT_EQ(x.start_ns, y.start_ns);
    EXPECT_EQ(x.dur_ns, y.dur_ns);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.stream, y.stream);
    EXPECT_EQ(x.correlation, y.correlation);
    EXPECT_EQ(x.external_id, y.external_id);
  };
  gpu(a.kernels, b.kernels);
  EXPECT_EQ(a.kernels.grid, b.kernels.grid);
  EXPECT_EQ(a.kernels.block, b.kernels.block);
  EXPECT_EQ(a.kernels.registers_per_thread, b.kernels.registers_per_thread);
  EXPECT_EQ(a.kernels.shared_mem_bytes, b.kernels.shared_mem_bytes);
  EXPECT_EQ(a.kernels.graph_id, b.kernels.graph_id);
  gpu(a.memcpys, b.memcpys);
  EXPECT_EQ(a.memcpys.bytes, b.memcpys.bytes);
  EXPECT_EQ(a.memcpys.kind, b.memcpys.kind);
  gpu(a.memsets, b.memsets);
  EXPECT_EQ(a.memsets.bytes, b.memsets.bytes);
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
  EXPECT_EQ(c.python_id, c2.python_id);
  EXPECT_EQ(c.python_parent_id, c2.python_parent_id);
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
  EXPECT_EQ(tl.kernels.size(), 1u);
}

}  // namespace
}  // namespace goblin
