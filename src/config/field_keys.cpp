// Which WorkloadConfig field a source key maps to: HF TrainingArguments names and their common
// spellings, nested blocks, and the keyword arguments of the Python calls the scanner knows.
#include "config/config_source.h"
#include "core/text.h"

namespace goblin::config {

std::string field_for_key(const std::vector<std::string>& path, const std::string& context) {
  if (path.empty()) return "";
  const std::string k = ascii_lower(path.back());
  const std::string parent = path.size() >= 2 ? ascii_lower(path[path.size() - 2]) : "";
  const std::string root = ascii_lower(path[0]);
  if (path.size() == 2 && (root == "env" || root == "environment" || root == "env_vars" || root == "envs"))
    return "env." + path.back();
  if (path.size() >= 2 && (root == "env" || root == "environment" || root == "env_vars")) return "";
  if (k == "__call") {
    if (context == "compile") return "torch_compile.call";
    if (context == "gradient_checkpointing_enable") return "gradient_checkpointing.call";
    if (context == "profile") return "profiler_enabled.call";
    return "";
  }
  if (context == "from_pretrained") {
    if (k == "__arg0" || k == "pretrained_model_name_or_path") return "model_name";
    if (k == "attn_implementation") return "attention_impl";
    return "";
  }
  if (context == "LoraConfig") return k == "r" ? "lora_rank" : "";
  if (context == "AdamW" || context == "Adam" || context == "SGD" || context == "Adafactor" || context == "Lion") {
    if (k == "__name") return "optimizer";
    if (k == "fused") return "optimizer.fused";
    if (k == "lr") return "lr";
    return "";
  }
  if (context == "autocast") return k == "dtype" ? "precision" : "";
  if (context == "set_float32_matmul_precision") return k == "__arg0" ? "tf32" : "";
  if (context == "set_detect_anomaly") return k == "__arg0" || k == "mode" ? "anomaly_detection" : "";
  if (context == "profile") return "";
  if (context == "allow_tf32") return "tf32";
  if (context == "DataLoader") {
    if (k == "num_workers") return "dataloader_workers";
    if (k == "pin_memory") return "dataloader_pin_memory";
    if (k == "prefetch_factor") return "dataloader_prefetch_factor";
    if (k == "persistent_workers") return "dataloader_persistent_workers";
    if (k == "batch_size") return "batch_size";
    return "";
  }
  if (context == "compile" || context == "gradient_checkpointing_enable") return "";
  // HF TrainingArguments keys and their common spellings (flat or in nested blocks).
  if (k == "per_device_train_batch_size" || k == "train_batch_size" || k == "micro_batch_size" ||
      (k == "batch_size" && parent != "eval"))
    return "batch_size";
  if (k == "gradient_accumulation_steps" || k == "grad_accum_steps" || k == "gradient_accumulation")
    return "grad_accum_steps";
  if (k == "max_seq_length" || k == "max_seq_len" || k == "seq_len" || k == "seq_length" || k == "block_size" ||
      k == "sequence_len" || k == "max_length")
    return "seq_len";
  if (k == "optim" || k == "optimizer") return "optimizer";
  if (k == "attn_implementation" || k == "attention_impl" || k == "attention_implementation") return "attention_impl";
  if (k == "gradient_checkpointing") return "gradient_checkpointing";
  if (k == "lora_r" || k == "lora_rank" ||
      (k == "r" && (parent == "lora" || parent == "peft" || parent == "lora_config")))
    return "lora_rank";
  if (k == "dataloader_num_workers" || (k == "num_workers" && parent != "eval")) return "dataloader_workers";
  if (k == "dataloader_pin_memory" || k == "pin_memory") return "dataloader_pin_memory";
  if (k == "dataloader_prefetch_factor" || k == "prefetch_factor") return "dataloader_prefetch_factor";
  if (k == "dataloader_persistent_workers" || k == "persistent_workers") return "dataloader_persistent_workers";
  if (k == "torch_compile" || (k == "compile" && parent != "model_kwargs")) return "torch_compile";
  if (k == "learning_rate" || k == "lr") return "lr";
  if (k == "warmup_steps") return "warmup_steps";
  if (k == "model_name_or_path" || k == "model_name" || k == "model_id" || k == "pretrained_model_name_or_path" ||
      (parent == "model" && (k == "name" || k == "path" || k == "id")) || (k == "model" && path.size() == 1))
    return "model_name";
  if (k == "tf32" || k == "allow_tf32") return "tf32";
  if (k == "bf16") return "precision.bf16";
  if (k == "fp16") return "precision.fp16";
  if (k == "precision" || k == "mixed_precision" || k == "amp_dtype") return "precision";
  if (k == "mode" || k == "task") return "mode";
  if (k == "detect_anomaly" || k == "anomaly_detection") return "anomaly_detection";
  if (k == "profiler_enabled" || k == "profile" || k == "torch_profiler") return "profiler_enabled";
  if (k == "world_size" || k == "nproc_per_node" || k == "num_gpus") return "world_size";
  return "";
}

}  // namespace goblin::config
