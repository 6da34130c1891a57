// WorkloadConfig parsing (every format, origins, redaction, errors with lines), the in-place
// editor and the unified diff, on the bundled example configs.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "config/config_editor.h"
#include "config/unified_diff.h"
#include "config/workload_config.h"
#include "core/io.h"
#include "core/test_support.h"

using namespace goblin;
using namespace goblin::config;

namespace {
std::string src(const std::string& rel) { return std::string(GOBLIN_SOURCE_DIR) + "/" + rel; }
// A patch's diff shows raw file lines: a secret-named key's value must not pass through it, even
// when it is too short for the token patterns (parse-config redacts the same keys).
TEST(Redaction, SecretAssignmentsInRawLines) {
  using goblin::config::redact_secret_assignments;
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
    if (w.message.find("huge.yaml: line 2: seq_len") != std::string::npos) warned_line2 = true;
  EXPECT_TRUE(warned_line2);
}

TEST(ParseConfig, HfDefaultPrecisionIsFp32) {
  // HF TrainingArguments: bf16 and fp16 default to False, so neither key means fp32 training.
  const std::string yaml = "per_device_train_batch_size: 8\nlearning_rate: 1.0e-4\noptim: adamw_torch\n";
  auto y = parse_config_text(yaml, ConfigFormat::Yaml, "hf.yaml");
  ASSERT_TRUE(y.ok()) << y.error().describe();
  EXPECT_EQ(y->get("precision"), "fp32");
  ASSERT_TRUE(y->origins.count("precision"));
  EXPECT_EQ(y->origins.at("precision").context, "HF default");
  EXPECT_EQ(y->origins.at("precision").line, -1);
  EXPECT_NE(config_to_text(*y).find("[HF default: bf16/fp16 not set]"), std::string::npos);
  auto py = parse_config_text(
      "from transformers import TrainingArguments\nargs = TrainingArguments(output_dir='o', "
      "per_device_train_batch_size=4)\n",
      ConfigFormat::Python, "train.py");
  ASSERT_TRUE(py.ok()) << py.error().describe();
  EXPECT_EQ(py->get("precision"), "fp32");
  EXPECT_EQ(py->origins.at("precision").context, "HF default");
  // An explicit flag still wins; an env file or a script without TrainingArguments stays unset.
  auto b = parse_config_text("per_device_train_batch_size: 8\nbf16: true\n", ConfigFormat::Yaml, "b.yaml");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->get("precision"), "bf16");
  auto env = parse_config_text("export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n", ConfigFormat::Env, "e.env");
  ASSERT_TRUE(env.ok());
  EXPECT_TRUE(env->get("precision").is_null());
  auto plain = parse_config_text("import torch\nmodel = torch.nn.Linear(4, 4)\n", ConfigFormat::Python, "p.py");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->get("precision").is_null());
  // The patch editor still adds the flag (the default has no place in the file).
  std::vector<std::string> unplaced;
  auto edited = edit_config_text(yaml, *y, {{"precision", Json("bf16")}}, &unplaced);
  ASSERT_TRUE(edited.ok()) << edited.error().describe();
  EXPECT_NE(edited->find("bf16: true"), std::string::npos) << *edited;
}

TEST(Diff, UnifiedHunks) {
  std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n";
  std::string d = unified_diff(a, b, "a/x", "b/x");
  EXPECT_NE(d.find("@@ -2,"), std::string::npos) << d;
  EXPECT_NE(d.find("-5\n+five\n"), std::string::npos) << d;
  EXPECT_NE(d.find("+11\n"), std::string::npos) << d;
  EXPECT_EQ(unified_diff(a, a, "a", "b"), "");
}

// The editor replaces a value in its span, inserts a missing key into the block the file's keys
// live in, keeps comments, and the result parses back to the edited values.
TEST(ConfigEditor, YamlEditInPlaceAndParseBack) {
  const std::string text =
      "# my run\ntraining:\n  per_device_train_batch_size: 8  # fits\n  dataloader_num_workers: 0\n";
  auto cfg = parse_config_text(text, ConfigFormat::Yaml, "run.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().describe();
  std::vector<std::string> unplaced;
  auto edited = edit_config_text(text, *cfg, {{"dataloader_workers", 4}, {"dataloader_pin_memory", true}}, &unplaced);
  ASSERT_TRUE(edited.ok()) << edited.error().describe();
  EXPECT_TRUE(unplaced.empty());
  EXPECT_NE(edited->find("# my run\n"), std::string::npos) << *edited;
  EXPECT_NE(edited->find("per_device_train_batch_size: 8  # fits\n"), std::string::npos) << *edited;
  auto back = parse_config_text(*edited, ConfigFormat::Yaml, "run.yaml");
  ASSERT_TRUE(back.ok()) << back.error().describe() << "\n" << *edited;
  EXPECT_EQ(back->get("dataloader_workers"), 4);
  EXPECT_EQ(back->get("dataloader_pin_memory"), true);
  EXPECT_EQ(back->get("batch_size"), 8);
  EXPECT_EQ(back->origins.at("dataloader_workers").line, 4);
}

TEST(ConfigEditor, EnvFileAppendsMissingVariable) {
  const std::string text = "export OMP_NUM_THREADS=1\n";
  auto cfg = parse_config_text(text, ConfigFormat::Env, "run.env");
  ASSERT_TRUE(cfg.ok()) << cfg.error().describe();
  auto edited = edit_config_text(text, *cfg, {{"env.OMP_NUM_THREADS", "8"}, {"env.NCCL_DEBUG", "WARN"}}, nullptr);
  ASSERT_TRUE(edited.ok()) << edited.error().describe();
  auto back = parse_config_text(*edited, ConfigFormat::Env, "run.env");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->get("env.OMP_NUM_THREADS"), "8") << *edited;
  EXPECT_EQ(back->get("env.NCCL_DEBUG"), "WARN") << *edited;
}
