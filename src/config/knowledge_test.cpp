// The config knowledge (config/knowledge.h): data/config_keys.yaml read by ConfigKeys::field_for
// gives the answers of the if/else chain it replaced for every branch of that chain, and
// data/attention.yaml the answers of the attention lists it replaced.
#include "config/knowledge.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/workload_config.h"

using namespace goblin;
using namespace goblin::config;

namespace {

// Every branch of the key → field mapping, written from the if/else chain it replaced
// (src/config/field_keys.cpp before data/config_keys.yaml): {path, context, field}.
struct KeyCase {
  std::vector<std::string> path;
  std::string context;
  std::string field;
};
const KeyCase kKeyCases[] = {
    // nothing
    {{}, "", ""},
    {{}, "compile", ""},
    // environment blocks: a variable directly under one is env.NAME (its case kept), deeper is nothing
    {{"env", "HF_HOME"}, "", "env.HF_HOME"},
    {{"env", "HF_HOME"}, "env", "env.HF_HOME"},
    {{"env", "HF_HOME"}, "os.environ", "env.HF_HOME"},
    {{"ENV", "Cuda_Launch_Blocking"}, "yaml", "env.Cuda_Launch_Blocking"},
    {{"environment", "A"}, "", "env.A"},
    {{"env_vars", "A"}, "", "env.A"},
    {{"envs", "A"}, "", "env.A"},
    {{"env", "__call"}, "compile", "env.__call"},
    {{"env", "batch_size"}, "", "env.batch_size"},
    {{"env", "a", "batch_size"}, "", ""},
    {{"environment", "a", "lr"}, "", ""},
    {{"env_vars", "a", "lr"}, "", ""},
    {{"Env_Vars", "a", "lr"}, "", ""},
    {{"envs", "a", "batch_size"}, "", "batch_size"},  // only three roots hide deeper keys
    {{"envs", "eval", "batch_size"}, "", ""},
    {{"env"}, "", ""},
    {{"x", "env", "A"}, "", ""},
    // a call's own presence
    {{"__call"}, "compile", "torch_compile.call"},
    {{"__call"}, "gradient_checkpointing_enable", "gradient_checkpointing.call"},
    {{"__call"}, "profile", "profiler_enabled.call"},
    {{"__CALL"}, "profile", "profiler_enabled.call"},
    {{"__call"}, "allow_tf32", ""},
    {{"__call"}, "from_pretrained", ""},
    {{"__call"}, "DataLoader", ""},
    {{"__call"}, "", ""},
    {{"__call"}, "Compile", ""},
    // from_pretrained
    {{"__arg0"}, "from_pretrained", "model_name"},
    {{"pretrained_model_name_or_path"}, "from_pretrained", "model_name"},
    {{"attn_implementation"}, "from_pretrained", "attention_impl"},
    {{"Attn_Implementation"}, "from_pretrained", "attention_impl"},
    {{"torch_dtype"}, "from_pretrained", ""},
    {{"batch_size"}, "from_pretrained", ""},
    {{"model_name"}, "from_pretrained", ""},
    // LoraConfig
    {{"r"}, "LoraConfig", "lora_rank"},
    {{"R"}, "LoraConfig", "lora_rank"},
    {{"lora_alpha"}, "LoraConfig", ""},
    {{"lora_r"}, "LoraConfig", ""},
    {{"r"}, "loraconfig", ""},
    // optimizers
    {{"__name"}, "AdamW", "optimizer"},
    {{"fused"}, "AdamW", "optimizer.fused"},
    {{"lr"}, "AdamW", "lr"},
    {{"LR"}, "AdamW", "lr"},
    {{"weight_decay"}, "AdamW", ""},
    {{"learning_rate"}, "AdamW", ""},
    {{"__name"}, "Adam", "optimizer"},
    {{"fused"}, "Adam", "optimizer.fused"},
    {{"lr"}, "Adam", "lr"},
    {{"__name"}, "SGD", "optimizer"},
    {{"fused"}, "SGD", "optimizer.fused"},
    {{"lr"}, "SGD", "lr"},
    {{"momentum"}, "SGD", ""},
    {{"__name"}, "Adafactor", "optimizer"},
    {{"fused"}, "Adafactor", "optimizer.fused"},
    {{"lr"}, "Adafactor", "lr"},
    {{"__name"}, "Lion", "optimizer"},
    {{"fused"}, "Lion", "optimizer.fused"},
    {{"lr"}, "Lion", "lr"},
    {{"betas"}, "Lion", ""},
    {{"lr"}, "adamw", "lr"},  // call names are case-sensitive: falls through to the keys
    {{"fused"}, "adamw", ""},
    {{"__name"}, "adamw", ""},
    {{"__name"}, "", ""},
    // autocast, matmul precision, anomaly detection, profiler, TF32 flags
    {{"dtype"}, "autocast", "precision"},
    {{"enabled"}, "autocast", ""},
    {{"precision"}, "autocast", ""},
    {{"__arg0"}, "set_float32_matmul_precision", "tf32"},
    {{"precision"}, "set_float32_matmul_precision", ""},
    {{"__arg0"}, "set_detect_anomaly", "anomaly_detection"},
    {{"mode"}, "set_detect_anomaly", "anomaly_detection"},
    {{"check_nan"}, "set_detect_anomaly", ""},
    {{"activities"}, "profile", ""},
    {{"profile"}, "profile", ""},
    {{"profile_memory"}, "profile", ""},
    {{"__arg0"}, "allow_tf32", "tf32"},
    {{"anything"}, "allow_tf32", "tf32"},
    {{"eval", "batch_size"}, "allow_tf32", "tf32"},
    {{"allow_tf32"}, "torch.backends.cudnn", "tf32"},
    {{"enabled"}, "torch.backends.cudnn", ""},
    // DataLoader
    {{"num_workers"}, "DataLoader", "dataloader_workers"},
    {{"pin_memory"}, "DataLoader", "dataloader_pin_memory"},
    {{"prefetch_factor"}, "DataLoader", "dataloader_prefetch_factor"},
    {{"persistent_workers"}, "DataLoader", "dataloader_persistent_workers"},
    {{"batch_size"}, "DataLoader", "batch_size"},
    {{"eval", "num_workers"}, "DataLoader", "dataloader_workers"},
    {{"shuffle"}, "DataLoader", ""},
    {{"dataloader_num_workers"}, "DataLoader", ""},
    // torch.compile / gradient_checkpointing_enable arguments
    {{"mode"}, "compile", ""},
    {{"fullgraph"}, "compile", ""},
    {{"gradient_checkpointing_kwargs"}, "gradient_checkpointing_enable", ""},
    {{"gradient_checkpointing"}, "gradient_checkpointing_enable", ""},
    // TrainingArguments names and spellings (any other context, flat or nested)
    {{"per_device_train_batch_size"}, "TrainingArguments", "batch_size"},
    {{"per_device_train_batch_size"}, "", "batch_size"},
    {{"train_batch_size"}, "", "batch_size"},
    {{"micro_batch_size"}, "", "batch_size"},
    {{"batch_size"}, "", "batch_size"},
    {{"training", "batch_size"}, "yaml", "batch_size"},
    {{"eval", "batch_size"}, "yaml", ""},
    {{"EVAL", "Batch_Size"}, "yaml", ""},
    {{"eval", "per_device_train_batch_size"}, "yaml", "batch_size"},
    {{"per_device_eval_batch_size"}, "", ""},
    {{"gradient_accumulation_steps"}, "", "grad_accum_steps"},
    {{"grad_accum_steps"}, "", "grad_accum_steps"},
    {{"gradient_accumulation"}, "", "grad_accum_steps"},
    {{"max_seq_length"}, "", "seq_len"},
    {{"max_seq_len"}, "", "seq_len"},
    {{"seq_len"}, "", "seq_len"},
    {{"seq_length"}, "", "seq_len"},
    {{"block_size"}, "", "seq_len"},
    {{"sequence_len"}, "", "seq_len"},
    {{"max_length"}, "", "seq_len"},
    {{"optim"}, "", "optimizer"},
    {{"optimizer"}, "", "optimizer"},
    {{"training", "Optimizer"}, "", "optimizer"},
    {{"attn_implementation"}, "", "attention_impl"},
    {{"attention_impl"}, "", "attention_impl"},
    {{"attention_implementation"}, "", "attention_impl"},
    {{"model", "attn_implementation"}, "yaml", "attention_impl"},
    {{"gradient_checkpointing"}, "", "gradient_checkpointing"},
    {{"lora_r"}, "", "lora_rank"},
    {{"lora_rank"}, "", "lora_rank"},
    {{"lora", "r"}, "yaml", "lora_rank"},
    {{"peft", "r"}, "yaml", "lora_rank"},
    {{"lora_config", "r"}, "yaml", "lora_rank"},
    {{"LoRA", "R"}, "yaml", "lora_rank"},
    {{"x", "lora", "r"}, "yaml", "lora_rank"},
    {{"r"}, "", ""},
    {{"model", "r"}, "yaml", ""},
    {{"lora", "r", "x"}, "yaml", ""},
    {{"dataloader_num_workers"}, "", "dataloader_workers"},
    {{"eval", "dataloader_num_workers"}, "", "dataloader_workers"},
    {{"num_workers"}, "", "dataloader_workers"},
    {{"dataloader", "num_workers"}, "yaml", "dataloader_workers"},
    {{"eval", "num_workers"}, "yaml", ""},
    {{"dataloader_pin_memory"}, "", "dataloader_pin_memory"},
    {{"pin_memory"}, "", "dataloader_pin_memory"},
    {{"eval", "pin_memory"}, "", "dataloader_pin_memory"},
    {{"dataloader_prefetch_factor"}, "", "dataloader_prefetch_factor"},
    {{"prefetch_factor"}, "", "dataloader_prefetch_factor"},
    {{"dataloader_persistent_workers"}, "", "dataloader_persistent_workers"},
    {{"persistent_workers"}, "", "dataloader_persistent_workers"},
    {{"torch_compile"}, "", "torch_compile"},
    {{"compile"}, "", "torch_compile"},
    {{"model", "compile"}, "yaml", "torch_compile"},
    {{"model_kwargs", "compile"}, "yaml", ""},
    {{"Model_Kwargs", "Compile"}, "yaml", ""},
    {{"model_kwargs", "torch_compile"}, "yaml", "torch_compile"},
    {{"learning_rate"}, "", "lr"},
    {{"lr"}, "", "lr"},
    {{"warmup_steps"}, "", "warmup_steps"},
    {{"model_name_or_path"}, "", "model_name"},
    {{"model_name"}, "", "model_name"},
    {{"model_id"}, "", "model_name"},
    {{"pretrained_model_name_or_path"}, "", "model_name"},
    {{"model", "name"}, "yaml", "model_name"},
    {{"model", "path"}, "yaml", "model_name"},
    {{"model", "id"}, "yaml", "model_name"},
    {{"Model", "Name"}, "yaml", "model_name"},
    {{"x", "model", "name"}, "yaml", "model_name"},
    {{"name"}, "", ""},
    {{"tokenizer", "name"}, "yaml", ""},
    {{"model", "revision"}, "yaml", ""},
    {{"model"}, "", "model_name"},
    {{"Model"}, "yaml", "model_name"},
    {{"training", "model"}, "yaml", ""},
    {{"model", "model"}, "yaml", ""},
    {{"tf32"}, "", "tf32"},
    {{"allow_tf32"}, "", "tf32"},
    {{"bf16"}, "", "precision.bf16"},
    {{"fp16"}, "", "precision.fp16"},
    {{"precision"}, "", "precision"},
    {{"mixed_precision"}, "", "precision"},
    {{"amp_dtype"}, "", "precision"},
    {{"mode"}, "", "mode"},
    {{"task"}, "", "mode"},
    {{"detect_anomaly"}, "", "anomaly_detection"},
    {{"anomaly_detection"}, "", "anomaly_detection"},
    {{"profiler_enabled"}, "", "profiler_enabled"},
    {{"profile"}, "", "profiler_enabled"},
    {{"torch_profiler"}, "", "profiler_enabled"},
    {{"world_size"}, "", "world_size"},
    {{"nproc_per_node"}, "", "world_size"},
    {{"num_gpus"}, "", "world_size"},
    {{"seed"}, "", ""},
    {{"__arg0"}, "", ""},
    {{"__arg0"}, "TrainingArguments", ""},
    {{"__call"}, "TrainingArguments", ""},
};

std::string show(const std::vector<std::string>& path) {
  std::string s;
  for (const auto& p : path) s += (s.empty() ? "" : "/") + p;
  return s;
}

TEST(ConfigKeys, EveryBranchOfTheFormerChain) {
  auto kn = config_knowledge();
  ASSERT_TRUE(kn.ok()) << kn.error().message;
  for (const KeyCase& c : kKeyCases)
    EXPECT_EQ((*kn)->keys.field_for(c.path, c.context), c.field) << show(c.path) << " in [" << c.context << "]";
}

TEST(ConfigKeys, EveryMappedFieldIsAConfigField) {
  auto kn = config_knowledge();
  ASSERT_TRUE(kn.ok()) << kn.error().message;
  // The fields parse_config_text reads besides config_fields(): the precision flags, the
  // optimizer's fused flag and the calls' presence.
  auto known = [](const std::string& f) {
    return is_known_field(f) || f == "precision.bf16" || f == "precision.fp16" || f == "optimizer.fused" ||
           f == "torch_compile.call" || f == "gradient_checkpointing.call" || f == "profiler_enabled.call";
  };
  for (const auto& r : (*kn)->keys.rules) EXPECT_TRUE(known(r.field)) << r.field;
  for (const auto& [name, call] : (*kn)->keys.calls) {
    for (const auto& [k, f] : call.keys) EXPECT_TRUE(known(f)) << name << " " << k << " -> " << f;
    if (!call.other.empty()) EXPECT_TRUE(known(call.other)) << name << " -> " << call.other;
  }
}

TEST(ConfigKeys, MalformedFileNamesTheLine) {
  const std::string ok_env = "env_roots: {variables: [env], hide_below: [env], source: x}\n";
  auto upper = ConfigKeys::parse(ok_env + "calls: []\nkeys:\n  - field: lr\n    keys: [LR]\n    source: x\n", "f.yaml");
  ASSERT_FALSE(upper.ok());
  EXPECT_EQ(upper.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(upper.error().file, "f.yaml");
  EXPECT_EQ(upper.error().line, 5);
  auto no_source = ConfigKeys::parse(ok_env + "calls: []\nkeys:\n  - field: lr\n    keys: [lr]\n", "f.yaml");
  ASSERT_FALSE(no_source.ok());
  EXPECT_EQ(no_source.error().line, 4);
  auto twice = ConfigKeys::parse(ok_env +
                                     "calls:\n  - {names: [Adam], source: x}\n  - {names: [Adam], source: x}\nkeys: "
                                     "[{field: lr, keys: [lr], source: x}]\n",
                                 "f.yaml");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().line, 4);
  EXPECT_FALSE(ConfigKeys::parse("calls: []\n", "f.yaml").ok());
}

// The spellings norm_attention (workload_config.cpp) knew, and what the patcher wrote for each.
TEST(AttentionImpls, SpellingsFusedAndPatchValue) {
  auto kn = config_knowledge();
  ASSERT_TRUE(kn.ok()) << kn.error().message;
  const AttentionImpls& a = (*kn)->attention;
  const std::pair<const char*, const char*> spellings[] = {
      {"eager", "eager"},
      {"EAGER", "eager"},
      {"sdpa", "sdpa"},
      {"scaled_dot_product_attention", "sdpa"},
      {"flash_attention_2", "flash"},
      {"Flash_Attention_2", "flash"},
      {"flash_attention_3", "flash"},
      {"flash", "flash"},
      {"fa2", "flash"},
      {"flash_attn", "flash"},
      {"kernels-community/flash-attn", "flash"},
      {"flash_rocm", "flash_rocm"},
      {"ck", "flash_rocm"},
      {"ck_flash_attention", "flash_rocm"},
      {"aiter", "flash_rocm"},
      {"flex_attention", "unknown"},
      {"", "unknown"},
  };
  for (const auto& [in, want] : spellings) EXPECT_EQ(a.normalise(in), want) << in;
  EXPECT_FALSE(a.fused("eager"));
  EXPECT_TRUE(a.fused("sdpa"));
  EXPECT_TRUE(a.fused("flash"));
  EXPECT_TRUE(a.fused("flash_rocm"));
  EXPECT_FALSE(a.fused("unknown"));
  EXPECT_FALSE(a.fused("SDPA"));
  EXPECT_FALSE(a.fused(""));
  EXPECT_EQ(a.hf_name("flash"), "flash_attention_2");
  EXPECT_EQ(a.hf_name("flash_rocm"), "flash_attention_2");
  EXPECT_EQ(a.hf_name("sdpa"), "sdpa");
  EXPECT_EQ(a.hf_name("eager"), "eager");
  EXPECT_EQ(a.hf_name("unknown"), "unknown");
  EXPECT_EQ(a.hf_name("Flash"), "Flash");
}

// attention_impl's enum (config_fields) lists exactly the data's names and `unknown`.
TEST(AttentionImpls, ConfigFieldEnumIsTheDataNames) {
  auto kn = config_knowledge();
  ASSERT_TRUE(kn.ok()) << kn.error().message;
  std::vector<std::string> names;
  for (const auto& i : (*kn)->attention.impls) names.push_back(i.name);
  names.push_back((*kn)->attention.unknown);
  const FieldSpec* f = find_field("attention_impl");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->enum_values, names);
}

}  // namespace
