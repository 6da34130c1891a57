// The patch policy end to end on the bundled configs: rules fire, edits round-trip, metrics give
// speedup ranges and confidence.
#include "audit/patch.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "analysis/memory_events.h"
#include "analysis/memory_test_support.h"
#include "audit/rules.h"
#include "config/workload_config.h"
#include "core/data.h"
#include "core/io.h"
#include "core/test_support.h"
#include "trace/load.h"

using namespace goblin;
using namespace goblin::audit;

namespace {
std::string src(const std::string& rel) { return std::string(GOBLIN_SOURCE_DIR) + "/" + rel; }
std::string tmp_copy(const std::string& from, const std::string& name) {
  static const auto dir = goblin::testing::private_tmp_dir("audit");
  auto to = dir / name;
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  return to.string();
}
// A profile on an H100 with measured HBM use (memory rules need it) and the buckets the batch
// and data rules read; comm_excess unobserved (one GPU).
analysis::RunMetrics h100_profile(double step_s, double useful_s, double host_gap_s, double data_wait_s,
                                  double hbm_peak_gb) {
  analysis::RunMetrics m;
  m.step_time_s = step_s;
  m.gpu_name = "NVIDIA H100 80GB HBM3";
  m.hbm_peak_gb = hbm_peak_gb;
  m.hbm_total_gb = 80.0;
  m.waste_budget.useful_gpu = useful_s;
  m.waste_budget.host_gap = host_gap_s;
  m.waste_budget.data_wait = data_wait_s;
  m.waste_budget.unobserved = {"comm_excess"};
  return m;
}
Knowledge kb() {
  set_data_dir(GOBLIN_DATA_DIR);
  auto k = knowledge();
  EXPECT_TRUE(k.ok());
  return **k;
}
}  // namespace

TEST(Patch, UntunedYamlFiresEachRuleAndRoundTrips) {
  const Knowledge k = kb();
  std::string path = tmp_copy(src("examples/h100_llama/config_before.yaml"), "before.yaml");
  PatchOptions opt;
  opt.rule_ids = {"all"};
  auto p = make_patch(path, opt, k);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  std::set<std::string> applied;
  for (const auto& r : p->result.rationale) {
    applied.insert(r.rule_id);
    EXPECT_EQ(r.citation.rfind("https://", 0), 0u);
  }
  for (const char* id : {"precision.bf16_amp_over_fp32", "attention.sdpa_over_eager", "data.dataloader_workers_zero",
                         "data.pin_memory", "optim.fused_adamw", "compile.torch_compile"})
    EXPECT_TRUE(applied.count(id)) << id << " did not fire:\n" << patch_to_json(p->result)["skipped"].dump(1);
  EXPECT_EQ(p->new_config.get("precision"), "bf16");
  EXPECT_EQ(p->new_config.get("attention_impl"), "sdpa");
  EXPECT_EQ(p->new_config.get("optimizer"), "adamw_torch_fused");
  EXPECT_TRUE(p->result.roundtrip_ok) << patch_to_json(p->result)["roundtrip_mismatch"].dump();
  // The patched file parses back to the patched config, comments kept.
  auto back = config::parse_config_text(p->patched_text, config::ConfigFormat::Yaml, path);
  ASSERT_TRUE(back.ok());
  for (const auto& f : config::config_fields()) EXPECT_EQ(back->get(f.name), p->new_config.get(f.name)) << f.name;
  EXPECT_NE(p->patched_text.find("# unfused AdamW"), std::string::npos);
  std::string diff = p->result.diff;
  EXPECT_NE(diff.find("-bf16: false"), std::string::npos) << diff;
  EXPECT_NE(diff.find("+bf16: true"), std::string::npos) << diff;
  // No metrics: no speedup claim, confidence 0 (nothing measured).
  EXPECT_TRUE(!p->result.expected_speedup_low);
  EXPECT_EQ(p->result.confidence, 0.0);
}

TEST(Patch, TunedConfigFiresNoPerformanceRule) {
  const Knowledge k = kb();
  for (const char* vendor : {"", "amd", "nvidia"}) {
    PatchOptions opt;
    opt.rule_ids = {"all"};
    opt.vendor = vendor;
    auto p = make_patch(src("examples/configs/llama_tuned.yaml"), opt, k);
    ASSERT_TRUE(p.ok()) << p.error().describe();
    for (const auto& r : p->result.rationale) {
      const Rule* rule = k.rules.find(r.rule_id);
      EXPECT_FALSE(rule->performance) << vendor << ": " << rule->id << " fired on a tuned config";
    }
    EXPECT_EQ(p->result.diff, "");
  }
}

TEST(Patch, PythonAndJsonEditInPlace) {
  const Knowledge k = kb();
  for (const char* f : {"examples/configs/train_untuned.py", "examples/configs/train_args.json",
                        "examples/configs/llama_lora_untuned.yaml"}) {
    std::string path = tmp_copy(src(f), std::filesystem::path(f).filename().string());
    PatchOptions opt;
    opt.rule_ids = {"all"};
    auto p = make_patch(path, opt, k);
    ASSERT_TRUE(p.ok()) << p.error().describe();
    EXPECT_TRUE(p->result.roundtrip_ok) << f << ": " << patch_to_json(p->result)["roundtrip_mismatch"].dump() << "\n"
                                        << p->patched_text;
    EXPECT_NE(p->result.diff, "") << f;
    EXPECT_EQ(p->new_config.get("dataloader_workers"), 4) << f;
  }
}

TEST(Patch, MetricsGiveSpeedupRangeAndConfidence) {
  const Knowledge k = kb();
  analysis::RunMetrics m;
  m.step_time_s = 0.2;
  m.gpu_name = "NVIDIA H100 80GB HBM3";
  m.waste_budget.useful_gpu = 0.03;
  m.waste_budget.precision_path = 0.12;
  m.waste_budget.data_wait = 0.02;
  m.waste_budget.host_gap = 0.02;
  m.waste_budget.kernel_shape = 0.01;
  m.waste_budget.unobserved = {"comm_excess", "memory_headroom"};
  m.top_kernels.push_back({"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n", "gemm", "gemm", 60.0, 0.1, 10});
  std::string path = tmp_copy(src("examples/h100_llama/config_before.yaml"), "before2.yaml");
  PatchOptions opt;
  opt.rule_ids = {"all"};
  opt.metrics = &m;
  auto p = make_patch(path, opt, k);
  ASSERT_TRUE(p.ok());
  double lo = p->result.expected_speedup_low.value(), hi = p->result.expected_speedup_high.value();
  EXPECT_GT(lo, 1.0);
  EXPECT_GE(hi, lo);
  // Recovery can never exceed the targeted buckets.
  EXPECT_LT(hi, 0.2 / (0.2 - 0.17) + 1e-9);
  double c = p->result.confidence;
  EXPECT_GT(c, 0.0);
  EXPECT_LE(c, 1.0);
  EXPECT_DOUBLE_EQ(c, round_to(p->result.evidence_coverage * p->result.rule_consistency, 3));
}

// memory.batch_into_headroom on the live audit's round-1 config (workers 4, batch 8, measured
// headroom and host gap): the batch and the DataLoader workers double together. On the H100 the
// round-2 config with 4 workers starved on data (bench/results/h100_audit_rounds/probe).
TEST(Patch, BatchIntoHeadroomDoublesTheWorkersWithTheBatch) {
  const Knowledge k = kb();
  analysis::RunMetrics m = h100_profile(0.054, 0.038, 0.02, 0.0, 6.0);
  std::string path = tmp_copy(src("tests/fixtures/h100_audit_rounds/base/rounds/round-1.yaml"), "round-1.yaml");
  auto before = config::parse_config_file(path);
  ASSERT_TRUE(before.ok()) << before.error().describe();
  ASSERT_EQ(before->get("dataloader_workers"), 4);
  ASSERT_EQ(before->get("batch_size"), 8);
  PatchOptions opt;
  opt.rule_ids = {"memory.batch_into_headroom", "compile.torch_compile", "data.persistent_workers"};
  opt.metrics = &m;
  auto p = make_patch(path, opt, k);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_EQ(p->new_config.get("batch_size"), 16) << patch_to_json(p->result)["skipped"].dump(1);
  EXPECT_EQ(p->new_config.get("dataloader_workers"), 8) << patch_to_json(p->result)["skipped"].dump(1);
  EXPECT_TRUE(p->result.roundtrip_ok);
  EXPECT_TRUE(p->result.conflicts.empty()) << patch_to_json(p->result)["conflicts"].dump(1);
}

// A scale composes with an earlier rule's edit of the same field in one patch (workers 0 -> 4 by
// data.dataloader_workers_zero, then x2 with the batch), and is not logged as a conflict.
TEST(Patch, ScaleComposesWithAnEarlierRulesEdit) {
  const Knowledge k = kb();
  analysis::RunMetrics m = h100_profile(0.1, 0.03, 0.04, 0.03, 6.0);
  std::string path = tmp_copy(src("workloads/configs/base.yaml"), "zero_workers.yaml");
  auto before = config::parse_config_file(path);
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->get("dataloader_workers"), 0);
  PatchOptions opt;
  opt.rule_ids = {"data.dataloader_workers_zero", "memory.batch_into_headroom"};
  opt.metrics = &m;
  auto p = make_patch(path, opt, k);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_EQ(p->new_config.get("dataloader_workers"), 8) << patch_to_json(p->result).dump(1);
  EXPECT_TRUE(p->result.conflicts.empty()) << patch_to_json(p->result)["conflicts"].dump(1);
}

// The HF Trainer audit's round 2 on the H100 (bench/results/h100_audit_rounds): round 1 turned
// torch.compile on, and the batch rule's guard against compiled workloads blocked it. The guard is
// about the user's own choice (`of: original`): with the user's config uncompiled the batch and the
// workers double; with the user's own torch.compile the rule stays off and says why.
TEST(Patch, BatchRuleReadsTheUsersOwnCompileNotAnEarlierRoundsEdit) {
  const Knowledge k = kb();
  analysis::RunMetrics m = h100_profile(0.144, 0.047, 0.0958, 0.0001, 11.7);
  auto text = read_all(src("workloads/hf_trainer/configs/hf_base.yaml"));
  ASSERT_TRUE(text.ok());
  auto original = config::parse_config_file(src("workloads/hf_trainer/configs/hf_base.yaml"));
  ASSERT_TRUE(original.ok()) << original.error().describe();
  std::string round1 = *text;
  round1.replace(round1.find("dataloader_num_workers: 0"), 25, "dataloader_num_workers: 4");
  round1 += "bf16: true\ntorch_compile: true\n";
  std::string path = (goblin::testing::private_tmp_dir("audit") / "hf_round-1.yaml").string();
  ASSERT_TRUE(write_file(path, round1).ok());
  auto compiled = config::parse_config_file(path);
  ASSERT_TRUE(compiled.ok());
  ASSERT_EQ(compiled->get("torch_compile"), true);

  PatchOptions opt;
  opt.rule_ids = {"memory.batch_into_headroom", "data.persistent_workers"};
  opt.metrics = &m;
  opt.original = &*original;  // the audit's round 2: the user's config compiles nothing
  auto p = make_patch(path, opt, k);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_EQ(p->new_config.get("batch_size"), 8) << patch_to_json(p->result)["skipped"].dump(1);
  EXPECT_EQ(p->new_config.get("dataloader_workers"), 8);
  EXPECT_TRUE(p->result.roundtrip_ok);

  opt.original = nullptr;  // `goblin patch` on the compiled file: the compile is the user's own
  auto q = make_patch(path, opt, k);
  ASSERT_TRUE(q.ok()) << q.error().describe();
  EXPECT_EQ(q->new_config.get("batch_size"), 4);
  bool said = false;
  for (const auto& s : q->result.skipped)
    if (s.rule_id == "memory.batch_into_headroom")
      said = s.reason.find("original config: torch_compile") != std::string::npos;
  EXPECT_TRUE(said) << patch_to_json(q->result)["skipped"].dump(1);
}

// The Patch struct and its JSON: struct -> JSON -> struct gives the same JSON, and a patch.json
// recorded by an audit of this shape (bench/results) reads into the struct and writes back
// byte-identical (with its calibration).
TEST(PatchJson, RoundTripsThroughTheStruct) {
  Knowledge k = kb();
  analysis::RunMetrics m = h100_profile(0.1, 0.03, 0.04, 0.03, 6.0);
  std::string path = tmp_copy(src("workloads/configs/base.yaml"), "roundtrip.yaml");
  PatchOptions opt;
  opt.rule_ids = {"all"};
  opt.metrics = &m;
  auto p = make_patch(path, opt, k);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  const Json j = patch_to_json(p->result);
  auto back = patch_from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(patch_to_json(*back).dump(), j.dump());
  // (bench/results/h100_live's patch.json files predate fraction_model: an older shape.)
  for (const char* f : {"tests/fixtures/h100_audit_rounds/tuned_compile_current/patch.json"}) {
    auto text = read_all(src(f));
    ASSERT_TRUE(text.ok()) << f;
    const Json recorded = Json::parse(*text);
    auto pj = patch_from_json(recorded);
    ASSERT_TRUE(pj.ok()) << f << ": " << pj.error().message;
    EXPECT_EQ(patch_to_json(*pj).dump(2), recorded.dump(2)) << f;
  }
}

TEST(PatchJson, MissingOrMistypedKeysNameTheKey) {
  auto p = patch_from_json(Json{{"rationale", {{{"rule_id", 3}}}}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(p.error().message, "patch: rationale[0].rule_id: expected string, got integer");
  p = patch_from_json(Json{{"bucket_caps", {{{"bucket", "host_gap"}, {"rules", 1.5}}}}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "patch: bucket_caps[0].rules: expected integer, got number");
  EXPECT_FALSE(patch_from_json(Json::array()).ok());
}

// A predicate's `of` is config or original; anything else is a load problem the lint reports.
TEST(Rules, PredicateOfMustBeConfigOrOriginal) {
  RuleBase b;
  ASSERT_TRUE(parse_rules_yaml(R"(rules:
  - id: t.of
    title: t
    category: memory
    symptoms: [x]
    detect:
      config: [{field: torch_compile, op: ne, value: true, if_unset: true, of: first}]
    transform: {batch_size: 8}
    targets_bucket: host_gap
    expected_recovery_fraction: {low: 0, high: 0.1, basis: b}
    citation: https://example.org
)",
                               "t.yaml", b)
                  .ok());
  ASSERT_FALSE(b.problems.empty());
  EXPECT_NE(b.problems[0].message.find("`of` must be config or original"), std::string::npos);
}

// memory.batch_into_headroom reads the measured batch_scale_fits (a memory source: here the H100
// profile_memory trace tests/fixtures/memory/kineto_memory_train.json.gz) and falls back to the
// hbm_peak_frac proxy only without one.
TEST(Patch, BatchRuleReadsBatchScaleFitsBeforeTheHbmProxy) {
  const Knowledge k = kb();
  auto in = trace::load_trace(src("tests/fixtures/memory/kineto_memory_train.json.gz"), trace::kNeedMemoryEvents);
  ASSERT_TRUE(in.ok()) << in.error().describe();
  const analysis::MemoryReport mem =
      analysis::analyse_memory_events(in->timeline, goblin::testing::memory_category_rules(), -1);
  std::string why;
  ASSERT_FALSE(in->timeline.meta.devices.empty());
  auto h = analysis::memory_headroom(mem, k.analysis(), "", in->timeline.meta.devices[0].total_memory_bytes, why);
  ASSERT_TRUE(h) << why;
  ASSERT_GE(h->batch_scale_fits, 2.0);  // a 2-layer model on an 80 GB card
  // The round-1 config of BatchIntoHeadroomDoublesTheWorkersWithTheBatch, its host gap measured.
  const std::string path = tmp_copy(src("tests/fixtures/h100_audit_rounds/base/rounds/round-1.yaml"), "fits.yaml");
  analysis::RunMetrics m = h100_profile(0.054, 0.038, 0.02, 0.0, 6.0);
  analysis::apply_memory_headroom(m, *h);
  ASSERT_LT(*m.hbm_peak_gb / *m.hbm_total_gb, 0.4);
  PatchOptions opt;
  opt.rule_ids = {"memory.batch_into_headroom"};
  opt.metrics = &m;
  auto evidence_of = [](const Patch& p) {
    std::string s;
    for (const auto& r : p.rationale)
      for (const auto& e : r.evidence) s += e + "\n";
    return s;
  };
  auto skip_of = [](const Patch& p) {
    for (const auto& s : p.skipped)
      if (s.rule_id == "memory.batch_into_headroom") return s.reason;
    return std::string();
  };
  // Measured: it fits many times over, the rule fires and its evidence is batch_scale_fits.
  auto fits = make_patch(path, opt, k);
  ASSERT_TRUE(fits.ok()) << fits.error().describe();
  EXPECT_EQ(fits->new_config.get("batch_size"), 16) << skip_of(fits->result);
  EXPECT_NE(evidence_of(fits->result).find("measured batch_scale_fits = "), std::string::npos)
      << evidence_of(fits->result);
  EXPECT_EQ(evidence_of(fits->result).find("hbm_peak_frac"), std::string::npos);
  // Measured under 2: the batch does not fit twice, so the rule stays off although the HBM peak
  // is under the 40 % proxy.
  m.batch_scale_fits = 1.5;
  auto tight = make_patch(path, opt, k);
  ASSERT_TRUE(tight.ok()) << tight.error().describe();
  EXPECT_EQ(tight->new_config.get("batch_size"), 8);
  EXPECT_NE(skip_of(tight->result).find("evidence: batch_scale_fits = 1.5 does not satisfy ge 2"), std::string::npos)
      << skip_of(tight->result);
  // No memory source: the proxy decides, and the evidence says it stood in.
  m.batch_scale_fits.reset();
  auto proxy = make_patch(path, opt, k);
  ASSERT_TRUE(proxy.ok()) << proxy.error().describe();
  EXPECT_EQ(proxy->new_config.get("batch_size"), 16) << skip_of(proxy->result);
  EXPECT_NE(evidence_of(proxy->result).find("(fallback: batch_scale_fits not measured)"), std::string::npos)
      << evidence_of(proxy->result);
  // Neither measured: the rule needs evidence and names both metrics.
  m.hbm_peak_gb.reset();
  auto none = make_patch(path, opt, k);
  ASSERT_TRUE(none.ok()) << none.error().describe();
  EXPECT_EQ(skip_of(none->result),
            "needs measured evidence: batch_scale_fits or its fallback hbm_peak_frac was not observed");
}

// The rule language's fallback: parsed, linted (it stands in for a metric only), shown by kb show.
TEST(Rules, FallbackIsParsedAndLinted) {
  RuleBase rb;
  ASSERT_TRUE(parse_rules_yaml(R"(rules:
  - id: x.fallback
    title: t
    category: c
    vendor: any
    symptoms: [s]
    detect:
      evidence:
        - {metric: batch_scale_fits, op: ge, value: 2, fallback: {metric: no_such_metric, op: lt, value: 0.4}}
        - {metric: gpu_util_pct, op: gt, value: 1, fallback: {field: batch_size, op: set}}
      require_evidence: true
    transform: {batch_size: {scale: 2}}
    targets_bucket: host_gap
    expected_recovery_fraction: {low: 0.1, high: 0.2, basis: b}
    citation: https://example.org/x
)",
                               "fb.yaml", rb)
                  .ok());
  ASSERT_EQ(rb.rules.size(), 1u);
  ASSERT_EQ(rb.rules[0].detect_evidence[0].fallback.size(), 1u);
  EXPECT_EQ(rule_to_json(rb.rules[0])["detect"]["evidence"][0]["fallback"]["metric"], "no_such_metric");
  std::string all;
  for (const auto& e : lint_rules(rb)) all += e.message + "\n";
  EXPECT_NE(all.find("fallback on unknown metric 'no_such_metric'"), std::string::npos) << all;
  EXPECT_NE(all.find("a fallback stands in for an unmeasured metric"), std::string::npos) << all;
}
