#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "audit/patch.h"
#include "audit/rules.h"
#include "audit/workload_config.h"
#include "core/data.h"
#include "core/io.h"
#include "core/test_support.h"

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
RuleBase kb() {
  set_data_dir(GOBLIN_DATA_DIR);
  auto k = load_rule_base();
  EXPECT_TRUE(k.ok());
  return *k;
}
}  // namespace

TEST(ParseConfig, NestedYamlWithOriginsAndRedaction) {
  auto c = parse_config_file(src("examples/configs/llama_lora_untuned.yaml"));
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->get("model_name"), "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(c->get("attention_impl"), "eager");
  EXPECT_EQ(c->get("lora_rank"), 16);
  EXPECT_EQ(c->get("batch_size"), 4);
  EXPECT_EQ(c->get("grad_accum_steps"), 8);
  EXPECT_EQ(c->get("seq_len"), 2048);
  EXPECT_EQ(c->get("precision"), "fp32");
  EXPECT_EQ(c->get("dataloader_workers"), 0);
  EXPECT_EQ(c->get("dataloader_pin_memory"), false);
  EXPECT_EQ(c->get("optimizer"), "adamw_torch");
  EXPECT_DOUBLE_EQ(c->get("lr").get<double>(), 2e-4);
  EXPECT_EQ(c->origins.at("dataloader_workers").line, 23);
  EXPECT_EQ(c->env_vars.at("HF_HOME"), "/home/<user>/.cache/huggingface");
  EXPECT_EQ(c->extras.at("training.push_to_hub_token"), "hf_<redacted>");
  EXPECT_GE(c->redactions.size(), 3u);
}

TEST(ParseConfig, JsonPythonEnv) {
  auto j = parse_config_file(src("examples/configs/train_args.json"));
  ASSERT_TRUE(j.ok()) << j.error().describe();
  EXPECT_EQ(j->get("precision"), "fp16");
  EXPECT_EQ(j->get("seq_len"), 4096);
  EXPECT_EQ(j->env_vars.at("WANDB_API_KEY"), "<redacted>");
  EXPECT_EQ(j->extras.at("output_dir"), "s3://<redacted>");
  EXPECT_EQ(j->origins.at("dataloader_workers").line, 9);

  auto p = parse_config_file(src("examples/configs/train_untuned.py"));
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_EQ(p->get("model_name"), "meta-llama/Llama-3.2-1B");
  EXPECT_EQ(p->get("attention_impl"), "eager");
  EXPECT_EQ(p->get("batch_size"), 8);  // through the BATCH_SIZE constant
  EXPECT_EQ(p->origins.at("batch_size").line, 11);
  EXPECT_EQ(p->get("dataloader_workers"), 0);
  EXPECT_EQ(p->get("optimizer"), "adamw_torch");
  EXPECT_EQ(p->env_vars.at("ROCPROFSYS_MODE"), "sampling");
  EXPECT_EQ(p->env_vars.at("HF_TOKEN"), "<redacted>");

  auto e = parse_config_file(src("examples/configs/rocm_tuning.env"));
  ASSERT_TRUE(e.ok()) << e.error().describe();
  EXPECT_EQ(e->env_vars.at("NCCL_MIN_NCHANNELS"), "112");
  EXPECT_EQ(e->env_vars.at("PYTORCH_TUNABLEOP_ENABLED"), "1");
}

TEST(ParseConfig, BadInputGivesLine) {
  auto y = parse_config_text("a: 1\nb: [1, 2\nc: 3\n", ConfigFormat::Yaml, "bad.yaml");
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.error().kind, ErrorKind::Malformed);
  EXPECT_GT(y.error().line, 0);
  auto j = parse_config_text("{\n \"a\": 1,\n \"b\": ,\n}", ConfigFormat::Json, "bad.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().line, 3);
  auto p = parse_config_text("x = 1\ny = 'unterminated\n", ConfigFormat::Python, "bad.py");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().line, 2);
  // Found by fuzz_config: a byte that is not UTF-8 made JSON output throw; now it is refused
  // up front with its line.
  for (auto fmt : {ConfigFormat::Yaml, ConfigFormat::Json, ConfigFormat::Python, ConfigFormat::Env}) {
    auto u = parse_config_text("bf16: true\noptim: adam\xFFw\n", fmt, "latin1.cfg");
    ASSERT_FALSE(u.ok());
    EXPECT_EQ(u.error().kind, ErrorKind::Malformed);
    EXPECT_EQ(u.error().line, 2);
    EXPECT_NE(u.error().message.find("UTF-8"), std::string::npos);
  }
  auto nul = parse_config_text(std::string("bf16: true\ndataloader_n\x02\0_workers: 4\n", 37), ConfigFormat::Yaml,
                               "binary.yaml");
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.error().line, 2);
  EXPECT_NE(nul.error().message.find("control byte 0x02"), std::string::npos);
  auto nbsp = parse_config_text("\"model_name\\_x\": llama\n", ConfigFormat::Yaml, "escape.yaml");
  ASSERT_FALSE(nbsp.ok());
  EXPECT_NE(nbsp.error().message.find("UTF-8"), std::string::npos);
  // Found by fuzz_config: a JSON number beyond double's range threw out of the parser.
  auto huge =
      parse_config_text("{\n  \"per_device_train_batch_size\": 4,\n  \"learning_rate\": 1e35111111111111111111\n}",
                        ConfigFormat::Json, "huge.json");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(huge.error().line, 3);
  auto missing = parse_config_file("/nonexistent/cfg.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::Io);
}

// Found by fuzz_config: a whole-number field written as a float beyond int64 (6.7e93 after
// YAML reads 90 digits) was cast to int64 — undefined behaviour. Now it is a warning with its
// line and the field stays unset; in-range whole floats still convert.
TEST(ParseConfig, OutOfRangeIntegerIsWarnedNotCast) {
  auto c = parse_config_text(
      "training:\n  max_seq_length: "
      "6666666666666666666666666666666666666666666666666666666666666666666666666666666666666666662048\n  "
      "per_device_train_batch_size: 8.0\n  gradient_accumulation_steps: 2.5\n",
      ConfigFormat::Yaml, "huge.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->values.count("seq_len"), 0u);
  ASSERT_TRUE(c->values.count("batch_size"));
  EXPECT_EQ(c->values.at("batch_size"), 8);
  EXPECT_EQ(c->values.count("grad_accum_steps"), 0u);
  bool warned_line2 = false;
  for (const auto& w : c->warnings)
    if (w.find("huge.yaml: line 2: seq_len") != std::string::npos) warned_line2 = true;
  EXPECT_TRUE(warned_line2);
}

TEST(Rules, LintCleanAndCatchesBadRules) {
  RuleBase k = kb();
  EXPECT_GE(k.rules.size(), 35u);
  auto problems = lint_rules(k);
  for (const auto& p : problems) ADD_FAILURE() << p.describe();
  RuleBase bad;
  ASSERT_TRUE(parse_rules_yaml(R"(rules:
  - id: x.always
    title: t
    category: c
    vendor: any
    symptoms: [s]
    detect: {}
    transform: {nonexistent_field: 1}
    targets_bucket: host_gap
    expected_recovery_fraction: {low: 0.1, high: 0.2, basis: b}
    citation: "MI300X Optimization Guide section 3.2"
)",
                               "bad.yaml", bad)
                  .ok());
  auto errs = lint_rules(bad);
  std::string all;
  for (const auto& e : errs) all += e.message + "\n";
  EXPECT_NE(all.find("detect is empty"), std::string::npos) << all;
  EXPECT_NE(all.find("citation"), std::string::npos) << all;
  EXPECT_NE(all.find("unknown field"), std::string::npos) << all;
}

TEST(Rules, QueryUnionDeduplicates) {
  RuleBase k = kb();
  auto hits =
      kb_query(k, {"DataLoader num_workers=0 starves GPU", "naive eager attention on MI300X", "num_workers"}, 3);
  ASSERT_FALSE(hits.empty());
  std::set<std::string> ids;
  for (const auto& h : hits) {
    EXPECT_TRUE(ids.insert(h.rule->id).second) << "duplicate " << h.rule->id;
    EXPECT_GT(h.score, 0);
  }
  EXPECT_TRUE(ids.count("data.dataloader_workers_zero"));
  EXPECT_TRUE(ids.count("attention.sdpa_over_eager") || ids.count("attention.flash_rocm_over_eager"));
}

TEST(Patch, UntunedYamlFiresEachRuleAndRoundTrips) {
  RuleBase k = kb();
  std::string path = tmp_copy(src("examples/h100_llama/config_before.yaml"), "before.yaml");
  PatchOptions opt;
  opt.rule_ids = {"all"};
  auto p = make_patch(path, opt, k);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  std::set<std::string> applied;
  for (const auto& r : p->result["rationale"]) {
    applied.insert(r["rule_id"]);
    EXPECT_EQ(r["citation"].get<std::string>().rfind("https://", 0), 0u);
  }
  for (const char* id : {"precision.bf16_amp_over_fp32", "attention.sdpa_over_eager", "data.dataloader_workers_zero",
                         "data.pin_memory", "optim.fused_adamw", "compile.torch_compile"})
    EXPECT_TRUE(applied.count(id)) << id << " did not fire:\n" << p->result["skipped"].dump(1);
  EXPECT_EQ(p->new_config.get("precision"), "bf16");
  EXPECT_EQ(p->new_config.get("attention_impl"), "sdpa");
  EXPECT_EQ(p->new_config.get("optimizer"), "adamw_torch_fused");
  EXPECT_TRUE(p->result["roundtrip_ok"].get<bool>()) << p->result["roundtrip_mismatch"].dump();
  // The patched file parses back to the patched config, comments kept.
  auto back = parse_config_text(p->patched_text, ConfigFormat::Yaml, path);
  ASSERT_TRUE(back.ok());
  for (const auto& f : config_fields()) EXPECT_EQ(back->get(f.name), p->new_config.get(f.name)) << f.name;
  EXPECT_NE(p->patched_text.find("# unfused AdamW"), std::string::npos);
  std::string diff = p->result["diff"];
  EXPECT_NE(diff.find("-bf16: false"), std::string::npos) << diff;
  EXPECT_NE(diff.find("+bf16: true"), std::string::npos) << diff;
  // No metrics: no speedup claim, confidence 0 (nothing measured).
  EXPECT_TRUE(p->result["expected_speedup_low"].is_null());
  EXPECT_EQ(p->result["confidence"].get<double>(), 0.0);
}

TEST(Patch, TunedConfigFiresNoPerformanceRule) {
  RuleBase k = kb();
  for (const char* vendor : {"", "amd", "nvidia"}) {
    PatchOptions opt;
    opt.rule_ids = {"all"};
    opt.vendor = vendor;
    auto p = make_patch(src("examples/configs/llama_tuned.yaml"), opt, k);
    ASSERT_TRUE(p.ok()) << p.error().describe();
    for (const auto& r : p->result["rationale"]) {
      const Rule* rule = k.find(r["rule_id"]);
      EXPECT_FALSE(rule->performance) << vendor << ": " << rule->id << " fired on a tuned config";
    }
    EXPECT_EQ(p->result["diff"], "");
  }
}

TEST(Patch, PythonAndJsonEditInPlace) {
  RuleBase k = kb();
  for (const char* f : {"examples/configs/train_untuned.py", "examples/configs/train_args.json",
                        "examples/configs/llama_lora_untuned.yaml"}) {
    std::string path = tmp_copy(src(f), std::filesystem::path(f).filename().string());
    PatchOptions opt;
    opt.rule_ids = {"all"};
    auto p = make_patch(path, opt, k);
    ASSERT_TRUE(p.ok()) << p.error().describe();
    EXPECT_TRUE(p->result["roundtrip_ok"].get<bool>()) << f << ": " << p->result["roundtrip_mismatch"].dump() << "\n"
                                                       << p->patched_text;
    EXPECT_NE(p->result["diff"], "") << f;
    EXPECT_EQ(p->new_config.get("dataloader_workers"), 4) << f;
  }
}

TEST(Patch, MetricsGiveSpeedupRangeAndConfidence) {
  RuleBase k = kb();
  RunMetrics m;
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
  double lo = p->result["expected_speedup_low"], hi = p->result["expected_speedup_high"];
  EXPECT_GT(lo, 1.0);
  EXPECT_GE(hi, lo);
  // Recovery can never exceed the targeted buckets.
  EXPECT_LT(hi, 0.2 / (0.2 - 0.17) + 1e-9);
  double c = p->result["confidence"];
  EXPECT_GT(c, 0.0);
  EXPECT_LE(c, 1.0);
  EXPECT_DOUBLE_EQ(
      c, round_to(p->result["evidence_coverage"].get<double>() * p->result["rule_consistency"].get<double>(), 3));
}

TEST(Diff, UnifiedHunks) {
  std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n";
  std::string d = unified_diff(a, b, "a/x", "b/x");
  EXPECT_NE(d.find("@@ -2,"), std::string::npos) << d;
  EXPECT_NE(d.find("-5\n+five\n"), std::string::npos) << d;
  EXPECT_NE(d.find("+11\n"), std::string::npos) << d;
  EXPECT_EQ(unified_diff(a, a, "a", "b"), "");
}

// A patch's diff shows raw file lines: a secret-named key's value must not pass through it, even
// when it is too short for the token patterns (parse-config redacts the same keys).
TEST(Redaction, SecretAssignmentsInRawLines) {
  using goblin::audit::redact_secret_assignments;
  std::string diff =
      " env:\n   WANDB_API_KEY: abcd1234secretvalue\n-precision: fp32\n+precision: bf16\n"
      "export HF_TOKEN=short1\n  \"db_password\": \"hunter2\",\nlr: 0.001\nenv:\n";
  std::string r = redact_secret_assignments(diff);
  EXPECT_EQ(r.find("abcd1234secretvalue"), std::string::npos) << r;
  EXPECT_EQ(r.find("short1"), std::string::npos) << r;
  EXPECT_EQ(r.find("hunter2"), std::string::npos) << r;
  EXPECT_NE(r.find("   WANDB_API_KEY: <redacted>\n"), std::string::npos) << r;
  EXPECT_NE(r.find("\"db_password\": \"<redacted>\",\n"), std::string::npos) << r;
  EXPECT_NE(r.find("+precision: bf16\nexport"), std::string::npos);  // other lines untouched
  EXPECT_NE(r.find("lr: 0.001\nenv:\n"), std::string::npos);
}
