// Tests for the triage layer: exposure sweep line, canonical names, attribution, opportunity
// tables, triage artifacts on real fixtures, arch_match, perfetto-fix.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/exposure.h"
#include "analysis/kernel_table.h"
#include "analysis/opportunities.h"
#include "analysis/perfetto_fix.h"
#include "analysis/triage_artifacts.h"
#include "core/io.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

const std::string kFix = std::string(GOBLIN_FIXTURES) + "/kineto/";

void add_kernel(Timeline& tl, int64_t start, int64_t dur, int64_t stream, const char* name = "k", int32_t dev = 0,
                int64_t corr = kNone) {
  GpuOpRow r;
  r.start_ns = start;
  r.dur_ns = dur;
  r.stream = stream;
  r.device = dev;
  r.name = tl.strings.intern(name);
  r.correlation = corr;
  tl.gpu_ops.push(r);
}

TEST(Exposure, HiddenOnlyWhenAnotherStreamIsBusy) {
  Timeline tl;
  add_kernel(tl, 0, 100, 1);                     // A: [0,100) stream 1
  add_kernel(tl, 50, 100, 2);                    // B: [50,150) stream 2 → overlaps A on [50,100)
  add_kernel(tl, 90, 30, 1);                     // C: [90,120) same stream as A: hidden only while B runs
  add_kernel(tl, 200, 10, 3);                    // D: alone
  add_kernel(tl, 300, 0, 1);                     // zero-duration
  add_kernel(tl, 0, 100, 1, "other-device", 1);  // another device never hides device 0
  ExposureResult ex = compute_exposure(tl);
  const GpuOpTable& ops = tl.gpu_ops;
  EXPECT_EQ(ex.hidden_ns[0], 50);  // [50,100)
  EXPECT_EQ(ex.hidden_ns[1], 70);  // [50,120) has stream 1 busy
  EXPECT_EQ(ex.hidden_ns[2], 30);  // [90,120): B busy throughout
  EXPECT_EQ(ex.hidden_ns[3], 0);
  EXPECT_EQ(ex.hidden_ns[4], 0);
  EXPECT_EQ(ex.hidden_ns[5], 0);
  for (size_t i = 0; i < ops.size(); ++i) EXPECT_EQ(ex.exposed(ops, i) + ex.hidden_ns[i], ops.dur_ns[i]);
  ASSERT_EQ(ex.devices.size(), 2u);
  const auto& d0 = ex.devices[0];
  EXPECT_EQ(d0.busy_ns, 150 + 10);
  EXPECT_EQ(d0.multi_stream_ns, 70);
  EXPECT_EQ(d0.peak_concurrency, 2);
  EXPECT_EQ(d0.streams, 3);
}

TEST(Exposure, TouchingIntervalsDoNotOverlap) {
  Timeline tl;
  add_kernel(tl, 0, 100, 1);
  add_kernel(tl, 100, 100, 2);
  ExposureResult ex = compute_exposure(tl);
  EXPECT_EQ(ex.hidden_ns[0], 0);
  EXPECT_EQ(ex.hidden_ns[1], 0);
  EXPECT_EQ(ex.devices[0].busy_ns, 200);
}

TEST(KernelTable, CanonicalNames) {
  EXPECT_EQ(canonical_kernel_name("void at::native::foo<float>(int, float*)"), "at::native::foo<float>");
  EXPECT_EQ(canonical_kernel_name("kernel_0x7f3a12(int)"), "kernel_0x7f3a12");  // not a standalone literal
  EXPECT_EQ(canonical_kernel_name("void f<(Enum)0x1a2B>(T)"), "f<(Enum)0xADDR>");
  EXPECT_EQ(canonical_kernel_name("Memcpy DtoD (Device -> Device)"), "Memcpy DtoD");
  EXPECT_EQ(canonical_kernel_name("ncclKernel_AllReduce_RING_LL_Sum_float"), "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_EQ(canonical_kernel_name("a   b"), "a b");
}

TEST(KernelTable, UserPythonFrames) {
  EXPECT_TRUE(is_user_python_frame("transformers/models/qwen2/modeling_qwen2.py(150): forward"));
  EXPECT_TRUE(is_user_python_frame("train.py(42): step"));
  EXPECT_FALSE(is_user_python_frame("torch/nn/modules/module.py(1773): _call_impl"));
  EXPECT_FALSE(is_user_python_frame("/usr/lib/python3.12/site-packages/torch/nn/functional.py(10): linear"));
  EXPECT_FALSE(is_user_python_frame("<built-in method linear of PyCapsule object at 0x7d6af4f5f4e0>"));
  EXPECT_FALSE(is_user_python_frame("threading.py(1032): _bootstrap"));
}

TEST(KernelTable, AttributionThroughCorrelationAndContainment) {
  Timeline tl;
  // CPU op with External id 7 launches kernel corr 100; a second launch (corr 101) has no
  // External id: found by time containment inside op "aten::outer" on the same thread.
  CpuOpRow op;
  op.start_ns = 0;
  op.dur_ns = 1000;
  op.name = tl.strings.intern("aten::mm");
  op.pid = 1;
  op.tid = 1;
  op.external_id = 7;
  tl.cpu_ops.push(op);
  CpuOpRow outer = op;
  outer.start_ns = 2000;
  outer.name = tl.strings.intern("aten::outer");
  outer.external_id = kNone;
  tl.cpu_ops.push(outer);
  CpuOpRow py;
  py.start_ns = 1900;
  py.dur_ns = 2000;
  py.pid = 1;
  py.tid = 1;
  py.kind = CpuOpKind::PythonFunction;
  py.name = tl.strings.intern("model.py(12): forward");
  tl.cpu_ops.push(py);
  RuntimeRow rt;
  rt.start_ns = 10;
  rt.dur_ns = 5;
  rt.pid = 1;
  rt.tid = 1;
  rt.correlation = 100;
  rt.external_id = 7;
  rt.name = tl.strings.intern("cudaLaunchKernel");
  tl.runtime.push(rt);
  rt.start_ns = 2100;
  rt.correlation = 101;
  rt.external_id = kNone;
  tl.runtime.push(rt);
  add_kernel(tl, 5000, 10, 7, "void gemm(int)", 0, 100);
  add_kernel(tl, 6000, 10, 7, "void outer(int)", 0, 101);
  add_kernel(tl, 7000, 10, 7, "void orphan(int)", 0, 555);
  tl.build_indexes();
  LaunchAttribution la = attribute_launches(tl);
  EXPECT_EQ(la.cpu_op[0], 0);
  EXPECT_EQ(la.method[0], AttributionMethod::CorrelationExternalId);
  EXPECT_EQ(la.cpu_op[1], 1);
  EXPECT_EQ(la.method[1], AttributionMethod::TimeContainment);
  EXPECT_EQ(tl.str(la.python[1]), "model.py(12): forward");
  EXPECT_EQ(la.python[0], kNoStr);  // launch at 10 is outside the Python frame
  EXPECT_EQ(la.cpu_op[2], -1);
  EXPECT_EQ(la.with_cpu_op, 2);
}

TEST(Arch, ObservedAndMatch) {
  DeviceInfo h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.compute_major = 9;
  h100.compute_minor = 0;
  EXPECT_EQ(hw::observe_arch(h100, hw::Vendor::Unknown).arch, "sm_90");
  DeviceInfo mi;
  mi.name = "AMD Radeon Graphics";
  mi.compute_major = 9;
  mi.compute_minor = 0;
  EXPECT_EQ(hw::observe_arch(mi, hw::Vendor::Unknown).arch, "");  // 9.0 is ambiguous on AMD
  mi.compute_minor = 4;
  EXPECT_EQ(hw::observe_arch(mi, hw::Vendor::Unknown).arch, "gfx942");
  mi.arch = "gfx950:sramecc+:xnack-";
  EXPECT_EQ(hw::observe_arch(mi, hw::Vendor::Unknown).arch, "gfx950");
  EXPECT_EQ(hw::match_arch("sm_90", "SM_90").match, "exact");
  EXPECT_EQ(hw::match_arch("sm_90", "sm_90a").match, "compatible");
  EXPECT_EQ(hw::match_arch("gfx942", "gfx941").match, "compatible");
  EXPECT_EQ(hw::match_arch("gfx942", "gfx950").match, "compatible");  // CDNA 3 vs 4: data/gpu_arch_names.yaml
  EXPECT_EQ(hw::match_arch("sm_80", "gfx950").match, "unknown");
  EXPECT_EQ(hw::match_arch("", "gfx950").match, "unknown");
  EXPECT_EQ(hw::match_arch("gfx950", "").match, "unknown");
  EXPECT_FALSE(hw::match_arch("gfx942", "gfx950").reason.empty());
}

TEST(Data, PatternsAndHeuristicsLoad) {
  auto p = load_fusion_patterns();
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_GE(p->size(), 5u);
  for (const auto& x : *p) {
    EXPECT_FALSE(x.rationale.empty()) << x.id;
    EXPECT_FALSE(x.citation.empty()) << x.id;
  }
  auto h = OverlapHeuristics::load();
  ASSERT_TRUE(h.ok()) << h.error().describe();
  EXPECT_DOUBLE_EQ(h->headroom_exclusive_ratio, 0.45);
  EXPECT_DOUBLE_EQ(h->weights.at("comm"), 1.3);
  EXPECT_DOUBLE_EQ(h->weights.at("compute"), 0.35);
}

nlohmann::json load_json(const std::string& p) {
  std::ifstream f(p);
  return nlohmann::json::parse(f);
}

class TriageFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(TriageFixture, ArtifactsExistParseAndAddUp) {
  std::string path = kFix + GetParam();
  Timeline tl;
  Status st = trace::read_path(path, tl);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  TriageOptions opt;
  opt.source_path = path;
  opt.target_arch = "sm_90";
  auto rep = run_triage(tl, opt);
  ASSERT_TRUE(rep.ok()) << rep.error().describe();
  std::string dir = ::testing::TempDir() + "/triage_" + std::string(GetParam());
  ASSERT_TRUE(write_triage_artifacts(*rep, dir).ok());
  for (const char* f : {"profile_summary.md", "profile_metadata.json", "kernel_table.json",
                        "overlap_opportunities.json", "fuse_opportunities.json"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
  auto meta = load_json(dir + "/profile_metadata.json");
  for (const char* k :
       {"experiment_id", "trial_id", "observed_arch", "arch_match", "hardware_relevance_reason", "rocm_version",
        "base_image", "resource_class", "gpu_device_ids", "gpu_clocks_mhz", "preflight_passed", "server_flags",
        "benchmark_config_hash", "model_name", "profile_stage", "source_trace_path"})
    EXPECT_TRUE(meta.contains(k)) << k;
  std::string m = meta["arch_match"];
  EXPECT_TRUE(m == "exact" || m == "compatible" || m == "unknown");
  EXPECT_EQ(meta["source_trace_path"], path);
  EXPECT_TRUE(meta["base_image"].is_null());  // never invented
  auto kt = load_json(dir + "/kernel_table.json");
  ASSERT_TRUE(kt.is_array());
  ASSERT_FALSE(kt.empty());
  double share = 0, time = 0, exp = 0, hid = 0;
  int64_t launches = 0;
  for (const auto& r : kt) {
    for (const char* k : {"kernel", "full_name", "category", "family", "time_us", "share_pct", "launches", "mean_us",
                          "min_us", "max_us", "exposed_us", "hidden_us", "cpu_op", "python_location"})
      EXPECT_TRUE(r.contains(k)) << k;
    share += r["share_pct"].get<double>();
    time += r["time_us"].get<double>();
    exp += r["exposed_us"].get<double>();
    hid += r["hidden_us"].get<double>();
    launches += r["launches"].get<int64_t>();
    EXPECT_LE(r["min_us"].get<double>(), r["max_us"].get<double>());
  }
  EXPECT_NEAR(share, 100.0, 0.05);
  EXPECT_NEAR(exp + hid, time, 0.01 * kt.size());
  EXPECT_EQ(launches, static_cast<int64_t>(tl.gpu_ops.size()));
  // Exact invariant on the in-memory rows.
  for (const auto& r : rep->kernels.rows) EXPECT_EQ(r.exposed_ns + r.hidden_ns, r.total_ns) << r.name;
  auto ov = load_json(dir + "/overlap_opportunities.json");
  ASSERT_TRUE(ov.is_array());
  EXPECT_EQ(ov.size(), kt.size());
  for (const auto& r : ov) {
    for (const char* k : {"priority", "verdict", "excl_pct", "hid_pct", "dependency_risk", "recommendation",
                          "time_share_pct", "kernel", "next_step"})
      EXPECT_TRUE(r.contains(k)) << k;
    EXPECT_NEAR(r["excl_pct"].get<double>() + r["hid_pct"].get<double>(), r["time_us"].get<double>() > 0 ? 100 : 0,
                0.05);
  }
  auto fu = load_json(dir + "/fuse_opportunities.json");
  ASSERT_TRUE(fu.is_array());
  for (const auto& r : fu) {
    for (const char* k :
         {"pattern", "confidence", "related_time_us", "time_share_pct", "evidence", "candidate_fused_path"})
      EXPECT_TRUE(r.contains(k)) << k;
    EXPECT_LE(r["time_share_pct"].get<double>(), 100.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TriageFixture,
                         ::testing::Values("h100_llama_fp32_eager_w0.json.gz", "h100_llama_bf16_sdpa_w4.json.gz",
                                           "mi250_rocm62_minitoy_train.json.gz", "nccl_sampled_rank-0.json.gz",
                                           "h100_qwen05b_inference_stack.json.gz"));

TEST(Triage, ArchMatchOnFixtures) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(kFix + "h100_llama_bf16_sdpa_w4.json.gz", tl).ok());
  TriageOptions opt;
  opt.source_path = "x_decode.json";
  opt.target_arch = "sm_90";
  auto r = run_triage(tl, opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->metadata["observed_arch"], "sm_90");
  EXPECT_EQ(r->metadata["arch_match"], "exact");
  EXPECT_EQ(r->metadata["profile_stage"], "decode");  // from the file name
  opt.target_arch = "gfx950";
  r = run_triage(tl, opt);
  EXPECT_EQ(r->metadata["arch_match"], "unknown");
  Timeline amd;
  ASSERT_TRUE(trace::read_path(kFix + "mi250_rocm62_minitoy_train.json.gz", amd).ok());
  opt.target_arch = "gfx942";
  r = run_triage(amd, opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->metadata["vendor"], "amd");
  // HIP 9.0 with 104 CUs: the spec database's MI210 / MI250 GCD, both gfx90a (issue #34)
  EXPECT_EQ(r->metadata["observed_arch"], "gfx90a");
  EXPECT_EQ(r->metadata["arch_match"], "unknown");
}

TEST(Triage, QwenHasPythonLocationsAndLlamaHasOptimizerPattern) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(kFix + "h100_qwen05b_inference_stack.json.gz", tl).ok());
  auto r = run_triage(tl, TriageOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->attribution.with_python, 0);
  bool model_code = false;
  for (const auto& k : r->kernels.rows) model_code |= k.python_location.find("modeling_qwen2.py") != std::string::npos;
  EXPECT_TRUE(model_code);
  Timeline llama;
  ASSERT_TRUE(trace::read_path(kFix + "h100_llama_fp32_eager_w0.json.gz", llama).ok());
  auto l = run_triage(llama, TriageOptions{});
  ASSERT_TRUE(l.ok());
  bool opt_loop = false;
  for (const auto& f : l->fuse) opt_loop |= f.pattern == "unfused_optimizer";
  EXPECT_TRUE(opt_loop);  // AdamW without fused=True: hundreds of kernels per Optimizer.step
}

// ---- perfetto-fix ----

struct Ev {
  double ts, dur;
};
// GPU X events per (pid, tid) track, and flow finish tids.
std::map<std::string, std::vector<Ev>> gpu_tracks(const nlohmann::json& doc, size_t* count) {
  std::map<std::string, std::vector<Ev>> m;
  *count = 0;
  const auto& evs = doc.is_array() ? doc : doc["traceEvents"];
  for (const auto& e : evs) {
    if (e.value("ph", "") != "X") continue;
    std::string cat = e.value("cat", "");
    if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset") continue;
    ++*count;
    m[e["pid"].dump() + "/" + e["tid"].dump()].push_back({e["ts"].get<double>(), e.value("dur", 0.0)});
  }
  return m;
}
void expect_no_overlap(const std::map<std::string, std::vector<Ev>>& m) {
  for (auto [track, v] : m) {
    std::sort(v.begin(), v.end(), [](const Ev& a, const Ev& b) { return a.ts < b.ts; });
    for (size_t i = 1; i < v.size(); ++i)
      EXPECT_GE(v[i].ts + 1e-6, v[i - 1].ts + v[i - 1].dur) << track << " at " << v[i].ts;
  }
}

TEST(PerfettoFix, HandBuiltOverlapsMoveWithFlows) {
  std::string in = R"({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
 {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 11, "pid": 1, "tid": 1, "ts": 1},
 {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 12, "pid": 1, "tid": 1, "ts": 2},
 {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 100.5, "dur": 10, "args": {"correlation": 11}},
 {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 11, "pid": 0, "tid": 7, "ts": 100.5, "bp": "e"},
 {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 105, "dur": 10, "args": {"correlation": 12}},
 {"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 12, "pid": 0, "tid": 7, "ts": 105, "bp": "e"},
 {"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": 7, "ts": 107, "dur": 2},
 {"ph": "X", "cat": "kernel", "name": "d", "pid": 0, "tid": 7, "ts": 120, "dur": 1},
 {"ph": "X", "cat": "gpu_memcpy", "name": "m", "pid": 0, "tid": 8, "ts": 100, "dur": 5}
], "deviceProperties": [{"id": 0}]})";
  PerfettoFixStats st;
  auto out = perfetto_fix_text(in, &st);
  ASSERT_TRUE(out.ok()) << out.error().describe();
  auto doc = nlohmann::json::parse(*out);
  EXPECT_TRUE(doc.contains("deviceProperties"));
  size_t n = 0;
  auto tracks = gpu_tracks(doc, &n);
  EXPECT_EQ(n, 5u);
  expect_no_overlap(tracks);
  EXPECT_EQ(st.moved, 2);  // b → lane 1, c → lane 2
  EXPECT_EQ(st.extra_tracks, 2);
  EXPECT_EQ(st.flows_moved, 1);
  std::map<std::string, std::string> tid_of;
  int thread_names = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") tid_of[e["name"]] = e["tid"].dump();
    if (e["ph"] == "f" && e["id"] == 12) {
      EXPECT_EQ(e["tid"], "7_hack1");
    }
    if (e["ph"] == "f" && e["id"] == 11) {
      EXPECT_EQ(e["tid"], 7);
    }
    if (e["ph"] == "M" && e["name"] == "thread_name") ++thread_names;
  }
  EXPECT_EQ(tid_of["a"], "7");
  EXPECT_EQ(tid_of["b"], "\"7_hack1\"");
  EXPECT_EQ(tid_of["c"], "\"7_hack2\"");
  EXPECT_EQ(tid_of["d"], "7");
  EXPECT_EQ(thread_names, 2);
}

TEST(PerfettoFix, MalformedIsAnError) {
  auto out = perfetto_fix_text(R"({"traceEvents": [ {"ph": "X", )", nullptr);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().kind, ErrorKind::Malformed);
  auto missing = perfetto_fix_file("/nonexistent/trace.json", "/tmp/x.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::Io);
}

class PerfettoFixFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(PerfettoFixFixture, NoOverlapsSameKernelCount) {
  std::string in = kFix + GetParam();
  std::string out = ::testing::TempDir() + "/pf_" + std::string(GetParam());  // keeps .gz → gzip output
  auto st = perfetto_fix_file(in, out);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  auto orig_text = read_all(in);
  auto fixed_text = read_all(out);  // inflates the gzip output
  ASSERT_TRUE(orig_text.ok() && fixed_text.ok());
  auto orig = nlohmann::json::parse(*orig_text);
  auto fixed = nlohmann::json::parse(*fixed_text);
  size_t n0 = 0, n1 = 0;
  gpu_tracks(orig, &n0);
  auto tracks = gpu_tracks(fixed, &n1);
  EXPECT_EQ(n0, n1);
  EXPECT_EQ(static_cast<size_t>(st->gpu_events), n0);
  expect_no_overlap(tracks);
  EXPECT_EQ(fixed["traceEvents"].size(), orig["traceEvents"].size() + static_cast<size_t>(st->extra_tracks));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PerfettoFixFixture,
                         ::testing::Values("h100_llama_fp32_eager_w0.json.gz", "h100_llama_bf16_sdpa_w4.json.gz",
                                           "mi250_rocm62_minitoy_train.json.gz", "nccl_sampled_rank-0.json.gz"));

TEST(Cli, TriageOverlapPerfettoFixVerbs) {
  std::string bin = std::string(GOBLIN_BINARY_DIR) + "/goblin";
  if (!std::filesystem::exists(bin)) GTEST_SKIP() << "goblin binary not built";
  std::string dir = ::testing::TempDir() + "/cli_triage";
  std::string f = kFix + "h100_llama_bf16_sdpa_w4.json.gz";
  int rc = std::system((bin + " triage " + f + " -o " + dir + " --json > " + dir + ".json").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 0);
  auto env = load_json(dir + ".json");
  EXPECT_TRUE(env["ok"].get<bool>());
  EXPECT_TRUE(env["result"]["top_kernels"].is_array());
  rc = std::system((bin + " triage /nonexistent.json -o " + dir + " > /dev/null 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 3);
  rc = std::system((bin + " overlap " + kFix + "h100_llama_fp32_eager_w0.json.gz " + kFix +
                    "h100_llama_fp32_eager_w0.json.gz --json > " + dir + "_ov.json")
                       .c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 0);
  auto ov = load_json(dir + "_ov.json");
  EXPECT_EQ(ov["result"]["join"]["formal_ops_unmatched"], 0);
  EXPECT_FALSE(ov["result"]["overlap_opportunities"].empty());
  EXPECT_FALSE(ov["result"]["overlap_opportunities"][0]["cpu_op"].is_null());
}

// The real graph-off / graph-on pair recorded on the H100 (examples/h100_cudagraphs): graph
// replays name no launching op, the mapping trace supplies it.
TEST(Cli, OverlapMapsGraphKernelsOnARealPair) {
  std::string bin = std::string(GOBLIN_BINARY_DIR) + "/goblin";
  if (!std::filesystem::exists(bin)) GTEST_SKIP() << "goblin binary not built";
  const std::string ex = std::string(GOBLIN_SOURCE_DIR) + "/examples/h100_cudagraphs/";
  const std::string off = ex + "graph_off_compile_default.json.gz", on = ex + "graph_on_reduce_overhead.json.gz";
  const std::string out = ::testing::TempDir() + "/cli_overlap_graphs";
  auto run = [&](const std::string& mapping, const std::string& tag) {
    int rc = std::system((bin + " overlap " + mapping + " " + on + " --json > " + out + tag + ".json").c_str());
    EXPECT_EQ(WEXITSTATUS(rc), 0);
    return load_json(out + tag + ".json");
  };
  auto mapped = run(off, "_mapped"), self = run(on, "_self");
  ASSERT_TRUE(mapped["ok"].get<bool>());
  const Json& join = mapped["result"]["join"];
  const int64_t matched = join["formal_ops_matched"], unmatched = join["formal_ops_unmatched"];
  EXPECT_EQ(matched, 2566);
  EXPECT_EQ(unmatched, 65);
  // The same graph GEMM: alone, the graph-on trace only knows the autograd wrapper; with the
  // graph-off mapping it gets aten::mm.
  auto op_of = [](const Json& env, const std::string& kernel) -> std::string {
    for (const auto& r : env["result"]["overlap_opportunities"])
      if (r["kernel"] == kernel) return r["cpu_op"].is_string() ? r["cpu_op"].get<std::string>() : "(null)";
    return "(absent)";
  };
  const std::string gemm = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
  EXPECT_EQ(op_of(self, gemm).rfind("CompiledFunction", 0), 0u) << op_of(self, gemm);
  EXPECT_EQ(op_of(mapped, gemm), "aten::mm");
  int triton_named = 0;
  for (const auto& r : mapped["result"]["overlap_opportunities"]) {
    const std::string k = r["kernel"];
    if (k.rfind("triton_", 0) == 0 && r["cpu_op"].is_string() &&
        r["cpu_op"].get<std::string>().rfind("triton_", 0) == 0)
      ++triton_named;
  }
  EXPECT_GT(triton_named, 0);
}

}  // namespace
}  // namespace goblin::analysis

namespace goblin::analysis {
namespace {

// A real trace made to overlap the way PDL / programmatic dependent launches do: every 10th
// kernel on the main stream starts halfway through its predecessor (its ac2g flow end moves with
// it). perfetto-fix must split the track, keep every kernel, and re-point those flows.
TEST(PerfettoFix, RealTraceWithInjectedOverlaps) {
  auto text = read_all(kFix + "h100_llama_bf16_sdpa_w4.json.gz");
  ASSERT_TRUE(text.ok());
  auto doc = nlohmann::json::parse(*text);
  auto& evs = doc["traceEvents"];
  std::vector<size_t> kern;
  for (size_t i = 0; i < evs.size(); ++i)
    if (evs[i].value("cat", "") == "kernel" && evs[i]["tid"] == 7) kern.push_back(i);
  std::sort(kern.begin(), kern.end(),
            [&](size_t a, size_t b) { return evs[a]["ts"].get<double>() < evs[b]["ts"].get<double>(); });
  ASSERT_GT(kern.size(), 100u);
  std::map<int64_t, double> new_ts;  // correlation → shifted ts
  for (size_t k = 10; k < kern.size(); k += 10) {
    auto& prev = evs[kern[k - 1]];
    auto& cur = evs[kern[k]];
    double ts = prev["ts"].get<double>() + prev["dur"].get<double>() / 2;
    cur["ts"] = ts;
    new_ts[cur["args"]["correlation"].get<int64_t>()] = ts;
  }
  int64_t flows_shifted = 0;
  for (auto& e : evs)
    if (e.value("ph", "") == "f" && e.value("cat", "") == "ac2g" && e["tid"] == 7) {
      auto it = new_ts.find(e["id"].get<int64_t>());
      if (it != new_ts.end()) {
        e["ts"] = it->second;
        ++flows_shifted;
      }
    }
  ASSERT_GT(flows_shifted, 0);
  std::string in = ::testing::TempDir() + "/pf_injected.json";
  ASSERT_TRUE(write_file(in, doc.dump()).ok());
  std::string out = ::testing::TempDir() + "/pf_injected_fixed.json.gz";
  auto st = perfetto_fix_file(in, out);
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_GE(st->moved, static_cast<int64_t>(new_ts.size()));
  EXPECT_GE(st->extra_tracks, 1);
  EXPECT_EQ(st->flows_moved, flows_shifted);
  auto fixed_text = read_all(out);
  ASSERT_TRUE(fixed_text.ok());
  auto fixed = nlohmann::json::parse(*fixed_text);
  size_t n0 = 0, n1 = 0;
  gpu_tracks(doc, &n0);
  auto tracks = gpu_tracks(fixed, &n1);
  EXPECT_EQ(n0, n1);
  expect_no_overlap(tracks);
  // Every flow end sits on the same track as the kernel with its correlation id.
  std::map<int64_t, std::string> kernel_tid;
  for (const auto& e : fixed["traceEvents"])
    if (e.value("cat", "") == "kernel" && e.contains("args") && e["args"].contains("correlation"))
      kernel_tid[e["args"]["correlation"].get<int64_t>()] = e["tid"].dump();
  int64_t checked = 0;
  for (const auto& e : fixed["traceEvents"])
    if (e.value("ph", "") == "f" && e.value("cat", "") == "ac2g") {
      auto it = kernel_tid.find(e["id"].get<int64_t>());
      if (it == kernel_tid.end() || e["pid"] != 0) continue;
      EXPECT_EQ(e["tid"].dump(), it->second) << "flow " << e["id"];
      ++checked;
    }
  EXPECT_GT(checked, 1000);
}

TEST(Triage, NoGpuOpsIsEmptyTablesWithANote) {
  Timeline tl;
  ASSERT_TRUE(trace::read_path(kFix + "cpu_only_rank-34.json.gz", tl).ok());
  auto r = run_triage(tl, TriageOptions{});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->kernels.rows.empty());
  EXPECT_TRUE(r->overlap.empty());
  bool note = false;
  for (const auto& n : r->notes)
    note |= n.id == W::triage_no_gpu_ops && n.message.find("no GPU kernels") != std::string::npos;
  EXPECT_TRUE(note);
}

}  // namespace
}  // namespace goblin::analysis

namespace goblin::analysis {
namespace {

// A kernel row held above 100 % of its roofline (the fp32 Llama trace's gather and optimizer
// kernels) is flagged in kernel_table.json and marked in the text, never a plain figure.
TEST(Triage, KernelRowsAboveTheirRooflineAreFlagged) {
  const std::string path = kFix + "h100_llama_fp32_eager_w0.json.gz";
  Timeline tl;
  ASSERT_TRUE(trace::read_path(path, tl).ok());
  TriageOptions opt;
  opt.source_path = path;
  auto rep = run_triage(tl, opt);
  ASSERT_TRUE(rep.ok()) << rep.error().describe();
  const Json kt = kernel_table_to_json(rep->kernels, &rep->kernel_roof);
  int flagged = 0;
  for (const auto& row : kt) {
    ASSERT_TRUE(row.contains("above_physical_peak"));
    const bool above = row["pct_of_roofline"].is_number() && row["pct_of_roofline"].get<double>() > 100.0;
    EXPECT_EQ(above, !row["above_physical_peak"].is_null()) << row["name"];
    if (above) {
      ++flagged;
      EXPECT_EQ(row["above_physical_peak"]["code"], "above_physical_peak");
    }
  }
  EXPECT_GT(flagged, 0);
  const std::string text = triage_human_summary(*rep, 200, false);
  EXPECT_NE(text.find("!!"), std::string::npos);
  EXPECT_NE(text.find("wrong guess"), std::string::npos);
}

}  // namespace
}  // namespace goblin::analysis
