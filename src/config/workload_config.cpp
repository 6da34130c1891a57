#include "config/workload_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>

#include "config/command_line.h"
#include "config/config_source.h"
#include "config/knowledge.h"
#include "core/decimal.h"
#include "core/io.h"
#include "core/limits.h"
#include "core/text.h"
#include "model/warning_json.h"

namespace goblin::config {

const std::vector<FieldSpec>& config_fields() {
  static const std::vector<FieldSpec> kFields = {
      {"model_name", FieldType::String, {}, "model id or path"},
      {"mode", FieldType::Enum, {"training", "inference"}, "training or inference"},
      {"batch_size", FieldType::Int, {}, "per-device batch size"},
      {"grad_accum_steps", FieldType::Int, {}, "gradient accumulation steps"},
      {"seq_len", FieldType::Int, {}, "sequence length"},
      {"image_size", FieldType::Int, {}, "input image side in pixels (an image workload: throughput in images/s)"},
      {"precision", FieldType::Enum, {"fp32", "fp16", "bf16", "fp8"}, "compute precision (AMP dtype)"},
      {"tf32", FieldType::Bool, {}, "TF32 matmuls for fp32 (allow_tf32 / set_float32_matmul_precision)"},
      {"optimizer", FieldType::String, {}, "optimizer (HF optim name, e.g. adamw_torch_fused)"},
      {"attention_impl",
       FieldType::Enum,
       {"eager", "sdpa", "flash", "flash_rocm", "unknown"},
       "attention implementation"},
      {"gradient_checkpointing", FieldType::Bool, {}, "activation checkpointing"},
      {"lora_rank", FieldType::Int, {}, "LoRA rank r"},
      {"dataloader_workers", FieldType::Int, {}, "DataLoader num_workers"},
      {"dataloader_pin_memory", FieldType::Bool, {}, "DataLoader pin_memory"},
      {"dataloader_prefetch_factor", FieldType::Int, {}, "DataLoader prefetch_factor"},
      {"dataloader_persistent_workers", FieldType::Bool, {}, "DataLoader persistent_workers"},
      {"torch_compile", FieldType::Bool, {}, "torch.compile"},
      {"lr", FieldType::Number, {}, "learning rate"},
      {"warmup_steps", FieldType::Int, {}, "warmup steps"},
      {"world_size", FieldType::Int, {}, "number of GPUs / processes"},
      {"anomaly_detection", FieldType::Bool, {}, "torch.autograd anomaly detection"},
      {"profiler_enabled", FieldType::Bool, {}, "a profiler (torch.profiler, rocprofsys, nsys) wraps the run"},
      {"channels_last", FieldType::Bool, {}, "channels_last (NHWC) memory format for the model and its inputs"},
      {"cudnn_benchmark",
       FieldType::Bool,
       {},
       "torch.backends.cudnn.benchmark: cuDNN autotunes convolution algorithms"},
      {"log_interval", FieldType::Number, {}, "steps between loss logs (each log reads the loss on the host: a sync)"},
  };
  return kFields;
}

const FieldSpec* find_field(const std::string& name) {
  for (const auto& f : config_fields())
    if (name == f.name) return &f;
  return nullptr;
}

static bool valid_env_name(const std::string& n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  return std::all_of(n.begin(), n.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool is_known_field(const std::string& name) {
  if (name.rfind("env.", 0) == 0) return valid_env_name(name.substr(4));
  return find_field(name) != nullptr;
}

const char* config_format_name(ConfigFormat f) {
  if (f == kCommandFormat) return "command";
  switch (f) {
    case ConfigFormat::Yaml:
      return "yaml";
    case ConfigFormat::Json:
      return "json";
    case ConfigFormat::Python:
      return "python";
    case ConfigFormat::Env:
      return "env";
  }
  return "unknown";
}

Json WorkloadConfig::get(const std::string& field) const {
  if (field.rfind("env.", 0) == 0) {
    auto it = env_vars.find(field.substr(4));
    return it == env_vars.end() ? Json() : Json(it->second);
  }
  auto it = values.find(field);
  return it == values.end() ? Json() : it->second;
}

Status WorkloadConfig::set(const std::string& field, const Json& v) {
  if (field.rfind("env.", 0) == 0) {
    if (!valid_env_name(field.substr(4))) return make_error(ErrorKind::Usage, "bad environment variable: " + field);
    if (v.is_null()) {
      env_vars.erase(field.substr(4));
      return {};
    }
    env_vars[field.substr(4)] = v.is_string() ? v.get<std::string>() : v.dump();
    return {};
  }
  const FieldSpec* f = find_field(field);
  if (!f) return make_error(ErrorKind::Usage, "unknown WorkloadConfig field: " + field);
  if (v.is_null()) {
    values.erase(field);
    return {};
  }
  bool ok = false;
  switch (f->type) {
    case FieldType::String:
      ok = v.is_string();
      break;
    case FieldType::Int:
      ok = v.is_number_integer();
      break;
    case FieldType::Number:
      ok = v.is_number();
      break;
    case FieldType::Bool:
      ok = v.is_boolean();
      break;
    case FieldType::Enum:
      ok = v.is_string() &&
           std::find(f->enum_values.begin(), f->enum_values.end(), v.get<std::string>()) != f->enum_values.end();
      break;
  }
  if (!ok) return make_error(ErrorKind::Malformed, "value " + v.dump() + " does not fit field " + field);
  values[field] = v;
  return {};
}

Json config_to_json(const WorkloadConfig& c, bool with_origins) {
  Json j;
  j["source_file"] = c.source_file;
  j["format"] = config_format_name(c.format);
  for (const auto& f : config_fields()) j[f.name] = c.get(f.name);
  j["env_vars"] = Json::object();
  for (const auto& [k, v] : c.env_vars) j["env_vars"][k] = v;
  j["extras"] = Json::object();
  for (const auto& [k, v] : c.extras) j["extras"][k] = v;
  j["redactions"] = Json::array();
  for (const auto& r : c.redactions)
    j["redactions"].push_back({{"kind", r.kind}, {"line", r.line}, {"replacement", r.replacement}});
  j["warnings"] = warnings_to_json(c.warnings);  // model/warning_json.h: the one warning shape
  if (with_origins) {
    j["origins"] = Json::object();
    for (const auto& [k, o] : c.origins) {
      j["origins"][k] = {{"file", o.file}, {"line", o.line}, {"key", o.key}, {"context", o.context}};
      if (!o.expression.empty()) j["origins"][k]["expression"] = redact_text(o.expression);
    }
  }
  return j;
}

Result<WorkloadConfig> config_from_json(const Json& j) {
  if (!j.is_object()) return make_error(ErrorKind::Malformed, "WorkloadConfig JSON is not an object");
  WorkloadConfig c;
  if (j.contains("source_file") && j["source_file"].is_string()) c.source_file = j["source_file"];
  if (j.contains("format") && j["format"].is_string()) {
    std::string f = j["format"];
    c.format = f == "json"     ? ConfigFormat::Json
               : f == "python" ? ConfigFormat::Python
               : f == "env"    ? ConfigFormat::Env
                               : ConfigFormat::Yaml;
  }
  for (const auto& f : config_fields()) {
    if (!j.contains(f.name) || j[f.name].is_null()) continue;
    RETURN_IF_ERROR(c.set(f.name, j[f.name]));
  }
  if (j.contains("env_vars") && j["env_vars"].is_object())
    for (auto& [k, v] : j["env_vars"].items()) c.env_vars[k] = v.is_string() ? v.get<std::string>() : v.dump();
  if (j.contains("extras") && j["extras"].is_object())
    for (auto& [k, v] : j["extras"].items()) c.extras[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return c;
}

// ---- entries → WorkloadConfig -----------------------------------------------------------------

static std::string norm_precision(std::string v) {
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v.rfind("torch.", 0) == 0) v = v.substr(6);
  if (v == "bf16" || v == "bfloat16" || v == "bf16-mixed" || v == "bf16_mixed") return "bf16";
  if (v == "fp16" || v == "float16" || v == "half" || v == "16-mixed" || v == "16") return "fp16";
  if (v == "fp32" || v == "float32" || v == "float" || v == "no" || v == "32" || v == "32-true") return "fp32";
  if (v == "fp8" || v == "float8" || v == "float8_e4m3fn") return "fp8";
  return "";
}

static Json coerce(const FieldSpec& f, const Json& v) {
  switch (f.type) {
    case FieldType::Int:
      if (v.is_number_integer()) return v;
      if (v.is_number_float()) {
        // Only a whole number inside int64's range converts (1e94 from a config does not).
        if (auto x = whole_int64(v.get<double>())) return *x;
        return nullptr;
      }
      if (v.is_string()) {
        try {
          size_t pos = 0;
          long long x = std::stoll(v.get<std::string>(), &pos);
          if (pos == v.get<std::string>().size()) return static_cast<int64_t>(x);
        } catch (...) {
        }
      }
      return nullptr;
    case FieldType::Number:
      if (v.is_number()) return v;
      if (v.is_string()) {
        try {
          size_t pos = 0;
          double x = std::stod(v.get<std::string>(), &pos);
          if (pos == v.get<std::string>().size()) return x;
        } catch (...) {
        }
      }
      return nullptr;
    case FieldType::Bool:
      if (v.is_boolean()) return v;
      if (v.is_string()) {
        std::string s = v;
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
        if (s == "true" || s == "1" || s == "yes") return true;
        if (s == "false" || s == "0" || s == "no") return false;
      }
      if (v.is_number_integer()) return v.get<int64_t>() != 0;
      return nullptr;
    case FieldType::String:
      if (v.is_string()) return v;
      if (v.is_number()) return v.dump();
      return nullptr;
    case FieldType::Enum:
      return v.is_string() ? v : nullptr;
  }
  return nullptr;
}

static std::string path_str(const std::vector<std::string>& p) {
  std::string s;
  for (const auto& k : p) s += (s.empty() ? "" : ".") + k;
  return s;
}

// A config read with HF TrainingArguments semantics: a YAML/JSON file with at least one
// TrainingArguments-style training knob, or a Python script that calls TrainingArguments /
// SFTConfig (the calls whose kwargs the scanner maps). Env files and plain scripts are not.
static bool hf_training_arguments_shaped(const WorkloadConfig& c, const SourceScan& scan) {
  if (c.format == ConfigFormat::Env) return false;
  // A command line: only when the launched script is an HfArgumentParser one (or its line speaks
  // TrainingArguments); an argparse script's own defaults were read instead.
  if (c.format == kCommandFormat) return scan.launch.style == "hf";
  if (c.format == ConfigFormat::Python) {
    for (const auto& e : scan.entries)
      if (e.context.find("TrainingArguments") != std::string::npos || e.context == "SFTConfig" ||
          e.context == "GRPOConfig" || e.context == "DPOConfig")
        return true;
    return false;
  }
  for (const char* f : {"batch_size", "grad_accum_steps", "lr", "optimizer", "warmup_steps", "gradient_checkpointing",
                        "dataloader_workers", "torch_compile"})
    if (c.values.count(f)) return true;
  return false;
}

// A training-arguments call that also takes **kwargs: keywords goblin cannot see may be set there.
static const SourceAnchor* unpacking_training_call(const SourceScan& scan) {
  for (const auto& a : scan.anchors)
    if (a.kind == "python_call" && !a.path.empty() && !a.kwargs_unpack.empty() &&
        (a.path[0].find("TrainingArguments") != std::string::npos || a.path[0] == "SFTConfig" ||
         a.path[0] == "GRPOConfig" || a.path[0] == "DPOConfig" || a.path[0] == "ORPOConfig"))
      return &a;
  return nullptr;
}

static bool training_call_name(const std::string& n) {
  return n.find("TrainingArguments") != std::string::npos || n == "SFTConfig" || n == "GRPOConfig" ||
         n == "DPOConfig" || n == "ORPOConfig";
}

// A script that builds several training-arguments objects (a debug set, then the real one): the
// values of one are read, never a mix and never silently the first. The one passed to the
// trainer (`Trainer(args=NAME)`) when the scan saw it, else the last one built (a later call is
// the one a script overrides its defaults with). Returns the chosen anchor's index and says which
// and why in a warning; -1 when there are fewer than two.
static int64_t choose_training_call(const SourceScan& scan, const std::string& file, std::vector<Warning>& warnings) {
  std::vector<int64_t> calls;
  for (size_t i = 0; i < scan.anchors.size(); ++i) {
    const auto& a = scan.anchors[i];
    if (a.kind == "python_call" && !a.path.empty() && training_call_name(a.path[0]))
      calls.push_back(static_cast<int64_t>(i));
  }
  if (calls.size() < 2) return -1;
  int64_t chosen = -1;
  std::string why;
  if (!scan.trainer_args.empty())
    for (int64_t i : calls)
      if (scan.anchors[i].target == scan.trainer_args) chosen = i;  // the last assignment to that name
  if (chosen >= 0) {
    why = fmt::format("it builds `{}`, the arguments the trainer is given on line {}", scan.trainer_args,
                      scan.trainer_args_line);
  } else {
    chosen = calls.back();
    why = scan.trainer_args.empty()
              ? std::string("no trainer call names its arguments, so the last one built is read")
              : fmt::format("the trainer's `{}` (line {}) is none of them, so the last one built is read",
                            scan.trainer_args, scan.trainer_args_line);
  }
  std::string lines;
  for (int64_t i : calls)
    fmt::format_to(std::back_inserter(lines), "{}{}", lines.empty() ? "" : ", ", scan.anchors[i].line);
  warnings.push_back(make_warning(
      W::config_value_overridden,
      fmt::format("{}: lines {} each build training arguments; goblin reads the {}(...) of line {} because {}; "
                  "the others are ignored",
                  file, lines, scan.anchors[chosen].path[0], scan.anchors[chosen].line, why)));
  return chosen;
}

size_t utf8_bom_size(std::string_view text) { return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; }

Result<WorkloadConfig> parse_config_text(const std::string& text, ConfigFormat fmt, const std::string& file) {
  // A byte-order mark (editors on Windows write one) is not part of the first key: parse what
  // follows it, then give every offset back in the file's own bytes.
  if (const size_t bom = utf8_bom_size(text)) {
    auto c = parse_config_text(text.substr(bom), fmt, file);
    if (!c) {
      Error e = c.error();
      if (e.byte_offset >= 0) e.byte_offset += static_cast<int64_t>(bom);
      return e;
    }
    for (auto& [k, o] : c->origins) {
      if (o.begin >= 0) o.begin += static_cast<int64_t>(bom);
      if (o.end >= 0) o.end += static_cast<int64_t>(bom);
    }
    return c;
  }
  // Values end up in JSON output (which must be UTF-8): refuse a file that is not, naming the spot.
  if (auto bad = first_invalid_utf8(text)) {
    return make_error(ErrorKind::Malformed, fmt::format("not valid UTF-8 text (byte {}); save the file as UTF-8", *bad),
                      file, static_cast<int64_t>(*bad), line_of(text, static_cast<int64_t>(*bad)));
  }
  // A config is text: a NUL or other control byte means a binary or corrupted file (and a NUL
  // inside a key confuses the YAML/Python scanners), so stop at the first one.
  for (size_t i = 0; i < text.size(); ++i) {
    const auto ch = static_cast<unsigned char>(text[i]);
    if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7F) {
      return make_error(ErrorKind::Malformed,
                        fmt::format("control byte 0x{:02X} at byte {}: not a text config file", ch, i), file,
                        static_cast<int64_t>(i), line_of(text, static_cast<int64_t>(i)));
    }
  }
  ASSIGN_OR_RETURN(auto kn, config_knowledge());
  ASSIGN_OR_RETURN(auto scan, scan_source(text, fmt, file));
  WorkloadConfig c;
  c.source_file = file;
  c.format = fmt;
  c.warnings = scan.warnings;
  std::optional<bool> bf16, fp16;
  std::string explicit_precision;
  std::string precision_expression;  // a bf16=/fp16= whose value is an expression
  std::optional<bool> fused;         // python optimizer fused=
  auto origin = [&](const SourceEntry& e) {
    Origin o;
    o.file = e.file.empty() ? file : e.file;  // an argparse default: the script that declares it
    o.line = e.line;
    o.begin = e.begin;
    o.end = e.end;
    o.key = e.path.empty() ? "" : e.path.back();
    o.context = e.context.empty()
                    ? path_str(std::vector<std::string>(e.path.begin(), e.path.end() - (e.path.empty() ? 0 : 1)))
                    : e.context;
    return o;
  };
  const int64_t training_call = choose_training_call(scan, file, c.warnings);
  for (const auto& e : scan.entries) {
    // Several training-arguments calls: only the chosen one's keywords (and attribute writes to
    // its object) are read.
    if (training_call >= 0 && e.call_index >= 0 && e.call_index != training_call && training_call_name(e.context))
      continue;
    std::string field = kn->keys.field_for(e.path, e.context);
    Json v = e.value;
    if (v.is_string()) v = redact(v.get<std::string>(), e.line, &c.redactions);
    if (field.rfind("env.", 0) == 0) {
      std::string name = field.substr(4);
      std::string val = v.is_string() ? v.get<std::string>() : v.is_null() ? e.raw : v.dump();
      if (is_secret_key(name) && (is_redactable_secret_value(val) || val.find("<redacted>") != std::string::npos)) {
        c.redactions.push_back({"secret_env", e.line, "<redacted>"});
        val = "<redacted>";
      }
      c.env_vars[name] = val;
      c.origins[field] = origin(e);
      continue;
    }
    if (field == "precision.bf16" || field == "precision.fp16") {
      auto b = coerce(FieldSpec{"", FieldType::Bool, {}, ""}, v);
      auto& flag = field == "precision.bf16" ? bf16 : fp16;
      c.origins[field] = origin(e);
      if (b.is_boolean()) {
        flag = b.get<bool>();
      } else if (!e.literal || v.is_null()) {
        // bf16=USE_BF16: the precision depends on something goblin does not evaluate, so it is
        // unknown, never the HF default's "fp32".
        flag.reset();
        precision_expression = e.raw;
        c.origins[field].expression = e.raw;
        c.warnings.push_back(make_warning(
            W::config_expression_not_evaluated,
            fmt::format(
                "{}: line {}: {} = `{}` is an expression goblin does not evaluate; precision is unknown and a patch "
                "leaves it",
                file, e.line, e.path.back(), e.raw)));
      }
      continue;
    }
    if (field == "optimizer.fused") {
      auto b = coerce(FieldSpec{"", FieldType::Bool, {}, ""}, v);
      if (b.is_boolean()) fused = b.get<bool>();
      c.origins[field] = origin(e);
      continue;
    }
    if (field == "torch_compile.call") {  // a torch.compile(...) call in a script
      c.values["torch_compile"] = true;
      c.origins["torch_compile"] = origin(e);
      continue;
    }
    if (field == "profiler_enabled.call") {
      c.values["profiler_enabled"] = true;
      c.origins["profiler_enabled"] = origin(e);
      continue;
    }
    if (field == "gradient_checkpointing.call") {
      c.values["gradient_checkpointing"] = true;
      c.origins["gradient_checkpointing"] = origin(e);
      continue;
    }
    if (field.empty()) {
      std::string key = path_str(e.path);
      if (!e.context.empty() && e.context != "yaml" && e.context != "json") key = e.context + "." + key;
      std::string val = v.is_string() ? v.get<std::string>() : v.is_null() ? redact(e.raw, e.line, nullptr) : v.dump();
      // By key name too: wandb_api_key, aws_secret_access_key, a password hold secrets of any shape.
      const std::string& leaf = e.path.empty() ? key : e.path.back();
      const std::string last_word = leaf.substr(leaf.rfind('.') == std::string::npos ? 0 : leaf.rfind('.') + 1);
      if ((is_secret_key(leaf) || is_secret_key(last_word)) && is_redactable_secret_value(val)) {
        c.redactions.push_back({"secret_key", e.line, "<redacted>"});
        val = "<redacted>";
      }
      c.extras[key] = val;
      continue;
    }
    const FieldSpec* spec = find_field(field);
    if (!spec) continue;
    if (!e.literal || v.is_null()) {
      c.warnings.push_back(make_warning(
          W::config_expression_not_evaluated,
          fmt::format("{}: line {}: {} = `{}` is an expression goblin does not evaluate; its value is unknown and a "
                      "patch leaves it",
                      file, e.line, field, e.raw)));
      c.origins[field] = origin(e);
      c.origins[field].expression = e.raw;
      if (e.overrides) c.values.erase(field);  // the call's keyword is no longer what runs
      continue;
    }
    Json cv;
    if (field == "precision") {
      std::string p = v.is_string() ? norm_precision(v.get<std::string>()) : "";
      if (p.empty()) {
        c.warnings.push_back(
            make_warning(W::config_unrecognised_precision,
                         fmt::format("{}: line {}: unrecognised precision {}", file, e.line, v.dump())));
        continue;
      }
      explicit_precision = p;
      c.origins["precision"] = origin(e);
      continue;
    } else if (field == "attention_impl") {
      cv = Json(v.is_string() ? kn->attention.normalise(v.get<std::string>()) : kn->attention.unknown);
    } else if (field == "tf32" && v.is_string()) {  // set_float32_matmul_precision("high")
      std::string s = v;
      cv = (s == "high" || s == "medium");
      if (s != "high" && s != "medium" && s != "highest") cv = coerce(*spec, v);
    } else {
      cv = coerce(*spec, v);
    }
    if (cv.is_null()) {
      c.warnings.push_back(make_warning(
          W::config_invalid_value,
          fmt::format("{}: line {}: {} = {} is not a valid value; left unset", file, e.line, field, v.dump())));
      continue;
    }
    if (e.overrides) {  // `args.X = v` after the call: this is the value the script runs with
      if (c.values.count(field) && c.values[field] != cv)
        c.warnings.push_back(make_warning(
            W::config_value_overridden,
            fmt::format(
                "{}: line {}: {} = {} overrides the value the call set (line {}); the later assignment is the one the "
                "script runs with",
                file, e.line, field, e.raw, c.origins[field].line)));
      c.values[field] = cv;
      c.origins[field] = origin(e);
      continue;
    }
    if (c.values.count(field) && c.values[field] != cv)
      c.warnings.push_back(make_warning(
          W::config_set_twice, fmt::format("{}: line {}: {} set more than once; keeping the first (line {})", file,
                                           e.line, field, c.origins[field].line)));

    if (c.values.count(field)) continue;
    c.values[field] = cv;
    c.origins[field] = origin(e);
  }
  if (!explicit_precision.empty())
    c.values["precision"] = explicit_precision;
  else if (bf16 && *bf16)
    c.values["precision"] = "bf16";
  else if (fp16 && *fp16)
    c.values["precision"] = "fp16";
  else if (!precision_expression.empty())
    ;  // unknown: a flag goblin did not evaluate may turn bf16 or fp16 on
  else if (bf16 || fp16)
    c.values["precision"] = "fp32";
  else if (const SourceAnchor* u = unpacking_training_call(scan))
    c.warnings.push_back(
        make_warning(W::config_precision_from_kwargs,
                     fmt::format("{}: line {}: {}(...) takes {}, which may set bf16 or fp16; precision is unknown",
                                 file, u->line, u->path[0], u->kwargs_unpack)));
  else if (hf_training_arguments_shaped(c, scan)) {
    // HF TrainingArguments semantics: bf16 and fp16 both default to False, so a config that sets
    // neither trains in fp32 (docs/audit.md § parse-config). The origin says it is a default.
    c.values["precision"] = "fp32";
    Origin o;
    o.file = file;
    o.key = "bf16/fp16 not set";
    o.context = "HF default";
    c.origins["precision"] = o;
  }
  if (fused && c.values.count("optimizer")) {
    std::string o = c.values["optimizer"];
    if (*fused && o.find("fused") == std::string::npos) c.values["optimizer"] = o + "_fused";
  }
  // A warning quotes source text (an expression goblin did not evaluate): redact it like a value.
  for (auto& w : c.warnings) w.message = redact_text(w.message);
  // What the scanners decoded must still be UTF-8 (it goes to JSON). yaml-cpp 0.7 decodes the
  // YAML escapes \_ \N \L \P to bare Latin-1 bytes (found by fuzz_config), so check here, at
  // the parser's boundary, rather than let output fail later.
  try {
    (void)config_to_json(c).dump();
  } catch (const Json::exception&) {
    return make_error(ErrorKind::Malformed,
                      "a decoded value is not valid UTF-8 (YAML escapes such as \\_ or \\N decode to Latin-1 bytes); "
                      "write the character itself instead of the escape",
                      file);
  }
  return c;
}

ConfigFormat sniff_config_format(const std::string& path, const std::string& text) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
  std::string base = std::filesystem::path(path).filename().string();
  // A shell script, Slurm batch script, Makefile or README holding a launch command: its flags.
  if ((ext == ".sh" || ext == ".bash" || ext == ".sbatch" || ext == ".slurm" || ext == ".md" || ext == ".mk" ||
       ascii_lower(base) == "makefile" || ascii_lower(base) == "gnumakefile") &&
      holds_launch_command(path, text))
    return kCommandFormat;
  if (ext == ".yaml" || ext == ".yml") return ConfigFormat::Yaml;
  if (ext == ".json") return ConfigFormat::Json;
  if (ext == ".py") return ConfigFormat::Python;
  if (ext == ".env" || ext == ".sh" || base == ".env" || base.rfind(".env", 0) == 0) return ConfigFormat::Env;
  size_t i = text.find_first_not_of(" \t\r\n", utf8_bom_size(text));
  if (i != std::string::npos && text[i] == '{') return ConfigFormat::Json;
  if (text.find("import ") != std::string::npos || text.find("def ") != std::string::npos) return ConfigFormat::Python;
  if (text.find("export ") != std::string::npos) return ConfigFormat::Env;
  return ConfigFormat::Yaml;
}

Result<WorkloadConfig> parse_config_file(const std::string& path) {
  ASSIGN_OR_RETURN(auto text, read_all(path, IoLimits{.max_inflated_bytes = limits::kMaxConfigBytes}));
  if (text.find('\0') != std::string::npos)
    return make_error(ErrorKind::UnknownFormat,
                      "binary content; expected a YAML, JSON, Python or env config or a shell script", path,
                      static_cast<int64_t>(text.find('\0')));
  return parse_config_text(text, sniff_config_format(path, text), path);
}

std::string throughput_unit(const WorkloadConfig& c) {
  if (c.has("seq_len")) return "tokens";
  if (c.has("image_size")) return "images";
  if (c.has("batch_size")) return "samples";
  return "tokens";
}

std::optional<double> items_per_step(const WorkloadConfig& c) {
  const Json b = c.get("batch_size"), q = c.get("seq_len"), g = c.get("grad_accum_steps");
  if (!b.is_number()) return std::nullopt;
  const double accum = g.is_number() ? g.get<double>() : 1.0;
  if (throughput_unit(c) == "tokens") {
    if (!q.is_number()) return std::nullopt;
    return b.get<double>() * q.get<double>() * accum;
  }
  return b.get<double>() * accum;
}

std::string config_to_text(const WorkloadConfig& c) {
  std::string os = fmt::format("WorkloadConfig from {} ({})\n", c.source_file, config_format_name(c.format));
  auto out = std::back_inserter(os);
  for (const auto& f : config_fields()) {
    Json v = c.get(f.name);
    fmt::format_to(out, "  {}: {}", f.name, v.is_null() ? "(unset)" : v.is_string() ? v.get<std::string>() : v.dump());
    auto it = c.origins.find(f.name);
    // A command line's argparse default names the script it comes from.
    if (it != c.origins.end() && it->second.line > 0 && !it->second.file.empty() && it->second.file != c.source_file)
      fmt::format_to(out, "    [{} line {}, {}]", std::filesystem::path(it->second.file).filename().string(),
                     it->second.line, it->second.key);
    else if (it != c.origins.end() && it->second.line > 0)
      fmt::format_to(out, "    [line {}, {}]", it->second.line, it->second.key);
    else if (it != c.origins.end() && !it->second.context.empty())
      fmt::format_to(out, "    [{}: {}]", it->second.context, it->second.key);
    os += "\n";
  }
  if (!c.env_vars.empty()) {
    os += "  env_vars:\n";
    for (const auto& [k, v] : c.env_vars) fmt::format_to(out, "    {}={}\n", k, v);
  }
  if (!c.extras.empty()) fmt::format_to(out, "  extras: {} other keys (see --json)\n", c.extras.size());
  for (const auto& r : c.redactions) fmt::format_to(out, "  redacted {} on line {}\n", r.kind, r.line);
  for (const auto& w : c.warnings) fmt::format_to(out, "  warning: {}\n", w.message);
  return os;
}

}  // namespace goblin::config
